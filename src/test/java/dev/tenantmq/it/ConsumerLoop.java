package dev.tenantmq.it;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tenantmq.HttpJson;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A consumer of one group on one service process: fetch (long poll), record, ack, repeat, on
 * its own thread. Every delivery goes into the shared {@link Deliveries} of its group.
 */
public final class ConsumerLoop implements AutoCloseable {
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final Thread thread;
    private volatile Throwable failure;

    /** Starts consuming {@code group} through {@code process}. */
    public ConsumerLoop(ServiceProcess process, String tenant, String topic, String group, Deliveries into) {
        HttpJson http = new HttpJson(process.baseUrl());
        String base = "/tenants/" + tenant + "/topics/" + topic + "/consumer-groups/" + group;
        thread = new Thread(() -> {
            while (running.get()) {
                try {
                    JsonNode got = http.post(base + "/fetch", Map.of("maxMessages", 50, "waitSeconds", 1,
                            "visibilitySeconds", 30));
                    List<String> receipts = new ArrayList<>();
                    for (JsonNode m : got.get("messages")) {
                        into.record(m.get("partitionKey").asText(), m.get("offset").asLong(), m.get("id").asText());
                        receipts.add(m.get("receipt").asText());
                    }
                    if (!receipts.isEmpty()) {
                        http.post(base + "/ack", Map.of("receipts", receipts));
                    }
                } catch (RuntimeException e) {
                    if (running.get()) {
                        failure = e; // the process was killed or frozen: stop this loop
                        return;
                    }
                }
            }
        }, "consumer-" + process.name() + "-" + group);
        thread.setDaemon(true);
        thread.start();
    }

    /** The error that stopped the loop, if any. */
    public Throwable failure() {
        return failure;
    }

    @Override
    public void close() throws InterruptedException {
        running.set(false);
        thread.join(10_000);
    }
}
