package dev.tenantmq.it;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tenantmq.HttpJson;
import dev.tenantmq.Waiting;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Publishes one message to each of {@code partitions} partition keys per round, at a steady
 * pace, through whichever of the given processes is next, on its own thread. The expected set
 * of a test is exactly what publish confirmed ({@link #confirmed()}). A batch that fails is
 * retried through the next process a bounded number of times (a process may be killed under
 * it); a batch that fails every time stops the publisher with a {@link #failure()} instead of
 * silently shrinking the expected set.
 */
final class Publisher implements AutoCloseable {
    /** Attempts per batch before the publish counts as failed for good. */
    static final int MAX_ATTEMPTS = 4;
    /** Pause between rounds: a steady load, not as fast as possible. */
    static final Duration PACE = Duration.ofMillis(150);

    /** Where publish said a message is stored. */
    record Confirmed(String partitionKey, long offset) {}

    private final String path;
    private final List<ServiceProcess> via;
    private final int partitions;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final Map<String, Confirmed> confirmed = new HashMap<>();
    private final Thread thread;
    private volatile Throwable failure;
    private volatile int retries;

    /** Starts publishing to {@code topic}; {@code via} may change while it runs (a thread-safe list). */
    Publisher(String tenant, String topic, List<ServiceProcess> via, int partitions) {
        this.path = "/tenants/" + tenant + "/topics/" + topic + "/messages";
        this.via = via;
        this.partitions = partitions;
        thread = new Thread(this::run, "publisher-" + topic);
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
        int round = 0;
        int next = 0;
        while (running.get()) {
            List<Map<String, Object>> batch = new ArrayList<>();
            for (int k = 0; k < partitions; k++) {
                batch.add(Map.of("partitionKey", "k" + k, "id", "r" + round + "-k" + k, "payload", round));
            }
            List<Throwable> errors = new ArrayList<>();
            JsonNode answer = null;
            while (answer == null && errors.size() < MAX_ATTEMPTS) {
                ServiceProcess p = via.get(next++ % via.size());
                try {
                    answer = new HttpJson(p.baseUrl()).post(path, Map.of("messages", batch));
                } catch (RuntimeException e) {
                    errors.add(e); // e.g. the process was killed mid-request: retry through the next one
                }
            }
            if (answer == null) {
                AssertionError e = new AssertionError("publish of round " + round + " failed " + MAX_ATTEMPTS + " times");
                errors.forEach(e::addSuppressed);
                failure = e;
                return;
            }
            retries += errors.size();
            try {
                confirm(batch, answer, !errors.isEmpty());
            } catch (AssertionError e) {
                failure = e;
                return;
            }
            round++;
            Waiting.letTimePass(PACE, "publisher pace between rounds");
        }
    }

    /** Records what the answer confirms, checking that it confirms exactly the batch. */
    private void confirm(List<Map<String, Object>> batch, JsonNode answer, boolean retried) {
        JsonNode results = answer.get("messages");
        if (results == null || results.size() != batch.size()) {
            throw new AssertionError("publish of " + batch.size() + " messages answered " + answer);
        }
        Map<String, Confirmed> round = new HashMap<>();
        for (int i = 0; i < batch.size(); i++) {
            JsonNode r = results.get(i);
            String id = (String) batch.get(i).get("id");
            String key = (String) batch.get(i).get("partitionKey");
            if (!id.equals(r.get("id").asText()) || !key.equals(r.get("partitionKey").asText()) || r.get("offset").asLong() <= 0) {
                throw new AssertionError("publish answered " + r + " for " + batch.get(i));
            }
            // A duplicate is explained only by a retry: an earlier attempt committed but its answer was lost.
            if (r.get("duplicate").asBoolean() && !retried) {
                throw new AssertionError("first publish of " + id + " answered duplicate: " + r);
            }
            round.put(id, new Confirmed(key, r.get("offset").asLong()));
        }
        synchronized (confirmed) {
            confirmed.putAll(round);
        }
    }

    /** Every message publish confirmed, by id. */
    Map<String, Confirmed> confirmed() {
        synchronized (confirmed) {
            return Map.copyOf(confirmed);
        }
    }

    /** The confirmed ids. */
    Set<String> confirmedIds() {
        return confirmed().keySet();
    }

    /** The last confirmed offset of every partition key. */
    Map<String, Long> lastOffsets() {
        Map<String, Long> last = new HashMap<>();
        confirmed().values().forEach(c -> last.merge(c.partitionKey(), c.offset(), Math::max));
        return last;
    }

    /** Failed attempts that a later attempt of the same batch made good. */
    int retries() {
        return retries;
    }

    /** Why publishing stopped on its own (a batch failed for good, or a wrong answer), or null. */
    Throwable failure() {
        return failure;
    }

    /** Whether it is still publishing. */
    boolean running() {
        return thread.isAlive();
    }

    /** Stops after the current round and waits for it. */
    @Override
    public void close() throws InterruptedException {
        running.set(false);
        thread.join(60_000);
    }
}
