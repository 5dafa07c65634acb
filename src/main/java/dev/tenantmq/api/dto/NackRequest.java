package dev.tenantmq.api.dto;

import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import dev.tenantmq.api.NullRejecting;
import dev.tenantmq.model.ConsumeLimits;
import java.util.List;

/**
 * Body of nack: the receipts of deliveries that failed. {@code delaySeconds} and {@code reason} are
 * optional; an explicit null is 400 ({@link NullRejecting}).
 *
 * @param receipts 1..1000 receipts
 * @param delaySeconds redelivery delay in seconds, 0..43200; absent means exponential backoff
 *     ({@code mq.nack.backoff-base} doubling per attempt up to {@code mq.nack.backoff-cap})
 * @param reason why processing failed, at most 1024 characters; becomes
 *     {@code dead_letter_reason} when the nack dead-letters the message (absent, empty or blank:
 *     {@code nacked}, docs/api.md, "Failures: nack, retries and dead letters")
 */
public record NackRequest(List<String> receipts,
                          @JsonDeserialize(using = NullRejecting.class)
                          @IntegerRange(min = 0, max = ConsumeLimits.MAX_DELAY_SECONDS) Integer delaySeconds,
                          @JsonDeserialize(using = NullRejecting.class) String reason) {}
