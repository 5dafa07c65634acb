package dev.tenantmq.api;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.type.LogicalType;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.module.SimpleModule;
import io.quarkus.jackson.ObjectMapperCustomizer;
import jakarta.inject.Singleton;

/**
 * JSON settings that keep payloads exact (SPEC section 4: "returned numerically exact"):
 * decimals parse as BigDecimal with their scale, big integers as BigInteger, so
 * {@code 123456789012345678901234567890.10} is stored and returned unchanged (payloads
 * themselves are copied as text, see {@link RawJson}). Unknown fields, duplicate keys and
 * values of the wrong JSON type are rejected (400) rather than silently ignored or coerced. A
 * refusal names the field ({@link ParseErrorFields}) and what was given ({@link WrongTypeReporter}).
 */
@Singleton
public class JsonConfig implements ObjectMapperCustomizer {
    @Override
    public void customize(ObjectMapper mapper) {
        mapper.enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);
        mapper.enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
        mapper.enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
        mapper.configure(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES, false);
        // {"partitionKey": 42} or {"maxMessages": "10"} is a client mistake, not a value to guess.
        mapper.enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
        mapper.coercionConfigFor(LogicalType.Textual)
                .setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail);
        mapper.coercionConfigFor(LogicalType.Integer)
                .setCoercion(CoercionInputShape.String, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Float, CoercionAction.Fail);
        // {"deadLetterEnabled": "false"} or 0 would otherwise read as a boolean.
        mapper.coercionConfigFor(LogicalType.Boolean)
                .setCoercion(CoercionInputShape.String, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Float, CoercionAction.Fail);
        // A character outside the BMP (an emoji) is written as its 4 UTF-8 bytes, not as an escaped surrogate pair
        // ("\uD83D\uDE80"): partition keys and ids come back byte for byte (docs/api.md, "Identifiers"), as payloads,
        // copied as text, always did. The factory's setting holds for every answer written with this mapper.
        mapper.getFactory().configure(JsonWriteFeature.COMBINE_UNICODE_SURROGATES_IN_UTF8.mappedFeature(), true);
        mapper.registerModule(new SimpleModule("request-body-errors").setDeserializerModifier(new ParseErrorFields()));
        mapper.addHandler(new WrongTypeReporter());
    }
}
