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

    /** The form is right and the time is not: the answer says which part names nothing. */
    @Test
    void a_time_of_the_right_form_that_does_not_exist_is_refused_for_that_and_not_for_its_form() {
        assertEquals("names a date that does not exist: February 2026 has days 01 to 28 (got 2026-02-30T01:00:00Z)",
                Rfc3339.read("2026-02-30T01:00:00Z").problem());
        assertEquals(Instant.parse("2028-02-29T01:00:00Z"), Rfc3339.read("2028-02-29T01:00:00Z").instant(), "a leap year");
        assertEquals("names a date that does not exist: a month is 01 to 12 (got 2026-13-05T01:00:00Z)",
                Rfc3339.read("2026-13-05T01:00:00Z").problem());
        assertEquals("names a date that does not exist: December 2026 has days 01 to 31 (got 2026-12-00T01:00:00Z)",
                Rfc3339.read("2026-12-00T01:00:00Z").problem());
        assertEquals("names a time that does not exist: an hour is 00 to 23 (got 2026-12-05T24:00:00Z)",
                Rfc3339.read("2026-12-05T24:00:00Z").problem());
        assertEquals("names a time that does not exist: a minute is 00 to 59 (got 2026-12-05T01:60:00Z)",
                Rfc3339.read("2026-12-05T01:60:00Z").problem());
        assertEquals("names a time that does not exist: a second is 00 to 59, or 60 for a leap second"
                + " (got 2026-12-05T01:00:61Z)", Rfc3339.read("2026-12-05T01:00:61Z").problem());
        assertEquals("names an offset that does not exist: an offset is at most 18:00 hours, and its minutes are 00 to 59"
                + " (got 2026-12-05T01:00:00+19:00)", Rfc3339.read("2026-12-05T01:00:00+19:00").problem());
        assertEquals("must be an RFC 3339 date-time with an offset such as 2026-12-02T05:00:00Z, not the string \"tomorrow\"",
                Rfc3339.read("tomorrow").problem());
    }

    /** DATETIME(6) holds the years 1000 to 9999; every time a request gives is held to them. */
    @Test
    void read_takes_the_years_the_database_stores_and_names_them_for_any_other() {
        assertEquals(Instant.parse("1000-01-01T00:00:00Z"), Rfc3339.read("1000-01-01T00:00:00Z").instant());
        assertEquals(Instant.parse("9999-12-31T23:59:59.999999999Z"),
                Rfc3339.read("9999-12-31T23:59:59.999999999Z").instant());
        for (String outside : new String[] {"0999-12-31T23:59:59.999999Z", "0001-01-01T00:00:00Z",
            "+10000-01-01T00:00:00Z", "9999-12-31T23:00:00-05:00", "1000-01-01T00:30:00+01:00"}) {
            Rfc3339.Reading r = Rfc3339.read(outside);
            assertEquals(Rfc3339.parse(outside), r.instant(), outside);
            assertEquals("must be in the years 1000 to 9999 (UTC), the times the database stores (got " + outside + ")",
                    r.problem());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"2026-12-05T01:00:00+05:30:15", "2026-12-05T01:00Z", "2026-12-05T01:00:00",
        "2026-12-05 01:00:00Z", "2026-12-05T01:00:00.Z", "2026-12-05T01:00:00+0530", "2026-12-05T01:00:00+19:00", "20260-12-05T01:00:00Z",
        "2026-13-05T01:00:00Z", "2026-02-30T01:00:00Z", "2026-12-05T24:00:00Z", "2026-12-05T01:00:61Z", ""})
    void refuses_what_is_not_an_rfc_3339_date_time(String text) {
        assertThrows(DateTimeParseException.class, () -> Rfc3339.parse(text));
    }
}
