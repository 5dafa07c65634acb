package dev.tenantmq.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The limits of fetch, extend and nack (SPEC section 4), with the exact problem+json entries they make. */
class ConsumeLimitsTest {
    private static final Duration S30 = Duration.ofSeconds(30);

    @Test
    void a_fetch_within_its_limits_has_no_problem() {
        assertEquals(List.of(), ConsumeLimits.fetchProblems(1, 1000, 1, 1, Duration.ZERO, Duration.ofSeconds(1)));
        assertEquals(List.of(), ConsumeLimits.fetchProblems(1000, 1000, 1, 1, S30, Duration.ofSeconds(43_200)));
    }

    @Test
    void a_fetch_out_of_range_names_each_field_in_order_with_its_range_and_value() {
        assertEquals(List.of(
                        new FieldError("maxMessages", "must be between 1 and 1000 (got 0)"),
                        new FieldError("waitSeconds", "must be between 0 and 30 (got 31)"),
                        new FieldError("visibilitySeconds", "must be between 1 and 43200 (got 0)")),
                ConsumeLimits.fetchProblems(0, 1000, 1, 1, Duration.ofSeconds(31), Duration.ZERO));
        assertEquals(List.of(new FieldError("maxMessages", "must be between 1 and 1000 (got 1001)"),
                        new FieldError("waitSeconds", "must be between 0 and 30 (got -1)"),
                        new FieldError("visibilitySeconds", "must be between 1 and 43200 (got 43201)")),
                ConsumeLimits.fetchProblems(1001, 1000, 1, 1, Duration.ofSeconds(-1), Duration.ofSeconds(43_201)));
    }

    @Test
    void a_receipt_with_a_lone_surrogate_is_a_problem_named_for_its_index() {
        assertEquals(List.of(new FieldError("receipts[1]", "must be well-formed Unicode (it holds a lone surrogate)"),
                        new FieldError("receipts[2]", "must be well-formed Unicode (it holds a lone surrogate)")),
                ConsumeLimits.receiptProblems(List.of("r\uD83D\uDE00", "r\uD800", "\uDC00r")));
        assertEquals(List.of(new FieldError("ack[0]", "must be well-formed Unicode (it holds a lone surrogate)")),
                ConsumeLimits.receiptProblems("ack", List.of("\uD800")));
    }

    @Test
    void a_duration_with_a_fraction_of_a_second_is_judged_and_printed_exactly() {
        assertEquals(List.of(new FieldError("waitSeconds", "must be between 0 and 30 (got 30.5)")),
                ConsumeLimits.fetchProblems(1, 1, 1, 1, Duration.ofMillis(30_500), S30));
        assertEquals(Optional.of(new FieldError("visibilitySeconds", "must be between 1 and 43200 (got 0.999)")),
                ConsumeLimits.visibilityProblem(Duration.ofMillis(999)));
    }

    @Test
    void a_missing_visibility_is_required() {
        assertEquals(Optional.of(new FieldError("visibilitySeconds", "is required (1..43200 seconds)")),
                ConsumeLimits.visibilityProblem(null));
        assertEquals(Optional.empty(), ConsumeLimits.visibilityProblem(S30));
    }

    @Test
    void a_nack_delay_and_reason_have_their_limits() {
        assertEquals(List.of(), ConsumeLimits.nackProblems(Optional.empty(), null));
        assertEquals(List.of(), ConsumeLimits.nackProblems(Optional.of(Duration.ZERO), "x".repeat(1024)));
        assertEquals(List.of(), ConsumeLimits.nackProblems(Optional.of(Duration.ofSeconds(43_200)),
                "\uD83D\uDE00".repeat(1024)));
        String tooLong = "must be at most 1024 Unicode code points, well-formed (got 1025)";
        assertEquals(List.of(new FieldError("delaySeconds", "must be between 0 and 43200 (got 43201)"),
                        new FieldError("reason", tooLong)),
                ConsumeLimits.nackProblems(Optional.of(Duration.ofSeconds(43_201)), "x".repeat(1025)));
        assertEquals(List.of(new FieldError("delaySeconds", "must be between 0 and 43200 (got -1)")),
                ConsumeLimits.nackProblems(Optional.of(Duration.ofSeconds(-1)), "ok"));
        assertEquals(List.of(new FieldError("reason",
                        "must be at most 1024 Unicode code points, well-formed (it holds a lone surrogate)")),
                ConsumeLimits.nackProblems(Optional.empty(), "\uD800"));
    }

    @Test
    void require_throws_every_problem_in_order_and_passes_none() {
        ConsumeLimits.require(List.of());
        List<FieldError> problems = ConsumeLimits.fetchProblems(0, 10, 1, 1, Duration.ofSeconds(31), S30);
        InvalidRequestException e = assertThrows(InvalidRequestException.class, () -> ConsumeLimits.require(problems));
        assertEquals(problems, e.errors());
    }

    @Test
    void a_byte_budget_out_of_its_range_names_max_bytes_and_the_ceiling() {
        assertEquals(List.of(), ConsumeLimits.fetchProblems(1, 10, 1, 1024, S30, S30));
        assertEquals(List.of(), ConsumeLimits.fetchProblems(1, 10, 1024, 1024, S30, S30));
        for (int bad : new int[] {0, -1, 1025}) {
            assertEquals(List.of(new FieldError("maxBytes", "must be between 1 and 1024 payload bytes (got " + bad
                    + "; mq.fetch.max-bytes is the ceiling)")), ConsumeLimits.fetchProblems(1, 10, bad, 1024, S30, S30));
        }
    }
}
