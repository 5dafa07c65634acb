package dev.tenantmq.model;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.Month;
import java.time.OffsetDateTime;
import java.time.YearMonth;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.time.format.TextStyle;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads an RFC 3339 {@code date-time} (section 5.6), the one form the API takes for a time
 * ({@code deliverAt}, a reset's {@code toDatetime}; docs/api.md, "Delayed delivery"), and the one
 * home of its rules. Java's ISO parser is both looser and stricter than the RFC: it takes an
 * offset with seconds ({@code +05:30:15}) and a date-time without seconds, and refuses a leap
 * second ({@code 23:59:60}) and a fraction of more than nine digits. Here the text must match the
 * RFC's grammar; a leap second is read as the second before it, and a fraction is cut to
 * nanoseconds. Two readings go past the RFC, as Java's parser does: a year of ISO 8601's expanded
 * form ({@code +10000}), so that a time past year 9999 is refused for the bound it breaks rather
 * than as unreadable, and offsets only up to 18 hours ({@link ZoneOffset}'s range).
 *
 * <p>A text of the right form that names no time (February 30, hour 24) is refused for that, not
 * for its form: the client's format is right and its date is wrong. {@link #read} also holds a
 * time to the years the database stores, for every field that takes one.
 */
public final class Rfc3339 {
    /**
     * full-date "T" partial-time time-offset; "T" and "Z" in either case (RFC 3339, section 5.6,
     * note); the year also in ISO 8601's expanded form, with a sign.
     */
    private static final Pattern DATE_TIME = Pattern.compile(
            "([+-]\\d{4,9}|\\d{4})-(\\d{2})-(\\d{2})[Tt](\\d{2}):(\\d{2}):(\\d{2})(?:\\.(\\d+))?([Zz]|([+-])(\\d{2}):(\\d{2}))");

    /** The form a time must have, as an error names it. */
    public static final String FORM = "an RFC 3339 date-time with an offset such as 2026-12-02T05:00:00Z";

    /**
     * The first instant DATETIME(6) holds: a time before it cannot be stored, nor compared with
     * what is stored (docs/api.md, "Delayed delivery").
     */
    public static final Instant EARLIEST = Instant.parse("1000-01-01T00:00:00Z");
    /** The first instant after the last one DATETIME(6) holds (exclusive bound; see {@link #EARLIEST}). */
    public static final Instant END = Instant.parse("+10000-01-01T00:00:00Z");
    /** The last instant DATETIME(6) holds, to the microsecond. */
    public static final Instant LAST = END.minusNanos(1000);

    /** The rule of {@link #EARLIEST} and {@link #END}, as an error names it. */
    static final String STORED_YEARS = "must be in the years 1000 to 9999 (UTC), the times the database stores";

    private Rfc3339() {}

    /**
     * What a request's time reads as: the instant, and the rule the text breaks, if any.
     *
     * @param instant the time the text names, also outside the stored years; null when it names none
     * @param problem the broken rule, ending with the text given, or null
     */
    public record Reading(Instant instant, String problem) {
        /** Whether the text names a time after the last one the database stores. */
        public boolean afterStoredYears() {
            return instant != null && !instant.isBefore(END);
        }
    }

    /**
     * The instant {@code text} names, if it is an RFC 3339 date-time that exists and lies in the
     * years the database stores; else the rule it breaks. Every field that takes a time reads it
     * here, so that each gets the same answer.
     */
    public static Reading read(String text) {
        if (!DATE_TIME.matcher(text).matches()) {
            // The words of every other value of the wrong form (docs/api.md, "Errors").
            return new Reading(null, "must be " + FORM + ", not the string \"" + abbreviated(text) + "\"");
        }
        Instant instant;
        try {
            instant = parse(text);
        } catch (DateTimeParseException e) {
            return new Reading(null, e.getMessage() + got(text));
        }
        if (instant.isBefore(EARLIEST) || !instant.isBefore(END)) {
            return new Reading(instant, STORED_YEARS + got(text));
        }
        return new Reading(instant, null);
    }

    /**
     * The instant {@code text} names, in any year.
     *
     * @throws DateTimeParseException when it is not an RFC 3339 date-time, or names no time
     *     (month 13, February 30, hour 24); its message is the broken rule
     */
    public static Instant parse(String text) {
        Matcher m = DATE_TIME.matcher(text);
        if (!m.matches()) {
            throw new DateTimeParseException("must be " + FORM, text, 0);
        }
        int year = Integer.parseInt(m.group(1));
        int month = Integer.parseInt(m.group(2));
        int day = Integer.parseInt(m.group(3));
        int hour = Integer.parseInt(m.group(4));
        int minute = Integer.parseInt(m.group(5));
        int second = Integer.parseInt(m.group(6));
        if (month < 1 || month > 12) {
            throw new DateTimeParseException("names a date that does not exist: a month is 01 to 12", text, 0);
        }
        YearMonth yearMonth = YearMonth.of(year, month);
        if (day < 1 || day > yearMonth.lengthOfMonth()) {
            throw new DateTimeParseException("names a date that does not exist: "
                    + Month.of(month).getDisplayName(TextStyle.FULL, Locale.ENGLISH) + " " + year + " has days 01 to "
                    + yearMonth.lengthOfMonth(), text, 0);
        }
        String time = hour > 23 ? "an hour is 00 to 23" : minute > 59 ? "a minute is 00 to 59"
                : second > 60 ? "a second is 00 to 59, or 60 for a leap second" : null;
        if (time != null) {
            throw new DateTimeParseException("names a time that does not exist: " + time, text, 0);
        }
        ZoneOffset offset;
        try {
            offset = m.group(9) == null ? ZoneOffset.UTC : ZoneOffset.ofHoursMinutes(
                    Integer.parseInt(m.group(9) + m.group(10)), Integer.parseInt(m.group(9) + m.group(11)));
        } catch (DateTimeException e) {
            throw new DateTimeParseException("names an offset that does not exist: an offset is at most 18:00 hours,"
                    + " and its minutes are 00 to 59", text, 0);
        }
        String fraction = m.group(7) == null ? "" : m.group(7).length() > 9 ? m.group(7).substring(0, 9) : m.group(7);
        int nanos = fraction.isEmpty() ? 0 : Integer.parseInt(fraction + "0".repeat(9 - fraction.length()));
        LocalDateTime local = LocalDateTime.of(year, month, day, hour, minute, Math.min(second, 59), nanos);
        return OffsetDateTime.of(local, offset).toInstant();
    }

    /** A time of the right form, as an error ends with it: it has neither spaces nor quotes to set it apart. */
    private static String got(String text) {
        return " (got " + abbreviated(text) + ")";
    }

    /** At most 40 characters of the text given. */
    private static String abbreviated(String text) {
        return text.length() <= 40 ? text : text.substring(0, 40) + "...";
    }
}
