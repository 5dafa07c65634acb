package dev.tenantmq;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.not;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import java.net.URL;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** Bad input gets 400 problem+json naming the field and the rule; never a 500. */
@QuarkusTest
class ValidationTest {
    private final String tenant = TestIds.tenant();
    private final String topic = TestIds.topic();

    /** /q/metrics: served by the management interface, on a port of its own (paths are relative to its /q). */
    @TestHTTPResource(value = "/metrics", management = true)
    URL metrics;

    @ParameterizedTest
    @ValueSource(strings = {"-starts-with-dash", "has space", "has/slash", "emoji\uD83D\uDE00", "tab\tname"})
    void bad_topic_names_get_400_naming_topic(String bad) {
        given().contentType(ContentType.JSON).body(Map.of("messages", List.of(Map.of("partitionKey", "k", "payload", 1))))
                .post("/tenants/{t}/topics/{topic}/messages", tenant, bad)
                .then().statusCode(400).contentType("application/problem+json")
                .body("errors.field", hasItem("topic"))
                .body("type", containsString("invalid-request"));
    }

    @Test
    void a_semicolon_in_a_path_is_400_naming_its_field_and_nothing_reaches_the_name_before_it() {
        // JAX-RS reads ";x" as a matrix parameter and drops it: the publish went to `topic`, 201.
        String body = "{\"messages\":[{\"partitionKey\":\"k\",\"payload\":1}]}";
        Map<String, String> paths = Map.of(
                "/tenants/" + tenant + "/topics/" + topic + ";x/messages", "topic",
                "/tenants/" + tenant + ";x=1/topics/" + topic + "/messages", "tenant",
                "/tenants/" + tenant + "/topics/" + topic + "/consumer-groups/g;x/fetch", "consumerGroup",
                "/tenants/" + tenant + "/topics/" + topic + "/messages;x", "path",
                "/tenants/topics/topics/" + topic + ";x/messages", "topic",
                "/tenants/" + tenant + "/topics/" + topic + "/consumer-groups;x/g/fetch", "path");
        paths.forEach((path, field) -> given().urlEncodingEnabled(false).contentType(ContentType.JSON).body(body)
                .post(path)
                .then().statusCode(400).contentType("application/problem+json")
                .body("errors[0].field", equalTo(field))
                .body("errors[0].message", containsString(field.equals("path") ? "';'" : "[A-Za-z0-9._:-]")));
        given().header("Authorization", "Bearer " + AdminTest.TOKEN).queryParam("tenant", tenant)
                .queryParam("topic", topic).get("/admin/messages/browse")
                .then().statusCode(200).body("messages", equalTo(List.of()));
    }

    @Test
    void a_compressed_body_is_415_naming_its_content_encoding_and_nothing_is_stored() throws Exception {
        java.io.ByteArrayOutputStream gz = new java.io.ByteArrayOutputStream();
        try (java.util.zip.GZIPOutputStream out = new java.util.zip.GZIPOutputStream(gz)) {
            out.write("{\"messages\":[{\"partitionKey\":\"k\",\"payload\":1}]}".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
        // It was parsed as it came: 400 "not valid JSON (line 1, column 2)".
        given().contentType(ContentType.JSON).header("Content-Encoding", "gzip").body(gz.toByteArray())
                .post("/tenants/{t}/topics/{topic}/messages", tenant, topic)
                .then().statusCode(415).contentType("application/problem+json")
                .body("detail", equalTo("Content-Encoding: gzip is not supported: send the body uncompressed, without"
                        + " Content-Encoding"));
        given().contentType(ContentType.JSON).header("Content-Encoding", "identity")
                .body("{\"messages\":[{\"partitionKey\":\"k\",\"payload\":1}]}")
                .post("/tenants/{t}/topics/{topic}/messages", tenant, topic)
                .then().statusCode(201);
        given().header("Authorization", "Bearer " + AdminTest.TOKEN).queryParam("tenant", tenant)
                .queryParam("topic", topic).get("/admin/messages/browse")
                .then().statusCode(200).body("messages.size()", equalTo(1));
    }

    @Test
    void a_topic_without_room_for_the_dlq_suffix_is_rejected() {
        given().contentType(ContentType.JSON).body(Map.of("messages", List.of(Map.of("partitionKey", "k", "payload", 1))))
                .post("/tenants/{t}/topics/{topic}/messages", tenant, "t".repeat(252))
                .then().statusCode(400).body("errors[0].field", equalTo("topic"))
                .body("errors[0].message", containsString(".dlq"));
    }

    @Test
    void bad_keys_name_each_field() {
        String body = """
                {"messages":[{"partitionKey":"","payload":1},{"partitionKey":"k","id":"a\\u0000b","payload":1},
                {"partitionKey":"\\ud800","payload":1},{"partitionKey":"k","payload":1,"metadata":{"n":1}},
                {"partitionKey":"k"}]}""";
        given().contentType(ContentType.JSON).body(body).post("/tenants/{t}/topics/{topic}/messages", tenant, topic)
                .then().statusCode(400)
                .body("errors.field", equalTo(List.of("messages[0].partitionKey", "messages[1].id",
                        "messages[2].partitionKey", "messages[3].metadata.n", "messages[4].payload")));
    }

    @Test
    void unknown_fields_and_wrong_types_are_400_not_500() {
        given().contentType(ContentType.JSON).body("{\"messages\":[{\"partitionKey\":\"k\",\"payload\":1,\"bogus\":2}]}")
                .post("/tenants/{t}/topics/{topic}/messages", tenant, topic)
                .then().statusCode(400).contentType("application/problem+json")
                .body("errors[0].field", equalTo("messages[0].bogus"));
        given().contentType(ContentType.JSON).body("{\"messages\":\"nope\"}")
                .post("/tenants/{t}/topics/{topic}/messages", tenant, topic)
                .then().statusCode(400).body("errors[0].field", equalTo("messages"));
        given().contentType(ContentType.JSON).body("{not json")
                .post("/tenants/{t}/topics/{topic}/messages", tenant, topic)
                .then().statusCode(400).body("status", equalTo(400));
    }

    @ParameterizedTest
    @ValueSource(strings = {"{\"maxMessages\": 99999999999}", "{\"maxMessages\": 1", "{\"waitSeconds\": [1]}"})
    void parser_errors_name_the_problem_without_java_or_parser_internals(String body) {
        given().contentType(ContentType.JSON).body(body)
                .post("/tenants/{t}/topics/{topic}/consumer-groups/g/fetch", tenant, topic)
                .then().statusCode(400).contentType("application/problem+json")
                .body("detail", not(containsString("Source")))
                .body("detail", not(containsString(" int ")))
                .body("detail", not(containsString("java.")))
                .body("detail", not(containsString("StreamReadFeature")));
    }

    @Test
    void values_of_the_wrong_json_type_are_rejected_not_coerced() {
        given().contentType(ContentType.JSON).body("{\"messages\":[{\"partitionKey\":42,\"payload\":1}]}")
                .post("/tenants/{t}/topics/{topic}/messages", tenant, topic)
                .then().statusCode(400).body("errors[0].field", equalTo("messages[0].partitionKey"));
        given().contentType(ContentType.JSON).body("{\"maxMessages\":\"10\"}")
                .post("/tenants/{t}/topics/{topic}/consumer-groups/{g}/fetch", tenant, topic, "g")
                .then().statusCode(400).body("errors[0].field", equalTo("maxMessages"));
        given().contentType(ContentType.JSON).body("{\"maxMessages\":1.5}")
                .post("/tenants/{t}/topics/{topic}/consumer-groups/{g}/fetch", tenant, topic, "g")
                .then().statusCode(400).body("errors[0].field", equalTo("maxMessages"));
        given().contentType(ContentType.JSON).body("{\"messages\":[{\"partitionKey\":\"a\",\"partitionKey\":\"b\",\"payload\":1}]}")
                .post("/tenants/{t}/topics/{topic}/messages", tenant, topic)
                .then().statusCode(400).body("status", equalTo(400));
    }

    @Test
    void http_metrics_never_tag_a_raw_tenant_or_topic_path() {
        String secret = "secret-" + java.util.UUID.randomUUID();
        given().contentType(ContentType.TEXT).body("x").post("/tenants/{t}/topics/{topic}/messages", tenant, secret)
                .then().statusCode(415);
        given().get(metrics).then().statusCode(200).body(not(containsString(secret)));
    }

    @Test
    void fetch_ranges_are_checked() {
        given().contentType(ContentType.JSON).body(Map.of("maxMessages", 0, "waitSeconds", 31, "visibilitySeconds", 0))
                .post("/tenants/{t}/topics/{topic}/consumer-groups/{g}/fetch", tenant, topic, "g")
                .then().statusCode(400)
                .body("errors.field", equalTo(List.of("maxMessages", "waitSeconds", "visibilitySeconds")));
    }

    @Test
    void wrong_media_type_is_415_and_unknown_path_is_404_as_problem_json() {
        given().contentType(ContentType.TEXT).body("x").post("/tenants/{t}/topics/{topic}/messages", tenant, topic)
                .then().statusCode(415).contentType("application/problem+json");
        given().get("/no/such/path").then().statusCode(404);
    }

    @Test
    void error_bodies_carry_no_stack_trace_or_class_name() {
        given().contentType(ContentType.JSON).body("{\"messages\":[{\"partitionKey\":\"k\",\"payload\":1,\"x\":{}}]}")
                .post("/tenants/{t}/topics/{topic}/messages", tenant, topic)
                .then().statusCode(400)
                .body(not(containsString("Exception")))
                .body(not(containsString("dev.tenantmq")));
    }

    @Test
    void ack_needs_receipts_and_reports_garbage_as_invalid() {
        given().contentType(ContentType.JSON).body(Map.of("receipts", List.of()))
                .post("/tenants/{t}/topics/{topic}/consumer-groups/{g}/ack", tenant, topic, "g")
                .then().statusCode(400).body("errors[0].field", equalTo("receipts"));
        given().contentType(ContentType.JSON).body(Map.of("receipts", List.of("garbage", "AAAA")))
                .post("/tenants/{t}/topics/{topic}/consumer-groups/{g}/ack", tenant, topic, "g")
                .then().statusCode(200).body("results.status", equalTo(List.of("INVALID", "INVALID")));
    }

    /** A receipt longer than any the service signs is a 400 naming it, not an INVALID echoed back at its length. */
    @Test
    void a_receipt_longer_than_any_signed_one_is_400_naming_it() {
        String tooLong = "A".repeat(8193);
        for (String action : List.of("ack", "nack")) {
            given().contentType(ContentType.JSON).body(Map.of("receipts", List.of("garbage", tooLong)))
                    .post("/tenants/{t}/topics/{topic}/consumer-groups/{g}/" + action, tenant, topic, "g")
                    .then().statusCode(400).contentType("application/problem+json")
                    .body("errors.field", equalTo(List.of("receipts[1]")))
                    .body("errors[0].message", equalTo("must be at most 8192 characters, as a receipt of a fetch is (got 8193)"));
        }
        given().contentType(ContentType.JSON).body(Map.of("receipts", List.of(tooLong), "visibilitySeconds", 10))
                .post("/tenants/{t}/topics/{topic}/consumer-groups/{g}/extend", tenant, topic, "g")
                .then().statusCode(400).body("errors.field", equalTo(List.of("receipts[0]")));
        // At the limit it is a receipt this service did not sign: INVALID.
        given().contentType(ContentType.JSON).body(Map.of("receipts", List.of("A".repeat(8192))))
                .post("/tenants/{t}/topics/{topic}/consumer-groups/{g}/ack", tenant, topic, "g")
                .then().statusCode(200).body("results.status", equalTo(List.of("INVALID")));
    }

    /**
     * A receipt with a lone surrogate is a 400 naming it, as any such string of a request
     * (docs/api.md, "Limits"), not an INVALID that echoes the broken string back.
     */
    @Test
    void a_receipt_with_a_lone_surrogate_is_400_naming_it() {
        for (String action : List.of("ack", "nack")) {
            given().contentType(ContentType.JSON).body("{\"receipts\":[\"garbage\",\"x\\ud800\"]}")
                    .post("/tenants/{t}/topics/{topic}/consumer-groups/{g}/" + action, tenant, topic, "g")
                    .then().statusCode(400).contentType("application/problem+json")
                    .body("errors.field", equalTo(List.of("receipts[1]")));
        }
        given().contentType(ContentType.JSON).body("{\"receipts\":[\"\\udc00\"],\"visibilitySeconds\":10}")
                .post("/tenants/{t}/topics/{topic}/consumer-groups/{g}/extend", tenant, topic, "g")
                .then().statusCode(400).body("errors.field", equalTo(List.of("receipts[0]")));
        given().contentType(ContentType.JSON).body("{\"maxMessages\":1,\"waitSeconds\":0,\"ack\":[\"\\ud800\"]}")
                .post("/tenants/{t}/topics/{topic}/consumer-groups/{g}/fetch", tenant, topic, "g")
                .then().statusCode(400).body("errors.field", equalTo(List.of("ack[0]")));
    }

    /** {@code mq.publish.max-batch-size} and {@code mq.fetch.max-messages}: both default to 1000 in tests. */
    private static final int LIMIT = 1000;

    @Test
    void a_publish_batch_outside_its_size_limit_is_one_400_naming_messages_before_any_single_message() {
        given().contentType(ContentType.JSON).body(Map.of("messages", List.of()))
                .post("/tenants/{t}/topics/{topic}/messages", tenant, topic)
                .then().statusCode(400).contentType("application/problem+json")
                .body("errors.field", equalTo(List.of("messages")))
                .body("errors[0].message", equalTo("must hold 1.." + LIMIT + " messages (got 0)"))
                .body("detail", equalTo("messages must hold 1.." + LIMIT + " messages (got 0)"));
        // Every message is bad too, but the size is reported alone: it is checked first.
        List<Map<String, Object>> tooMany = Collections.nCopies(LIMIT + 1, Map.of("partitionKey", "", "payload", 1));
        given().contentType(ContentType.JSON).body(Map.of("messages", tooMany))
                .post("/tenants/{t}/topics/{topic}/messages", tenant, topic)
                .then().statusCode(400)
                .body("errors.field", equalTo(List.of("messages")))
                .body("errors[0].message", equalTo("must hold 1.." + LIMIT + " messages (got " + (LIMIT + 1) + ")"));
    }

    @Test
    void a_receipt_list_outside_its_size_limit_is_one_400_naming_receipts_before_any_single_receipt() {
        String ack = "/tenants/{t}/topics/{topic}/consumer-groups/{g}/ack";
        String rule = "must be an array of 1.." + LIMIT + " receipts";
        given().contentType(ContentType.JSON).body(Map.of("receipts", List.of())).post(ack, tenant, topic, "g")
                .then().statusCode(400).body("errors.field", equalTo(List.of("receipts")))
                .body("errors[0].message", equalTo(rule + " (got 0)"));
        // A null entry is an error of its own, but the size is reported alone: it is checked first.
        List<String> tooMany = new ArrayList<>(Collections.nCopies(LIMIT + 1, "garbage"));
        tooMany.set(0, null);
        given().contentType(ContentType.JSON).body(Map.of("receipts", tooMany)).post(ack, tenant, topic, "g")
                .then().statusCode(400).body("errors.field", equalTo(List.of("receipts")))
                .body("errors[0].message", equalTo(rule + " (got " + (LIMIT + 1) + ")"));
        // Before the other fields of the body, too.
        given().contentType(ContentType.JSON).body(Map.of("receipts", List.of(), "visibilitySeconds", 0))
                .post("/tenants/{t}/topics/{topic}/consumer-groups/{g}/extend", tenant, topic, "g")
                .then().statusCode(400).body("errors.field", equalTo(List.of("receipts")))
                .body("errors[0].message", equalTo(rule + " (got 0)"));
    }

    /**
     * A receipt list that is null or absent is not a list of none: the answer says that the field
     * is required, not that 0 receipts were given (docs/api.md, "Ack, nack and extend").
     */
    @ParameterizedTest
    @ValueSource(strings = {"ack", "nack", "extend"})
    void a_null_or_absent_receipt_list_is_400_saying_receipts_is_required_not_that_0_were_given(String call) {
        String rule = "is required: an array of 1.." + LIMIT + " receipts";
        String visibility = call.equals("extend") ? "\"visibilitySeconds\":5" : "";
        List<String> bodies = List.of("{\"receipts\":null" + (visibility.isEmpty() ? "" : "," + visibility) + "}",
                "{" + visibility + "}");
        for (String body : bodies) {
            given().contentType(ContentType.JSON).body(body)
                    .post("/tenants/{t}/topics/{topic}/consumer-groups/{g}/" + call, tenant, topic, "g")
                    .then().statusCode(400).contentType("application/problem+json")
                    .body("errors.field", equalTo(List.of("receipts")))
                    .body("errors[0].message", equalTo(rule))
                    .body("detail", equalTo("receipts " + rule));
        }
    }
}
