package dev.tenantmq;

import static dev.tenantmq.Api.ack;
import static dev.tenantmq.Api.fetchOk;
import static dev.tenantmq.Api.msg;
import static dev.tenantmq.Api.publishOk;
import static dev.tenantmq.Delivered.ids;
import static dev.tenantmq.Delivered.receipts;
import static dev.tenantmq.Fetch.upTo;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The byte budget of a fetch (docs/api.md, "Lease-fetch"): {@code maxBytes} bounds the payload
 * bytes of one answer, whatever {@code maxMessages} says, and a first message larger than it still
 * goes alone.
 */
@QuarkusTest
class FetchByteBudgetTest {
    private static final int MIB = 1 << 20;
    /** The default byte budget (mq.fetch.default-max-bytes). */
    private static final int DEFAULT_MAX_BYTES = 8 * MIB;
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Messages of 1 MiB: more than the first fetch and the next can hold, so both are cut by their budgets. */
    private static final int MESSAGES = 40;

    private final String tenant = TestIds.tenant();
    private final String topic = TestIds.topic();
    private final String group = TestIds.group();

    /** A JSON string payload whose JSON text is exactly {@code bytes} bytes long. */
    private static String payloadOf(int bytes) {
        return "x".repeat(bytes - 2);
    }

    private static long payloadBytes(List<Delivered> got) {
        long total = 0;
        for (Delivered d : got) {
            try {
                total += JSON.writeValueAsString(d.payload()).getBytes(StandardCharsets.UTF_8).length;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
        return total;
    }

    @Test
    void a_fetch_of_forty_one_mebibyte_messages_returns_at_most_its_byte_budget() {
        for (int batch = 0; batch < MESSAGES / 10; batch++) {
            List<Map<String, Object>> messages = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                int n = batch * 10 + i;
                messages.add(msg("p" + (n % 4), "m" + n, payloadOf(MIB)));
            }
            publishOk(tenant, topic, messages);
        }
        List<Delivered> first = fetchOk(tenant, topic, group, upTo(1000));
        assertEquals(8, first.size(), "the default budget of 8 MiB holds eight payloads of 1 MiB");
        assertTrue(payloadBytes(first) <= DEFAULT_MAX_BYTES);
        Set<String> seen = new HashSet<>(ids(first));
        ack(tenant, topic, group, receipts(first));
        int budget = 20 * MIB + MIB / 2;
        while (seen.size() < MESSAGES) {
            List<Delivered> got = fetchOk(tenant, topic, group, upTo(1000).maxBytes(budget));
            assertTrue(!got.isEmpty(), "every message comes out in the end");
            assertTrue(payloadBytes(got) <= budget, got.size() + " payloads of 1 MiB passed " + budget + " bytes");
            assertTrue(got.size() <= 20);
            seen.addAll(ids(got));
            ack(tenant, topic, group, receipts(got));
        }
        assertEquals(MESSAGES, seen.size());
    }

    @Test
    void a_first_message_larger_than_the_budget_is_delivered_alone() {
        publishOk(tenant, topic, List.of(msg("a", "big-1", payloadOf(2_000)), msg("a", "big-2", payloadOf(2_000)),
                msg("b", "small", 1)));
        List<String> order = new ArrayList<>();
        while (order.size() < 3) {
            List<Delivered> got = fetchOk(tenant, topic, group, upTo(10).maxBytes(1_000));
            assertTrue(!got.isEmpty(), "nothing gets stuck behind a message larger than the budget");
            if (got.get(0).id().startsWith("big")) {
                assertEquals(1, got.size(), "a message over the budget goes alone");
            }
            order.addAll(ids(got));
            ack(tenant, topic, group, receipts(got));
        }
        assertEquals(List.of("big-1", "big-2"), order.stream().filter(id -> id.startsWith("big")).toList());
    }

    @Test
    void a_byte_budget_out_of_range_is_a_400_problem_naming_max_bytes() {
        for (long bad : new long[] {0, -1, 50L * MIB + 1}) {
            given().contentType(ContentType.JSON).body(Map.of("maxBytes", bad))
                    .post("/tenants/{t}/topics/{topic}/consumer-groups/{g}/fetch", tenant, topic, group)
                    .then().statusCode(400).contentType("application/problem+json")
                    .body("errors[0].field", equalTo("maxBytes"))
                    .body("errors[0].message", containsString("between 1 and " + 50 * MIB));
        }
        given().contentType(ContentType.JSON).body(Map.of("maxBytes", 1))
                .post("/tenants/{t}/topics/{topic}/consumer-groups/{g}/fetch", tenant, topic, group)
                .then().statusCode(200);
    }
}
