package dev.tenantmq.api;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import dev.tenantmq.model.Utf8Json;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Writes a {@link Utf8Json} value into a response as the raw JSON it is, copying its UTF-8 bytes
 * into the generator's output buffer: a payload goes from the driver into the response without
 * being decoded and encoded again (docs/architecture.md, "Rows into responses"). The same output
 * as {@code @JsonRawValue} on the decoded text.
 */
public final class Utf8JsonSerializer extends StdSerializer<Utf8Json> {
    public Utf8JsonSerializer() {
        super(Utf8Json.class);
    }

    @Override
    public void serialize(Utf8Json value, JsonGenerator gen, SerializerProvider provider) throws IOException {
        gen.writeRawValue(new Bytes(value.utf8()));
    }

    /**
     * The bytes as Jackson's raw-write contract wants them: a UTF-8 generator copies
     * {@link #appendUnquotedUTF8} into its buffer, or writes {@link #asUnquotedUTF8} when they do
     * not fit; a character generator asks for {@link #getValue}.
     */
    private record Bytes(byte[] utf8) implements SerializableString {
        @Override
        public String getValue() {
            return new String(utf8, StandardCharsets.UTF_8);
        }

        @Override
        public int charLength() {
            return getValue().length();
        }

        @Override
        public char[] asQuotedChars() {
            throw new UnsupportedOperationException("raw JSON is written unquoted");
        }

        @Override
        public byte[] asUnquotedUTF8() {
            return utf8;
        }

        @Override
        public byte[] asQuotedUTF8() {
            throw new UnsupportedOperationException("raw JSON is written unquoted");
        }

        @Override
        public int appendQuotedUTF8(byte[] buffer, int offset) {
            throw new UnsupportedOperationException("raw JSON is written unquoted");
        }

        @Override
        public int appendQuoted(char[] buffer, int offset) {
            throw new UnsupportedOperationException("raw JSON is written unquoted");
        }

        @Override
        public int appendUnquotedUTF8(byte[] buffer, int offset) {
            if (offset + utf8.length > buffer.length) {
                return -1;
            }
            System.arraycopy(utf8, 0, buffer, offset, utf8.length);
            return utf8.length;
        }

        @Override
        public int appendUnquoted(char[] buffer, int offset) {
            String text = getValue();
            if (offset + text.length() > buffer.length) {
                return -1;
            }
            text.getChars(0, text.length(), buffer, offset);
            return text.length();
        }

        @Override
        public int writeQuotedUTF8(OutputStream out) {
            throw new UnsupportedOperationException("raw JSON is written unquoted");
        }

        @Override
        public int writeUnquotedUTF8(OutputStream out) throws IOException {
            out.write(utf8);
            return utf8.length;
        }

        @Override
        public int putQuotedUTF8(ByteBuffer buffer) {
            throw new UnsupportedOperationException("raw JSON is written unquoted");
        }

        @Override
        public int putUnquotedUTF8(ByteBuffer buffer) {
            if (buffer.remaining() < utf8.length) {
                return -1;
            }
            buffer.put(utf8);
            return utf8.length;
        }
    }
}
