package dev.tenantmq.store;

import java.nio.charset.StandardCharsets;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;

/**
 * Reads of text and timestamp columns in the fetch's scan without the driver's conversions
 * (docs/architecture.md, "Rows into responses"). Connector/J 9 builds a new value factory for
 * every {@code getString}, which looks a connection property up in a hash map, and converts a
 * DATETIME through another; in JFR profiles of the benchmark's consume run the two took about 8%
 * of the service's CPU samples, where {@code getBytes} of the 1 KiB payloads took 0.2%. So the
 * scan reads the bytes and decodes them here.
 *
 * <p>Every text column of the schema is {@code utf8mb4} or {@code ascii} (migrations V1 to V9),
 * and the driver hands a column's bytes over as the server sent them, in that character set, so
 * they are UTF-8 (the payload has always been read this way: {@code model.Utf8Json}).
 */
final class ColumnReads {
    private ColumnReads() {}

    /**
     * The text of column {@code column} (1-based) of the current row, or null for SQL NULL: its
     * bytes decoded as UTF-8.
     */
    static String text(ResultSet rs, int column) throws SQLException {
        byte[] bytes = rs.getBytes(column);
        return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
    }

    /**
     * The instant of a DATETIME column selected as text ({@code CAST(... AS CHAR)}), read as UTC
     * (every stored time is {@code UTC_TIMESTAMP}), or null for SQL NULL.
     *
     * @throws SQLException when the text is not {@code yyyy-MM-dd HH:mm:ss[.f...]}
     */
    static Instant utcInstant(ResultSet rs, int column) throws SQLException {
        byte[] bytes = rs.getBytes(column);
        return bytes == null ? null : utcInstant(bytes);
    }

    /**
     * Parses the text MariaDB and MySQL print for a DATETIME: {@code yyyy-MM-dd HH:mm:ss},
     * then, for a column with fractional seconds, a point and 1 to 6 digits (DATETIME(6) prints
     * all six).
     *
     * @throws SQLException when {@code text} has another form
     */
    static Instant utcInstant(byte[] text) throws SQLException {
        int n = text.length;
        if (n < 19 || text[4] != '-' || text[7] != '-' || text[10] != ' ' || text[13] != ':' || text[16] != ':'
                || (n > 19 && (text[19] != '.' || n == 20 || n > 26))) {
            throw notADateTime(text);
        }
        int nanos = 0;
        for (int i = 20; i < 29; i++) {
            nanos = nanos * 10 + (i < n ? digit(text, i) : 0);
        }
        try {
            return LocalDateTime.of(digits(text, 0, 4), digits(text, 5, 2), digits(text, 8, 2),
                    digits(text, 11, 2), digits(text, 14, 2), digits(text, 17, 2), nanos).toInstant(ZoneOffset.UTC);
        } catch (java.time.DateTimeException e) {
            throw notADateTime(text);
        }
    }

    private static int digits(byte[] text, int from, int count) throws SQLException {
        int value = 0;
        for (int i = from; i < from + count; i++) {
            value = value * 10 + digit(text, i);
        }
        return value;
    }

    private static int digit(byte[] text, int i) throws SQLException {
        int d = text[i] - '0';
        if (d < 0 || d > 9) {
            throw notADateTime(text);
        }
        return d;
    }

    private static SQLException notADateTime(byte[] text) {
        return new SQLException("not a DATETIME as text: '" + new String(text, StandardCharsets.UTF_8) + "'");
    }
}
