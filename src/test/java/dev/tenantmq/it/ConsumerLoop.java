package dev.tenantmq.it;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tenantmq.HttpJson;
import dev.tenantmq.domain.Receipt;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A consumer of one group on one service process: fetch (long poll), record, ack, repeat, on
 * its own thread. Every delivery goes into the shared {@link Deliveries} of its group.
 *
 * <p>It checks what it is told, so "lose nothing" cannot pass on a broken consume path: every
 * ack result must be ACKED, or STALE where the scenario explains it (the lease the receipt
 * names moved or ended, or its visibility timeout ran out), which is counted apart. Anything
 * else (another status, a non-2xx answer, an exception) stops the loop with a {@link #failure()}
 * that the test reads; only a process the test killed explains its requests failing.
 */
public final class ConsumerLoop implements AutoCloseable {
    /** Visibility timeout of every fetch; an ack later than this may be STALE for that reason alone. */
    static final Duration VISIBILITY = Duration.ofSeconds(30);

    private final ServiceProcess process;
    private final Database db;
    private final String tenant;
    private final String topic;
    private final String group;
    private final Deliveries into;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final Thread thread;
    private volatile Throwable failure;
    private volatile boolean stoppedByKill;

    /** Starts consuming {@code group} through {@code process}; {@code db} explains STALE answers. */
    public ConsumerLoop(ServiceProcess process, Database db, String tenant, String topic, String group, Deliveries into) {
        this.process = process;
        this.db = db;
        this.tenant = tenant;
        this.topic = topic;
        this.group = group;
        this.into = into;
        thread = new Thread(this::run, "consumer-" + process.name() + "-" + group);
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
        HttpJson http = new HttpJson(process.baseUrl());
        String base = "/tenants/" + tenant + "/topics/" + topic + "/consumer-groups/" + group;
        while (running.get()) {
            try {
                long fetchedAt = System.nanoTime();
                JsonNode got = http.post(base + "/fetch", Map.of("maxMessages", 50, "waitSeconds", 1,
                        "visibilitySeconds", VISIBILITY.toSeconds()));
                List<String> receipts = new ArrayList<>();
                for (JsonNode m : got.get("messages")) {
                    into.record(m.get("partitionKey").asText(), m.get("offset").asLong(), m.get("id").asText());
                    receipts.add(m.get("receipt").asText());
                }
                if (!receipts.isEmpty()) {
                    checkAcks(receipts, http.post(base + "/ack", Map.of("receipts", receipts)), fetchedAt);
                }
            } catch (RuntimeException | AssertionError | java.sql.SQLException e) {
                if (process.killed()) {
                    stoppedByKill = true; // the test killed the process under it: explained
                } else if (running.get() || e instanceof AssertionError) {
                    failure = e;
                }
                return;
            }
        }
    }

    private void checkAcks(List<String> receipts, JsonNode answer, long fetchedAt) throws java.sql.SQLException {
        JsonNode results = answer.get("results");
        if (results == null || results.size() != receipts.size()) {
            throw new AssertionError("ack of " + receipts.size() + " receipts answered " + answer);
        }
        for (int i = 0; i < receipts.size(); i++) {
            JsonNode r = results.get(i);
            if (!receipts.get(i).equals(r.get("receipt").asText())) {
                throw new AssertionError("ack results out of request order: " + answer);
            }
            String status = r.get("status").asText();
            if ("ACKED".equals(status)) {
                into.acked();
            } else if ("STALE".equals(status)) {
                String why = staleExplanation(receipts.get(i), fetchedAt);
                if (why == null) {
                    throw new AssertionError(process.name() + ": ack answered STALE although the lease it names is"
                            + " still this process's, unexpired, with the same epoch, and its visibility timeout has not"
                            + " run out: " + Receipt.decode(receipts.get(i), ServiceProcess.RECEIPT_KEYS));
                }
                into.staleExplained();
            } else {
                throw new AssertionError(process.name() + ": ack answered " + status + " for a receipt acked once: "
                        + Receipt.decode(receipts.get(i), ServiceProcess.RECEIPT_KEYS));
            }
        }
    }

    /**
     * Why a STALE answer is right (SPEC: another delivery or subscriber owns the message now), or
     * null when nothing explains it. The receipt carries the lease epoch it was delivered under.
     */
    private String staleExplanation(String token, long fetchedAt) throws java.sql.SQLException {
        if (System.nanoTime() - fetchedAt >= VISIBILITY.toNanos()) {
            return "visibility timeout ran out before the ack";
        }
        Receipt receipt = Receipt.decode(token, ServiceProcess.RECEIPT_KEYS).orElseThrow(() -> new AssertionError("not a receipt: " + token));
        Database.Lease now = db.leases(tenant, group, topic).get(receipt.partitionKey());
        if (now == null || !now.live()) {
            return "lease released or expired";
        }
        if (now.epoch() != receipt.leaseEpoch() || !now.leasedBy().equals(process.name())) {
            return "lease moved to " + now.leasedBy() + " epoch " + now.epoch();
        }
        return null;
    }

    /** The error that stopped the loop, if any; null while it runs or after a kill explains its stop. */
    public Throwable failure() {
        return failure;
    }

    /** Whether the loop stopped because the test killed its process. */
    public boolean stoppedByKill() {
        return stoppedByKill;
    }

    /** Whether the loop is still consuming. */
    public boolean running() {
        return thread.isAlive();
    }

    @Override
    public String toString() {
        return thread.getName();
    }

    @Override
    public void close() throws InterruptedException {
        running.set(false);
        thread.join(10_000);
    }
}
