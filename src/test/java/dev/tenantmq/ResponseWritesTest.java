package dev.tenantmq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.restassured.response.Response;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * A JSON answer goes out in one write with a {@code Content-Length}, not in chunks of Quarkus's
 * default 8 KiB output buffer, each a write and a flush of its own (docs/architecture.md, "Rows
 * into responses"; {@code quarkus.rest.output-buffer-size}).
 */
@QuarkusTest
@DatabaseAgnostic
class ResponseWritesTest {
    private final String tenant = TestIds.tenant();
    private final String topic = TestIds.topic();

    @Test
    void a_fetch_answer_many_times_the_default_buffer_is_sent_whole_with_its_length() {
        String payload = "x".repeat(1024);
        List<Map<String, Object>> messages = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            messages.add(Api.msg("k", "m" + i, payload));
        }
        Api.publishOk(tenant, topic, messages);
        String group = TestIds.group();

        // The first fetches may lease the partition before they deliver; the one that delivers
        // its backlog answers with at least 32 KiB.
        Response[] big = {null};
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> {
            Response fetched = Api.fetch(tenant, topic, group, Fetch.upTo(100).waitSeconds(1).body());
            assertEquals(200, fetched.statusCode(), fetched.asString());
            List<String> receipts = JsonPath.from(fetched.asString()).getList("messages.receipt");
            if (receipts.size() >= 32) {
                big[0] = fetched;
                return true;
            }
            if (!receipts.isEmpty()) {
                Api.ack(tenant, topic, group, receipts);
            }
            return false;
        });
        int size = big[0].asByteArray().length;
        assertNull(big[0].header("Transfer-Encoding"), "not chunked: " + size + " bytes");
        assertEquals(String.valueOf(size), big[0].header("Content-Length"));
    }
}
