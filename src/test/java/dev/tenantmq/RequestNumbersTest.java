package dev.tenantmq;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every integer a request carries, in a body or a query, refused for being out of its range the
 * same way however large the number is (docs/api.md, "Errors"): 400 problem+json naming the field
 * and its range, never a 500, never "must be a whole number" or the parser's words. A JSON number
 * has no size, so {@code 99999999999999999999} is valid JSON that no int or long holds; the
 * answer names the same bounds as the field's own rule does for the first value past them.
 */
@QuarkusTest
class RequestNumbersTest {
    /** Too large for a long (and so for an int). */
    private static final String HUGE = "99999999999999999999";
    /** Too large for an int, not for a long. */
    private static final String BEYOND_INT = "99999999999";

    private final String tenant = TestIds.tenant();
    private final String topic = TestIds.topic();

    /**
     * Each integer field of a request body, where it goes, its range as the rule words it, and the
     * first value past the range (the rule's own refusal). A field of type long refuses a number
     * beyond an int by its own rule, in the same words.
     */
    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(delimiter = '|', value = {
        "fetch    | maxMessages              | must be between 1 and 1000                   | 1001",
        "fetch    | maxBytes                 | must be between 1 and 52428800 payload bytes | 52428801",
        "fetch    | waitSeconds              | must be between 0 and 30                     | 31",
        "fetch    | visibilitySeconds        | must be between 1 and 43200                  | 43201",
        "extend   | visibilitySeconds        | must be between 1 and 43200                  | 43201",
        "nack     | delaySeconds             | must be between 0 and 43200                  | 43201",
        "settings | maxDeliveries            | must be between 1 and 2147483647             | ",
        "settings | defaultVisibilitySeconds | must be between 1 and 43200                  | 43201",
        "settings | maxVisibilitySeconds     | must be between 1 and 43200                  | 43201",
        "settings | nackBackoffBaseMillis    | must be between 0 and 43200000 milliseconds  | 43200001",
        "settings | nackBackoffCapMillis     | must be between 0 and 43200000 milliseconds  | 43200001",
        "settings | retentionMaxAgeSeconds   | must be between 0 and 315360000 seconds      | 315360001",
        "settings | dedupWindowSeconds       | must be between 0 and 315360000 seconds      | 315360001",
    })
    void a_body_number_of_any_size_outside_its_range_is_400_naming_the_field_and_its_range(String call, String field,
            String range, String firstPast) {
        if (firstPast != null) {
            String own = refusal(call, field, firstPast);
            assertTrue(own.startsWith(range + " (") && own.contains("got " + firstPast), "the rule's own words: " + own);
        }
        for (String number : List.of(HUGE, "-" + HUGE, BEYOND_INT, "-" + BEYOND_INT)) {
            String message = refusal(call, field, number);
            assertTrue(message.startsWith(range + " (") && (message.contains("got " + number + ")")
                    || message.contains("got " + number + ";")), field + " = " + number + ": " + message);
        }
    }

    /**
     * A delay too far ahead for any long is refused as any delay beyond the topic's retention
     * max-age is (7 days in the test profile), naming that bound; a negative one names 0.
     */
    @ParameterizedTest
    @CsvSource({HUGE, BEYOND_INT, "604801"})
    void a_delay_of_any_size_beyond_the_retention_is_400_naming_the_bound(String seconds) {
        String message = publishRefusal(seconds);
        assertEquals("must be at most the retention maximum age (mq.retention.max-age, 604800 s) ahead (got " + seconds
                + "): retention deletes a message that long after its publish", message);
        assertEquals("must be at least 0 seconds (got -" + seconds + ")", publishRefusal("-" + seconds));
    }

    /** Query parameters are text: a number of any size outside the range names the range as well. */
    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(delimiter = '|', value = {
        "/admin/topics?tenant=%s&limit=%s                                             | limit       | between 1 and 10000",
        "/admin/messages/browse?tenant=%s&topic=t&limit=%s                            | limit       | between 1 and 1000",
        "/admin/messages/browse?tenant=%s&topic=t&afterOffset=%s                      | afterOffset | between 0 and 9223372036854775807",
    })
    void a_query_number_of_any_size_outside_its_range_is_400_naming_the_parameter_and_its_range(String call,
            String field, String range) {
        for (String number : List.of(HUGE, "-" + HUGE, "9223372036854775808", "-9223372036854775809")) {
            Response r = admin().get(String.format(call, tenant, number));
            assertNamed(r, field, range);
        }
    }

    @ParameterizedTest
    @CsvSource({HUGE, "9223372036854775808", "-" + HUGE})
    void a_reset_offset_of_any_size_outside_its_range_is_400_naming_it_and_its_range(String number) {
        Response r = admin().post("/admin/consumer-groups/reset-offsets?tenant=" + tenant + "&topic=" + topic
                + "&consumerGroup=g&to=offset&toOffset=" + number);
        assertNamed(r, "toOffset", "between 1 and 9223372036854775807");
    }

    private static void assertNamed(Response r, String field, String range) {
        assertEquals(400, r.statusCode(), r.asString());
        assertEquals("application/problem+json", r.contentType().split(";")[0], r.asString());
        assertEquals(field, r.jsonPath().getString("errors[0].field"), r.asString());
        assertTrue(r.jsonPath().getString("errors[0].message").contains(range), r.asString());
        assertFalse(r.jsonPath().getString("errors[0].message").contains("integer"), "it is one: " + r.asString());
    }

    /** The message of the one 400 error naming {@code field} when {@code call} carries {@code field: number}. */
    private String refusal(String call, String field, String number) {
        Response r = switch (call) {
            case "fetch" -> consumer("fetch", "{\"" + field + "\": " + number + "}");
            case "extend" -> consumer("extend", "{\"receipts\": [\"r\"], \"" + field + "\": " + number + "}");
            case "nack" -> consumer("nack", "{\"receipts\": [\"r\"], \"" + field + "\": " + number + "}");
            case "settings" -> admin().contentType(ContentType.JSON).body("{\"" + field + "\": " + number + "}")
                    .put("/admin/settings?tenant=" + tenant + "&topic=" + topic);
            default -> throw new IllegalArgumentException(call);
        };
        assertEquals(400, r.statusCode(), call + " " + field + " = " + number + ": " + r.asString());
        assertEquals("application/problem+json", r.contentType().split(";")[0], r.asString());
        List<String> fields = r.jsonPath().getList("errors.field");
        assertEquals(List.of(field), fields, r.asString());
        String message = r.jsonPath().getString("errors[0].message");
        assertFalse(message.contains("whole number") || message.contains("integer") || message.contains("Numeric"),
                message);
        assertTrue(r.jsonPath().getString("detail").startsWith(field + " must be between "), r.asString());
        return message;
    }

    private String publishRefusal(String seconds) {
        Response r = given().contentType(ContentType.JSON)
                .body("{\"messages\": [{\"partitionKey\": \"k\", \"payload\": 1, \"deliverAfterSeconds\": " + seconds + "}]}")
                .post("/tenants/{t}/topics/{topic}/messages", tenant, topic);
        assertEquals(400, r.statusCode(), r.asString());
        assertEquals("messages[0].deliverAfterSeconds", r.jsonPath().getString("errors[0].field"), r.asString());
        return r.jsonPath().getString("errors[0].message");
    }

    private Response consumer(String action, String body) {
        return given().contentType(ContentType.JSON).body(body)
                .post("/tenants/{t}/topics/{topic}/consumer-groups/g/" + action, tenant, topic);
    }

    private static RequestSpecification admin() {
        return given().header("Authorization", "Bearer " + AdminTest.TOKEN).urlEncodingEnabled(false);
    }
}
