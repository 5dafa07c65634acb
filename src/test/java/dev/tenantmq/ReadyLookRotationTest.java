package dev.tenantmq;

import static dev.tenantmq.Api.fetchOk;
import static dev.tenantmq.Api.msg;
import static dev.tenantmq.Api.publishOk;
import static dev.tenantmq.Fetch.upTo;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * A fetch that carries the acks of a full batch skips the ready look only while the group's ready
 * partitions fit in one fetch (docs/api.md, "Fetch and ack in one call"): with more ready
 * partitions than a fetch takes, each fetch looks, and the fairness cursor moves on to the ones
 * the last look left out. Under a profile whose look interval is an hour, so that the time bound
 * alone would let the first partitions keep the consumer to themselves.
 */
@QuarkusTest
@TestProfile(StatementBudgetTest.NoTicks.class)
class ReadyLookRotationTest {
    private static final ObjectMapper JSON = JsonMapper.builder()
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false).build();

    /** A fetch answer (openapi.yaml {@code FetchResponse}). */
    @JsonIgnoreProperties(ignoreUnknown = true)
    record Answer(List<Delivered> messages) {}

    private final String tenant = TestIds.tenant();
    private final String topic = TestIds.topic();
    private final String group = TestIds.group();

    @Test
    void with_more_ready_partitions_than_a_fetch_takes_fetches_acking_full_batches_go_round_all_of_them()
            throws Exception {
        List<String> keys = List.of("a", "b", "c", "d", "e", "f");
        List<Map<String, Object>> messages = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            for (String k : keys) {
                messages.add(msg(k, k + i, i));
            }
        }
        publishOk(tenant, topic, messages);
        // The group's first fetch registers it and leases the six partitions at once.
        List<Delivered> last = new ArrayList<>();
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            last.addAll(fetchOk(tenant, topic, group, upTo(2).waitSeconds(1)));
            return last.size() >= 2;
        });

        TreeSet<String> served = new TreeSet<>();
        last.forEach(d -> served.add(d.partitionKey()));
        for (int fetch = 0; fetch < keys.size(); fetch++) {
            Map<String, Object> body = new HashMap<>(upTo(2).waitSeconds(0).body());
            body.put("ack", Delivered.receipts(last));
            Answer got = JSON.readValue(Api.fetch(tenant, topic, group, body).then().statusCode(200).extract().asString(),
                    Answer.class);
            last.clear();
            last.addAll(got.messages());
            last.forEach(d -> served.add(d.partitionKey()));
        }

        assertEquals(new TreeSet<>(keys), served, "seven fetches of two go round the six ready partitions (a fetch takes its two from the first)");
    }
}
