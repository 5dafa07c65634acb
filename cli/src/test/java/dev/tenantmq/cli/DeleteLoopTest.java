package dev.tenantmq.cli;

import static dev.tenantmq.cli.InProcessTmq.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tenantmq.cli.InProcessTmq.Run;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code tmq topic delete} and {@code tmq group delete} repeat the idempotent DELETE until it
 * answers done, and send nothing without {@code --yes}; against a stub that answers done on the
 * third call.
 */
class DeleteLoopTest {
    private JsonStub stub;
    private final List<String> requests = new CopyOnWriteArrayList<>();
    private final AtomicInteger calls = new AtomicInteger();

    private static String rows(long messages, long offsets) {
        return "{\"messages\":" + messages + ",\"deliveryStates\":0,\"offsets\":" + offsets
                + ",\"leases\":0,\"heartbeats\":0,\"partitionHeads\":0,\"dedupIds\":0}";
    }

    private void start(String path, java.util.function.IntFunction<String> answer) throws Exception {
        stub = JsonStub.start(path, exchange -> {
            requests.add(exchange.getRequestMethod() + " " + exchange.getRequestURI().getRawQuery());
            return answer.apply(calls.incrementAndGet());
        });
    }

    @AfterEach
    void stopStub() {
        if (stub != null) {
            stub.close();
        }
    }

    @Test
    void topic_delete_calls_until_done_and_sums_what_each_call_deleted() throws Exception {
        start("/admin/topics", n -> "{\"tenant\":\"demo\",\"topic\":\"orders\",\"done\":" + (n == 3)
                + ",\"topics\":[{\"topic\":\"orders\",\"done\":" + (n == 3) + ",\"deleted\":" + rows(n == 3 ? 0 : 1000, 2)
                + "}]}");
        Run r = run("topic", "delete", "--url", stub.url(), "--tenant", "demo", "--topic", "orders", "--yes");
        assertEquals(ExitCodes.OK, r.code(), r::toString);
        assertEquals(3, requests.size());
        assertTrue(requests.stream().allMatch(q -> q.equals("DELETE tenant=demo&topic=orders&includeDeadLetters=false")),
                requests::toString);
        assertTrue(r.out().contains("deleted topic demo/orders: orders: messages=2000 offsets=6"), r::toString);
    }

    @Test
    void group_delete_calls_until_done() throws Exception {
        start("/admin/consumer-groups", n -> "{\"tenant\":\"demo\",\"topic\":\"orders\",\"consumerGroup\":\"billing\","
                + "\"done\":" + (n == 2) + ",\"deleted\":" + rows(0, 3) + "}");
        Run r = run("group", "delete", "--url", stub.url(), "--tenant", "demo", "--topic", "orders", "--group", "billing",
                "--yes", "--json");
        assertEquals(ExitCodes.OK, r.code(), r::toString);
        assertEquals(List.of("DELETE tenant=demo&topic=orders&consumerGroup=billing",
                "DELETE tenant=demo&topic=orders&consumerGroup=billing"), requests);
        assertEquals(2, r.out().strip().split("\n").length, "one JSON line per call: " + r);
    }

    @Test
    void nothing_is_sent_without_yes() throws Exception {
        start("/", n -> "{}");
        Run topic = run("topic", "delete", "--url", stub.url(), "--tenant", "demo", "--topic", "orders");
        assertEquals(ExitCodes.USAGE, topic.code(), topic::toString);
        assertTrue(topic.err().contains("--yes"), topic::toString);
        Run group = run("group", "delete", "--url", stub.url(), "--tenant", "demo", "--topic", "orders", "--group", "g");
        assertEquals(ExitCodes.USAGE, group.code(), group::toString);
        assertEquals(List.of(), requests);
    }
}
