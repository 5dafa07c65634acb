package dev.tenantmq.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tenantmq.api.dto.FetchRequest;
import dev.tenantmq.api.dto.Problem;
import dev.tenantmq.api.dto.PublishRequest;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * Malformed JSON gets the same plain words and position wherever it is, at the top of a body or
 * inside {@code messages[...]} (SPEC section 4, "Errors everywhere"): the rule broken, the line
 * and the column, never the parser's own message.
 */
class JsonSyntaxDetailsTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    static {
        new JsonConfig().customize(MAPPER);
    }

    private static String detail(Class<?> type, String body) {
        return detail(type, body.getBytes(StandardCharsets.UTF_8));
    }

    private static String detail(Class<?> type, byte[] body) {
        try {
            MAPPER.readValue(body, type);
        } catch (JsonProcessingException e) {
            return ((Problem) new ProblemMapper().badJson(e, (String) null).getEntity()).detail();
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
        throw new AssertionError("accepted: " + new String(body, StandardCharsets.ISO_8859_1));
    }

    private static String publish(String messages) {
        return detail(PublishRequest.class, "{\"messages\": [" + messages + "]}");
    }

    @Test
    void syntax_errors_inside_messages_name_the_message_or_field_the_rule_and_the_position() {
        assertEquals("messages[0] is not valid JSON: a comma must separate the entries of an object (line 1, column 35)",
                publish("{\"partitionKey\":\"k\" \"payload\":1}"));
        assertEquals("messages[0].payload is not valid JSON: tru is not a JSON value (a value is a string, a number, an object,"
                + " an array, true, false or null) (line 1, column 45)", publish("{\"partitionKey\":\"k\",\"payload\":tru}"));
        assertEquals("messages[0].payload is not valid JSON: a comma must separate the entries of an array (line 1, column 48)",
                publish("{\"partitionKey\":\"k\",\"payload\":[1 2]}"));
        assertEquals("messages[0].payload is not valid JSON: numbers may not have leading zeros (line 1, column 46)",
                publish("{\"partitionKey\":\"k\",\"payload\":01}"));
        assertEquals("messages is not valid JSON: a value is missing before ]: a trailing comma is not allowed"
                + " (line 1, column 48)", publish("{\"partitionKey\":\"k\",\"payload\":1},"));
        assertEquals("messages[0] is not valid JSON: the field \"partitionKey\" appears twice (line 1, column 49)",
                publish("{\"partitionKey\":\"k\",\"partitionKey\":\"j\",\"payload\":1}"));
    }

    @Test
    void syntax_errors_at_the_top_name_the_body_or_field_the_rule_and_the_position() {
        assertEquals("maxMessages is not valid JSON: tru is not a JSON value (a value is a string, a number, an object,"
                + " an array, true, false or null) (line 1, column 17)", detail(FetchRequest.class, "{\"maxMessages\": tru}"));
        assertEquals("body is not valid JSON: a trailing comma before } is not allowed (line 1, column 19)",
                detail(FetchRequest.class, "{\"maxMessages\": 1,}"));
        assertEquals("body is not valid JSON: text follows the JSON value (line 1, column 20)",
                detail(FetchRequest.class, "{\"maxMessages\": 1} {}"));
        assertEquals("body is not valid JSON: x is not a JSON value (a value is a string, a number, an object,"
                + " an array, true, false or null) (line 1, column 20)", detail(FetchRequest.class, "{\"maxMessages\": 1} x"));
        assertEquals("body is not valid JSON: field names must be in double quotes (line 1, column 3)",
                detail(FetchRequest.class, "{ maxMessages: 1}"));
    }

    /**
     * Every syntax error has words, not only a position: malformed numbers and a body that ends
     * after a colon, a comma or a field name said only "is not valid JSON (line 1, column 18)".
     */
    @Test
    void malformed_numbers_and_a_body_that_ends_early_are_told_in_words() {
        java.util.Map<String, String> publishPayloads = java.util.Map.of(
                "1.", "a decimal point must be followed by a digit",
                "1.e5", "a decimal point must be followed by a digit",
                "1e", "an exponent (e or E) must be followed by a digit",
                "-", "a minus sign must be followed by a digit",
                "-a", "a minus sign must be followed by a digit");
        publishPayloads.forEach((payload, words) -> {
            String detail = publish("{\"partitionKey\":\"k\",\"payload\":" + payload + "}");
            assertTrue(detail.startsWith("messages[0].payload is not valid JSON: " + words + " (line 1, column "),
                    payload + ": " + detail);
        });
        assertTrue(detail(FetchRequest.class, "{\"maxMessages\":1.}")
                .startsWith("maxMessages is not valid JSON: a decimal point must be followed by a digit (line 1, column "));
        for (String early : java.util.List.of("{\"maxMessages\": ", "{\"maxMessages\":1,", "{\"maxMessages\"")) {
            String detail = detail(FetchRequest.class, early);
            assertTrue(detail.contains("is not valid JSON: it ends "), early + ": " + detail);
        }
        for (String early : java.util.List.of("{\"messages\":", "{\"messages\"", "{\"messages\":[{\"partitionKey\":",
                "{\"messages\":[{\"partitionKey\":\"k\",\"payload\":{\"a\":")) {
            String detail = detail(PublishRequest.class, early);
            assertTrue(detail.contains("is not valid JSON: it ends "), early + ": " + detail);
        }
    }

    /**
     * A byte that is not UTF-8 in a field name is told as one in a string value is, naming the
     * object the name is in: a lead byte announcing more bytes than the name has left (\xe9 before
     * one ASCII letter) said "it ends inside a field name" and named the body, wherever it was.
     */
    @Test
    void a_byte_that_is_not_utf8_in_a_field_name_is_told_so_naming_the_object_it_is_in() {
        String notUtf8 = " is not valid JSON: the body must be UTF-8 (RFC 8259) and is not here (line 1, column ";
        assertEquals("body" + notUtf8 + "9)", detail(FetchRequest.class, latin1("{\"caf\u00e9x\":1}")));
        assertEquals("body" + notUtf8 + "25)", detail(FetchRequest.class, latin1("{\"maxMessages\":1,\"caf\u00e9x\":1}")));
        assertEquals("messages[0]" + notUtf8 + "22)",
                detail(PublishRequest.class, latin1("{\"messages\":[{\"caf\u00e9x\":\"k\",\"payload\":1}]}")));
        assertEquals("messages[0].payload" + notUtf8 + "52)", detail(PublishRequest.class,
                latin1("{\"messages\":[{\"partitionKey\":\"k\",\"payload\":{\"caf\u00e9x\":1}}]}")));
        assertEquals("messages[0].payload" + notUtf8 + "57)", detail(PublishRequest.class,
                latin1("{\"messages\":[{\"partitionKey\":\"k\",\"payload\":{\"a\":{\"caf\u00e9x\":1}}}]}")));
        assertEquals("messages[0].metadata" + notUtf8 + "65)", detail(PublishRequest.class,
                latin1("{\"messages\":[{\"partitionKey\":\"k\",\"payload\":1,\"metadata\":{\"caf\u00e9x\":\"v\"}}]}")));
        // The same byte in a value, as it was already told.
        assertEquals("messages[0].partitionKey" + notUtf8 + "36)", detail(PublishRequest.class,
                latin1("{\"messages\":[{\"partitionKey\":\"caf\u00e9x\",\"payload\":1}]}")));
        // A body that does end inside a field name still says so.
        assertEquals("body is not valid JSON: it ends inside a field name (line 1, column 9)",
                detail(FetchRequest.class, "{\"maxMes"));
        assertEquals("body is not valid JSON: it ends inside a field name (line 1, column 48)",
                detail(PublishRequest.class, "{\"messages\":[{\"partitionKey\":\"k\",\"payload\":{\"ab"));
    }

    /** The bytes of {@code text} in ISO-8859-1: each character above U+007F one byte that is not UTF-8. */
    private static byte[] latin1(String text) {
        return text.getBytes(StandardCharsets.ISO_8859_1);
    }

    /** A number is echoed as the client wrote it, not as the parser read it (1e3, not 1000.0). */
    @Test
    void a_decimal_where_an_integer_belongs_is_echoed_as_written() {
        assertEquals("maxMessages must be an integer, not the number 1e3", detail(FetchRequest.class, "{\"maxMessages\": 1e3}"));
        assertEquals("maxMessages must be an integer, not the number 1.50", detail(FetchRequest.class, "{\"maxMessages\": 1.50}"));
        assertEquals("waitSeconds must be an integer, not the number -0.0", detail(FetchRequest.class, "{\"waitSeconds\": -0.0}"));
    }
}
