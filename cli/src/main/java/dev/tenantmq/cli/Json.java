package dev.tenantmq.cli;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;

/**
 * The one Jackson mapper of the CLI. {@link #parse} keeps every number as the text the service sent
 * ({@link RawNumberNode}), so a payload printed by {@code tmq tail} or {@code tmq inspect} keeps
 * its digits, sign and exponent ({@code 1e400}, {@code -0}, {@code 0.10} stay so); trailing
 * content after a JSON value and duplicate keys are errors, told in plain words by
 * {@link InvalidJson}.
 */
public final class Json {
    /** Shared, thread-safe after configuration. */
    public static final ObjectMapper MAPPER = JsonMapper.builder()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .disable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
            .nodeFactory(JsonNodeFactory.withExactBigDecimals(true))
            .build();

    private Json() {}

    /**
     * Parses one JSON value; its numbers are {@link RawNumberNode}s, written back as they were read.
     *
     * @throws InvalidJson when {@code text} is not exactly one JSON value: empty, not JSON, or
     *     followed by more text; its message says why in plain words, with line and column
     */
    public static JsonNode parse(String text) throws InvalidJson {
        try (JsonParser p = MAPPER.createParser(text)) {
            JsonNode value;
            try {
                if (p.nextToken() == null) {
                    throw new InvalidJson("it is empty");
                }
                value = read(p);
            } catch (JsonProcessingException e) {
                throw new InvalidJson(JsonErrorWords.describe(e, p));
            }
            // Whatever comes after the value, a second value or a stray character, is told as such.
            try {
                if (p.nextToken() != null) {
                    throw new InvalidJson(JsonErrorWords.TEXT_AFTER + JsonErrorWords.at(p.currentTokenLocation()));
                }
            } catch (JsonProcessingException e) {
                throw new InvalidJson(JsonErrorWords.TEXT_AFTER + JsonErrorWords.at(
                        e.getLocation() != null ? e.getLocation() : p.currentTokenLocation()));
            }
            return value;
        } catch (IOException e) {
            throw new IllegalStateException(e); // a String source does not fail to read
        }
    }

    /** The value at the parser's current token; leaves the parser on the value's last token. */
    private static JsonNode read(JsonParser p) throws IOException {
        JsonNodeFactory nodes = MAPPER.getNodeFactory();
        switch (p.currentToken()) {
            case START_OBJECT -> {
                ObjectNode object = nodes.objectNode();
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String name = p.currentName();
                    p.nextToken();
                    object.set(name, read(p));
                }
                return object;
            }
            case START_ARRAY -> {
                ArrayNode array = nodes.arrayNode();
                while (p.nextToken() != JsonToken.END_ARRAY) {
                    array.add(read(p));
                }
                return array;
            }
            case VALUE_STRING -> {
                return nodes.textNode(p.getText());
            }
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> {
                // The token's own text, not the parsed value: 1e400, -0 and 0.10 survive.
                return new RawNumberNode(p.getText());
            }
            case VALUE_TRUE, VALUE_FALSE -> {
                return nodes.booleanNode(p.getBooleanValue());
            }
            case VALUE_NULL -> {
                return nodes.nullNode();
            }
            default -> throw new IllegalStateException("unexpected token " + p.currentToken()); // the parser pairs them
        }
    }

    /** Compact JSON text of a node. */
    public static String write(JsonNode node) {
        try {
            return MAPPER.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A string as a JSON string literal, quotes and escapes included: unambiguous in a message. */
    public static String quote(String s) {
        return write(MAPPER.getNodeFactory().textNode(s));
    }

    /** The text of a field, or "" when it is absent or null. */
    public static String text(JsonNode node, String field) {
        JsonNode v = node.get(field);
        return v == null || v.isNull() ? "" : v.asText();
    }
}
