package dev.tenantmq;

import static dev.tenantmq.Api.ack;
import static dev.tenantmq.Api.fetchOk;
import static dev.tenantmq.Api.msg;
import static dev.tenantmq.Api.publishOk;
import static dev.tenantmq.Fetch.upTo;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.quarkus.test.junit.QuarkusTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A consumer of the group cannot settle another consumer's delivery by building its receipt
 * (docs/security.md, "Receipt signing"): the tenant, group, topic, key and offset are known to it,
 * and the lease epoch and delivery number count up from 1, but a receipt without the service's
 * tag answers INVALID and changes nothing.
 */
@QuarkusTest
class ReceiptForgeryTest {
    private final String tenant = TestIds.tenant();
    private final String topic = TestIds.topic();
    private final String group = TestIds.group();

    @Test
    void receipts_built_from_the_message_with_guessed_counters_are_invalid_and_ack_nothing() {
        publishOk(tenant, topic, List.of(msg("k", "victim", 1)));
        List<Delivered> got = new ArrayList<>();
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            got.addAll(fetchOk(tenant, topic, group, upTo(1).waitSeconds(1)));
            return !got.isEmpty();
        });
        long offset = got.get(0).offset();
        // What the probe sent: 200 receipts, lease epochs 1..5 and delivery numbers 1..40, in the
        // receipt layout of the unsigned versions (3) and of the signed one (4) with a guessed tag.
        List<String> forged = new ArrayList<>();
        for (int epoch = 1; epoch <= 5; epoch++) {
            for (int delivery = 1; delivery <= 40; delivery++) {
                forged.add(receipt(3, offset, epoch, delivery, new byte[0]));
                forged.add(receipt(4, offset, epoch, delivery, new byte[16]));
            }
        }
        for (int from = 0; from < forged.size(); from += 200) {
            List<String> statuses = ack(tenant, topic, group, forged.subList(from, Math.min(forged.size(), from + 200)));
            assertEquals(Collections.nCopies(statuses.size(), "INVALID"), statuses);
        }
        assertEquals(List.of("ACKED"), ack(tenant, topic, group, List.of(got.get(0).receipt())),
                "the real delivery was still in flight: nothing forged acked it");
    }

    private String receipt(int version, long offset, long epoch, long delivery, byte[] tag) {
        return RawReceipts.token(RawReceipts.record(version, tenant, group, topic, "k", offset, epoch, delivery), tag);
    }
}
