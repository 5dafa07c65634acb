package dev.tenantmq.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The one reading of a time the API takes (RFC 3339, section 5.6). */
class Rfc3339Test {
    @Test
    void reads_the_forms_of_the_rfc() {
        assertEquals(Instant.parse("2026-12-05T01:00:00Z"), Rfc3339.parse("2026-12-05T01:00:00Z"));
        assertEquals(Instant.parse("2026-12-05T01:00:00Z"), Rfc3339.parse("2026-12-05t01:00:00z"), "t and z in lower case");
        assertEquals(Instant.parse("2026-12-04T19:30:00Z"), Rfc3339.parse("2026-12-05T01:00:00+05:30"));
        assertEquals(Instant.parse("2026-12-05T01:00:00.123456Z"), Rfc3339.parse("2026-12-05T01:00:00.123456Z"));
    }

    @Test
    void reads_an_expanded_year_so_that_a_time_past_9999_can_be_refused_for_its_bound() {
        assertEquals(Instant.parse("+10000-01-01T00:00:00Z"), Rfc3339.parse("+10000-01-01T00:00:00Z"));
    }

    @Test
    void a_leap_second_is_the_second_before_it_and_a_fraction_is_cut_to_nanoseconds() {
        assertEquals(Instant.parse("2016-12-31T23:59:59Z"), Rfc3339.parse("2016-12-31T23:59:60Z"));
        assertEquals(Instant.parse("2026-12-05T01:00:00.123456789Z"), Rfc3339.parse("2026-12-05T01:00:00.1234567891234Z"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"2026-12-05T01:00:00+05:30:15", "2026-12-05T01:00Z", "2026-12-05T01:00:00",
        "2026-12-05 01:00:00Z", "2026-12-05T01:00:00.Z", "2026-12-05T01:00:00+0530", "2026-12-05T01:00:00+19:00", "20260-12-05T01:00:00Z",
        "2026-13-05T01:00:00Z", "2026-02-30T01:00:00Z", "2026-12-05T24:00:00Z", "2026-12-05T01:00:61Z", ""})
    void refuses_what_is_not_an_rfc_3339_date_time(String text) {
        assertThrows(DateTimeParseException.class, () -> Rfc3339.parse(text));
    }
}
