package dev.tenantmq;

import static dev.tenantmq.Api.fetchOk;
import static dev.tenantmq.Api.msg;
import static dev.tenantmq.Api.publishOk;
import static dev.tenantmq.Fetch.upTo;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A fetch that carries the acks of a full batch may lease from the acked partitions alone, without
 * asking which partitions are ready, but only within {@code mq.fetch.ready-look-interval} of the
 * group's last look (docs/api.md, "Fetch and ack in one call"): a partition that became ready
 * meanwhile is served soon after, even while the acked partitions could fill every fetch.
 */
@QuarkusTest
@TestProfile(ReadyLookFairnessTest.ShortInterval.class)
class ReadyLookFairnessTest {
    private static final ObjectMapper JSON = JsonMapper.builder()
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false).build();
    private static final int DEEP = 1000;
    private static final int BATCH = 10;

    /** A short interval, so that the fairness bound shows within the deep partition's backlog. */
    public static class ShortInterval implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("mq.fetch.ready-look-interval", "200ms");
        }
    }

    /** A fetch answer (openapi.yaml {@code FetchResponse}). */
    @JsonIgnoreProperties(ignoreUnknown = true)
    record Answer(List<Delivered> messages) {}

    private final String tenant = TestIds.tenant();
    private final String topic = TestIds.topic();
    private final String group = TestIds.group();

    @Test
    void a_partition_that_became_ready_is_served_while_full_batches_of_another_keep_the_consumer_busy() throws Exception {
        for (int start = 0; start < DEEP; start += 100) {
            List<Map<String, Object>> messages = new ArrayList<>();
            for (int i = start; i < start + 100; i++) {
                messages.add(msg("a", "a" + i, i));
            }
            publishOk(tenant, topic, messages);
        }
        // The group's first fetches register it and lease its partition; then full batches of "a".
        List<Delivered> last = new ArrayList<>();
        List<String> fromA = new ArrayList<>();
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            List<Delivered> got = fetchOk(tenant, topic, group, upTo(BATCH).waitSeconds(1));
            got.forEach(d -> fromA.add(d.id()));
            last.clear();
            last.addAll(got);
            return got.size() == BATCH;
        });
        publishOk(tenant, topic, List.of(msg("b", "b0", 0)));

        // Each fetch acks the last full batch of "a", which alone could fill it; "b" must still come.
        List<String> fromB = new ArrayList<>();
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            Map<String, Object> body = new HashMap<>(upTo(BATCH).waitSeconds(0).body());
            body.put("ack", Delivered.receipts(last));
            Answer got = JSON.readValue(Api.fetch(tenant, topic, group, body).then().statusCode(200).extract().asString(),
                    Answer.class);
            last.clear();
            for (Delivered d : got.messages()) {
                (d.partitionKey().equals("b") ? fromB : fromA).add(d.id());
                if (d.partitionKey().equals("a")) {
                    last.add(d);
                }
            }
            return !fromB.isEmpty();
        });

        assertEquals(List.of("b0"), fromB);
        assertTrue(fromA.size() < DEEP - 2 * BATCH, "b was served while a could still fill fetches: after "
                + fromA.size() + " of a's " + DEEP + " messages");
        for (int i = 0; i < fromA.size(); i++) {
            assertEquals("a" + i, fromA.get(i), "a's messages once each, in order");
        }
    }
}
