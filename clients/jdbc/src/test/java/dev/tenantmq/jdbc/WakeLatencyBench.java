package dev.tenantmq.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tenantmq.jdbc.TransactionalPublisher.Message;
import dev.tenantmq.jdbc.TransactionalPublisher.Result;
import dev.tenantmq.testsupport.ServiceUnderTest;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * How soon a waiting long poll returns a message published in an application transaction: with
 * the library's committed notice, without it (the poll's re-check finds it), and, for comparison,
 * after an HTTP publish. A measurement, not a test: it asserts delivery, never a time. Not run by
 * {@code verify} (not an {@code *IT}); run it with
 * {@code ./mvnw -B -f clients/jdbc/pom.xml verify -Dit.test=WakeLatencyBench}
 * (docs/transactional-publish.md, "Waking consumers"). Writes target/wake-latency.txt.
 */
class WakeLatencyBench {
    private static final int ROUNDS = Integer.getInteger("rounds", 30);
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final Pattern RECEIPT = Pattern.compile("\"receipt\":\"([^\"]+)\"");

    @Test
    void wake_latency_with_and_without_the_notice() throws Exception {
        // The service's default re-check interval, not the test harness's 200 ms.
        try (ServiceUnderTest service = ServiceUnderTest.start("wake-bench", Map.of("MQ_FETCH_RECHECK_INTERVAL", "500ms"))) {
            String topic = "bench-" + UUID.randomUUID();
            String base = service.baseUrl() + "/tenants/" + service.tenant + "/topics/" + topic;
            TransactionalPublisher publisher = TransactionalPublisher.withDefaults();
            CommitNotifier notifier = new CommitNotifier(URI.create(service.baseUrl()), null, Duration.ofSeconds(30));
            // Lease the partition to the group first: the measurement is the wake, not the lease.
            post(base + "/messages", "{\"messages\":[{\"partitionKey\":\"p\",\"payload\":0}]}");
            ack(base, fetch(base, 20));
            StringBuilder report = new StringBuilder("wake latency, ms from commit (or HTTP publish) to the poll's answer, "
                    + ROUNDS + " rounds, mq.fetch.recheck-interval=500ms\n");
            for (String mode : List.of("library+notice", "library, no notice", "HTTP publish")) {
                List<Double> millis = new ArrayList<>();
                for (int round = 0; round < ROUNDS; round++) {
                    CompletableFuture<String> poll = CompletableFuture.supplyAsync(() -> fetch(base, 20));
                    Thread.sleep(150 + (round % 7) * 50); // the poll is waiting; spread against the re-check's phase
                    long start;
                    if (mode.equals("HTTP publish")) {
                        start = System.nanoTime();
                        post(base + "/messages", "{\"messages\":[{\"partitionKey\":\"p\",\"payload\":1}]}");
                    } else {
                        List<Result> results;
                        try (Connection c = service.openDatabaseConnection()) {
                            c.setAutoCommit(false);
                            c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
                            results = publisher.publish(c, service.tenant, topic, List.of(Message.of("p", null, "1")));
                            c.commit();
                            start = System.nanoTime();
                        }
                        if (mode.equals("library+notice")) {
                            notifier.committed(service.tenant, topic, results);
                        }
                    }
                    String got = poll.get(60, TimeUnit.SECONDS);
                    millis.add((System.nanoTime() - start) / 1e6);
                    assertTrue(RECEIPT.matcher(got).find(), "the poll returned the message: " + got);
                    ack(base, got);
                }
                Collections.sort(millis);
                report.append(String.format("%-20s median %6.1f  p90 %6.1f  max %6.1f%n", mode, millis.get(millis.size() / 2),
                        millis.get((int) (millis.size() * 0.9)), millis.get(millis.size() - 1)));
            }
            System.out.print(report);
            Files.writeString(Path.of("target", "wake-latency.txt"), report);
        }
    }

    private static String fetch(String base, int waitSeconds) {
        return post(base + "/consumer-groups/bench/fetch", "{\"maxMessages\":10,\"waitSeconds\":" + waitSeconds + "}");
    }

    private static void ack(String base, String fetched) {
        Matcher m = RECEIPT.matcher(fetched);
        List<String> receipts = new ArrayList<>();
        while (m.find()) {
            receipts.add("\"" + m.group(1) + "\"");
        }
        if (!receipts.isEmpty()) {
            post(base + "/consumer-groups/bench/ack", "{\"receipts\":[" + String.join(",", receipts) + "]}");
        }
    }

    private static String post(String url, String body) {
        try {
            HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(60))
                    .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(2, r.statusCode() / 100, url + " -> " + r.statusCode() + ": " + r.body());
            return r.body();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
