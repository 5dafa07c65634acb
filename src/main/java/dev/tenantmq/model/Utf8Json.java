package dev.tenantmq.model;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A stored JSON value as the UTF-8 bytes the database sent: a fetch reads a payload this way and
 * writes the same bytes into its response, without decoding them into a Java string and encoding
 * them again (docs/architecture.md, "Rows into responses"). The text was validated as one JSON
 * value when it was published, so it is written as it is.
 *
 * <p>Immutable by contract: {@link #utf8()} returns the array itself, which no caller changes.
 */
public final class Utf8Json {
    private final byte[] utf8;

    private Utf8Json(byte[] utf8) {
        this.utf8 = utf8;
    }

    /**
     * The JSON text in {@code utf8}, taken over as it is (not copied).
     *
     * @return null for null (a column that was NULL)
     */
    public static Utf8Json ofUtf8(byte[] utf8) {
        return utf8 == null ? null : new Utf8Json(utf8);
    }

    /** The JSON text {@code text}, encoded as UTF-8; null for null. */
    public static Utf8Json of(String text) {
        return text == null ? null : new Utf8Json(text.getBytes(StandardCharsets.UTF_8));
    }

    /** The UTF-8 bytes themselves, not a copy: read them, never change them. */
    public byte[] utf8() {
        return utf8;
    }

    /** The JSON text as a Java string (decodes the bytes). */
    public String text() {
        return new String(utf8, StandardCharsets.UTF_8);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Utf8Json other && Arrays.equals(utf8, other.utf8);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(utf8);
    }

    /** The JSON text. */
    @Override
    public String toString() {
        return text();
    }
}
