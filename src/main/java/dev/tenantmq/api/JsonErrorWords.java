package dev.tenantmq.api;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The JSON parser's reasons in plain words for a problem's detail (SPEC section 4, "Errors
 * everywhere"). Jackson names its own switches and limits ({@code JsonReadFeature.ALLOW_...},
 * {@code StreamReadConstraints.getMaxStringLength()}, {@code Feature 'ALLOW_COMMENTS'}), which a
 * client cannot set: a detail says which rule of JSON or which limit of the service the body
 * broke instead.
 */
public final class JsonErrorWords {
    private JsonErrorWords() {}

    /** The words for bytes that are not UTF-8 (RFC 8259, section 8.1). */
    public static final String NOT_UTF8 = "the body must be UTF-8 (RFC 8259) and is not here";

    private record Rule(Pattern pattern, Function<Matcher, String> words) {}

    /** Reasons a client can act on, in the words a detail uses; the first that matches wins. */
    private static final List<Rule> RULES = List.of(
            rule("Invalid UTF-8", m -> NOT_UTF8),
            rule("Leading zeroes not allowed", m -> "numbers may not have leading zeros"),
            rule("No digit following sign|expected digit \\(0-9\\) to follow minus sign",
                    m -> "a minus sign must be followed by a digit"),
            rule("Decimal point not followed by a digit", m -> "a decimal point must be followed by a digit"),
            rule("Exponent indicator not followed by a digit|expected a digit for number exponent",
                    m -> "an exponent (e or E) must be followed by a digit"),
            rule("Non-standard token '([^']*)'", m -> m.group(1) + " is not a JSON number"),
            rule("numbers to have plus signs", m -> "numbers may not start with a plus sign"),
            rule("String value length \\((\\d+)\\) exceeds the maximum allowed \\((\\d+)",
                    m -> "a string longer than " + m.group(2) + " characters"),
            rule("Number value length \\((\\d+)\\) exceeds the maximum allowed \\((\\d+)",
                    m -> "a number longer than " + m.group(2) + " digits"),
            rule("(?:Document )?nesting depth \\((\\d+)\\) exceeds the maximum allowed \\((\\d+)",
                    m -> "nested deeper than " + m.group(2) + " levels"),
            rule("Name length \\((\\d+)\\) exceeds the maximum allowed \\((\\d+)",
                    m -> "a field name longer than " + m.group(2) + " characters"),
            rule("Document length \\((\\d+)\\) exceeds the maximum allowed \\((\\d+)",
                    m -> "a document longer than " + m.group(2) + " characters"),
            rule("maybe a \\(non-standard\\) comment", m -> "comments are not allowed in JSON"),
            // A '}' where a field name must come follows a comma ({} itself is valid): a trailing comma.
            rule("Unexpected character \\('\\}'.*was expecting double-quote to start field name",
                    m -> "a trailing comma before } is not allowed"),
            rule("was expecting double-quote to start field name", m -> "field names must be in double quotes"),
            // A ']' where a value must come follows a comma ([1,]) or a colon ({"a":]).
            rule("Unexpected character \\('\\]'.*expected a value",
                    m -> "a value is missing before ]: a trailing comma is not allowed"),
            rule("Unexpected character \\('(.)'.*expected a value", m -> m.group(1) + " cannot start a JSON value"),
            rule("was expecting comma to separate (Object|Array) entries",
                    m -> "a comma must separate the entries of " + ("Array".equals(m.group(1)) ? "an array" : "an object")),
            rule("was expecting a colon to separate field name and value", m -> "a colon must follow each field name"),
            rule("Unrecognized token '([^']*)'", m -> abbreviate(m.group(1)) + " is not a JSON value (a value is a string,"
                    + " a number, an object, an array, true, false or null)"),
            rule("Duplicate field '(.*)'", m -> "the field \"" + abbreviate(m.group(1)) + "\" appears twice"),
            rule("^Trailing token", m -> "text follows the JSON value"),
            rule("has to be escaped using backslash", m -> "control characters in strings must be escaped"),
            rule("Unrecognized character escape '(.)'", m -> "\\" + m.group(1) + " is not a JSON escape"),
            rule("expected close marker for (Object|Array) \\(start marker at .*line: (\\d+), column: (\\d+)",
                    m -> "it ends before the " + ("Array".equals(m.group(1)) ? "array" : "object")
                            + " opened at line " + m.group(2) + ", column " + m.group(3) + " is closed"),
            rule("end-of-input.*(closing quote|VALUE_STRING)", m -> "it ends inside a string"),
            rule("end-of-input.*(FIELD_NAME|field name)", m -> "it ends inside a field name"),
            rule("Unexpected close marker '(.)'", m -> "a " + m.group(1) + " closes nothing that is open"),
            // Last: an end with no more precise rule above (after a colon, a comma or a field name).
            rule("end-of-input", m -> "it ends before the JSON value is complete"));

    private static Rule rule(String regex, Function<Matcher, String> words) {
        return new Rule(Pattern.compile(regex), words);
    }

    /** Names of the parser's own switches and limits, which no detail may carry. */
    private static final Pattern INTERNALS = Pattern.compile(
            "\\s*[:(,]?\\s*(enable|from|since Feature)?\\s*`?'?\\b(JsonReadFeature|StreamReadConstraints|StreamReadFeature|JsonParser\\.Feature"
                    + "|ALLOW_[A-Z_]+)\\b[^)`']*[)`']*( to allow| not enabled for parser\\)?)?");

    /**
     * The parser's reason in plain words, when it is one a client can act on.
     *
     * @param parserMessage Jackson's original message (without location), may be null
     * @return e.g. "numbers may not have leading zeros", or empty when the reason is not one of
     *     the known kinds
     */
    public static Optional<String> known(String parserMessage) {
        if (parserMessage == null) {
            return Optional.empty();
        }
        for (Rule r : RULES) {
            Matcher m = r.pattern().matcher(parserMessage);
            if (m.find()) {
                return Optional.of(r.words().apply(m));
            }
        }
        return Optional.empty();
    }

    /**
     * The parser's reason in plain words: a known kind ({@link #known}), else the message with
     * any name of the parser's switches and limits removed.
     */
    public static String plain(String parserMessage) {
        return known(parserMessage).orElseGet(() -> parserMessage == null ? ""
                : INTERNALS.matcher(parserMessage).replaceAll("").trim());
    }

    /**
     * What a field of the wrong type should be and what was given, e.g. "must be an integer, not
     * the string \"ten\"" (SPEC section 4, "Errors everywhere"); the generic words when the
     * expected type is not one a JSON body can name.
     */
    public static String wrongType(MismatchedInputException e) {
        String expected = expected(e.getTargetType());
        if (expected == null) {
            return "is missing, malformed or of the wrong type";
        }
        return "must be " + expected + given(e).map(g -> ", not " + g).orElse("");
    }

    /**
     * The value a body gave where another type belongs, in words: "the string \"ten\"", "the number
     * 1e3" (as written), "the value true", "null", "an array", "an object"; empty when the
     * exception does not say ({@link WrongTypeReporter} makes the parser's refusals say it).
     */
    public static Optional<String> given(MismatchedInputException e) {
        if (e instanceof WrongTypeReporter.WrongTypeException w) {
            return Optional.ofNullable(w.given());
        }
        return Optional.ofNullable(givenInMessage(e));
    }

    /**
     * The value at the parser's token {@code t}, in the words of {@link #given(MismatchedInputException)};
     * null for a token that is no value.
     */
    public static String given(JsonToken t, JsonParser p) throws IOException {
        if (t == null) {
            return null;
        }
        return switch (t) {
            case VALUE_STRING -> "the string \"" + abbreviate(p.getText()) + "\"";
            // The client's own digits (1e3), not the value Java would print (1000.0).
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "the number " + abbreviate(p.getText());
            case VALUE_TRUE -> "the value true";
            case VALUE_FALSE -> "the value false";
            case VALUE_NULL -> "null";
            case START_ARRAY, END_ARRAY -> "an array";
            case START_OBJECT, END_OBJECT, FIELD_NAME -> "an object";
            default -> null;
        };
    }

    /**
     * A value read as a JSON tree ({@code metadata}, {@code deliverAfterSeconds}...), in the words
     * of {@link #given(MismatchedInputException)}, for the validator's own type rules. A number
     * reads as its tree prints it: as the client wrote it (1e3) in a tree of {@link WrittenTree}.
     */
    public static String given(JsonNode node) {
        if (node == null || node.isNull() || node.isMissingNode()) {
            return "null";
        }
        if (node.isTextual()) {
            return "the string \"" + abbreviate(node.textValue()) + "\"";
        }
        if (node.isNumber()) {
            return "the number " + abbreviate(node.toString());
        }
        if (node.isBoolean()) {
            return "the value " + node.booleanValue();
        }
        return node.isArray() ? "an array" : node.isObject() ? "an object" : "a " + node.getNodeType().name().toLowerCase();
    }

    /**
     * A JSON integer too large for its field, e.g. "is out of range: 99999999999999999999 is too
     * large for an integer", for a field whose range is not known ({@link #outsideRange} words
     * one whose range is).
     */
    public static Optional<String> outOfRange(String parserMessage) {
        return outOfRangeValue(parserMessage).map(value -> "is out of range: " + abbreviate(value) + " is too "
                + (value.startsWith("-") ? "small" : "large") + " for an integer");
    }

    /** The number the parser found too large (or small) for its field, as the client wrote it; empty for another reason. */
    public static Optional<String> outOfRangeValue(String parserMessage) {
        Matcher m = parserMessage == null ? null : OUT_OF_RANGE.matcher(parserMessage);
        return m == null || !m.find() ? Optional.empty() : Optional.of(m.group(1));
    }

    /**
     * A number outside the range of its field, in the words of the range rules (docs/api.md,
     * "Limits"): "must be between 0 and 30 (got 99999999999999999999)".
     *
     * @param given the number as the client wrote it
     * @param unit the unit after the bounds ("milliseconds"), or empty
     */
    public static String outsideRange(String given, long min, long max, String unit) {
        return "must be between " + min + " and " + max + (unit.isEmpty() ? "" : " " + unit) + " (got "
                + abbreviate(given) + ")";
    }

    /** Where the parser stopped, in the body's own terms: " (line 1, column 15)", or "" when unknown. */
    public static String at(JsonLocation location) {
        if (location == null || location.getLineNr() < 1) {
            return "";
        }
        return " (line " + location.getLineNr() + ", column " + location.getColumnNr() + ")";
    }

    private static final Pattern OUT_OF_RANGE = Pattern.compile("Numeric value \\((-?[0-9][0-9.eE+-]*)\\) out of range");

    /** A JSON type in words, for a Java type a body's field is read into; null when there is no plain name. */
    static String expected(Class<?> type) {
        if (type == null) {
            return null;
        }
        if (type == int.class || type == Integer.class || type == long.class || type == Long.class
                || type == short.class || type == Short.class || type == BigInteger.class) {
            return "an integer";
        }
        if (type == double.class || type == Double.class || type == float.class || type == Float.class
                || type == BigDecimal.class) {
            return "a number";
        }
        if (type == boolean.class || type == Boolean.class) {
            return "true or false";
        }
        if (type == String.class || CharSequence.class.isAssignableFrom(type)) {
            return "a string";
        }
        if (type.isEnum()) {
            return "one of " + String.join(", ", java.util.Arrays.stream(type.getEnumConstants())
                    .map(c -> "\"" + c + "\"").toList());
        }
        if (type.isArray() || Collection.class.isAssignableFrom(type)) {
            return "an array";
        }
        if (Map.class.isAssignableFrom(type) || type.isRecord()) {
            return "an object";
        }
        return null;
    }

    /** JSON value kinds as Jackson's messages name them ("from Array value"). */
    private static final Map<String, String> KINDS = Map.of("Array", "an array", "Object", "an object",
            "String", "a string", "Boolean", "true or false", "Integer", "an integer", "Floating-point", "a decimal number");

    private static final Pattern FROM_KIND = Pattern.compile("(?:from|coerce) (Array|Object|String|Boolean|Integer|Floating-point) value");

    /** A number in a coercion refusal: "Floating-point value (1e3)" for an integer field, "Float value (1e3)" for a string one. */
    private static final Pattern WRITTEN_NUMBER = Pattern.compile("(?:Floating-point|Float|Integer) value \\((-?[0-9][0-9.eE+-]*)\\)");

    /** The value given as the parser's message or the refused value says it; null when neither does. */
    private static String givenInMessage(MismatchedInputException e) {
        if (e instanceof InvalidFormatException f && f.getValue() != null) {
            Object v = f.getValue();
            // The number as the client wrote it (1e3), which the parser's message quotes; its value would read 1000.0.
            Matcher written = WRITTEN_NUMBER.matcher(String.valueOf(f.getOriginalMessage()));
            if (v instanceof Number && written.find()) {
                return "the number " + abbreviate(written.group(1));
            }
            return v instanceof String text ? "the string \"" + abbreviate(text) + "\""
                    : v instanceof Number || v instanceof Boolean ? "the " + (v instanceof Boolean ? "value " : "number ")
                            + abbreviate(String.valueOf(v))
                    : null;
        }
        Matcher m = FROM_KIND.matcher(String.valueOf(e.getOriginalMessage()));
        if (!m.find()) {
            return null;
        }
        if ("String".equals(m.group(1))) {
            Matcher quoted = Pattern.compile("String value \\((?:\"|')(.*?)(?:\"|')\\)").matcher(e.getOriginalMessage());
            if (quoted.find()) {
                return "the string \"" + abbreviate(quoted.group(1)) + "\"";
            }
        }
        return KINDS.get(m.group(1));
    }

    /** At most 40 characters of a client's value in a detail. */
    private static String abbreviate(String s) {
        return s.length() <= 40 ? s : s.substring(0, 40) + "...";
    }
}
