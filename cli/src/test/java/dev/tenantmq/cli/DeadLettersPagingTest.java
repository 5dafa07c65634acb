package dev.tenantmq.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code tmq dlq} reads every page of {@code GET /admin/messages/browse}: it follows
 * {@code nextAfterOffset} until it is null, against a stub that serves three pages (a real
 * service would need over 1,000 dead letters for a second page).
 */
class DeadLettersPagingTest {
    /** Pages by the afterOffset they answer: two full ones and a last one. */
    private static final Map<String, String> PAGES = Map.of(
            "none", "{\"messages\":[" + row("a", 3) + "," + row("b", 7) + "],\"nextAfterOffset\":7}",
            "7", "{\"messages\":[" + row("c", 9) + "," + row("d", 12) + "],\"nextAfterOffset\":12}",
            "12", "{\"messages\":[" + row("e", 20) + "],\"nextAfterOffset\":null}");
    private JsonStub stub;
    private final List<String> queries = new CopyOnWriteArrayList<>();
    private String url;

    private static String row(String id, long offset) {
        return "{\"tenant\":\"demo\",\"topic\":\"orders.dlq\",\"partitionKey\":\"k\",\"id\":\"" + id + "\",\"offset\":" + offset
                + ",\"payload\":1,\"metadata\":{\"queue_name\":\"demo\",\"consumer_group\":\"billing,audit\",\"original_offset\":\""
                + (offset - 1) + "\"},\"createdAt\":\"2026-11-30T12:00:00Z\"}";
    }

    @BeforeEach
    void startStub() throws Exception {
        stub = JsonStub.start("/admin/messages/browse", exchange -> {
            String query = exchange.getRequestURI().getRawQuery();
            queries.add(query);
            String after = "none";
            for (String p : query.split("&")) {
                if (p.startsWith("afterOffset=")) {
                    after = p.substring("afterOffset=".length());
                }
            }
            return PAGES.getOrDefault(after, "{\"messages\":[],\"nextAfterOffset\":null}");
        });
        url = stub.url();
    }

    @AfterEach
    void stopStub() {
        stub.close();
    }

    @Test
    void readsEveryPageUntilNextAfterOffsetIsNull() throws Exception {
        List<DeadLetters.DeadLetter> all = DeadLetters.read(new TmqClient(url, "t0ken-value-xyz"), "demo", "orders.dlq");
        assertEquals(List.of("a", "b", "c", "d", "e"), all.stream().map(DeadLetters.DeadLetter::id).toList());
        assertEquals(List.of(3L, 7L, 9L, 12L, 20L), all.stream().map(DeadLetters.DeadLetter::offset).toList());
        assertEquals(List.of("billing", "audit"), all.get(0).groups());
        assertEquals("19", all.get(4).originalOffset());
        assertEquals(List.of("tenant=demo&topic=orders.dlq&limit=1000",
                "tenant=demo&topic=orders.dlq&limit=1000&afterOffset=7",
                "tenant=demo&topic=orders.dlq&limit=1000&afterOffset=12"), queries);
    }
}
