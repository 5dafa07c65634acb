package dev.tenantmq.it;

import static dev.tenantmq.it.ServiceProcess.HEARTBEAT_TIMEOUT;
import static dev.tenantmq.it.ServiceProcess.LEASE;
import static dev.tenantmq.it.ServiceProcess.TICK;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tenantmq.HttpJson;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * N copies of the built service on one database share a (tenant, consumer group, topic)
 * fairly and safely (SPEC section 5): fair share, rebalance on join, failover after kill -9,
 * fencing of a frozen process, and independent consumer groups. Measured times are printed
 * as {@code MEASURED ...} lines.
 */
class MultiProcessIT {
    private static final String TENANT = "mp-tenant";
    private static final int PARTITIONS = 30;
    private static Database db;
    private final List<AutoCloseable> cleanup = new ArrayList<>();

    @BeforeAll
    static void database() {
        db = Database.resolve();
    }

    @AfterEach
    void stopEverything() throws Exception {
        for (int i = cleanup.size() - 1; i >= 0; i--) {
            cleanup.get(i).close();
        }
    }

    private ServiceProcess start(String name) throws Exception {
        ServiceProcess p = ServiceProcess.start(name + "-" + UUID.randomUUID().toString().substring(0, 6), db, TENANT);
        cleanup.add(p);
        return p;
    }

    private ConsumerLoop consume(ServiceProcess p, String topic, String group, Deliveries into) {
        ConsumerLoop loop = new ConsumerLoop(p, TENANT, topic, group, into);
        cleanup.add(0, loop); // stopped before the processes
        return loop;
    }

    @Test
    void processes_share_partitions_fairly_rebalance_fail_over_and_lose_nothing() throws Exception {
        String topic = "mp-" + UUID.randomUUID();
        List<ServiceProcess> ps = new ArrayList<>();
        for (int i = 1; i <= 3; i++) {
            ps.add(start("p" + i));
        }
        // A publisher keeps every partition busy for the whole test, through whichever process is alive.
        Set<String> published = ConcurrentHashMap.newKeySet();
        AtomicBoolean publishing = new AtomicBoolean(true);
        List<ServiceProcess> publishVia = new java.util.concurrent.CopyOnWriteArrayList<>(ps);
        Thread publisher = new Thread(() -> {
            int round = 0;
            while (publishing.get()) {
                List<Map<String, Object>> batch = new ArrayList<>();
                for (int k = 0; k < PARTITIONS; k++) {
                    batch.add(Map.of("partitionKey", "k" + k, "id", "r" + round + "-k" + k, "payload", round));
                }
                ServiceProcess via = publishVia.get(round % publishVia.size());
                try {
                    new HttpJson(via.baseUrl()).post("/tenants/" + TENANT + "/topics/" + topic + "/messages",
                            Map.of("messages", batch));
                    batch.forEach(m -> published.add((String) m.get("id")));
                } catch (RuntimeException e) {
                    // that process is being killed; the batch is retried through another one
                    continue;
                }
                round++;
                await().pollDelay(Duration.ofMillis(150)).until(() -> true);
            }
        }, "publisher");
        publisher.start();

        Deliveries groupA = new Deliveries();
        Deliveries groupB = new Deliveries();
        long t0 = System.nanoTime();
        for (ServiceProcess p : ps) {
            consume(p, topic, "group-a", groupA);
        }
        consume(ps.get(0), topic, "group-b", groupB); // a second group, independent of the first
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).until(() ->
                db.liveLeases(TENANT, "group-a", topic).equals(Map.of(ps.get(0).name(), 10, ps.get(1).name(), 10,
                        ps.get(2).name(), 10)));
        System.out.printf("MEASURED fair share: 3 processes hold 10 of 30 leases each %d ms after their first fetch%n",
                millisSince(t0));

        // A fourth process joins: the leases rebalance to 8/8/7/7 while delivery continues.
        ServiceProcess p4 = start("p4");
        ps.add(p4);
        publishVia.add(p4);
        groupA.startGapMeasurement();
        long t1 = System.nanoTime();
        consume(p4, topic, "group-a", groupA);
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).until(() -> {
            Map<String, Integer> l = db.liveLeases(TENANT, "group-a", topic);
            return l.size() == 4 && l.values().stream().mapToInt(Integer::intValue).sum() == PARTITIONS
                    && l.values().stream().allMatch(n -> n == 7 || n == 8);
        });
        System.out.printf("MEASURED rebalance: 4th process joined, leases at 8/8/7/7 after %d ms; longest pause between"
                + " deliveries during it %d ms%n", millisSince(t1), groupA.longestGapMillis());
        assertTrue(groupA.longestGapMillis() < LEASE.toMillis(), "delivery kept flowing during the rebalance");

        // kill -9 one process mid-consumption: survivors re-lease its partitions.
        ServiceProcess victim = ps.get(1);
        publishVia.remove(victim);
        long t2 = System.nanoTime();
        victim.kill9();
        Set<String> survivors = Set.of(ps.get(0).name(), ps.get(2).name(), p4.name());
        await().atMost(Duration.ofSeconds(40)).pollInterval(Duration.ofMillis(100)).until(() -> {
            Map<String, Integer> l = db.liveLeases(TENANT, "group-a", topic);
            return survivors.containsAll(l.keySet()) && l.values().stream().mapToInt(Integer::intValue).sum() == PARTITIONS;
        });
        long failover = millisSince(t2);
        System.out.printf("MEASURED failover: after kill -9 all 30 partitions leased by the 3 survivors in %d ms"
                + " (lease TTL %d ms, tick %d ms)%n", failover, LEASE.toMillis(), TICK.toMillis());
        assertTrue(failover <= LEASE.plus(TICK.multipliedBy(2)).toMillis(),
                "re-leased within lease TTL + 2 ticks: " + failover + " ms");

        // Stop publishing; every published message reaches both groups, in order per partition.
        publishing.set(false);
        publisher.join();
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                .until(() -> groupA.containsAll(published) && groupB.containsAll(published));
        assertEquals(Set.of(), groupA.missing(published));
        assertEquals(Set.of(), groupB.missing(published));
        assertEquals(List.of(), groupA.orderViolations());
        assertEquals(List.of(), groupB.orderViolations());
        System.out.printf("MEASURED delivery: %d messages to each of 2 groups, 0 missing, 0 out of order,"
                + " group-a duplicates %d (after the kill and lease moves), group-b duplicates %d%n",
                published.size(), groupA.duplicates(), groupB.duplicates());
    }

    @Test
    void a_frozen_process_loses_its_lease_and_its_acks_come_back_stale() throws Exception {
        String topic = "mp-" + UUID.randomUUID();
        String group = "group-c";
        ServiceProcess frozen = start("q1");
        HttpJson viaFrozen = new HttpJson(frozen.baseUrl());
        String base = "/tenants/" + TENANT + "/topics/" + topic + "/consumer-groups/" + group;
        viaFrozen.post("/tenants/" + TENANT + "/topics/" + topic + "/messages", Map.of("messages", List.of(
                Map.of("partitionKey", "only", "id", "m1", "payload", 1),
                Map.of("partitionKey", "only", "id", "m2", "payload", 2))));
        List<String> held = new ArrayList<>();
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            JsonNode got = viaFrozen.post(base + "/fetch", Map.of("maxMessages", 10, "waitSeconds", 2,
                    "visibilitySeconds", 300));
            got.get("messages").forEach(m -> held.add(m.get("receipt").asText()));
            return held.size() == 2;
        });

        ServiceProcess other = start("q2");
        Deliveries deliveries = new Deliveries();
        consume(other, topic, group, deliveries);
        long t0 = System.nanoTime();
        frozen.freeze();
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                .until(() -> db.liveLeases(TENANT, group, topic).equals(Map.of(other.name(), 1)));
        System.out.printf("MEASURED freeze: lease of the frozen process taken over %d ms after SIGSTOP"
                + " (heartbeat timeout %d ms)%n", millisSince(t0), HEARTBEAT_TIMEOUT.toMillis());
        await().atMost(Duration.ofSeconds(30)).until(() -> deliveries.containsAll(Set.of("m1", "m2")));
        await().atMost(Duration.ofSeconds(10)).until(() -> db.committedOffsets(TENANT, group, topic).get("only") > 0
                && deliveries.missing(Set.of("m1", "m2")).isEmpty());
        Map<String, Long> before = awaitStableOffsets(topic, group);

        frozen.resume();
        JsonNode acks = viaFrozen.post(base + "/ack", Map.of("receipts", held));
        List<String> statuses = new ArrayList<>();
        acks.get("results").forEach(r -> statuses.add(r.get("status").asText()));
        assertEquals(List.of("STALE", "STALE"), statuses, "acks of the frozen process are fenced");
        assertEquals(before, db.committedOffsets(TENANT, group, topic), "the new owner's offsets are unaffected");
        System.out.printf("MEASURED fencing: resumed process's acks -> %s; committed offsets unchanged %s%n", statuses, before);
    }

    private Map<String, Long> awaitStableOffsets(String topic, String group) throws Exception {
        Map<String, Long>[] last = new Map[1];
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(500)).until(() -> {
            Map<String, Long> now = db.committedOffsets(TENANT, group, topic);
            boolean stable = now.equals(last[0]);
            last[0] = now;
            return stable;
        });
        return last[0];
    }

    private static long millisSince(long nanos) {
        return (System.nanoTime() - nanos) / 1_000_000;
    }
}
