package dev.tenantmq.cli;

import static dev.tenantmq.cli.InProcessTmq.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tenantmq.cli.InProcessTmq.Run;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code tmq tail} and {@code tmq inspect} print a payload's numbers exactly as the service sent
 * them (docs/operations.md, "CLI"): an exponent beyond a double, a negative zero, trailing zeros,
 * more digits than a long and the exponent's own spelling all survive. The stub answers what a
 * service answers, which keeps the payload's text as published.
 */
class ExactNumbersTest {
    /** Numbers that a parse-and-write round trip changes. */
    static final String PAYLOAD = "{\"a\":1e400,\"b\":-0,\"c\":0.10,\"d\":12345678901234567890.10,\"e\":-0.0,\"f\":1E5,\"g\":1.0e-7}";

    private JsonStub stub;

    @BeforeEach
    void startStub() throws Exception {
        stub = JsonStub.start("/", exchange -> {
            String path = exchange.getRequestURI().getRawPath();
            if (path.endsWith("/fetch")) {
                return "{\"messages\":[{\"partitionKey\":\"k\",\"id\":\"m1\",\"offset\":1,\"payload\":" + PAYLOAD
                        + ",\"metadata\":{},\"deliveryAttempt\":1,\"receipt\":\"r1\"}]}";
            }
            if (path.endsWith("/ack")) {
                return "{\"results\":[{\"receipt\":\"r1\",\"status\":\"ACKED\"}]}";
            }
            if (path.equals("/admin/messages")) {
                return "{\"tenant\":\"demo\",\"topic\":\"orders\",\"partitionKey\":\"k\",\"id\":\"m1\",\"offset\":1,"
                        + "\"payload\":" + PAYLOAD + ",\"metadata\":{},\"createdAt\":\"2026-12-01T00:00:00Z\",\"consumerGroups\":[]}";
            }
            return "{}";
        });
    }

    @AfterEach
    void stopStub() {
        stub.close();
    }

    @Test
    void tailPrintsThePayloadsNumbersAsPublished() {
        Run r = run("tail", "--url", stub.url(), "--tenant", "demo", "--topic", "orders", "--group", "g", "--max", "1");
        assertEquals(0, r.code(), r::toString);
        assertEquals("{\"partitionKey\":\"k\",\"id\":\"m1\",\"offset\":1,\"payload\":" + PAYLOAD
                + ",\"metadata\":{},\"deliveryAttempt\":1}", r.out().strip());
    }

    @Test
    void inspectPrintsThePayloadsNumbersAsPublished() {
        Run r = run("inspect", "--url", stub.url(), "--tenant", "demo", "--topic", "orders", "--partition-key", "k", "--id", "m1");
        assertEquals(0, r.code(), r::toString);
        String payloadRow = r.out().lines().filter(l -> l.startsWith("payload")).findFirst().orElseThrow(() -> new AssertionError(r));
        assertEquals(PAYLOAD, payloadRow.substring("payload".length()).strip());
        assertTrue(r.out().lines().anyMatch(l -> l.matches("offset\\s+1")), r::toString);
    }

    @Test
    void parseKeepsEachNumbersTextAndValue() throws Exception {
        var node = Json.parse(PAYLOAD);
        assertEquals(PAYLOAD, Json.write(node));
        assertEquals("1e400", node.get("a").asText());
        assertEquals(0, node.get("b").asLong());
        assertEquals(42L, Json.parse("{\"offset\":42}").get("offset").asLong());
    }
}
