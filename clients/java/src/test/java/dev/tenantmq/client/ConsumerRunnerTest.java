package dev.tenantmq.client;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.NullNode;
import dev.tenantmq.client.api.ConsumeApi;
import dev.tenantmq.client.model.DeliveredMessage;
import dev.tenantmq.client.model.ExtendRequest;
import dev.tenantmq.client.model.FetchRequest;
import dev.tenantmq.client.model.FetchResponse;
import dev.tenantmq.client.model.NackRequest;
import dev.tenantmq.client.model.ReceiptResult;
import dev.tenantmq.client.model.ReceiptStatus;
import dev.tenantmq.client.model.ReceiptsRequest;
import dev.tenantmq.client.model.ReceiptsResponse;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The runner's loop against a scripted {@link ConsumeApi} (no network): what it acks, nacks,
 * extends and skips, and how it stops. The integration test ClientIT runs it against the service.
 */
class ConsumerRunnerTest {

    /** Hands out scripted batches, then empty fetches; records every settlement call. */
    static final class ScriptedApi extends ConsumeApi {
        final Deque<List<DeliveredMessage>> batches = new ArrayDeque<>();
        final List<String> calls = new CopyOnWriteArrayList<>();
        final List<String> reasons = new CopyOnWriteArrayList<>();
        volatile int fetches;
        /** The fetch requests, in order. */
        final List<FetchRequest> requests = new CopyOnWriteArrayList<>();
        /** When set, the first fetch signals {@code inFetch} and waits for it to open (a long poll in progress). */
        volatile CountDownLatch gate;
        final CountDownLatch inFetch = new CountDownLatch(1);
        /** What a fetch answers for each receipt it carries to ack. */
        volatile ReceiptStatus ackStatus = ReceiptStatus.ACKED;

        ScriptedApi(List<List<DeliveredMessage>> script) {
            super(TenantMqClient.apiClient("http://127.0.0.1:9"));
            batches.addAll(script);
        }

        @Override
        public synchronized FetchResponse fetch(String tenant, String topic, String group, FetchRequest request) {
            fetches++;
            requests.add(request);
            CountDownLatch g = gate;
            if (g != null) {
                gate = null;
                inFetch.countDown();
                try {
                    g.await();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }
            List<DeliveredMessage> next = batches.poll();
            FetchResponse response = new FetchResponse().messages(next == null ? List.of() : next);
            if (request.getAck() != null && !request.getAck().isEmpty()) {
                calls.add("fetch+ack " + String.join(",", request.getAck()));
                response.ackResults(answer(request.getAck(), ackStatus).getResults());
            }
            return response;
        }

        @Override
        public ReceiptsResponse ack(String tenant, String topic, String group, ReceiptsRequest request) {
            calls.add("ack " + String.join(",", request.getReceipts()));
            return answer(request.getReceipts(), ReceiptStatus.ACKED);
        }

        @Override
        public ReceiptsResponse nack(String tenant, String topic, String group, NackRequest request) {
            calls.add("nack " + String.join(",", request.getReceipts()));
            reasons.add(request.getReason());
            return answer(request.getReceipts(), ReceiptStatus.NACKED);
        }

        @Override
        public ReceiptsResponse extend(String tenant, String topic, String group, ExtendRequest request) {
            calls.add("extend " + String.join(",", request.getReceipts()));
            return answer(request.getReceipts(), ReceiptStatus.EXTENDED);
        }

        private static ReceiptsResponse answer(List<String> receipts, ReceiptStatus status) {
            return new ReceiptsResponse().results(receipts.stream().map(r -> new ReceiptResult().receipt(r).status(status)).toList());
        }
    }

    private static DeliveredMessage msg(String key, long offset) {
        return new DeliveredMessage().partitionKey(key).id(key + offset).offset(offset)
                .payload(NullNode.getInstance()).deliveryAttempt(1).receipt("r-" + key + offset);
    }

    private static ConsumerRunner.Builder runner(ScriptedApi api) {
        return ConsumerRunner.builder(api, "t", "orders", "g").waitSeconds(1);
    }

    @Test
    void eachFetchCarriesTheByteBudgetWhenOneIsSetAndLeavesItToTheServerOtherwise() throws Exception {
        ScriptedApi budgeted = new ScriptedApi(List.of());
        try (ConsumerRunner r = runner(budgeted).maxBytes(1_048_576).handler(m -> { }).build().start()) {
            await().atMost(Duration.ofSeconds(10)).until(() -> budgeted.fetches >= 1);
        }
        assertEquals(1_048_576, budgeted.requests.get(0).getMaxBytes());
        ScriptedApi unset = new ScriptedApi(List.of());
        try (ConsumerRunner r = runner(unset).handler(m -> { }).build().start()) {
            await().atMost(Duration.ofSeconds(10)).until(() -> unset.fetches >= 1);
        }
        assertEquals(null, unset.requests.get(0).getMaxBytes(), "the server's mq.fetch.default-max-bytes");
        assertThrows(IllegalArgumentException.class, () -> runner(unset).maxBytes(0));
    }

    @Test
    void acksEachHandledMessageAndNacksAFailureWithTheExceptionMessage() throws Exception {
        ScriptedApi api = new ScriptedApi(List.of(List.of(msg("a", 1), msg("b", 2))));
        try (ConsumerRunner r = runner(api).handler(m -> {
            if (m.getPartitionKey().equals("b")) {
                throw new IllegalStateException("b is broken");
            }
        }).build().start()) {
            await().atMost(Duration.ofSeconds(10)).until(() -> r.acked() == 1 && r.nacked() == 1);
        }
        assertEquals(List.of("nack r-b2", "fetch+ack r-a1"), api.calls, "the ack rides on the next fetch");
        assertEquals(List.of("b is broken"), api.reasons);
    }

    @Test
    void afterANackTheRestOfThatPartitionInTheBatchIsLeftForRedeliveryInOrder() throws Exception {
        ScriptedApi api = new ScriptedApi(List.of(List.of(msg("a", 1), msg("b", 2), msg("a", 3), msg("b", 4))));
        List<String> handled = new CopyOnWriteArrayList<>();
        try (ConsumerRunner r = runner(api).handler(m -> {
            handled.add(m.getId());
            if (m.getId().equals("a1")) {
                throw new RuntimeException("fails");
            }
        }).build().start()) {
            await().atMost(Duration.ofSeconds(10)).until(() -> r.acked() == 2);
        }
        assertEquals(List.of("a1", "b2", "b4"), handled);
        assertEquals(List.of("nack r-a1", "fetch+ack r-b2,r-b4"), api.calls);
    }

    @Test
    void extendsTheBatchsUnsettledReceiptsWhileTheHandlerRuns() throws Exception {
        ScriptedApi api = new ScriptedApi(List.of(List.of(msg("a", 1), msg("a", 2))));
        CountDownLatch extendedTwice = new CountDownLatch(1);
        try (ConsumerRunner r = runner(api).visibilitySeconds(3).extendEvery(Duration.ofMillis(100)).handler(m -> {
            if (m.getOffset() == 1) {
                await().atMost(Duration.ofSeconds(10)).until(() -> api.calls.stream().filter(c -> c.startsWith("extend")).count() >= 2);
                extendedTwice.countDown();
            }
        }).build().start()) {
            assertTrue(extendedTwice.await(10, TimeUnit.SECONDS));
            await().atMost(Duration.ofSeconds(10)).until(() -> r.acked() == 2);
        }
        String firstExtend = api.calls.stream().filter(c -> c.startsWith("extend")).findFirst().orElseThrow();
        assertTrue(firstExtend.contains("r-a1") && firstExtend.contains("r-a2"), firstExtend);
        int lastExtend = api.calls.lastIndexOf(api.calls.stream().filter(c -> c.startsWith("extend")).reduce((x, y) -> y).orElseThrow());
        assertTrue(lastExtend < api.calls.indexOf("fetch+ack r-a1,r-a2"), "no extension after the batch is settled: "
                + api.calls);
    }

    @Test
    void stopFinishesTheMessageInTheHandlerSettlesItAndFetchesNoMore() throws Exception {
        ScriptedApi api = new ScriptedApi(List.of(List.of(msg("a", 1), msg("a", 2))));
        CountDownLatch inHandler = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ConsumerRunner r = runner(api).handler(m -> {
            inHandler.countDown();
            release.await();
        }).build().start();
        assertTrue(inHandler.await(10, TimeUnit.SECONDS));
        assertFalse(r.stop(Duration.ofMillis(300)), "stop waits for the handler");
        int fetchesAtStop = api.fetches;
        release.countDown();
        assertTrue(r.awaitStopped(Duration.ofSeconds(10)));
        assertEquals(List.of("ack r-a1,r-a2"), api.calls.stream().filter(c -> !c.startsWith("extend")).toList(),
                "no fetch carries them after stop: one ack call");
        assertEquals(fetchesAtStop, api.fetches, "no fetch after stop");
    }

    @Test
    void messagesOfAFetchInProgressWhenStopIsCalledAreHandledAndSettled() throws Exception {
        ScriptedApi api = new ScriptedApi(List.of(List.of(msg("a", 1))));
        CountDownLatch gate = new CountDownLatch(1);
        api.gate = gate;
        List<String> handled = new CopyOnWriteArrayList<>();
        ConsumerRunner r = runner(api).handler(m -> handled.add(m.getId())).build().start();
        assertTrue(api.inFetch.await(10, TimeUnit.SECONDS));
        assertFalse(r.stop(Duration.ofMillis(300)), "stop waits for the fetch in progress");
        gate.countDown();
        assertTrue(r.awaitStopped(Duration.ofSeconds(10)));
        assertEquals(List.of("a1"), handled);
        assertEquals(List.of("ack r-a1"), api.calls);
        assertEquals(1, api.fetches, "no fetch after stop");
    }

    @Test
    void theNextFetchCarriesTheAcksOfTheFinishedBatchAndOnlyAckedOnesCount() throws Exception {
        ScriptedApi api = new ScriptedApi(List.of(List.of(msg("a", 1), msg("b", 2)), List.of(msg("a", 3))));
        api.ackStatus = ReceiptStatus.STALE;
        try (ConsumerRunner r = runner(api).handler(m -> { }).build().start()) {
            await().atMost(Duration.ofSeconds(10)).until(() -> api.calls.size() >= 2);
            assertEquals(0, r.acked(), "a STALE ack is not counted as acked");
        }
        assertEquals(List.of("fetch+ack r-a1,r-b2", "fetch+ack r-a3"), api.calls);
        assertEquals(List.of(), nullToEmpty(api.requests.get(0).getAck()), "the first fetch acks nothing");
        assertEquals(List.of("r-a1", "r-b2"), api.requests.get(1).getAck());
    }

    private static List<String> nullToEmpty(List<String> list) {
        return list == null ? List.of() : list;
    }

    @Test
    void theReasonIsTheMessageOrTheClassNameCutTo1024CodePoints() {
        assertEquals("bad amount", ConsumerRunner.reasonOf(new IllegalArgumentException("bad amount")));
        assertEquals("java.lang.NullPointerException", ConsumerRunner.reasonOf(new NullPointerException()));
        String emoji = "\uD83D\uDE00".repeat(1500);
        String reason = ConsumerRunner.reasonOf(new RuntimeException(emoji));
        assertEquals(1024, reason.codePointCount(0, reason.length()));
        assertTrue(Character.isHighSurrogate(reason.charAt(reason.length() - 2)), "not cut inside a pair");
    }

    @Test
    void extensionsMustComeBeforeTheVisibilityTimeout() {
        assertEquals(Duration.ofSeconds(10), ConsumerRunner.defaultExtendEvery(30));
        assertThrows(IllegalArgumentException.class, () -> runner(new ScriptedApi(List.of()))
                .visibilitySeconds(2).extendEvery(Duration.ofSeconds(2)).handler(m -> {}).build());
    }
}
