package dev.tenantmq.cli;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.node.NumericNode;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;

/**
 * A JSON number that keeps the text it was written with: {@code 1e400}, {@code -0}, {@code 0.10},
 * {@code 1E5} are written back exactly so (docs/operations.md, "CLI": tail prints numbers exactly
 * as published). Its numeric value, for the CLI's own reading of offsets and counts, is the
 * {@link BigDecimal} of that text (exact for every JSON number, whatever its exponent).
 */
final class RawNumberNode extends NumericNode {
    private final String text;
    private final BigDecimal value;

    /** {@code text} is one JSON number token, as the parser read it. */
    RawNumberNode(String text) {
        this.text = text;
        this.value = new BigDecimal(text);
    }

    @Override
    public JsonToken asToken() {
        return isIntegralText() ? JsonToken.VALUE_NUMBER_INT : JsonToken.VALUE_NUMBER_FLOAT;
    }

    private boolean isIntegralText() {
        return text.indexOf('.') < 0 && text.indexOf('e') < 0 && text.indexOf('E') < 0;
    }

    @Override
    public JsonParser.NumberType numberType() {
        return isIntegralText() ? JsonParser.NumberType.BIG_INTEGER : JsonParser.NumberType.BIG_DECIMAL;
    }

    @Override
    public boolean isIntegralNumber() {
        return isIntegralText();
    }

    @Override
    public boolean isFloatingPointNumber() {
        return !isIntegralText();
    }

    @Override
    public Number numberValue() {
        return value;
    }

    @Override
    public int intValue() {
        return value.intValue();
    }

    @Override
    public long longValue() {
        return value.longValue();
    }

    @Override
    public double doubleValue() {
        return value.doubleValue();
    }

    @Override
    public BigDecimal decimalValue() {
        return value;
    }

    @Override
    public BigInteger bigIntegerValue() {
        return value.toBigInteger();
    }

    @Override
    public boolean canConvertToInt() {
        return canConvertToLong() && value.longValue() >= Integer.MIN_VALUE && value.longValue() <= Integer.MAX_VALUE;
    }

    @Override
    public boolean canConvertToLong() {
        // An exponent like 1e400 is not scanned digit by digit: compare with the bounds first.
        return value.compareTo(BigDecimal.valueOf(Long.MIN_VALUE)) >= 0 && value.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) <= 0;
    }

    /** The number's text as written. */
    @Override
    public String asText() {
        return text;
    }

    @Override
    public void serialize(JsonGenerator g, SerializerProvider provider) throws IOException {
        g.writeNumber(text);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RawNumberNode other && other.text.equals(text);
    }

    @Override
    public int hashCode() {
        return text.hashCode();
    }
}
