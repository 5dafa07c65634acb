package dev.tenantmq;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tenantmq.domain.FetchSignals;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.net.URL;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * An idle long poll holds no database connection and no platform thread, and a publish wakes as
 * many waiting polls as it may feed (SPEC section 4). Many polls wait at once; while they wait,
 * samples show far fewer connections in use and threads parked in the service's code than
 * polls, and a publish wakes a waiting poll before its time-out.
 *
 * <p>The class runs without timer re-checks ({@link NoTimerRechecks}): a waiting poll then looks
 * only when its request arrives or a signal picks it, so the looks counted are the decisions
 * under test (which polls a signal wakes, which arrivals share a look), the same on a fast and on
 * a busy machine. How many looks the timer re-checks of idle polls cost per second is a
 * question of timing, and is the benchmark's ({@code bench/}, row {@code idle_long_polls}).
 */
@QuarkusTest
@TestProfile(LongPollTest.NoTimerRechecks.class)
class LongPollTest {
    private static final int POLLS = 60;

    /**
     * A re-check interval longer than any poll's wait: a waiting poll never looks on a timer, and
     * an empty look holds back the first look of the group's next polls for half an hour (unless
     * a signal came since).
     */
    public static class NoTimerRechecks implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("mq.fetch.recheck-interval", "1h");
        }
    }

    @TestHTTPResource("/")
    URL base;

    /** /q/metrics: served by the management interface, on a port of its own (paths are relative to its /q). */
    @TestHTTPResource(value = "/metrics", management = true)
    URL metrics;

    @Inject
    AgroalDataSource dataSource;

    @Inject
    FetchSignals signals;

    /** A long poll waits at most 30 s (the API's bound); the steps that need polls alive start well before. */
    private static final Duration ALIVE = Duration.ofSeconds(20);

    /**
     * The steps after this one need the polls issued at {@code issued} still waiting: a machine
     * so loaded that {@link #ALIVE} passed already cannot show them, and the test stops there
     * (the assertions before it ran).
     */
    private static void assumePollsAlive(Instant issued) {
        Duration spent = Duration.between(issued, Instant.now());
        assumeTrue(spent.compareTo(ALIVE) < 0, "the polls were issued " + spent.toSeconds()
                + " s ago: too close to their 30 s wait for the next steps");
    }

    @Test
    void idle_long_polls_hold_no_connection_or_thread_and_wake_on_publish() {
        String tenant = TestIds.tenant();
        String topic = TestIds.topic();
        String group = TestIds.group();
        HttpJson http = new HttpJson(base.toString());
        String fetch = "/tenants/" + tenant + "/topics/" + topic + "/consumer-groups/" + group + "/fetch";
        List<CompletableFuture<JsonNode>> polls = new ArrayList<>();
        Instant issued = Instant.now();
        for (int i = 0; i < POLLS; i++) {
            polls.add(http.postAsync(fetch, Map.of("maxMessages", 1, "waitSeconds", 30)));
        }
        // The first poll looks once as its request arrives and finds nothing; the others skip
        // their first look (see the last test) and wait for a signal, with no timer re-check.
        await("every poll waits after its first look").atMost(ALIVE)
                .until(() -> signals.waiting(tenant, topic) == POLLS);
        assertTrue(metricValue("mq_fetch_waiting") >= POLLS,
                "the gauge mq.fetch.waiting counts the waiting polls");
        assumePollsAlive(issued);
        // Sample every 50 ms for two seconds, all polls still waiting throughout.
        List<Integer> connectionSamples = new java.util.concurrent.CopyOnWriteArrayList<>();
        List<Integer> threadSamples = new java.util.concurrent.CopyOnWriteArrayList<>();
        List<Integer> waitingSamples = new java.util.concurrent.CopyOnWriteArrayList<>();
        await("every poll keeps waiting while sampled").atMost(Duration.ofSeconds(10)).during(Duration.ofSeconds(2))
                .pollInterval(Duration.ofMillis(50)).until(() -> {
                    connectionSamples.add((int) dataSource.getMetrics().activeCount());
                    threadSamples.add(threadsInServiceCode());
                    waitingSamples.add(signals.waiting(tenant, topic));
                    return polls.stream().noneMatch(CompletableFuture::isDone);
                });
        int[] connections = connectionSamples.stream().mapToInt(Integer::intValue).toArray();
        int[] threads = threadSamples.stream().mapToInt(Integer::intValue).toArray();
        int[] waiting = waitingSamples.stream().mapToInt(Integer::intValue).toArray();
        assertTrue(Arrays.stream(waiting).allMatch(w -> w == POLLS), "polls waiting: " + Arrays.toString(waiting));
        // The waiting polls do no database work at all here; the pool and the worker threads are
        // shared with the lease scheduler, which ticks all 18 test tenants every second, and how
        // many of its ticks a sample catches depends on the machine's load. A connection or a
        // thread held per waiting poll would show in every sample as the whole pool (32
        // connections, the rest of the polls queued for one) or 60 threads, so the bound is a
        // third of the polls: far from a held resource per poll, whatever the load.
        assertTrue(median(connections) < POLLS / 3, "median connections in use while " + POLLS + " polls wait: "
                + median(connections) + " (samples " + Arrays.toString(connections) + ")");
        assertTrue(median(threads) < POLLS / 3, "median threads parked in service code while " + POLLS
                + " polls wait: " + median(threads) + " (samples " + Arrays.toString(threads) + ")");

        Api.publishOk(tenant, topic, List.of(Api.msg("k", "wake", 1)));
        await().atMost(Duration.ofSeconds(5)).until(() -> polls.stream().anyMatch(CompletableFuture::isDone));
        long withMessage = polls.stream().filter(CompletableFuture::isDone)
                .filter(f -> f.join().get("messages").size() == 1).count();
        assertEquals(1, withMessage, "exactly one poll receives the one message");
    }

    /**
     * The thundering herd: a published message wakes as many waiting polls of each group as it
     * may feed, not every poll of the topic. Counted as the look-up statements ("which leased
     * partitions have something to deliver") that the database received for the test's topic,
     * and as its lease transactions (each starts by locking the lease rows it delivers from): a
     * woken poll that goes straight to the partitions its signal named runs no look-up.
     */
    @Test
    void a_publish_wakes_one_waiting_poll_per_message_not_every_poll_of_the_group() throws Exception {
        String tenant = TestIds.tenant();
        String topic = TestIds.topic();
        String group = TestIds.group();
        // Lease the partitions first: a new partition's lease would wake every poll (its backlog is unknown).
        List<String> keys = List.of("k0", "k1", "k2");
        Api.publishOk(tenant, topic, keys.stream().map(k -> Api.msg(k, "seed-" + k, 0)).toList());
        List<String> seeded = new ArrayList<>();
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            List<Delivered> got = Api.fetchOk(tenant, topic, group, Fetch.upTo(10).waitSeconds(1).visibilitySeconds(30));
            Delivered.receipts(got).forEach(r -> assertEquals(List.of("ACKED"), Api.ack(tenant, topic, group, List.of(r))));
            seeded.addAll(Delivered.ids(got));
            return seeded.size() == keys.size();
        });
        HttpJson http = new HttpJson(base.toString());
        String fetch = "/tenants/" + tenant + "/topics/" + topic + "/consumer-groups/" + group + "/fetch";
        int polls = 30;
        List<CompletableFuture<JsonNode>> waiting = new ArrayList<>();
        Instant issued = Instant.now();
        for (int i = 0; i < polls; i++) {
            waiting.add(http.postAsync(fetch, Map.of("maxMessages", 1, "waitSeconds", 30)));
        }
        await("every poll waits").atMost(ALIVE).until(() -> signals.waiting(tenant, topic) == polls);
        assumePollsAlive(issued);

        List<String> oneMessage = looksWhile(topic, () -> {
            Api.publishOk(tenant, topic, List.of(Api.msg("k0", "one", 1)));
            await().atMost(Duration.ofSeconds(10)).until(() -> delivered(waiting) == 1);
        });
        // With no timer re-checks, every look here is one the signal caused. The woken poll looks
        // once: at most two look-up statements, the partitions after the group's fairness cursor
        // and then those from the start, and one lease transaction. A herd (every waiting poll
        // woken) would be 30 looks or more.
        assertTrue(lookUps(oneMessage).size() <= 2, "look-ups for one message to " + polls + " waiting polls: "
                + lookUps(oneMessage).size() + " " + oneMessage);
        assertTrue(leaseTransactions(oneMessage).size() <= 1, "lease transactions for one message to " + polls
                + " waiting polls: " + leaseTransactions(oneMessage).size() + " " + oneMessage);

        List<String> twoMessages = looksWhile(topic, () -> {
            Api.publishOk(tenant, topic, List.of(Api.msg("k1", "two", 2), Api.msg("k2", "three", 3)));
            await().atMost(Duration.ofSeconds(10)).until(() -> delivered(waiting) == 3);
        });
        // Two woken polls race for the two partitions: the loser of a partition looks further (its
        // next signalled partition, or when it came second, the one the first left), and the
        // claimant then wakes one more poll for the partition it kept from the other (see
        // ConsumeService.claimed), at most two look-ups and two lease transactions in all per
        // message. A herd would be 29 looks or more.
        assertTrue(lookUps(twoMessages).size() <= 8, "look-ups for a batch of two messages to " + (polls - 1)
                + " waiting polls: " + lookUps(twoMessages).size() + " " + twoMessages);
        assertTrue(leaseTransactions(twoMessages).size() <= 4, "lease transactions for a batch of two messages to "
                + (polls - 1) + " waiting polls: " + leaseTransactions(twoMessages).size() + " " + twoMessages);
        assumePollsAlive(issued);
        await("the rest keep waiting").atMost(Duration.ofSeconds(5))
                .until(() -> signals.waiting(tenant, topic) == polls - 3);

        // Release the rest: one message for each, then every poll has had exactly one.
        List<Map<String, Object>> rest = new ArrayList<>();
        for (int i = 0; i < polls - 3; i++) {
            rest.add(Api.msg("r" + i, "rest-" + i, i));
        }
        Api.publishOk(tenant, topic, rest);
        // The rest go to new partitions, which the scheduler leases first (a tick): on a loaded
        // machine a poll's 30 s may run out before that and it answers empty.
        assertEachMessageReachedOnePollOrTheNextFetch(tenant, topic, group, waiting, "rest-", rest.size());
    }

    /**
     * Long polls that arrive together (as polls that timed out together come back) share one
     * look: a poll skips its first look while another poll of its group found nothing a moment
     * ago and nothing was signalled since, and waits like that poll does.
     */
    @Test
    void long_polls_arriving_together_share_the_first_look_of_their_group() throws Exception {
        String tenant = TestIds.tenant();
        String topic = TestIds.topic();
        String group = TestIds.group();
        HttpJson http = new HttpJson(base.toString());
        String fetch = "/tenants/" + tenant + "/topics/" + topic + "/consumer-groups/" + group + "/fetch";
        List<CompletableFuture<JsonNode>> polls = new ArrayList<>();
        Instant issued = Instant.now();
        polls.add(http.postAsync(fetch, Map.of("maxMessages", 1, "waitSeconds", 30)));
        await().atMost(Duration.ofSeconds(20)).until(() -> signals.waiting(tenant, topic) == 1);
        int together = 30;
        List<String> looks = looksWhile(topic, () -> {
            for (int i = 0; i < together; i++) {
                polls.add(http.postAsync(fetch, Map.of("maxMessages", 1, "waitSeconds", 30)));
            }
            await("every poll waits").atMost(ALIVE).until(() -> signals.waiting(tenant, topic) == together + 1);
        });
        // The first poll's empty look is younger than half the re-check interval (half an hour
        // here) and nothing was signalled since, so no arriving poll looks; one look each
        // without the rule.
        assertEquals(List.of(), looks, "look-ups for " + together + " polls arriving together");

        assumePollsAlive(issued);
        List<Map<String, Object>> release = new ArrayList<>();
        for (int i = 0; i < polls.size(); i++) {
            release.add(Api.msg("r" + i, "release-" + i, i));
        }
        Api.publishOk(tenant, topic, release);
        // New partitions again, leased by a tick first; the polls woken then race for them, and
        // each loser is woken again by the winner's signal for what it skipped, so every poll,
        // with at least 10 s of its wait left, receives one.
        await().atMost(Duration.ofSeconds(30)).until(() -> polls.stream().allMatch(CompletableFuture::isDone));
        assertEquals(polls.size(), delivered(polls), "every poll received one message");
    }

    /**
     * The end of a release of {@code messages} messages whose ids start with {@code prefix}, one
     * for each poll still waiting: no poll received two, the publish woke at least one poll with
     * one, and a message whose poll's wait ran out before it got there is still there for the
     * next fetch, so every message reached one poll or the next fetch. Only messages no poll
     * received count as left: an earlier delivery whose visibility ran out meanwhile may come
     * again. The next fetch does not wait: a waiting one skips its first look while the group's
     * last look found nothing and nothing was signalled since (see ConsumeService.attempt), and
     * with this profile's re-check interval of an hour it would then not look at all. A message
     * left by a poll that timed out before its wake is such a case: no signal is coming for it.
     */
    private static void assertEachMessageReachedOnePollOrTheNextFetch(String tenant, String topic, String group,
            List<CompletableFuture<JsonNode>> polls, String prefix, int messages) {
        await().atMost(Duration.ofSeconds(40)).until(() -> polls.stream().allMatch(CompletableFuture::isDone));
        assertTrue(polls.stream().allMatch(f -> f.join().get("messages").size() <= 1), "no poll received two messages");
        java.util.Set<String> polled = new java.util.HashSet<>();
        polls.forEach(f -> f.join().get("messages").forEach(m -> polled.add(m.get("id").asText())));
        assertTrue(polled.stream().anyMatch(id -> id.startsWith(prefix)), "the publish woke a waiting poll with a message");
        java.util.Set<String> left = new java.util.TreeSet<>();
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            Delivered.ids(Api.fetchOk(tenant, topic, group, Fetch.upTo(messages).waitSeconds(0))).stream()
                    .filter(id -> id.startsWith(prefix) && !polled.contains(id)).forEach(left::add);
            return polled.stream().filter(id -> id.startsWith(prefix)).count() + left.size() >= messages;
        });
        assertEquals(messages, polled.stream().filter(id -> id.startsWith(prefix)).count() + left.size(),
                "every message reached one poll, or the next fetch: " + left);
    }

    /**
     * A publish hands the partitions it touched to the poll it wakes (docs/architecture.md, "Long
     * polls"): the woken poll leases from them at once, without asking the database which leased
     * partitions are ready, so the one statement of the look is its lease transaction's.
     */
    @Test
    void a_woken_poll_leases_from_the_published_partition_without_a_ready_partitions_query() throws Exception {
        String tenant = TestIds.tenant();
        String topic = TestIds.topic();
        String group = TestIds.group();
        Api.publishOk(tenant, topic, List.of(Api.msg("k0", "seed", 0))); // leased by the first fetches' tick
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            List<Delivered> got = Api.fetchOk(tenant, topic, group, Fetch.upTo(10).waitSeconds(1).visibilitySeconds(30));
            Delivered.receipts(got).forEach(r -> assertEquals(List.of("ACKED"), Api.ack(tenant, topic, group, List.of(r))));
            return Delivered.ids(got).contains("seed");
        });
        CompletableFuture<JsonNode> poll = oneWaitingPoll(tenant, topic, group, 10);

        List<String> statements;
        try (GeneralLog log = GeneralLog.start(dataSource)) {
            Api.publishOk(tenant, topic, List.of(Api.msg("k0", "woken", 1)));
            JsonNode got = poll.get(10, java.util.concurrent.TimeUnit.SECONDS);
            assertEquals("woken", got.get("messages").get(0).get("id").asText(), "the woken poll delivers the message");
            statements = log.stop(topic);
        }
        assertEquals(List.of(), statements.stream().filter(LongPollTest::isReadyPartitionsQuery).toList(),
                "ready-partitions queries of the woken poll");
        assertEquals(1, statements.stream().filter(LongPollTest::isLeaseTransaction).count(),
                "one lease transaction: " + statements);
    }

    /**
     * An ack wakes a waiting poll only for a partition where the group may have more after the
     * acked batch (docs/architecture.md, "Long polls"): the ack of the partition's last message
     * costs no look. The poll is woken afterwards by a publish to another partition, and that is
     * its only lease transaction.
     */
    @Test
    void an_ack_that_leaves_nothing_after_the_batch_wakes_no_poll() throws Exception {
        String tenant = TestIds.tenant();
        String topic = TestIds.topic();
        String group = TestIds.group();
        leaseBoth(tenant, topic, group);
        Api.publishOk(tenant, topic, List.of(Api.msg("k0", "last", 1)));
        List<Delivered> inFlight = Api.fetchOk(tenant, topic, group, Fetch.upTo(10).waitSeconds(5).visibilitySeconds(30));
        assertEquals(List.of("last"), Delivered.ids(inFlight));
        CompletableFuture<JsonNode> poll = oneWaitingPoll(tenant, topic, group, 10);

        List<String> statements;
        try (GeneralLog log = GeneralLog.start(dataSource)) {
            assertEquals(List.of("ACKED"), Api.ack(tenant, topic, group, Delivered.receipts(inFlight)));
            Api.publishOk(tenant, topic, List.of(Api.msg("k1", "elsewhere", 2)));
            assertEquals(List.of("elsewhere"), ids(poll.get(10, java.util.concurrent.TimeUnit.SECONDS)));
            statements = log.stop(topic);
        }
        List<String> leases = leaseTransactions(statements);
        assertEquals(1, leases.size(), "only the publish's wake looks: " + leases);
        assertTrue(leases.get(0).contains("'k1'"), "at the published partition: " + leases);
    }

    /** The other side: an ack of a batch with a message after it wakes a waiting poll, which delivers that message. */
    @Test
    void an_ack_of_a_batch_with_a_message_after_it_wakes_a_poll_that_delivers_it() throws Exception {
        String tenant = TestIds.tenant();
        String topic = TestIds.topic();
        String group = TestIds.group();
        leaseBoth(tenant, topic, group);
        Api.publishOk(tenant, topic, List.of(Api.msg("k0", "first", 1), Api.msg("k0", "second", 2)));
        List<Delivered> inFlight = Api.fetchOk(tenant, topic, group, Fetch.upTo(1).waitSeconds(5).visibilitySeconds(30));
        assertEquals(List.of("first"), Delivered.ids(inFlight));
        CompletableFuture<JsonNode> poll = oneWaitingPoll(tenant, topic, group, 10); // k0 is held by "first"

        assertEquals(List.of("ACKED"), Api.ack(tenant, topic, group, Delivered.receipts(inFlight)));

        // Under this class's one-hour re-check, only the ack's signal can bring "second" before the poll's wait ends.
        assertEquals(List.of("second"), ids(poll.get(20, java.util.concurrent.TimeUnit.SECONDS)));
    }

    /** Publishes to k0 and k1 and consumes until this process leases both and nothing waits. */
    private static void leaseBoth(String tenant, String topic, String group) {
        Api.publishOk(tenant, topic, List.of(Api.msg("k0", "seed-0", 0), Api.msg("k1", "seed-1", 0)));
        List<String> seen = new ArrayList<>();
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            List<Delivered> got = Api.fetchOk(tenant, topic, group, Fetch.upTo(10).waitSeconds(1).visibilitySeconds(30));
            if (!got.isEmpty()) {
                assertTrue(Api.ack(tenant, topic, group, Delivered.receipts(got)).stream().allMatch("ACKED"::equals));
            }
            seen.addAll(Delivered.ids(got));
            return seen.containsAll(List.of("seed-0", "seed-1"));
        });
    }

    /**
     * A woken poll whose signal named several partitions goes on to the next one when the first
     * it claims gives nothing (its message is in flight: another poll of this process took it
     * between the signal and this claim, or, as here, before the publish). Stopping at the first
     * would leave the second's message unlooked, with no signal coming for it: under this
     * class's one-hour re-check, the poll would answer empty after its whole wait.
     */
    @Test
    void a_woken_poll_goes_on_to_the_next_signalled_partition_when_the_first_gives_nothing() throws Exception {
        String tenant = TestIds.tenant();
        String topic = TestIds.topic();
        String group = TestIds.group();
        Api.publishOk(tenant, topic, List.of(Api.msg("k1", "held", 0), Api.msg("k2", "seed", 0)));
        java.util.Set<String> seen = new java.util.HashSet<>();
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            // k1's message stays in flight for the rest of the test; k2's is acked, so k2 is ready again at the next publish
            for (Delivered d : Api.fetchOk(tenant, topic, group, Fetch.upTo(10).waitSeconds(1).visibilitySeconds(300))) {
                seen.add(d.id());
                if (d.partitionKey().equals("k2")) {
                    assertEquals(List.of("ACKED"), Api.ack(tenant, topic, group, List.of(d.receipt())));
                }
            }
            return seen.containsAll(List.of("held", "seed"));
        });
        CompletableFuture<JsonNode> poll = oneWaitingPoll(tenant, topic, group, 1);

        // One publish touches k1 (held behind its message in flight) and k2, in key order.
        Api.publishOk(tenant, topic, List.of(Api.msg("k1", "behind-held", 1), Api.msg("k2", "ready", 2)));
        JsonNode got = poll.get(10, java.util.concurrent.TimeUnit.SECONDS);
        assertEquals(List.of("ready"), ids(got), "the woken poll delivers k2's message");
    }

    /**
     * Issues one long poll of up to {@code maxMessages} with a 30 s wait, and returns it once it
     * waits (registered for a signal); the test stops there when the machine took too long.
     */
    private CompletableFuture<JsonNode> oneWaitingPoll(String tenant, String topic, String group, int maxMessages) {
        String fetch = "/tenants/" + tenant + "/topics/" + topic + "/consumer-groups/" + group + "/fetch";
        Instant issued = Instant.now();
        CompletableFuture<JsonNode> poll = new HttpJson(base.toString())
                .postAsync(fetch, Map.of("maxMessages", maxMessages, "waitSeconds", 30));
        await("the poll waits").atMost(ALIVE).until(() -> signals.waiting(tenant, topic) == 1);
        assumePollsAlive(issued);
        return poll;
    }

    private static List<String> ids(JsonNode fetchAnswer) {
        List<String> ids = new ArrayList<>();
        fetchAnswer.get("messages").forEach(m -> ids.add(m.get("id").asText()));
        return ids;
    }

    private static List<String> lookUps(List<String> looks) {
        return looks.stream().filter(LongPollTest::isReadyPartitionsQuery).toList();
    }

    private static List<String> leaseTransactions(List<String> looks) {
        return looks.stream().filter(LongPollTest::isLeaseTransaction).toList();
    }

    /** The look-up "which leased partitions have something to deliver". */
    private static boolean isReadyPartitionsQuery(String sql) {
        return sql.strip().startsWith("SELECT l.partition_key");
    }

    /** The first statement of a lease transaction: it locks the lease rows this process holds among the partitions. */
    private static boolean isLeaseTransaction(String sql) {
        String s = sql.strip();
        return s.startsWith("SELECT partition_key, epoch FROM queue_partition_leases") && s.contains("leased_by")
                && s.endsWith("FOR UPDATE");
    }

    /** Polls that completed with a message. */
    private static long delivered(List<CompletableFuture<JsonNode>> polls) {
        return polls.stream().filter(CompletableFuture::isDone).filter(f -> f.join().get("messages").size() == 1).count();
    }

    /**
     * The look-up statements and lease transactions of {@code topic} that the database received
     * while {@code action} ran.
     */
    private List<String> looksWhile(String topic, Runnable action) throws Exception {
        try (GeneralLog log = GeneralLog.start(dataSource)) {
            action.run();
            return log.stop(topic).stream().filter(sql -> isReadyPartitionsQuery(sql) || isLeaseTransaction(sql)).toList();
        }
    }

    /** The value of an untagged series on /q/metrics (Prometheus text format). */
    private double metricValue(String series) {
        String text = given().get(metrics).then().statusCode(200).extract().asString();
        return text.lines().filter(l -> l.startsWith(series + " ")).mapToDouble(l -> Double.parseDouble(l.substring(series.length() + 1)))
                .findFirst().orElseThrow(() -> new AssertionError(series + " is not on /q/metrics"));
    }

    private static int median(int[] samples) {
        int[] sorted = samples.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }

    /**
     * Threads parked inside dev.tenantmq code right now (waiting, sleeping or blocked there),
     * excluding this test's own. A poll that held a thread would be one of them; a timer
     * continuation that briefly runs service code is RUNNABLE and not counted. A thread blocked
     * on the database would hold a connection, which the connection samples count.
     */
    private static int threadsInServiceCode() {
        ThreadInfo[] infos = ManagementFactory.getThreadMXBean().dumpAllThreads(false, false);
        return (int) Arrays.stream(infos)
                .filter(t -> t.getThreadId() != Thread.currentThread().getId())
                .filter(t -> t.getThreadState() != Thread.State.RUNNABLE)
                .filter(t -> Arrays.stream(t.getStackTrace()).anyMatch(f -> f.getClassName().startsWith("dev.tenantmq.")
                        && !f.getClassName().startsWith("dev.tenantmq.LongPollTest")))
                .count();
    }
}
