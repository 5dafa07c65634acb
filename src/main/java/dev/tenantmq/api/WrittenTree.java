package dev.tenantmq.api;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.BigIntegerNode;
import com.fasterxml.jackson.databind.node.DecimalNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;

/**
 * Reads a request field that takes any JSON value, and whose type the validator checks
 * ({@code metadata}, {@code deliverAfterSeconds}, {@code deliverAt}), into a tree whose number
 * nodes give the client's own text ({@code toString}, {@code asText}; their values are exact),
 * so that a refusal quotes a number as it was written (docs/api.md, "Errors"). Jackson's own
 * tree keeps a number's value only, which prints
 * {@code 1e400} as {@code 1E+400}, {@code -0.0} as {@code 0.0} and {@code -0} as {@code 0}: a
 * field read with it said "not the number 1E+400" where every other field said "1e400".
 * Strings, literals, arrays and objects are the usual nodes; the parser's rules (duplicate
 * fields, nesting depth, number length) apply as it reads.
 */
public final class WrittenTree extends StdDeserializer<JsonNode> {
    public WrittenTree() {
        super(JsonNode.class);
    }

    @Override
    public JsonNode deserialize(JsonParser p, DeserializationContext ctx) throws IOException {
        return read(p, ctx);
    }

    /** The value at the parser's current token, leaving the parser on its last token. */
    private static JsonNode read(JsonParser p, DeserializationContext ctx) throws IOException {
        JsonNodeFactory nodes = ctx.getNodeFactory();
        JsonToken t = p.currentToken();
        if (t == null) {
            return (JsonNode) ctx.handleUnexpectedToken(JsonNode.class, p);
        }
        return switch (t) {
            case START_OBJECT -> {
                ObjectNode object = nodes.objectNode();
                for (String name = p.nextFieldName(); name != null; name = p.nextFieldName()) {
                    p.nextToken();
                    object.set(name, read(p, ctx));
                }
                yield object;
            }
            case START_ARRAY -> {
                ArrayNode array = nodes.arrayNode();
                while (p.nextToken() != JsonToken.END_ARRAY) {
                    array.add(read(p, ctx));
                }
                yield array;
            }
            case VALUE_STRING -> nodes.textNode(p.getText());
            case VALUE_NUMBER_INT -> new WrittenInteger(p.getBigIntegerValue(), p.getText());
            case VALUE_NUMBER_FLOAT -> new WrittenDecimal(p.getDecimalValue(), p.getText());
            case VALUE_TRUE -> nodes.booleanNode(true);
            case VALUE_FALSE -> nodes.booleanNode(false);
            case VALUE_NULL -> nodes.nullNode();
            default -> (JsonNode) ctx.handleUnexpectedToken(JsonNode.class, p);
        };
    }

    /** An integer whose text ({@code toString}, {@code asText}) is as written: {@code -0} stays {@code -0}. */
    static final class WrittenInteger extends BigIntegerNode {
        private final String written;

        WrittenInteger(BigInteger value, String written) {
            super(value);
            this.written = written;
        }

        @Override
        public String asText() {
            return written;
        }

        @Override
        public String toString() {
            return written;
        }
    }

    /** A number with a fraction or an exponent whose text is as written: {@code 1e400}, not {@code 1E+400}. */
    static final class WrittenDecimal extends DecimalNode {
        private final String written;

        WrittenDecimal(BigDecimal value, String written) {
            super(value);
            this.written = written;
        }

        @Override
        public String asText() {
            return written;
        }

        @Override
        public String toString() {
            return written;
        }
    }
}
