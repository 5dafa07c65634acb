package dev.tenantmq.api;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import dev.tenantmq.model.Identifiers;
import java.io.IOException;
import java.io.StringWriter;

/**
 * A JSON value as compact JSON text, with every number written exactly as the client sent it
 * ({@code 1e400}, {@code -0} and {@code 0.10} stay as they are), so the payload comes back
 * numerically exact (SPEC section 4). Strings must be well-formed Unicode: a lone surrogate
 * would not survive the utf8mb4 column and is rejected (400) rather than stored as {@code ?}.
 *
 * @param json compact JSON text of the value
 */
@JsonDeserialize(using = RawJson.Deserializer.class)
public record RawJson(String json) {

    /** Thrown for a value that cannot be stored exactly; its message names the rule. */
    public static final class InvalidValueException extends JsonMappingException {
        InvalidValueException(JsonParser p, String message) {
            super(p, message);
        }
    }

    /** Copies the current JSON value token by token into compact text. */
    public static final class Deserializer extends StdDeserializer<RawJson> {
        public Deserializer() {
            super(RawJson.class);
        }

        @Override
        public RawJson deserialize(JsonParser p, DeserializationContext ctx) throws IOException {
            StringWriter out = new StringWriter();
            try (JsonGenerator g = p.getCodec().getFactory().createGenerator(out)) {
                int depth = 0;
                JsonToken t = p.currentToken();
                do {
                    switch (t) {
                        case START_OBJECT -> {
                            g.writeStartObject();
                            depth++;
                        }
                        case START_ARRAY -> {
                            g.writeStartArray();
                            depth++;
                        }
                        case END_OBJECT -> {
                            g.writeEndObject();
                            depth--;
                        }
                        case END_ARRAY -> {
                            g.writeEndArray();
                            depth--;
                        }
                        case FIELD_NAME -> g.writeFieldName(wellFormed(p, p.currentName()));
                        case VALUE_STRING -> g.writeString(wellFormed(p, p.getText()));
                        case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> g.writeNumber(p.getText()); // the client's own digits
                        case VALUE_TRUE -> g.writeBoolean(true);
                        case VALUE_FALSE -> g.writeBoolean(false);
                        case VALUE_NULL -> g.writeNull();
                        default -> throw new InvalidValueException(p, "is not a JSON value");
                    }
                    if (depth == 0) {
                        break;
                    }
                    t = p.nextToken();
                } while (t != null);
            }
            return new RawJson(out.toString());
        }

        /** An explicit JSON {@code null} is a valid payload; an absent field stays Java null. */
        @Override
        public RawJson getNullValue(DeserializationContext ctx) {
            return new RawJson("null");
        }

        /** An absent payload field stays Java null, so the validator can report it as missing. */
        @Override
        public Object getAbsentValue(DeserializationContext ctx) {
            return null;
        }

        private static String wellFormed(JsonParser p, String s) throws InvalidValueException {
            if (!Identifiers.isWellFormed(s)) {
                throw new InvalidValueException(p, "must be well-formed Unicode (a string holds a lone surrogate)");
            }
            return s;
        }
    }
}
