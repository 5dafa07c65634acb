package dev.tenantmq;

import static dev.tenantmq.Api.msg;
import static dev.tenantmq.Api.publish;
import static dev.tenantmq.Api.publishOk;
import static dev.tenantmq.Delivered.receipts;
import static dev.tenantmq.Fetch.upTo;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

/** Publish as SPEC section 4 describes it: atomic batches, idempotent ids, stamping, limits. */
@QuarkusTest
class PublishTest {
    private final String tenant = TestIds.tenant();
    private final String topic = TestIds.topic();

    @ConfigProperty(name = "mq.admin.token")
    String adminToken;

    @Test
    void publish_returns_offsets_in_request_order_increasing_per_partition() {
        Published r = publishOk(tenant, topic, List.of(msg("a", "1", 1), msg("b", "1", 2), msg("a", "2", 3)));
        List<Long> offsets = r.offsets();
        assertEquals(List.of("a", "b", "a"), r.partitionKeys());
        assertEquals(List.of(false, false, false), r.duplicates());
        assertTrue(offsets.get(0) < offsets.get(2), "offsets of one partition follow request order: " + offsets);
    }

    @Test
    void a_batch_split_over_several_insert_statements_is_stored_whole_in_request_order() {
        // 20 payloads of 900,000 characters: 18 million characters of values, which the store
        // inserts in several statements (each at most 2 Mi characters, under MariaDB's default
        // max_allowed_packet of 16 MiB; the embedded test database allows 64 MiB).
        List<Map<String, Object>> batch = new java.util.ArrayList<>();
        for (int i = 0; i < 20; i++) {
            batch.add(msg(i % 2 == 0 ? "a" : "b", "m" + i, String.valueOf((char) ('a' + i)).repeat(900_000)));
        }
        Published r = publishOk(tenant, topic, batch);
        List<Long> offsets = r.offsets();
        for (int i = 1; i < offsets.size(); i++) {
            assertTrue(offsets.get(i - 1) < offsets.get(i), "offsets follow request order: " + offsets);
        }
        String group = TestIds.group();
        Map<String, Object> byId = new java.util.HashMap<>();
        for (int round = 0; round < 20 && byId.size() < 20; round++) {
            List<Delivered> got = Api.fetchOk(tenant, topic, group, upTo(5));
            got.forEach(m -> byId.put(m.id(), m.payload()));
            Api.ack(tenant, topic, group, receipts(got));
        }
        for (int i = 0; i < 20; i++) {
            assertEquals(String.valueOf((char) ('a' + i)).repeat(900_000), byId.get("m" + i), "payload of m" + i);
        }
    }

    @Test
    void republishing_an_id_is_a_duplicate_with_the_stored_offset_and_changes_nothing() {
        long first = publishOk(tenant, topic, List.of(msg("k", "evt-1", Map.of("v", 1)))).offset(0);
        Published again = publishOk(tenant, topic, List.of(msg("k", "evt-1", Map.of("v", 2)), msg("k", "evt-2", 0)));
        assertEquals(first, again.offset(0));
        assertEquals(true, again.duplicate(0));
        assertEquals(false, again.duplicate(1));
        List<Delivered> got = Api.fetchOk(tenant, topic, TestIds.group(), upTo(10));
        assertEquals(2, got.size());
        assertEquals(Map.of("v", 1), got.get(0).payload(), "the stored payload is unchanged");
    }

    @Test
    void the_same_id_twice_in_one_batch_is_stored_once() {
        Published r = publishOk(tenant, topic, List.of(msg("k", "x", 1), msg("k", "x", 2)));
        assertEquals(r.offset(0), r.offset(1));
        assertEquals(List.of(false, true), r.duplicates());
    }

    @Test
    void a_missing_id_is_generated() {
        Published r = publishOk(tenant, topic, List.of(Map.of("partitionKey", "k", "payload", "p")));
        String id = r.messages().get(0).id();
        assertTrue(id != null && !id.isEmpty());
    }

    @Test
    void a_batch_with_one_bad_message_writes_nothing() {
        publish(tenant, topic, Map.of("messages", List.of(msg("k", "ok-1", 1), msg("k ", "bad", 2))))
                .then().statusCode(400)
                .contentType("application/problem+json")
                .body("errors.field", hasItem("messages[1].partitionKey"));
        // ok-1 was not stored: publishing it now is not a duplicate.
        Published r = publishOk(tenant, topic, List.of(msg("k", "ok-1", 1)));
        assertEquals(false, r.duplicate(0));
    }

    @Test
    void payload_numbers_and_key_order_come_back_exactly_as_sent() {
        String payload = "{\"z\":123456789012345678901234567890.10,\"a\":1.2345678901234567890123e29,"
                + "\"m\":-0.000000000000000000001,\"i\":18446744073709551617,\"neg0\":-0,\"f0\":-0.0,"
                + "\"huge\":1e400,\"one\":1.0,\"s\":\"\\u00e9\\ud83d\\ude00\",\"n\":null,\"b\":[true,false,{}]}";
        given().contentType(ContentType.JSON).body("{\"messages\":[{\"partitionKey\":\"k\",\"id\":\"n\",\"payload\":"
                        + payload + "}]}")
                .post("/tenants/{t}/topics/{topic}/messages", tenant, topic).then().statusCode(201);
        String raw = given().contentType(ContentType.JSON).body(Map.of("waitSeconds", 5))
                .post("/tenants/{t}/topics/{topic}/consumer-groups/{g}/fetch", tenant, topic, TestIds.group())
                .then().statusCode(200).extract().asString();
        String expected = "{\"z\":123456789012345678901234567890.10,\"a\":1.2345678901234567890123e29,"
                + "\"m\":-0.000000000000000000001,\"i\":18446744073709551617,\"neg0\":-0,\"f0\":-0.0,"
                + "\"huge\":1e400,\"one\":1.0,\"s\":\"\u00e9\uD83D\uDE00\",\"n\":null,\"b\":[true,false,{}]}";
        assertTrue(raw.contains("\"payload\":" + expected), raw);
    }

    @Test
    void strings_with_lone_surrogates_are_rejected_not_stored_as_question_marks() {
        given().contentType(ContentType.JSON)
                .body("{\"messages\":[{\"partitionKey\":\"k\",\"id\":\"s\",\"payload\":{\"a\":\"x\\ud800y\"}}]}")
                .post("/tenants/{t}/topics/{topic}/messages", tenant, topic)
                .then().statusCode(400).body("errors[0].field", equalTo("messages[0].payload"));
        given().contentType(ContentType.JSON)
                .body("{\"messages\":[{\"partitionKey\":\"k\",\"id\":\"s\",\"payload\":1,\"metadata\":{\"m\":\"\\udc00\"}}]}")
                .post("/tenants/{t}/topics/{topic}/messages", tenant, topic)
                .then().statusCode(400).body("errors[0].field", equalTo("messages[0].metadata.m"));
        assertEquals(false, publishOk(tenant, topic, List.of(msg("k", "s", 1))).duplicate(0));
    }

    @Test
    void metadata_over_the_limit_is_a_400_not_a_500() {
        publish(tenant, topic, Map.of("messages", List.of(Map.of("partitionKey", "k", "id", "big-meta", "payload", 1,
                "metadata", Map.of("k", "v".repeat(70_000))))))
                .then().statusCode(400).body("errors[0].field", equalTo("messages[0].metadata"));
        assertEquals(false, publishOk(tenant, topic, List.of(msg("k", "big-meta", 1))).duplicate(0));
    }

    @Test
    void queue_name_is_stamped_with_the_tenant() {
        publishOk(tenant, topic, List.of(Map.of("partitionKey", "k", "payload", 1, "metadata", Map.of("a", "b"))));
        Delivered m = Api.fetchOk(tenant, topic, TestIds.group(), upTo(1)).get(0);
        assertEquals(Map.of("a", "b", "queue_name", tenant), m.metadata());
    }

    @Test
    void a_conflicting_queue_name_is_rejected() {
        publish(tenant, topic, Map.of("messages", List.of(Map.of("partitionKey", "k", "payload", 1,
                "metadata", Map.of("queue_name", "someone-else")))))
                .then().statusCode(400).body("errors[0].field", equalTo("messages[0].metadata.queue_name"));
    }

    @Test
    void a_payload_over_the_limit_gets_413_and_nothing_is_stored() {
        String big = "x".repeat(1024 * 1024); // plus quotes: over 1 MiB of JSON text
        publish(tenant, topic, Map.of("messages", List.of(msg("k", "small", 1), msg("k", "big", big))))
                .then().statusCode(413).contentType("application/problem+json")
                .body("errors[0].field", equalTo("messages[1].payload"));
        assertEquals(false, publishOk(tenant, topic, List.of(msg("k", "small", 1))).duplicate(0));
    }

    /** A 413 names what was exceeded: the payload, its size, the setting and its value. */
    @Test
    void a_payload_over_the_limit_gets_a_413_naming_its_size_the_setting_and_its_value() {
        String big = "x".repeat(1024 * 1024); // 1048578 bytes of JSON text with its quotes
        String rule = "is 1048578 bytes, over the limit of 1048576 bytes (mq.publish.max-payload-bytes)";
        publish(tenant, topic, Map.of("messages", List.of(msg("k", "big", big))))
                .then().statusCode(413).contentType("application/problem+json")
                .body("errors[0].field", equalTo("messages[0].payload"))
                .body("errors[0].message", equalTo(rule))
                .body("detail", equalTo("messages[0].payload " + rule));
    }

    @Test
    void more_than_the_batch_limit_is_rejected() {
        List<Map<String, Object>> many = new ArrayList<>();
        for (int i = 0; i < 1001; i++) {
            many.add(msg("k", "m" + i, i));
        }
        publish(tenant, topic, Map.of("messages", many)).then().statusCode(400).body("errors[0].field", equalTo("messages"));
        publish(tenant, topic, Map.of("messages", List.of())).then().statusCode(400);
    }

    @Test
    void a_tenant_not_in_mq_tenants_gets_403() {
        publish("not-served", topic, Map.of("messages", List.of(msg("k", "1", 1))))
                .then().statusCode(403).contentType("application/problem+json").body("status", equalTo(403));
        Api.fetch("not-served", topic, "g", Map.of()).then().statusCode(403);
    }

    @Test
    void four_byte_and_special_keys_round_trip_byte_exactly() {
        String key = "dir/file %2F?#&=+ \uD83D\uDE00 \u00e9\u0301 end";
        String id = "\uD83D\uDC4D id with spaces";
        publishOk(tenant, topic, List.of(msg(key, id, 1)));
        Delivered m = Api.fetchOk(tenant, topic, TestIds.group(), upTo(1)).get(0);
        assertEquals(key, m.partitionKey());
        assertEquals(id, m.id());
        // 255 code points of a 4-byte character is the longest key.
        String longest = "\uD83D\uDE00".repeat(255);
        publishOk(tenant, topic, List.of(msg(longest, longest, 1)));
        publish(tenant, topic, Map.of("messages", List.of(msg(longest + "a", "x", 1))))
                .then().statusCode(400).body("errors[0].field", equalTo("messages[0].partitionKey"));
    }

    /**
     * A character outside the BMP comes back as its own UTF-8 bytes in every answer, as the payload
     * always did (docs/api.md, "Identifiers": "returned byte for byte"); partition keys and ids were
     * written as escaped surrogate pairs ("\\uD83D\\uDE80"), which parse to the same string, so the raw
     * bytes of each answer are compared.
     */
    @Test
    void characters_outside_the_bmp_come_back_as_raw_utf8_in_every_answer() {
        String rocket = "\uD83D\uDE80";
        String key = rocket + "\u00e9";
        Map<String, Object> message = Map.of("partitionKey", key, "id", rocket, "payload", Map.of("s", rocket),
                "metadata", Map.of("m", rocket));
        byte[] published = publish(tenant, topic, Map.of("messages", List.of(message))).then().statusCode(201)
                .extract().asByteArray();
        assertRawUtf8(published, "\"id\":\"" + rocket + "\"", "\"partitionKey\":\"" + key + "\"");
        String group = TestIds.group();
        java.util.concurrent.atomic.AtomicReference<byte[]> fetched = new java.util.concurrent.atomic.AtomicReference<>();
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            fetched.set(Api.fetch(tenant, topic, group, upTo(1).body()).then().statusCode(200).extract().asByteArray());
            return new String(fetched.get(), StandardCharsets.UTF_8).contains("\"receipt\"");
        });
        assertRawUtf8(fetched.get(), "\"partitionKey\":\"" + key + "\"", "\"id\":\"" + rocket + "\"",
                "\"payload\":{\"s\":\"" + rocket + "\"}", "\"m\":\"" + rocket + "\"");
        for (String listing : List.of("/admin/offsets?tenant=" + tenant + "&topic=" + topic,
                "/admin/messages/browse?tenant=" + tenant + "&topic=" + topic)) {
            byte[] listed = given().header("Authorization", "Bearer " + adminToken).get(listing).then().statusCode(200)
                    .extract().asByteArray();
            assertRawUtf8(listed, "\"partitionKey\":\"" + key + "\"");
        }
        // A problem's detail echoes the client's text the same way.
        byte[] problem = Api.fetch(tenant, topic, group, Map.of(rocket, 1)).then().statusCode(400).extract().asByteArray();
        assertRawUtf8(problem, "\"field\":\"" + rocket + "\"");
    }

    /** {@code body} holds each of {@code expected} as UTF-8 bytes, and no escaped surrogate. */
    private static void assertRawUtf8(byte[] body, String... expected) {
        String text = new String(body, StandardCharsets.UTF_8);
        for (String e : expected) {
            assertTrue(indexOf(body, e.getBytes(StandardCharsets.UTF_8)) >= 0, e + " as UTF-8 in " + text);
        }
        assertFalse(text.contains("\\uD8") || text.contains("\\ud8"), "an escaped surrogate in " + text);
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    @Test
    void keys_differing_only_by_case_are_different_partitions() {
        Published r = publishOk(tenant, topic, List.of(msg("Key", "1", 1), msg("key", "1", 2)));
        assertEquals(List.of(false, false), r.duplicates());
    }
}
