package dev.tenantmq.model;

import java.util.List;
import java.util.regex.Pattern;

/**
 * The W3C Trace Context of a publish request (https://www.w3.org/TR/trace-context/), stored with
 * each of its messages and returned with each delivery (docs/api.md, "Trace context").
 *
 * <p>The rules of the recommendation, and their one home: a {@code traceparent} that does not
 * parse is ignored, as the recommendation says a receiver does (it restarts the trace), never a
 * 400; a request without a valid {@code traceparent} carries no {@code tracestate} either; a
 * {@code tracestate} that does not parse, or is longer than {@link #MAX_TRACESTATE_CHARS}, is
 * dropped and the {@code traceparent} kept.
 *
 * @param traceparent the version-00 header: {@code 00-<trace-id>-<parent-id>-<trace-flags>},
 *     lowercase hex, {@link #TRACEPARENT_CHARS} characters
 * @param tracestate the vendor list, as sent (several headers joined with a comma), or null
 */
public record TraceContext(String traceparent, String tracestate) {
    /** Length of a version-00 {@code traceparent}. */
    public static final int TRACEPARENT_CHARS = 55;

    /**
     * Longest {@code tracestate} kept: the recommendation asks every vendor to propagate at least
     * 512 characters and allows dropping a longer one; also the width of its column (migration V7).
     */
    public static final int MAX_TRACESTATE_CHARS = 512;

    /** List members a {@code tracestate} may have (the recommendation's limit). */
    public static final int MAX_TRACESTATE_MEMBERS = 32;

    /** version "-" trace-id "-" parent-id "-" trace-flags, and for a future version anything after a dash. */
    private static final Pattern TRACEPARENT =
            Pattern.compile("([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?");

    /** One list member of a {@code tracestate}: simple or multi-tenant key, "=", value. */
    private static final Pattern MEMBER = Pattern.compile(
            "(?:[a-z][a-z0-9_\\-*/]{0,255}|[a-z0-9][a-z0-9_\\-*/]{0,240}@[a-z][a-z0-9_\\-*/]{0,13})"
                    + "=[\\x20-\\x2b\\x2d-\\x3c\\x3e-\\x7e]{0,255}[\\x21-\\x2b\\x2d-\\x3c\\x3e-\\x7e]");

    /** @throws IllegalArgumentException when {@code traceparent} is not a valid version-00 header */
    public TraceContext {
        if (parseTraceparent(traceparent) == null || !traceparent.startsWith("00-")
                || traceparent.length() != TRACEPARENT_CHARS) {
            throw new IllegalArgumentException("not a version-00 traceparent");
        }
    }

    /**
     * The trace context of a request's headers, or null when it has none that is valid.
     *
     * @param traceparentHeaders every {@code traceparent} header of the request (null or empty: none);
     *     more than one is invalid, as the recommendation says
     * @param tracestateHeaders every {@code tracestate} header, joined in order with a comma (null or empty: none)
     */
    public static TraceContext fromHeaders(List<String> traceparentHeaders, List<String> tracestateHeaders) {
        if (traceparentHeaders == null || traceparentHeaders.size() != 1) {
            return null;
        }
        String traceparent = parseTraceparent(traceparentHeaders.get(0).strip());
        if (traceparent == null) {
            return null;
        }
        String tracestate = tracestateHeaders == null || tracestateHeaders.isEmpty() ? null
                : validTracestate(String.join(",", tracestateHeaders));
        return new TraceContext(traceparent, tracestate);
    }

    /**
     * The stored form of a row's two columns: null when {@code traceparent} is null (a message
     * published without trace context), or when a stored value no longer parses.
     */
    public static TraceContext stored(String traceparent, String tracestate) {
        if (traceparent == null || parseTraceparent(traceparent) == null || traceparent.length() != TRACEPARENT_CHARS) {
            return null;
        }
        return new TraceContext(traceparent, tracestate);
    }

    /** The 32 hex digits of the trace id. */
    public String traceId() {
        return traceparent.substring(3, 35);
    }

    /** The 16 hex digits of the parent (span) id. */
    public String parentId() {
        return traceparent.substring(36, 52);
    }

    /** Whether the caller sampled the trace (bit 0 of trace-flags). */
    public boolean sampled() {
        return (Integer.parseInt(traceparent.substring(53, 55), 16) & 1) == 1;
    }

    /**
     * The version-00 form of a {@code traceparent}, or null when it does not parse. Version 00 is
     * exactly 55 characters; a higher version (not ff) may be longer, and its first four fields
     * are read as version 00 and kept in that form (the recommendation's "Versioning"). The
     * trace id and the parent id must not be all zeros.
     */
    static String parseTraceparent(String header) {
        if (header == null) {
            return null;
        }
        var m = TRACEPARENT.matcher(header);
        if (!m.matches()) {
            return null;
        }
        String version = m.group(1);
        if (version.equals("ff") || (version.equals("00") && m.group(5) != null)) {
            return null;
        }
        if (m.group(2).chars().allMatch(c -> c == '0') || m.group(3).chars().allMatch(c -> c == '0')) {
            return null;
        }
        return "00-" + m.group(2) + "-" + m.group(3) + "-" + m.group(4);
    }

    /**
     * {@code tracestate} as given when it parses and fits, else null: list members separated by
     * commas with optional spaces or tabs around them, empty members allowed, at most
     * {@link #MAX_TRACESTATE_MEMBERS}, no key twice.
     */
    static String validTracestate(String header) {
        if (header.length() > MAX_TRACESTATE_CHARS) {
            return null;
        }
        java.util.Set<String> keys = new java.util.HashSet<>();
        for (String raw : header.split(",", -1)) {
            String member = raw.strip();
            if (member.isEmpty()) {
                continue;
            }
            if (!MEMBER.matcher(member).matches() || !keys.add(member.substring(0, member.indexOf('=')))
                    || keys.size() > MAX_TRACESTATE_MEMBERS) {
                return null;
            }
        }
        return keys.isEmpty() ? null : header;
    }
}
