package dev.tenantmq.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * A consumer group that prints and acks: long-polls the topic as {@code --group}, prints each
 * message as one JSON line (the delivered message without its receipt) and acks what it printed,
 * until Ctrl-C, {@code --max} messages, or {@code --idle-timeout} seconds without a message (by
 * default 10 s when {@code --max} is given, so that a topic with fewer messages than
 * {@code --max} does not keep it waiting forever). Ctrl-C stops fetching and lets the poll in progress
 * return (at most {@code --wait} seconds): what it brings is printed and acked too, so stopping
 * never leaves a message to its visibility timeout (which would count a failed attempt).
 */
@Command(name = "tail", mixinStandardHelpOptions = true,
        description = {"Consume a topic as a consumer group: print each message as one JSON line and ack it.",
            "Runs until Ctrl-C (exit 130), --max messages, or --idle-timeout seconds without a message (exit 0)."})
final class TailCommand extends BaseCommand {
    /** Set when a signal (Ctrl-C, SIGTERM) started the JVM's shutdown while tail ran. */
    static final AtomicBoolean SHUTTING_DOWN = new AtomicBoolean();

    @Option(names = "--tenant", required = true, paramLabel = "TENANT", description = "Tenant (served by the instance).")
    String tenant;

    @Option(names = "--topic", required = true, paramLabel = "TOPIC", description = "Topic to consume (a dead-letter topic too).")
    String topic;

    @Option(names = "--group", required = true, paramLabel = "GROUP", description = "Consumer group; it acks what it prints.")
    String group;

    @Option(names = "--max", paramLabel = "N", description = "Stop after N messages (default: until Ctrl-C).")
    Long max;

    /** Default of {@code --idle-timeout} when {@code --max} is given, in seconds. */
    static final int IDLE_TIMEOUT_WITH_MAX = 10;

    @Option(names = "--idle-timeout", paramLabel = "SECONDS",
            description = {"Stop (exit 0) after SECONDS without a new message; 0 never stops for idleness.",
                "Default: " + IDLE_TIMEOUT_WITH_MAX + " when --max is given (a topic may hold fewer than N), else 0 (until Ctrl-C)."})
    Integer idleTimeoutSeconds;

    @Option(names = "--wait", paramLabel = "SECONDS", defaultValue = "5",
            description = "Long-poll wait per fetch, 0..30 (default ${DEFAULT-VALUE}); Ctrl-C waits for the poll in progress.")
    int waitSeconds;

    @Option(names = "--visibility", paramLabel = "SECONDS", defaultValue = "30",
            description = "Visibility timeout of each fetched message, 1..43200 (default ${DEFAULT-VALUE}).")
    int visibilitySeconds;

    @Option(names = "--batch", paramLabel = "N", defaultValue = "100",
            description = "Most messages per fetch, 1..1000 (default ${DEFAULT-VALUE}).")
    int batch;

    @Option(names = "--max-bytes", paramLabel = "BYTES",
            description = {"Byte budget of each fetch: most payload bytes (UTF-8 JSON text as stored) one fetch returns,",
                "1..the service's mq.fetch.max-bytes; a first message larger than it still comes, alone.",
                "Default: the service's mq.fetch.default-max-bytes (8 MiB as shipped)."})
    Integer maxBytes;

    /** openapi.yaml, FetchRequest: waitSeconds 0..30, visibilitySeconds 1..43200, maxMessages 1..1000. */
    static final int MAX_WAIT_SECONDS = 30;
    static final int MAX_VISIBILITY_SECONDS = 43200;
    static final int MAX_BATCH = 1000;

    private static void inRange(String option, int value, int min, int max, String unit) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(option + " must be " + min + ".." + max + unit + "; got " + value);
        }
    }

    @Override
    int run(TmqClient client) throws Exception {
        if (max != null && max < 1) {
            throw new IllegalArgumentException("--max must be at least 1");
        }
        if (idleTimeoutSeconds != null && idleTimeoutSeconds < 0) {
            throw new IllegalArgumentException("--idle-timeout must be 0 (never) or more seconds");
        }
        // The service's bounds of a fetch (openapi.yaml, FetchRequest), checked before any request.
        inRange("--wait", waitSeconds, 0, MAX_WAIT_SECONDS, " seconds (the service's longest long poll)");
        inRange("--visibility", visibilitySeconds, 1, MAX_VISIBILITY_SECONDS, " seconds");
        inRange("--batch", batch, 1, MAX_BATCH, " messages per fetch");
        String base = "/tenants/" + TmqClient.segment("--tenant", tenant) + "/topics/" + TmqClient.segment("--topic", topic)
                + "/consumer-groups/" + TmqClient.segment("--group", group);
        int idle = idleTimeoutSeconds != null ? idleTimeoutSeconds : max != null ? IDLE_TIMEOUT_WITH_MAX : 0;
        AtomicBoolean stop = new AtomicBoolean();
        Thread worker = Thread.currentThread();
        Thread hook = new Thread(() -> {
            SHUTTING_DOWN.set(true);
            stop.set(true);
            try {
                worker.join(TimeUnit.SECONDS.toMillis(waitSeconds + TmqClient.REQUEST_TIMEOUT.toSeconds()));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "tmq-tail-stop");
        Runtime.getRuntime().addShutdownHook(hook);
        long printed = 0;
        long lastMessage = System.nanoTime();
        try {
            while (!stop.get() && (max == null || printed < max)) {
                long idleLeftMillis = idle == 0 ? Long.MAX_VALUE
                        : TimeUnit.SECONDS.toMillis(idle) - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - lastMessage);
                if (idleLeftMillis <= 0) {
                    note("no message for " + idle + " s (--idle-timeout); stopping after " + printed + " message"
                            + (printed == 1 ? "" : "s"));
                    break;
                }
                // A poll never waits past the idle time-out (whole seconds, rounded up).
                int wait = idle == 0 ? waitSeconds : (int) Math.min(waitSeconds, (idleLeftMillis + 999) / 1000);
                int want = (int) Math.min(batch, max == null ? batch : max - printed);
                ObjectNode fetch = Json.MAPPER.createObjectNode()
                        .put("maxMessages", want).put("waitSeconds", wait).put("visibilitySeconds", visibilitySeconds);
                if (maxBytes != null) {
                    fetch.put("maxBytes", maxBytes); // out of range: the service's 400 names maxBytes
                }
                JsonNode messages = Json.parse(client.post(base + "/fetch", null, Json.write(fetch))).path("messages");
                if (messages.isEmpty()) {
                    continue;
                }
                lastMessage = System.nanoTime();
                ArrayNode receipts = Json.MAPPER.createArrayNode();
                boolean closed = false;
                for (JsonNode m : messages) {
                    ObjectNode line = ((ObjectNode) m).deepCopy();
                    line.remove("receipt");
                    out().println(Json.write(line));
                    out().flush();
                    if (out().checkError()) {
                        // stdout is gone (tmq tail | head -3): what was not printed is not acked.
                        closed = true;
                        break;
                    }
                    receipts.add(m.path("receipt").asText());
                    printed++;
                }
                if (closed) {
                    stop.set(true);
                    note("stdout is closed; stopping (messages not printed are not acked and come back after their visibility timeout)");
                    if (receipts.isEmpty()) {
                        break;
                    }
                }
                ObjectNode ack = Json.MAPPER.createObjectNode();
                ack.set("receipts", receipts);
                JsonNode results = Json.parse(client.post(base + "/ack", null, Json.write(ack))).path("results");
                for (JsonNode r : results) {
                    String status = Json.text(r, "status");
                    if (!status.equals("ACKED") && !status.equals("ALREADY_ACKED")) {
                        note("ack answered " + status + " for a printed message (it may be delivered again)");
                    }
                }
            }
        } finally {
            if (!SHUTTING_DOWN.get()) {
                Runtime.getRuntime().removeShutdownHook(hook);
            }
        }
        return ExitCodes.OK;
    }
}
