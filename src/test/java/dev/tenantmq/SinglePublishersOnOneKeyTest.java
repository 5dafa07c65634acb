package dev.tenantmq;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * Eight clients publishing single messages to one partition key while a consumer reads get only
 * 201s (docs/architecture.md, "Publish: the partition head lock"): the head lock serializes them
 * under READ COMMITTED, the first publishes of the new partition included, so no lock conflict
 * outlasts the store's retries. MySQL 9.7 answered 503 ("Deadlock found when trying to get
 * lock") in this case with the lock on the newest message row, which took gap locks under
 * REPEATABLE READ for a partition without messages; run it there with
 * {@code QUARKUS_DATASOURCE_JDBC_URL} (docs/testing.md).
 */
@QuarkusTest
class SinglePublishersOnOneKeyTest {
    private static final int PUBLISHERS = 8;
    private static final int EACH = 25;

    @Test
    void eight_single_publishers_of_one_key_beside_a_consumer_get_only_201s() throws Exception {
        String tenant = TestIds.tenant();
        String topic = TestIds.topic();
        String group = TestIds.group();
        AtomicBoolean publishing = new AtomicBoolean(true);
        List<Delivered> delivered = new CopyOnWriteArrayList<>();
        List<String> refused = new CopyOnWriteArrayList<>();
        Set<String> published = ConcurrentHashMap.newKeySet();

        ExecutorService pool = Executors.newFixedThreadPool(PUBLISHERS + 1);
        try {
            Future<?> consumer = pool.submit(() -> {
                while (publishing.get() || delivered.size() < published.size()) {
                    List<Delivered> got = Api.fetchOk(tenant, topic, group, Fetch.upTo(50).waitSeconds(1));
                    if (!got.isEmpty()) {
                        Api.ack(tenant, topic, group, Delivered.receipts(got));
                        delivered.addAll(got);
                    }
                }
                return null;
            });
            List<Future<?>> publishers = new ArrayList<>();
            for (int w = 0; w < PUBLISHERS; w++) {
                int writer = w;
                publishers.add(pool.submit(() -> {
                    for (int i = 0; i < EACH; i++) {
                        String id = "w" + writer + "-" + i;
                        Response r = Api.publish(tenant, topic, Map.of("messages", List.of(Api.msg("hot", id, i))));
                        if (r.statusCode() == 201) {
                            published.add(id);
                        } else {
                            refused.add(id + ": " + r.statusCode() + " " + r.asString());
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> p : publishers) {
                p.get(120, TimeUnit.SECONDS);
            }
            publishing.set(false);
            assertEquals(List.of(), refused, "every publish answered 201");
            await().atMost(Duration.ofSeconds(60)).until(() -> delivered.size() >= published.size());
            consumer.get(30, TimeUnit.SECONDS);
        } finally {
            publishing.set(false);
            pool.shutdownNow();
        }
        assertEquals(published, Set.copyOf(Delivered.ids(delivered)), "every published message was delivered");
        assertEquals(published.size(), delivered.size(), "and once");
        List<Long> offsets = delivered.stream().map(Delivered::offset).toList();
        assertEquals(offsets.stream().sorted().toList(), offsets, "in offset order");
    }
}
