package dev.tenantmq.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link Json#parse} tells why a text is not JSON in plain words with line and column
 * ({@link JsonErrorWords}); the JSON library's messages are Jackson 2.21's own.
 */
class JsonErrorWordsTest {
    /** Words of the JSON library (its name, classes, settings, location format) that no message may carry. */
    private static final List<String> LIBRARY_WORDS = List.of("Jackson", "jackson", "StreamRead", "JsonRead", "Source:",
            "REDACTED", "Feature", "ALLOW_", "getMax", "end-of-input", "(code ", "CTRL-CHAR", "VALUE_", "FIELD_NAME", "token '");

    /** Texts that are not one JSON value and the exact words for each. */
    private static final Map<String, String> WORDS = new LinkedHashMap<>();

    static {
        WORDS.put("[1,2", "it ends before the array opened at line 1, column 1 is closed");
        WORDS.put("{\"a\":", "it ends before the object opened at line 1, column 1 is closed");
        WORDS.put("{\"a\":{\"b\":[1,\n  {\"c\":2}", "it ends before the array opened at line 1, column 11 is closed");
        WORDS.put("not json", "'not' is not a JSON value (line 1, column 1)");
        WORDS.put("{\"a\":01}", "numbers may not have leading zeros (line 1, column 7)");
        WORDS.put("\n\n  {\"a\":01}", "numbers may not have leading zeros (line 3, column 9)");
        WORDS.put("{\"a\":1,\"a\":2}", "the field \"a\" appears twice (line 1, column 11)");
        WORDS.put("{\"a\":1} x", "text follows the JSON value (line 1, column 9)");
        WORDS.put("1 2", "text follows the JSON value (line 1, column 3)");
        WORDS.put("[1]\n\n  ]", "text follows the JSON value (line 3, column 3)");
        WORDS.put("\"abc", "it ends inside a string (line 1, column 5)");
        WORDS.put("{\"a\":NaN}", "'NaN' is not a JSON number (line 1, column 9)");
        WORDS.put("+1", "numbers may not start with a plus sign (line 1, column 2)");
        WORDS.put("{'a':1}", "field names must be in double quotes (line 1, column 2)");
        WORDS.put("['a']", "strings must be in double quotes (line 1, column 2)");
        WORDS.put("[1,]", "a value is missing before ']' (a trailing comma is not allowed) (line 1, column 4)");
        WORDS.put("{\"a\":1,}", "a trailing comma before '}' is not allowed (line 1, column 8)");
        WORDS.put("{\"a\" 1}", "a colon must follow each field name (line 1, column 6)");
        WORDS.put("[1 2]", "a comma must separate the entries of an array (line 1, column 4)");
        WORDS.put("{\"a\":\"x\ty\"}", "control characters in strings must be escaped (here U+0009) (line 1, column 8)");
        WORDS.put("{\"a\":[1,2}", "'}' cannot close the array opened at line 1, column 6 (']' does) (line 1, column 10)");
        WORDS.put("-", "a minus sign must be followed by a digit (line 1, column 2)");
        WORDS.put("1.e5", "a decimal point must be followed by a digit (line 1, column 2)");
        WORDS.put("1e", "an exponent (e or E) must be followed by a digit (line 1, column 3)");
        WORDS.put("/* c */ 1", "comments are not allowed in JSON (line 1, column 1)");
        WORDS.put("\"\\x\"", "\\x is not a JSON escape (line 1, column 3)");
        WORDS.put("\"\\u12G4\"", "a \\u escape needs four hexadecimal digits (line 1, column 6)");
        WORDS.put("<html>", "'<' cannot start a JSON value (line 1, column 1)");
        WORDS.put("\ufeff{}", "U+FEFF (a byte order mark) is not allowed here (line 1, column 1)");
        WORDS.put("{\"a\":1\u00a0,\"b\":2}",
                "U+00A0 is not white space in JSON (space, tab, line feed and carriage return are) (line 1, column 7)");
        WORDS.put("[1,\u0001]", "the control character U+0001 is not allowed outside strings (line 1, column 5)");
        WORDS.put("  ", "it is empty");
    }

    @Test
    void each_kind_of_mistake_is_named_in_plain_words_with_where() {
        WORDS.forEach((text, words) -> assertEquals(words, notJson(text), () -> "for " + Json.quote(text)));
    }

    @Test
    void limits_are_named_by_the_limit_and_the_token_that_broke_it() {
        assertEquals("nested deeper than 1000 levels (line 1, column 1001)", notJson("[".repeat(1200) + "]".repeat(1200)));
        assertEquals("a number longer than 1000 digits (line 1, column 1)", notJson("1" + "0".repeat(1001)));
    }

    @Test
    void no_message_carries_the_json_librarys_words() {
        List<String> texts = List.of("[1,2", "[".repeat(1200), "not json", "{\"a\":01}", "{\"a\":", "{\"a\":1,\"a\":2}", "{", "[1}",
                "{\"a\":1]", "\"a\\", "{\"a", "[-", "1ex", "0x10", "1.5.5", "{\"a\":1}\n// c", "[\"\u0000\"]", "\u0001", "[\u00e9]",
                "[1,\u200b2]", "[\"\\\ud83d\ude00\"]", "[\ud83d\ude00]", "{\"a\":-}", "tru", "-Infinity", "\"\\u12", "[true false]",
                "{,}", "{\"a\":1 \"b\":2}", "[1,,2]", "{\"a\":}");
        for (String text : texts) {
            String words = notJson(text);
            for (String w : LIBRARY_WORDS) {
                assertFalse(words.contains(w), () -> "\"" + w + "\" in the words for " + Json.quote(text) + ": " + words);
            }
            assertTrue(words.matches(".*line \\d+, column \\d+.*"), () -> "no line and column for " + Json.quote(text) + ": " + words);
        }
    }

    @Test
    void a_reason_no_rule_knows_keeps_its_words_without_the_librarys_details() {
        assertEquals("Unexpected thing", JsonErrorWords.reason("Unexpected thing: enable `JsonReadFeature.ALLOW_SOMETHING_NEW` to allow"));
        assertEquals("over the limit (5)", JsonErrorWords.reason("over the limit (5, from `StreamReadConstraints.getMaxNewThing()`)"));
        assertEquals("Strange 'x' here", JsonErrorWords.reason("Strange 'x' (code 120) here"));
        assertEquals("Odd", JsonErrorWords.reason("Odd\n at [Source: REDACTED (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); line: 1, column: 2]"));
        assertEquals("it ends before the JSON value is complete", JsonErrorWords.reason("Unexpected end-of-input somewhere new"));
    }

    @Test
    void without_the_parser_an_unclosed_array_is_named_from_the_message() {
        assertEquals("it ends before the array opened at line 2, column 14 is closed", JsonErrorWords.reason(
                "Unexpected end-of-input: expected close marker for Array (start marker at [Source: REDACTED "
                        + "(`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); line: 2, column: 14])"));
    }

    @Test
    void valid_json_still_parses() throws Exception {
        assertEquals("{\"a\":[1,2.50,{\"b\":null}]}", Json.write(Json.parse(" {\"a\": [1, 2.50, {\"b\": null}]}\n")));
    }

    private static String notJson(String text) {
        return assertThrows(InvalidJson.class, () -> Json.parse(text), () -> Json.quote(text) + " parsed").getMessage();
    }
}
