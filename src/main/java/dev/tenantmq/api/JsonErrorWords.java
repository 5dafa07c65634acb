package dev.tenantmq.api;

import java.util.List;
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

    private record Rule(Pattern pattern, Function<Matcher, String> words) {}

    /** Reasons a client can act on, in the words a detail uses; the first that matches wins. */
    private static final List<Rule> RULES = List.of(
            rule("Leading zeroes not allowed", m -> "numbers may not have leading zeros"),
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
            rule("was expecting double-quote to start field name", m -> "field names must be in double quotes"),
            rule("has to be escaped using backslash", m -> "control characters in strings must be escaped"),
            rule("Unrecognized character escape '(.)'", m -> "\\" + m.group(1) + " is not a JSON escape"));

    private static Rule rule(String regex, Function<Matcher, String> words) {
        return new Rule(Pattern.compile(regex), words);
    }

    /** Names of the parser's own switches and limits, which no detail may carry. */
    private static final Pattern INTERNALS = Pattern.compile(
            "\\s*[:(,]?\\s*(enable|from|since Feature)?\\s*`?'?\\b(JsonReadFeature|StreamReadConstraints|JsonParser\\.Feature"
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
}
