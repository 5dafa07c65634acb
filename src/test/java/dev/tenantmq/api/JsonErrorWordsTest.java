package dev.tenantmq.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import org.junit.jupiter.api.Test;

/** The parser's reasons in plain words; the messages are Jackson 2.21's own. */
class JsonErrorWordsTest {
    @Test
    void limits_are_named_by_the_limit_not_by_the_parser_setting() {
        assertEquals("a string longer than 20000000 characters", JsonErrorWords.plain(
                "String value length (20000001) exceeds the maximum allowed (20000000, from `StreamReadConstraints.getMaxStringLength()`)"));
        assertEquals("a number longer than 1000 digits", JsonErrorWords.plain(
                "Number value length (1001) exceeds the maximum allowed (1000, from `StreamReadConstraints.getMaxNumberLength()`)"));
        assertEquals("nested deeper than 1000 levels", JsonErrorWords.plain(
                "Document nesting depth (1001) exceeds the maximum allowed (1000, from `StreamReadConstraints.getMaxNestingDepth()`)"));
        assertEquals("a field name longer than 50000 characters", JsonErrorWords.plain(
                "Name length (50001) exceeds the maximum allowed (50000, from `StreamReadConstraints.getMaxNameLength()`)"));
    }

    @Test
    void json_rules_are_named_in_plain_words() {
        assertEquals("numbers may not have leading zeros",
                JsonErrorWords.plain("Invalid numeric value: Leading zeroes not allowed"));
        assertEquals("NaN is not a JSON number", JsonErrorWords.plain(
                "Non-standard token 'NaN': enable `JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS` to allow"));
        assertEquals("numbers may not start with a plus sign", JsonErrorWords.plain("Unexpected character ('+' (code 43)) "
                + "in numeric value: JSON spec does not allow numbers to have plus signs: enable "
                + "`JsonReadFeature.ALLOW_LEADING_PLUS_SIGN_FOR_NUMBERS` to allow"));
        assertEquals("comments are not allowed in JSON", JsonErrorWords.plain("Unexpected character ('/' (code 47)): "
                + "maybe a (non-standard) comment? (not recognized as one since Feature 'ALLOW_COMMENTS' not enabled for parser)"));
    }

    @Test
    void an_unknown_reason_keeps_its_words_without_the_parser_setting() {
        String plain = JsonErrorWords.plain("Unexpected thing: enable `JsonReadFeature.ALLOW_SOMETHING_NEW` to allow");
        assertEquals("Unexpected thing", plain);
        assertFalse(JsonErrorWords.plain("over the limit (5, from `StreamReadConstraints.getMaxNewThing()`)")
                .contains("StreamReadConstraints"));
        assertEquals("Unexpected thing", JsonErrorWords.plain("Unexpected thing"));
    }

    @Test
    void an_end_of_input_with_no_more_precise_rule_still_says_it_ends() {
        assertEquals("it ends before the JSON value is complete", JsonErrorWords.plain("Unexpected end-of-input"));
        assertEquals("it ends before the JSON value is complete",
                JsonErrorWords.plain("Unexpected end-of-input within/between Object entries"));
    }

    @Test
    void json_that_ends_early_says_what_is_left_open_and_where_it_was_opened() {
        assertEquals("it ends before the array opened at line 2, column 14 is closed", JsonErrorWords.plain(
                "Unexpected end-of-input: expected close marker for Array (start marker at [Source: REDACTED "
                        + "(`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); line: 2, column: 14])"));
        assertEquals("it ends inside a string", JsonErrorWords.plain("Unexpected end-of-input in VALUE_STRING"));
    }

    @Test
    void a_number_out_of_range_is_told_without_java_type_names() {
        assertEquals("is out of range: 99999999999999999999 is too large for an integer", JsonErrorWords.outOfRange(
                "Numeric value (99999999999999999999) out of range of int (-2147483648 - 2147483647)").orElseThrow());
        assertEquals("is out of range: -99999999999999999999 is too small for an integer", JsonErrorWords.outOfRange(
                "Numeric value (-99999999999999999999) out of range of long (-9223372036854775808 - 9223372036854775807)")
                .orElseThrow());
    }

    @Test
    void expected_types_are_json_types() {
        assertEquals("an integer", JsonErrorWords.expected(Integer.class));
        assertEquals("a string", JsonErrorWords.expected(String.class));
        assertEquals("an array", JsonErrorWords.expected(java.util.List.class));
        assertEquals("true or false", JsonErrorWords.expected(boolean.class));
    }
}
