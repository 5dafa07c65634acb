package dev.tenantmq;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

/**
 * Errors that say what to do (SPEC section 4, "Errors everywhere"): a value of the wrong type names
 * the field, the type it must have and what was given; a syntax error names the field whose value
 * it is in, or the enclosing object when it is between fields; a number out of range and JSON that
 * ends early are told in plain words (line and column, never the parser's names); a query parameter
 * an admin call does not take is 400 naming the ones it takes.
 */
@QuarkusTest
@DatabaseAgnostic
class ErrorWordsTest {
    /** Words of the parser's internals that no detail may carry. */
    private static final List<String> INTERNALS = List.of("java.", "`", "Source", "StreamRead", "JsonToken",
            "JsonRead", "Jackson", "marker", "coerce", "Numeric value", "CoercionConfig", "REDACTED");

    @ConfigProperty(name = "mq.admin.token")
    String adminToken;

    private final String tenant = TestIds.tenant();
    private final String topic = TestIds.topic();

    @Test
    void a_value_of_the_wrong_type_names_the_type_it_must_have_and_what_was_given() {
        assertError(fetch("{\"maxMessages\": \"ten\"}"), "maxMessages", "must be an integer, not the string \"ten\"");
        assertError(fetch("{\"maxMessages\": [10]}"), "maxMessages", "must be an integer, not an array");
        assertError(fetch("{\"maxMessages\": 1.5}"), "maxMessages", "must be an integer, not the number 1.5");
        assertError(fetch("{\"waitSeconds\": true}"), "waitSeconds", "must be an integer, not the value true");
        assertError(post("ack", "{\"receipts\": \"r1\"}"), "receipts", "must be an array, not the string \"r1\"");
        assertError(publish("{\"messages\": [{\"partitionKey\": 42, \"payload\": 1}]}"), "messages[0].partitionKey",
                "must be a string, not the number 42");
    }

    /** Every body's fields, those Jackson reads and those the validator checks, say what was given. */
    @Test
    void every_wrong_type_in_every_body_says_what_was_given() {
        assertError(publish("{\"messages\": [{\"partitionKey\": true, \"payload\": 1}]}"), "messages[0].partitionKey",
                "must be a string, not the value true");
        assertError(publish(message("\"id\": 1e3")), "messages[0].id", "must be a string, not the number 1e3");
        assertError(publish(message("\"id\": \"\"")), "messages[0].id",
                "must be 1-255 Unicode code points, or left out for a generated id (got an empty string)");
        assertError(publish(message("\"metadata\": {\"a\": 1}")), "messages[0].metadata.a",
                "must be a string, not the number 1");
        assertError(publish(message("\"metadata\": [\"a\"]")), "messages[0].metadata",
                "must be an object of string values, not an array");
        assertError(publish(message("\"deliverAfterSeconds\": \"5\"")), "messages[0].deliverAfterSeconds",
                "must be a whole number of seconds, at least 0, not the string \"5\"");
        assertError(publish(message("\"deliverAfterSeconds\": 1.5")), "messages[0].deliverAfterSeconds",
                "must be a whole number of seconds, at least 0, not the number 1.5");
        assertError(publish(message("\"deliverAt\": 1700000000")), "messages[0].deliverAt",
                "must be an RFC 3339 date-time with an offset such as 2026-12-02T05:00:00Z, not the number 1700000000");
        assertError(publish(message("\"deliverAt\": \"tomorrow\"")), "messages[0].deliverAt",
                "must be an RFC 3339 date-time with an offset such as 2026-12-02T05:00:00Z, not the string \"tomorrow\"");
        assertError(publish("{\"messages\": [1]}"), "messages[0]", "must be an object, not the number 1");
        assertError(publish("{\"messages\": [null]}"), "messages[0]", "must be an object, not null");
        assertError(publish("{\"messages\": {}}"), "messages", "must be an array, not an object");
        assertError(publish("\"hello\""), "body", "must be a JSON object, not the string \"hello\": a publish body is"
                + " {\"messages\": [...]}, a list of messages each with partitionKey and payload");
        assertError(committed("{\"partitionKeys\": \"k\"}"), "partitionKeys", "must be an array, not the string \"k\"");
        assertError(committed("{\"partitionKeys\": [null]}"), "partitionKeys[0]", "must be a string, not null");
        assertError(committed("{}"), "partitionKeys", "is required: an array of 1..1000 partition keys");
        assertError(committed("{\"partitionKeys\": []}"), "partitionKeys",
                "must be an array of 1..1000 partition keys (got 0)");
        assertError(committed("{\"partitionKeys\": [" + "\"k\",".repeat(1000) + "\"k\"]}"), "partitionKeys",
                "must be an array of 1..1000 partition keys (got 1001)");
        assertError(fetch("{\"maxBytes\": {}}"), "maxBytes", "must be an integer, not an object");
        assertError(fetch("{\"ack\": [\"r\", 2]}"), "ack[1]", "must be a string, not the number 2");
        assertError(fetch("{\"ack\": [null]}"), "ack[0]", "must be a string, not null");
        assertError(fetch("[]"), "body", "must be a JSON object, not an array (see openapi.yaml)");
        assertError(fetch("null"), "body",
                "must be a JSON object, or no body at all for the defaults, not null or whitespace alone");
        assertError(post("ack", "{\"receipts\": 5}"), "receipts", "must be an array, not the number 5");
        assertError(post("ack", "{\"receipts\": [null]}"), "receipts[0]", "must be a string, not null");
        assertError(post("extend", "{\"receipts\": [\"r\"], \"visibilitySeconds\": \"30\"}"), "visibilitySeconds",
                "must be an integer, not the string \"30\"");
        assertError(post("nack", "{\"receipts\": [\"r\"], \"reason\": false}"), "reason",
                "must be a string, not the value false");
        assertError(post("nack", "{\"receipts\": [\"r\"], \"delaySeconds\": 1e3}"), "delaySeconds",
                "must be an integer, not the number 1e3");
        assertError(settings("{\"nackBackoffBaseMillis\": \"100\"}"), "nackBackoffBaseMillis",
                "must be an integer, not the string \"100\"");
        assertError(settings("null"), "body", "must be a JSON object of overrides ({} clears them), not null or"
                + " whitespace alone");
    }

    /**
     * A number in a refusal is quoted as the client wrote it, in every field: those the validator
     * checks (deliverAfterSeconds, deliverAt, metadata) said "1E+400" for 1e400, "0.0" for -0.0
     * and "1.0E+3" for 1.0E3, where the fields the parser checks quoted the client's text.
     */
    @Test
    void a_number_in_a_refusal_is_quoted_as_written_in_every_field() {
        for (String number : List.of("1e400", "-0.0", "1.0E3", "1.50", "-1E-7")) {
            assertError(publish(message("\"deliverAfterSeconds\": " + number)), "messages[0].deliverAfterSeconds",
                    "must be a whole number of seconds, at least 0, not the number " + number);
            assertError(publish(message("\"deliverAt\": " + number)), "messages[0].deliverAt",
                    "must be an RFC 3339 date-time with an offset such as 2026-12-02T05:00:00Z, not the number " + number);
            assertError(publish(message("\"metadata\": " + number)), "messages[0].metadata",
                    "must be an object of string values, not the number " + number);
            assertError(publish(message("\"metadata\": {\"a\": " + number + "}")), "messages[0].metadata.a",
                    "must be a string, not the number " + number);
            assertError(publish("{\"messages\": [{\"partitionKey\": " + number + ", \"payload\": 1}]}"),
                    "messages[0].partitionKey", "must be a string, not the number " + number);
            assertError(publish(message("\"id\": " + number)), "messages[0].id", "must be a string, not the number " + number);
            assertError(fetch("{\"visibilitySeconds\": " + number + "}"), "visibilitySeconds",
                    "must be an integer, not the number " + number);
            assertError(fetch("{\"ack\": [" + number + "]}"), "ack[0]", "must be a string, not the number " + number);
            assertError(post("extend", "{\"receipts\": [\"r\"], \"visibilitySeconds\": " + number + "}"),
                    "visibilitySeconds", "must be an integer, not the number " + number);
            assertError(post("nack", "{\"receipts\": [\"r\"], \"delaySeconds\": " + number + "}"), "delaySeconds",
                    "must be an integer, not the number " + number);
            assertError(committed("{\"partitionKeys\": [" + number + "]}"), "partitionKeys[0]",
                    "must be a string, not the number " + number);
            assertError(settings("{\"maxDeliveries\": " + number + "}"), "maxDeliveries",
                    "must be an integer, not the number " + number);
            assertError(settings("{\"deadLetterEnabled\": " + number + "}"), "deadLetterEnabled",
                    "must be true or false, not the number " + number);
        }
        // An integer too: -0 is a JSON number of its own writing.
        assertError(publish(message("\"metadata\": {\"a\": -0}")), "messages[0].metadata.a",
                "must be a string, not the number -0");
        assertError(publish(message("\"deliverAt\": -0")), "messages[0].deliverAt",
                "must be an RFC 3339 date-time with an offset such as 2026-12-02T05:00:00Z, not the number -0");
        assertError(publish(message("\"deliverAfterSeconds\": -99999999999999999999")), "messages[0].deliverAfterSeconds",
                "must be at least 0 seconds (got -99999999999999999999)");
    }

    /**
     * A due time the database cannot store is refused for the limit the client meets: one past
     * year 9999 is beyond the retention maximum age ahead, and the error names that setting, as
     * for any time too far ahead; one before year 1000 names the years the database stores.
     */
    @Test
    void a_due_time_beyond_the_databases_range_names_the_limit_it_breaks() {
        String retention = "must be at most the retention maximum age (mq.retention.max-age, 604800 s) ahead (got %s):"
                + " retention deletes a message that long after its publish";
        assertError(publish(message("\"deliverAt\": \"9999-12-31T12:00:00Z\"")), "messages[0].deliverAt",
                String.format(retention, "9999-12-31T12:00:00Z"));
        assertError(publish(message("\"deliverAt\": \"+999999999-12-31T00:00:00Z\"")), "messages[0].deliverAt",
                String.format(retention, "+999999999-12-31T00:00:00Z"));
        assertError(publish(message("\"deliverAt\": \"0999-12-31T23:59:59Z\"")), "messages[0].deliverAt",
                "must be in the years 1000 to 9999 (UTC), the times the database stores (got 0999-12-31T23:59:59Z)");
    }

    /** A flag is true or false: neither a string nor a number is read as one. */
    @Test
    void a_settings_flag_given_as_a_string_or_a_number_is_refused_saying_what_was_given() {
        assertError(settings("{\"deadLetterEnabled\": \"false\"}"), "deadLetterEnabled",
                "must be true or false, not the string \"false\"");
        assertError(settings("{\"deadLetterEnabled\": 0}"), "deadLetterEnabled", "must be true or false, not the number 0");
    }

    /**
     * The parser reads a field's name and the first token of its value in one step: a number,
     * literal or nesting it refuses there is the field's, as a string it refuses later is; so is
     * a missing colon after the name.
     */
    @Test
    void a_syntax_error_in_a_fields_value_names_the_field() {
        assertError(publish("{\"messages\":[{\"partitionKey\":01,\"payload\":1}]}"), "messages[0].partitionKey",
                "is not valid JSON: numbers may not have leading zeros (line 1, column 31)");
        assertError(publish("{\"messages\":[{\"partitionKey\":\"a\tb\",\"payload\":1}]}"), "messages[0].partitionKey",
                "is not valid JSON: control characters in strings must be escaped (line 1, column 32)");
        assertError(fetch("{\"maxMessages\": 01}"), "maxMessages",
                "is not valid JSON: numbers may not have leading zeros (line 1, column 18)");
        assertError(post("nack", "{\"receipts\": [\"r\"], \"delaySeconds\": NaN}"), "delaySeconds",
                "is not valid JSON: NaN is not a JSON number (line 1, column 40)");
        assertError(fetch("{\"maxMessages\" 1}"), "maxMessages",
                "is not valid JSON: a colon must follow each field name (line 1, column 16)");
        assertError(publish("{\"messages\": tru}"), "messages", "is not valid JSON: tru is not a JSON value (a value is a"
                + " string, a number, an object, an array, true, false or null) (line 1, column 14)");
        String payload = "{\"messages\":[{\"partitionKey\":\"k\",\"payload\":%s}]}";
        assertError(publish(payload.formatted("012")), "messages[0].payload",
                "is not valid JSON: numbers may not have leading zeros (line 1, column 45)");
        assertError(publish(payload.formatted("NaN")), "messages[0].payload",
                "is not valid JSON: NaN is not a JSON number (line 1, column 47)");
        assertError(publish(payload.formatted("1".repeat(1200))), "messages[0].payload",
                "is not valid: a number longer than 1000 digits");
        assertError(publish(payload.formatted("[".repeat(1001) + "]".repeat(1001))), "messages[0].payload",
                "is not valid: nested deeper than 1000 levels");
    }

    /** A missing comma or a bad field name is no field's value: the enclosing object is named. */
    @Test
    void a_syntax_error_between_fields_names_the_enclosing_object() {
        assertError(publish("{\"messages\":[{\"partitionKey\":\"k\" \"payload\":1}]}"), "messages[0]",
                "is not valid JSON: a comma must separate the entries of an object (line 1, column 34)");
        assertError(publish("{\"messages\":[{\"partitionKey\":\"k\", payload:1}]}"), "messages[0]",
                "is not valid JSON: field names must be in double quotes (line 1, column 35)");
        assertError(fetch("{\"maxMessages\": 1, }"), "body", "is not valid JSON: a trailing comma before } is not allowed"
                + " (line 1, column 20)");
        assertError(fetch("{\"maxMessages\": 1 /* c */}"), "body",
                "is not valid JSON: comments are not allowed in JSON (line 1, column 19)");
    }

    @Test
    void a_number_too_large_for_its_field_is_out_of_range_in_plain_words() {
        assertError(fetch("{\"maxMessages\": 99999999999999999999}"), "maxMessages",
                "must be between 1 and 1000 (got 99999999999999999999)");
        assertError(fetch("{\"waitSeconds\": -99999999999999999999}"), "waitSeconds",
                "must be between 0 and 30 (got -99999999999999999999)");
    }

    @Test
    void json_that_ends_early_says_what_is_left_open_and_where() {
        assertError(post("ack", "{\"receipts\": ["), "body",
                "is not valid JSON: it ends before the array opened at line 1, column 14 is closed");
        assertError(fetch("{\n  \"maxMessages\": 1"), "body",
                "is not valid JSON: it ends before the object opened at line 1, column 1 is closed");
        assertError(fetch("{\"maxMessages\": \"ab"), "body", "is not valid JSON: it ends inside a string (line 1, column 20)");
        assertError(fetch("{\"maxMessages\": 1}}"), "body", "is not valid JSON: a } closes nothing that is open (line 1, column 19)");
    }

    @Test
    void a_query_parameter_an_admin_call_does_not_take_is_named_with_the_ones_it_takes() {
        for (String call : List.of("/admin/topics?tenant=" + tenant + "&topci=x",
                "/admin/consumer-groups?tenant=" + tenant + "&consumer_group=g")) {
            Response r = admin(call);
            String name = call.substring(call.lastIndexOf('&') + 1, call.lastIndexOf('='));
            assertEquals(400, r.statusCode(), r.asString());
            assertEquals(name, r.jsonPath().getString("errors[0].field"), r.asString());
            assertFalse(r.asString().contains("java."), r.asString());
        }
        admin("/admin/topics?tenant=" + tenant + "&topci=x").then()
                .body("errors[0].message", equalTo("is not a parameter of this call: it takes allTenants, limit, tenant"));
        admin("/admin/tenants?tenant=" + tenant).then().statusCode(400)
                .body("errors[0].message", equalTo("is not a parameter of this call: it takes no query parameters"));
        admin("/admin/offsets?tenant=" + tenant + "&topic=" + topic + "&consumerGroup=g&limit=5").then().statusCode(200);
    }

    /**
     * JSON is UTF-8 (RFC 8259, section 8.1): other bytes are named so, also where another charset
     * was declared, which has no effect (section 11): a declared charset with ASCII bytes is read.
     */
    @Test
    void a_body_that_is_not_utf8_says_that_json_is_utf8() {
        byte[] latin1 = "{\"messages\":[{\"partitionKey\":\"caf\u00e9\",\"payload\":1}]}".getBytes(StandardCharsets.ISO_8859_1);
        // The column the parser gives for the byte; an E9 that starts no sequence is marked where it is.
        String notUtf8 = "is not valid JSON: the body must be UTF-8 (RFC 8259) and is not here (line 1, column 35)";
        Response undeclared = given().contentType("application/json").body(latin1)
                .post("/tenants/{t}/topics/{topic}/messages", tenant, topic);
        assertError(undeclared, "messages[0].partitionKey", notUtf8);
        Response declared = given().contentType("application/json; charset=iso-8859-1").body(latin1)
                .post("/tenants/{t}/topics/{topic}/messages", tenant, topic);
        assertError(declared, "messages[0].partitionKey", notUtf8
                + "; charset=iso-8859-1 has no effect: JSON is always UTF-8 (RFC 8259, sections 8.1 and 11)");
        given().contentType("application/json; charset=iso-8859-1").body("{\"messages\":[{\"partitionKey\":\"k\",\"payload\":1}]}")
                .post("/tenants/{t}/topics/{topic}/messages", tenant, topic).then().statusCode(201);
        byte[] utf8 = "{\"messages\":[{\"partitionKey\":\"caf\u00e9\",\"payload\":1}]}".getBytes(StandardCharsets.UTF_8);
        given().contentType("application/json; charset=UTF-8").body(utf8)
                .post("/tenants/{t}/topics/{topic}/messages", tenant, topic).then().statusCode(201);
    }

    /**
     * The same for a byte in a field name, named by the object the name is in (docs/api.md,
     * "Errors"): \xe9 before one ASCII letter said "it ends inside a field name" of the body.
     */
    @Test
    void a_field_name_that_is_not_utf8_says_that_json_is_utf8_naming_the_object_it_is_in() {
        String notUtf8 = "is not valid JSON: the body must be UTF-8 (RFC 8259) and is not here (line 1, column ";
        Response top = given().contentType("application/json").body(latin1("{\"caf\u00e9x\":1}"))
                .post("/tenants/{t}/topics/{topic}/consumer-groups/g/fetch", tenant, topic);
        assertError(top, "body", notUtf8 + "9)");
        Response inMessage = given().contentType("application/json")
                .body(latin1("{\"messages\":[{\"caf\u00e9x\":\"k\",\"payload\":1}]}"))
                .post("/tenants/{t}/topics/{topic}/messages", tenant, topic);
        assertError(inMessage, "messages[0]", notUtf8 + "22)");
        Response inPayload = given().contentType("application/json; charset=iso-8859-1")
                .body(latin1("{\"messages\":[{\"partitionKey\":\"k\",\"payload\":{\"caf\u00e9x\":1}}]}"))
                .post("/tenants/{t}/topics/{topic}/messages", tenant, topic);
        assertError(inPayload, "messages[0].payload", notUtf8 + "52); charset=iso-8859-1 has no effect: JSON is"
                + " always UTF-8 (RFC 8259, sections 8.1 and 11)");
        Response inAck = given().contentType("application/json").body(latin1("{\"receipts\":[\"r\"],\"caf\u00e9x\":1}"))
                .post("/tenants/{t}/topics/{topic}/consumer-groups/g/ack", tenant, topic);
        assertError(inAck, "body", notUtf8 + "26)");
    }

    /**
     * Sequences the JSON parser would decode though they are not UTF-8 (overlong forms, an encoded
     * surrogate, a code point past U+10FFFF) and a UTF-16 body get the same 400 as any other byte
     * that is not UTF-8, naming the field; nothing is stored. An overlong {@code <} was stored as
     * {@code <}, a UTF-16 body published.
     */
    @Test
    void sequences_the_parser_would_decode_that_are_not_utf8_say_that_json_is_utf8() {
        String notUtf8 = "is not valid JSON: the body must be UTF-8 (RFC 8259) and is not here (line 1, column ";
        int[][] sequences = {{0xC0, 0xBC}, {0xE0, 0x80, 0xAF}, {0xF0, 0x80, 0x80, 0xAF}, {0xC0, 0x80},
            {0xED, 0xA0, 0x80}, {0xF4, 0x90, 0x80, 0x80}};
        for (int[] sequence : sequences) {
            java.io.ByteArrayOutputStream body = new java.io.ByteArrayOutputStream();
            body.writeBytes("{\"messages\":[{\"partitionKey\":\"k\",\"payload\":\"a".getBytes(StandardCharsets.US_ASCII));
            for (int b : sequence) {
                body.write(b);
            }
            body.writeBytes("script\"}]}".getBytes(StandardCharsets.US_ASCII));
            Response r = given().contentType("application/json").body(body.toByteArray())
                    .post("/tenants/{t}/topics/{topic}/messages", tenant, topic);
            assertError(r, "messages[0].payload", notUtf8 + "47)");
        }
        Response utf16 = given().contentType("application/json")
                .body("{\"messages\":[{\"partitionKey\":\"k\",\"payload\":1}]}".getBytes(StandardCharsets.UTF_16LE))
                .post("/tenants/{t}/topics/{topic}/messages", tenant, topic);
        assertEquals(400, utf16.statusCode(), utf16.asString());
        assertTrue(utf16.asString().contains("must be UTF-8"), utf16.asString());
        given().header("Authorization", "Bearer " + adminToken).queryParam("tenant", tenant).queryParam("topic", topic)
                .get("/admin/messages/browse").then().statusCode(200).body("messages", equalTo(List.of()));
    }

    /** The bytes of {@code text} in ISO-8859-1: each character above U+007F one byte that is not UTF-8. */
    private static byte[] latin1(String text) {
        return text.getBytes(StandardCharsets.ISO_8859_1);
    }

    private Response admin(String pathAndQuery) {
        return given().header("Authorization", "Bearer " + adminToken).urlEncodingEnabled(false).get(pathAndQuery);
    }

    private Response fetch(String body) {
        return post("fetch", body);
    }

    private Response post(String action, String body) {
        return given().contentType(ContentType.JSON).body(body)
                .post("/tenants/{t}/topics/{topic}/consumer-groups/g/" + action, tenant, topic);
    }

    /** A publish body of one message with partitionKey and payload, and {@code field} (another one) besides. */
    private static String message(String field) {
        return "{\"messages\": [{\"partitionKey\": \"k\", \"payload\": 1, " + field + "}]}";
    }

    private Response committed(String body) {
        return given().contentType(ContentType.JSON).body(body)
                .post("/tenants/{t}/topics/{topic}/messages/committed", tenant, topic);
    }

    private Response settings(String body) {
        return given().header("Authorization", "Bearer " + adminToken).contentType(ContentType.JSON).body(body)
                .put("/admin/settings?tenant={t}&topic={topic}", tenant, topic);
    }

    private Response publish(String body) {
        return given().contentType(ContentType.JSON).body(body).post("/tenants/{t}/topics/{topic}/messages", tenant, topic);
    }

    private static void assertError(Response r, String field, String message) {
        assertEquals(400, r.statusCode(), r.asString());
        assertEquals(field, r.jsonPath().getString("errors[0].field"), r.asString());
        assertEquals(message, r.jsonPath().getString("errors[0].message"), r.asString());
        assertEquals(field + " " + message, r.jsonPath().getString("detail"), r.asString());
        for (String word : INTERNALS) {
            assertFalse(r.asString().contains(word), word + " in " + r.asString());
        }
    }
}
