package dev.tenantmq.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;

/**
 * The one Jackson mapper of the CLI. Numbers read as exact values (BigDecimal keeping its scale,
 * BigInteger beyond long), so a payload printed by {@code tmq tail} keeps its digits; trailing
 * content after a JSON value is an error.
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

    /** Parses one JSON value. */
    public static JsonNode parse(String text) throws JsonProcessingException {
        return MAPPER.readTree(text);
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
