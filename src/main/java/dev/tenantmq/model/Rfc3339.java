package dev.tenantmq.model;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads an RFC 3339 {@code date-time} (section 5.6), the one form the API takes for a time
 * ({@code deliverAt}, a reset's {@code toDatetime}; docs/api.md, "Delayed delivery"). Java's ISO
 * parser is both looser and stricter than the RFC: it takes an offset with seconds
 * ({@code +05:30:15}) and a date-time without seconds, and refuses a leap second
 * ({@code 23:59:60}) and a fraction of more than nine digits. Here the text must match the RFC's
 * grammar; a leap second is read as the second before it, and a fraction is cut to nanoseconds.
 * Two readings go past the RFC, as Java's parser does: a year of ISO 8601's expanded form
 * ({@code +10000}), so that a time past year 9999 is refused for the bound it breaks rather than
 * as unreadable, and offsets only up to 18 hours ({@link java.time.ZoneOffset}'s range).
 */
public final class Rfc3339 {
    /**
     * full-date "T" partial-time time-offset; "T" and "Z" in either case (RFC 3339, section 5.6,
     * note); the year also in ISO 8601's expanded form, with a sign.
     */
    private static final Pattern DATE_TIME = Pattern.compile(
            "((?:[+-]\\d{4,9}|\\d{4})-\\d{2}-\\d{2}[Tt]\\d{2}:\\d{2}:)(\\d{2})(?:\\.(\\d+))?([Zz]|[+-]\\d{2}:\\d{2})");

    private Rfc3339() {}

    /**
     * The instant {@code text} names.
     *
     * @throws DateTimeParseException when it is not an RFC 3339 date-time, or names no time
     *     (month 13, February 30, hour 24)
     */
    public static Instant parse(String text) {
        Matcher m = DATE_TIME.matcher(text);
        if (!m.matches()) {
            throw new DateTimeParseException("not an RFC 3339 date-time", text, 0);
        }
        String second = m.group(2).equals("60") ? "59" : m.group(2);
        String fraction = m.group(3) == null ? "" : "." + (m.group(3).length() > 9 ? m.group(3).substring(0, 9) : m.group(3));
        String normalized = m.group(1) + second + fraction + m.group(4);
        return OffsetDateTime.parse(normalized, DateTimeFormatter.ISO_OFFSET_DATE_TIME).toInstant();
    }
}
