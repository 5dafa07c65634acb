package dev.tenantmq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.tenantmq.config.MqConfig;
import dev.tenantmq.domain.ConsumeService;
import dev.tenantmq.model.ConsumerGroup;
import dev.tenantmq.model.FieldError;
import dev.tenantmq.model.InvalidRequestException;
import dev.tenantmq.model.Tenant;
import dev.tenantmq.model.Topic;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The domain enforces the consume limits ({@code model.ConsumeLimits}) for every caller, not only
 * behind the HTTP validator, with the same field names and messages.
 */
@QuarkusTest
class DomainLimitsTest {
    @Inject
    ConsumeService consume;
    @Inject
    MqConfig config;

    private final Tenant tenant = new Tenant(TestIds.tenant());
    private final Topic topic = new Topic(TestIds.topic());
    private final ConsumerGroup group = new ConsumerGroup(TestIds.group());

    private static List<FieldError> problems(Runnable call) {
        return assertThrows(InvalidRequestException.class, call::run).errors();
    }

    @Test
    void a_fetch_above_the_configured_batch_limit_is_refused_by_the_domain() {
        int max = config.fetch().maxMessages();
        var fetch = new ConsumeService.Fetch(tenant, topic, group, max + 1, 1024, Duration.ZERO, Duration.ofSeconds(30));
        assertEquals(List.of(new FieldError("maxMessages", "must be between 1 and " + max + " (got " + (max + 1) + ")")),
                problems(() -> consume.fetch(fetch)));
    }

    @Test
    void a_fetch_above_the_configured_byte_budget_ceiling_is_refused_by_the_domain() {
        int max = config.fetch().maxBytes();
        var fetch = new ConsumeService.Fetch(tenant, topic, group, 1, max + 1, Duration.ZERO, Duration.ofSeconds(30));
        assertEquals(List.of(new FieldError("maxBytes", "must be between 1 and " + max + " payload bytes (got " + (max + 1)
                + "; mq.fetch.max-bytes is the ceiling)")), problems(() -> consume.fetch(fetch)));
    }

    @Test
    void an_extend_out_of_range_is_refused_by_the_domain() {
        assertEquals(List.of(new FieldError("visibilitySeconds", "must be between 1 and 43200 (got 0)")),
                problems(() -> consume.extend(tenant, topic, group, List.of("r"), Duration.ZERO)));
    }

    @Test
    void a_nack_out_of_range_is_refused_by_the_domain() {
        assertEquals(List.of(new FieldError("delaySeconds", "must be between 0 and 43200 (got 43201)"),
                        new FieldError("reason", "must be at most 1024 Unicode code points, well-formed (got 1025)")),
                problems(() -> consume.nack(tenant, topic, group, List.of("r"), Optional.of(Duration.ofSeconds(43_201)),
                        "x".repeat(1025))));
    }
}
