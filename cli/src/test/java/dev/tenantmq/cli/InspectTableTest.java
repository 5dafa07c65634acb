package dev.tenantmq.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code tmq inspect}'s table has a row for each field of the message that {@code --json}
 * always has, {@code deliverAt} included: its time when the message was published with a delay,
 * empty when not, as the group table shows an attempt or visibility a group does not have.
 */
class InspectTableTest {
    private JsonStub stub;

    private static String message(String deliverAt) {
        return "{\"tenant\":\"demo\",\"topic\":\"orders\",\"partitionKey\":\"k\",\"id\":\"m1\",\"offset\":7,\"payload\":{\"a\":1},"
                + "\"metadata\":{},\"createdAt\":\"2026-12-01T00:00:00Z\",\"consumerGroups\":[{\"consumerGroup\":\"billing\","
                + "\"committedOffset\":6,\"state\":\"NOT_DELIVERED\",\"deliveryAttempt\":null,\"visibleAt\":null}],"
                + "\"deliverAt\":" + deliverAt + "}";
    }

    @AfterEach
    void stopStub() {
        if (stub != null) {
            stub.close();
        }
    }

    @Test
    void a_delayed_message_shows_when_it_may_be_delivered() throws Exception {
        Map<String, String> fields = inspect(message("\"2026-12-02T05:00:00Z\""));
        assertEquals("2026-12-02T05:00:00Z", fields.get("deliverAt"), fields::toString);
    }

    @Test
    void a_message_without_a_delay_shows_an_empty_deliver_at_row() throws Exception {
        Map<String, String> fields = inspect(message("null"));
        assertTrue(fields.containsKey("deliverAt"), () -> "no deliverAt row: " + fields);
        assertEquals("", fields.get("deliverAt"));
        assertEquals(List.of("tenant", "topic", "partitionKey", "id", "offset", "createdAt", "deliverAt", "metadata", "payload"),
                List.copyOf(fields.keySet()), "deliverAt comes after createdAt, the other time");
    }

    /** Runs inspect against a stub answering {@code answer}; answers the FIELD table as field → value, in order. */
    private Map<String, String> inspect(String answer) throws Exception {
        stub = JsonStub.start("/admin/messages", exchange -> answer);
        CommandLine cmd = Tmq.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cmd.setOut(new PrintWriter(out));
        cmd.setErr(new PrintWriter(err));
        int code = cmd.execute("inspect", "--url", stub.url(), "--tenant", "demo", "--topic", "orders", "--partition-key", "k",
                "--id", "m1");
        assertEquals(0, code, () -> out + " / " + err);
        return TableOut.parse(out.toString()).stream()
                .collect(Collectors.toMap(r -> r.get("FIELD"), r -> r.get("VALUE"), (a, b) -> a, java.util.LinkedHashMap::new));
    }
}
