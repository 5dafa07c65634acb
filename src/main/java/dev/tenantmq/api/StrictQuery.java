package dev.tenantmq.api;

import dev.tenantmq.model.InvalidRequestException;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * Query parameters of the admin API, decoded strictly from the raw query string. The usual
 * decoding turns malformed UTF-8 into U+FFFD, which is itself a valid key character, so
 * {@code partitionKey=%FF} would name the message whose key is U+FFFD; here it is 400. A
 * parameter given twice is 400 too, rather than one of the values winning silently. {@code +}
 * is a space, as in HTML forms. A parameter the call does not take is 400 too, naming the ones
 * it takes: a misspelt filter ({@code consumer_group=}) would otherwise widen the answer silently.
 */
final class StrictQuery {
    private final Map<String, String> values;

    private StrictQuery(Map<String, String> values) {
        this.values = values;
    }

    /**
     * Parses {@code rawQuery} (still percent-encoded; null for none), the parameters of a call
     * that takes {@code names}.
     *
     * @throws InvalidRequestException naming the parameter that is malformed, repeated or not one
     *     of {@code names}
     */
    static StrictQuery parse(String rawQuery, Set<String> names) {
        Map<String, String> values = new HashMap<>();
        if (rawQuery == null || rawQuery.isEmpty()) {
            return new StrictQuery(values);
        }
        for (String pair : rawQuery.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int eq = pair.indexOf('=');
            String name = decode("query", eq < 0 ? pair : pair.substring(0, eq));
            if (!names.contains(name)) {
                throw InvalidRequestException.of(name, unknown(names));
            }
            String value = decode(name, eq < 0 ? "" : pair.substring(eq + 1));
            if (values.putIfAbsent(name, value) != null) {
                throw InvalidRequestException.of(name, "must be given at most once");
            }
        }
        return new StrictQuery(values);
    }

    /** The rule a parameter outside {@code names} breaks, naming the ones the call takes. */
    static String unknown(Set<String> names) {
        return names.isEmpty() ? "is not a parameter of this call: it takes no query parameters"
                : "is not a parameter of this call: it takes " + String.join(", ", new java.util.TreeSet<>(names));
    }

    /** The decoded value, or null when the parameter is absent (an empty value is "", not null). */
    String get(String name) {
        return values.get(name);
    }

    private static String decode(String field, String raw) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(raw.length());
        for (int i = 0; i < raw.length(); i++) {
            char ch = raw.charAt(i);
            if (ch == '+') {
                bytes.write(' ');
            } else if (ch == '%') {
                int hi = i + 2 < raw.length() ? Character.digit(raw.charAt(i + 1), 16) : -1;
                int lo = i + 2 < raw.length() ? Character.digit(raw.charAt(i + 2), 16) : -1;
                if (hi < 0 || lo < 0) {
                    throw InvalidRequestException.of(field, "has a malformed percent-escape (%XX with two hex digits)");
                }
                bytes.write(hi * 16 + lo);
                i += 2;
            } else {
                int cp = raw.codePointAt(i);
                if (Character.isSurrogate(ch) && Character.charCount(cp) == 1) {
                    throw InvalidRequestException.of(field, "is not well-formed UTF-8 once percent-decoded");
                }
                byte[] b = new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8);
                bytes.write(b, 0, b.length);
                i += Character.charCount(cp) - 1;
            }
        }
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes.toByteArray()))
                    .toString();
        } catch (CharacterCodingException e) {
            throw InvalidRequestException.of(field, "is not well-formed UTF-8 once percent-decoded");
        }
    }
}
