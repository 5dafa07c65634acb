package dev.tenantmq.domain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.tenantmq.model.ConsumerGroup;
import dev.tenantmq.model.InvalidRequestException;
import dev.tenantmq.model.Tenant;
import dev.tenantmq.model.Topic;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A fetch checks its own limits when made, whoever makes it, not only the HTTP validator. */
class FetchLimitsTest {
    private static ConsumeService.Fetch fetch(int maxMessages, Duration wait, Duration visibility) {
        return new ConsumeService.Fetch(new Tenant("t"), new Topic("orders"), new ConsumerGroup("g"), maxMessages, 1024, wait,
                visibility);
    }

    @Test
    void a_fetch_within_its_limits_is_made() {
        assertEquals(5, fetch(5, Duration.ofSeconds(30), Duration.ofSeconds(1)).maxMessages());
    }

    @Test
    void a_fetch_out_of_its_limits_cannot_be_made() {
        InvalidRequestException e = assertThrows(InvalidRequestException.class,
                () -> fetch(0, Duration.ofSeconds(31), Duration.ofHours(13)));
        assertEquals(List.of("maxMessages", "waitSeconds", "visibilitySeconds"),
                e.errors().stream().map(dev.tenantmq.model.FieldError::field).toList());
        assertThrows(InvalidRequestException.class, () -> fetch(1, Duration.ofSeconds(-1), Duration.ofSeconds(1)));
        assertThrows(InvalidRequestException.class, () -> fetch(1, Duration.ZERO, Duration.ZERO));
        assertThrows(InvalidRequestException.class, () -> fetch(1, null, Duration.ofSeconds(1)));
    }
}
