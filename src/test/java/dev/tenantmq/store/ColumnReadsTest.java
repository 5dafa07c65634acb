package dev.tenantmq.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The scan's own parse of a DATETIME printed as text ({@link ColumnReads#utcInstant(byte[])}). */
class ColumnReadsTest {
    private static Instant parse(String text) throws SQLException {
        return ColumnReads.utcInstant(text.getBytes(StandardCharsets.US_ASCII));
    }

    @Test
    void a_datetime_with_microseconds_is_that_instant_in_utc() throws SQLException {
        assertEquals(Instant.parse("2026-12-07T13:04:05.123456Z"), parse("2026-12-07 13:04:05.123456"));
        assertEquals(Instant.parse("2026-12-07T13:04:05.000001Z"), parse("2026-12-07 13:04:05.000001"));
    }

    @Test
    void fewer_fraction_digits_and_none_are_read_as_the_database_prints_them() throws SQLException {
        assertEquals(Instant.parse("1970-01-01T00:00:00Z"), parse("1970-01-01 00:00:00"));
        assertEquals(Instant.parse("2024-02-29T23:59:59.500Z"), parse("2024-02-29 23:59:59.5"));
        assertEquals(Instant.parse("2024-02-29T23:59:59.120Z"), parse("2024-02-29 23:59:59.120"));
    }

    @Test
    void any_other_text_is_an_error_naming_it() {
        for (String bad : new String[] {"", "2026-12-07", "2026-12-07T13:04:05", "2026-12-07 13:04:05.",
                "2026-12-07 13:04:05.1234567", "2026-13-07 13:04:05", "2026-02-30 13:04:05", "2026-12-07 1x:04:05",
                "2026-12-07 13:04:05Z"}) {
            SQLException e = assertThrows(SQLException.class, () -> parse(bad), bad);
            assertEquals("not a DATETIME as text: '" + bad + "'", e.getMessage());
        }
    }
}
