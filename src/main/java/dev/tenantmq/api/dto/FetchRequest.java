package dev.tenantmq.api.dto;

import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import dev.tenantmq.api.NullRejecting;
import dev.tenantmq.model.ConsumeLimits;
import java.util.List;

/**
 * Body of lease-fetch; every field is optional: absent means the default, an explicit null is 400
 * ({@link NullRejecting}).
 *
 * @param maxMessages 1..1000, default 10
 * @param maxBytes byte budget: most payload bytes (UTF-8 JSON text as stored) the response carries, 1..
 *     {@code mq.fetch.max-bytes} (50 MiB), default {@code mq.fetch.default-max-bytes} (8 MiB); the first message
 *     goes even when it is larger (docs/api.md, "Lease-fetch")
 * @param waitSeconds long-poll wait in seconds, 0..30, default 0
 * @param visibilitySeconds how long delivered messages stay invisible, in seconds, 1..43200, default 30
 * @param ack receipts to acknowledge before the fetch looks, 0..1000, each as in an ack's {@code receipts};
 *     absent means none (docs/api.md, "Fetch and ack in one call")
 */
public record FetchRequest(@JsonDeserialize(using = NullRejecting.class)
                           @IntegerRange(min = 1, max = 1000, maxSetting = "mq.fetch.max-messages") Integer maxMessages,
                           @JsonDeserialize(using = NullRejecting.class)
                           @IntegerRange(min = 1, max = 52_428_800, maxSetting = "mq.fetch.max-bytes",
                                   unit = "payload bytes") Integer maxBytes,
                           @JsonDeserialize(using = NullRejecting.class)
                           @IntegerRange(min = 0, max = ConsumeLimits.MAX_WAIT_SECONDS) Integer waitSeconds,
                           @JsonDeserialize(using = NullRejecting.class)
                           @IntegerRange(min = 1, max = ConsumeLimits.MAX_VISIBILITY_SECONDS) Integer visibilitySeconds,
                           @JsonDeserialize(using = NullRejecting.class) List<String> ack) {}
