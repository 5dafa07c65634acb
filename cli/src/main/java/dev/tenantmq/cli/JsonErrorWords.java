package dev.tenantmq.cli;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.io.ContentReference;
import java.util.List;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Why a text is not JSON, in plain words and with where: "numbers may not have leading zeros
 * (line 1, column 7)". The JSON library's own messages name its classes and settings
 * ({@code StreamReadConstraints.getMaxNestingDepth()}, {@code [Source: REDACTED ...]}), which
 * mean nothing to the user and which no message of the project shows. The words follow those
 * the service's {@code dev.tenantmq.api.JsonErrorWords} puts in a 400's detail for the same
 * mistakes. This is the CLI's own copy because the CLI is a build of its own that does not
 * depend on the service module; it words a few more cases (an unclosed array or object from
 * the parser's state, number and escape mistakes, invisible characters) so that no reason is
 * left in the library's words.
 */
final class JsonErrorWords {
    private JsonErrorWords() {}

    /** A reason the library gives and its words; words null means the rule does not apply after all. */
    private record Rule(Pattern pattern, Function<Matcher, String> words) {}

    /** The words for text after the one JSON value. */
    static final String TEXT_AFTER = "text follows the JSON value";

    /** How an array or object is named with the place it begins. */
    private static final String OPENED_AT = " opened at line ";

    /**
     * The start of the words for a text that ends while an array or object is open: the place
     * of the opening is told, so the end (always the text's end) gets no "(line, column)".
     */
    private static final String ENDS_BEFORE = "it ends before the ";

    /** A character as the library quotes it, "('x' (code 120))": group 1 is the character (two chars for an emoji). */
    private static final String CHAR = "\\('(.+?)' \\(code \\d+";

    /** Where the library wants a value. */
    private static final String VALUE_WANTED = ".*expected a (?:valid )?value";

    /** The parser's reasons, in the words the user reads; the first that matches wins, so the specific come first. */
    private static final List<Rule> RULES = List.of(
            // A character that cannot be seen (no-break space, zero-width space) is named first: the
            // library's reason ("expecting comma") would send the user looking for what is there.
            rule("Unexpected character " + CHAR, m -> invisible(m.group(1))),
            rule("Leading zeroes not allowed", m -> "numbers may not have leading zeros"),
            rule("Non-standard token '([^']*)'", m -> "'" + abbreviate(m.group(1)) + "' is not a JSON number"),
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
                    m -> "a trailing comma before '}' is not allowed"),
            rule("was expecting double-quote to start field name", m -> "field names must be in double quotes"),
            // A ']' where a value must come follows a comma ([1,]) or a colon ({"a":]).
            rule("Unexpected character \\('\\]'" + VALUE_WANTED, m -> "a value is missing before ']' (a trailing comma is not allowed)"),
            rule("Unexpected character \\('([,}])'" + VALUE_WANTED, m -> "a value is missing before '" + m.group(1) + "'"),
            rule("Unexpected character \\(''' \\(code" + VALUE_WANTED, m -> "strings must be in double quotes"),
            rule("Unexpected character " + CHAR + VALUE_WANTED, m -> shown(m.group(1)) + " cannot start a JSON value"),
            rule("was expecting comma to separate (Object|Array) entries",
                    m -> "a comma must separate the entries of " + ("Array".equals(m.group(1)) ? "an array" : "an object")),
            rule("was expecting a colon to separate field name and value", m -> "a colon must follow each field name"),
            rule("Unrecognized token '([^']*)'", m -> "'" + abbreviate(m.group(1)) + "' is not a JSON value"),
            rule("Duplicate field '(.*)'", m -> "the field " + Json.quote(abbreviate(m.group(1))) + " appears twice"),
            rule("Expected space separating root-level values|^Trailing token", m -> TEXT_AFTER),
            rule("CTRL-CHAR, code (\\d+)\\).*has to be escaped",
                    m -> "control characters in strings must be escaped (here " + codePoint(m.group(1)) + ")"),
            rule("CTRL-CHAR, code (\\d+)\\).*between tokens",
                    m -> "the control character " + codePoint(m.group(1)) + " is not allowed outside strings"),
            rule("Unrecognized character escape '(.+?)' \\(code", m -> shown(m.group(1)).startsWith("'")
                    ? "\\" + m.group(1) + " is not a JSON escape" : "a backslash before " + shown(m.group(1)) + " is not a JSON escape"),
            rule("expected a hex-digit for character escape sequence", m -> "a \\u escape needs four hexadecimal digits"),
            rule("end-of-input.*(?:closing quote|VALUE_STRING|character escape)", m -> "it ends inside a string"),
            rule("end-of-input.*(?:FIELD_NAME|field name)", m -> "it ends inside a field name"),
            rule("No digit following sign|expected digit \\(0-9\\) to follow minus sign", m -> "a minus sign must be followed by a digit"),
            rule("Decimal point not followed by a digit", m -> "a decimal point must be followed by a digit"),
            rule("Exponent indicator not followed by a digit|expected a digit for number exponent",
                    m -> "an exponent (e or E) must be followed by a digit"),
            rule("Unexpected character " + CHAR + ".*in numeric value", m -> shown(m.group(1)) + " cannot be part of a number"),
            // Without the parser's state (see describe), the library's message still names the opening.
            rule("expected close marker for (Object|Array) \\(start marker at .*line: (\\d+), column: (\\d+)",
                    m -> ends(m.group(1), m.group(2), m.group(3))),
            rule("Unexpected close marker '(.)': expected '(.)' \\(for (Array|Object) starting at .*line: (\\d+), column: (\\d+)",
                    m -> "'" + m.group(1) + "' cannot close the " + kind(m.group(3)) + OPENED_AT + m.group(4) + ", column "
                            + m.group(5) + " ('" + m.group(2) + "' does)"),
            rule("Unexpected close marker '(.)'", m -> "'" + m.group(1) + "' closes nothing that is open"),
            rule("(?:Unexpected|Illegal) character " + CHAR, m -> shown(m.group(1)) + " is not allowed here"));

    private static Rule rule(String regex, Function<Matcher, String> words) {
        return new Rule(Pattern.compile(regex, Pattern.DOTALL), words);
    }

    /** The library's location and switch names, cut from a message no rule knows. */
    private static final Pattern LIBRARY_DETAIL = Pattern.compile(
            "\\s*(?:at \\[Source:.*|\\((?:start marker at|for \\w+ starting at) \\[Source:[^\\]]*\\]\\))"
                    + "|\\s*[:,]?\\s*(?:enable|from|since Feature)?\\s*[`']?\\b(?:JsonReadFeature|StreamReadConstraints|StreamReadFeature"
                    + "|JsonParser\\.Feature|ALLOW_[A-Z_]+)[\\w.]*(?:\\(\\))?[`']?(?: to allow| not enabled for parser)?"
                    + "|\\s*\\(code \\d+[^)]*\\)",
            Pattern.DOTALL);

    /**
     * Why the parser refused the text, in plain words, with where: "numbers may not have
     * leading zeros (line 1, column 7)", or "it ends before the array opened at line 1, column
     * 1 is closed".
     *
     * @param e what the parser threw
     * @param parser the parser that threw it, for which array or object is open and where the
     *     token is that broke a limit (a limit such as the nesting depth comes without a
     *     location); null when it is not at hand
     * @return the words, never the library's class or setting names
     */
    static String describe(JsonProcessingException e, JsonParser parser) {
        String message = e.getOriginalMessage() == null ? "" : e.getOriginalMessage();
        if (message.contains("end-of-input") && !inStringOrNumber(message)) {
            // The parser's state says which array or object is still open and where it began.
            JsonStreamContext open = parser == null ? null : parser.getParsingContext();
            if (open != null && (open.inArray() || open.inObject())) {
                JsonLocation start = open.startLocation(ContentReference.unknown());
                return ends(open.inArray() ? "Array" : "Object", Integer.toString(start.getLineNr()),
                        Integer.toString(start.getColumnNr()));
            }
        }
        JsonLocation where = e.getLocation() != null ? e.getLocation() : parser == null ? null : parser.currentTokenLocation();
        String reason = reason(message);
        return reason + (reason.startsWith(ENDS_BEFORE) && reason.contains(OPENED_AT) ? "" : at(where));
    }

    /** The words for a parser message alone, without where; when no rule knows it, the message cut of library details. */
    static String reason(String message) {
        for (Rule r : RULES) {
            Matcher m = r.pattern().matcher(message);
            String words = m.find() ? r.words().apply(m) : null;
            if (words != null) {
                return words;
            }
        }
        if (message.contains("end-of-input")) {
            return "it ends before the JSON value is complete";
        }
        String cut = LIBRARY_DETAIL.matcher(message).replaceAll("").strip();
        return cut.isEmpty() ? "it is not valid JSON" : cut;
    }

    /** Where, in the text's own terms: " (line 1, column 7)", or "" when unknown. */
    static String at(JsonLocation location) {
        if (location == null || location.getLineNr() < 1) {
            return "";
        }
        return " (line " + location.getLineNr() + ", column " + location.getColumnNr() + ")";
    }

    /** Whether an end-of-input message is about a string, a field name or a number, which its own rule words. */
    private static boolean inStringOrNumber(String message) {
        return message.matches("(?s).*(closing quote|VALUE_STRING|character escape|field name|FIELD_NAME|digit).*");
    }

    private static String ends(String kind, String line, String column) {
        return ENDS_BEFORE + kind(kind) + OPENED_AT + line + ", column " + column + " is closed";
    }

    private static String kind(String libraryKind) {
        return "Array".equals(libraryKind) ? "array" : "object";
    }

    /**
     * A character of the user's text: 'x' when it can be seen, else its code point, so that a
     * byte order mark or a control character is not shown as nothing.
     */
    private static String shown(String character) {
        int cp = character.codePointAt(0);
        if (Character.isSurrogate(character.charAt(0)) && character.length() == 1) {
            return "this character"; // the library names half of it: an emoji, say, is told by the column
        }
        if (cp == 0xFEFF) {
            return "U+FEFF (a byte order mark)";
        }
        boolean invisible = Character.isISOControl(cp) || Character.isWhitespace(cp) || Character.isSpaceChar(cp)
                || Character.getType(cp) == Character.FORMAT;
        return invisible ? String.format("U+%04X", cp) : "'" + character + "'";
    }

    /** The words for a character that cannot be seen, or null for one that can. */
    private static String invisible(String character) {
        String shown = shown(character);
        if (!shown.startsWith("U+")) {
            return null;
        }
        int cp = character.codePointAt(0);
        return Character.isWhitespace(cp) || Character.isSpaceChar(cp)
                ? shown + " is not white space in JSON (space, tab, line feed and carriage return are)"
                : shown + " is not allowed here";
    }

    /** A code point the library gives in decimal, as U+0009. */
    private static String codePoint(String decimal) {
        return String.format("U+%04X", Integer.parseInt(decimal));
    }

    /** At most 40 characters of the user's text in a message. */
    private static String abbreviate(String s) {
        return s.length() <= 40 ? s : s.substring(0, 40) + "...";
    }
}
