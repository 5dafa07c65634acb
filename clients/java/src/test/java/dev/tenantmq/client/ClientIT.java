package dev.tenantmq.client;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.tenantmq.client.api.AdminApi;
import dev.tenantmq.client.api.ConsumeApi;
import dev.tenantmq.client.api.PublishApi;
import dev.tenantmq.client.invoker.ApiException;
import dev.tenantmq.client.model.ConsumerGroupState;
import dev.tenantmq.client.model.DeliveredMessage;
import dev.tenantmq.client.model.ExtendRequest;
import dev.tenantmq.client.model.FetchRequest;
import dev.tenantmq.client.model.MessageState;
import dev.tenantmq.client.model.NackRequest;
import dev.tenantmq.client.model.OffsetReset;
import dev.tenantmq.client.model.OffsetResetPartition;
import dev.tenantmq.client.model.OutgoingMessage;
import dev.tenantmq.client.model.PublishRequest;
import dev.tenantmq.client.model.PublishResponse;
import dev.tenantmq.client.model.PublishedMessage;
import dev.tenantmq.client.model.ReceiptStatus;
import dev.tenantmq.client.model.ReceiptsRequest;
import dev.tenantmq.client.model.RequeuedMessage;
import dev.tenantmq.client.model.SettingOverrides;
import dev.tenantmq.client.model.SettingSource;
import dev.tenantmq.client.model.Settings;
import dev.tenantmq.client.model.StoredMessage;
import dev.tenantmq.testsupport.ServiceUnderTest;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The generated Java client and {@link ConsumerRunner} against the packaged service (docs/api.md, "Clients";
 * "Clients"): every call goes through {@link PublishApi}, {@link ConsumeApi} and
 * {@link AdminApi} as built by {@link TenantMqClient}, nothing else.
 *
 * <p>Until the service leases a new consumer group's partitions within its first fetch, that
 * fetch may only register interest and answer [] (docs/api.md, "Fetch and order"); the tests fetch with
 * {@code waitSeconds} > 0 and repeat with Awaitility until the messages come.
 */
class ClientIT {
    private static final String DECIMAL = "12345678901234567890.10";
    private static ServiceUnderTest service;
    private static PublishApi publish;
    private static ConsumeApi consume;
    private static AdminApi admin;
    private static String tenant;

    @BeforeAll
    static void startService() throws Exception {
        service = ServiceUnderTest.start("client-it", Map.of());
        tenant = service.tenant;
        publish = new PublishApi(TenantMqClient.apiClient(service.baseUrl()));
        consume = new ConsumeApi(TenantMqClient.apiClient(service.baseUrl()));
        admin = new AdminApi(TenantMqClient.adminClient(service.baseUrl(), ServiceUnderTest.ADMIN_TOKEN));
    }

    @AfterAll
    static void stopService() throws Exception {
        if (service != null) {
            service.close();
        }
    }

    private static String unique(String prefix) {
        return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    private static PublishResponse publish(String topic, OutgoingMessage... messages) throws ApiException {
        return publish.publish(tenant, topic, new PublishRequest().messages(List.of(messages)), null, null);
    }

    private static OutgoingMessage message(String key, String id, JsonNode payload) {
        return new OutgoingMessage().partitionKey(key).id(id).payload(payload);
    }

    /** Fetches (long polls of 2 s) until at least {@code count} messages have come, tolerating a first empty fetch. */
    private static List<DeliveredMessage> fetchAtLeast(String topic, String group, int count, int visibilitySeconds) {
        List<DeliveredMessage> got = new ArrayList<>();
        await("fetch of " + count + " from " + topic + " by " + group).atMost(Duration.ofSeconds(30)).until(() -> {
            got.addAll(consume.fetch(tenant, topic, group,
                    new FetchRequest().maxMessages(100).waitSeconds(2).visibilitySeconds(visibilitySeconds)).getMessages());
            return got.size() >= count;
        });
        return got;
    }

    private static ReceiptStatus ack(String topic, String group, DeliveredMessage m) throws ApiException {
        return consume.ack(tenant, topic, group, new ReceiptsRequest().receipts(List.of(m.getReceipt())))
                .getResults().get(0).getStatus();
    }

    private static ConsumerGroupState stateOf(String topic, String key, String id, String group) throws ApiException {
        return admin.adminInspectMessage(tenant, topic, key, id).getConsumerGroups().stream()
                .filter(g -> group.equals(g.getConsumerGroup())).findFirst().orElse(null);
    }

    /** Lets wall-clock time pass because the service's behaviour depends on it (a visibility timeout). */
    private static void letTimePass(Duration d, String why) throws InterruptedException {
        Thread.sleep(d.toMillis());
    }

    /** Fails {@code MAX_DELIVERIES} deliveries of the one message of {@code topic} with {@code reason}. */
    private static void nackUntilDead(String topic, String group, String reason) throws ApiException {
        for (int attempt = 1; attempt <= ServiceUnderTest.MAX_DELIVERIES; attempt++) {
            DeliveredMessage m = fetchAtLeast(topic, group, 1, 30).get(0);
            assertEquals(attempt, m.getDeliveryAttempt());
            ReceiptStatus status = consume.nack(tenant, topic, group,
                    new NackRequest().receipts(List.of(m.getReceipt())).delaySeconds(0).reason(reason)).getResults().get(0).getStatus();
            assertEquals(ReceiptStatus.NACKED, status);
        }
    }

    @Test
    void theTraceparentOfAPublishComesBackWithItsMessageAndTheRunnerContinuesItsTrace() throws Exception {
        String topic = unique("traced");
        String traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        publish.publish(tenant, topic, new PublishRequest().messages(List.of(
                message("k", "traced", JsonNodeFactory.instance.numberNode(1)))), traceparent, "congo=t61rcWkgMzE");
        publish(topic, message("k", "untraced", JsonNodeFactory.instance.numberNode(2)));
        java.util.Map<String, String> parentSeen = new java.util.concurrent.ConcurrentHashMap<>();
        try (ConsumerRunner runner = ConsumerRunner.builder(consume, tenant, topic, "tracing").waitSeconds(2)
                .handler(m -> parentSeen.put(m.getId(), String.valueOf(m.getTraceparent()))).build().start()) {
            await().atMost(Duration.ofSeconds(30)).until(() -> runner.acked() == 2);
        }
        assertEquals(traceparent, parentSeen.get("traced"));
        assertEquals("null", parentSeen.get("untraced"), "no traceparent without one");
    }

    @Test
    void publishesANullPayloadAndAnExactDecimalAndFetchesThemBackUnchanged() throws Exception {
        String topic = unique("exact");
        ObjectNode decimal = JsonNodeFactory.withExactBigDecimals(true).objectNode().put("amount", new BigDecimal(DECIMAL));
        PublishResponse published = publish(topic,
                message("k", "null-payload", NullNode.getInstance()),
                message("k", "decimal", decimal).metadata(Map.of("source", "client-it")));
        assertEquals(List.of("null-payload", "decimal"), published.getMessages().stream().map(PublishedMessage::getId).toList());
        assertFalse(published.getMessages().get(0).getDuplicate());

        List<DeliveredMessage> got = fetchAtLeast(topic, "g", 2, 30);
        assertTrue(got.get(0).getPayload().isNull(), "a null payload comes back as JSON null: " + got.get(0).getPayload());
        JsonNode amount = got.get(1).getPayload().get("amount");
        assertTrue(amount.isBigDecimal(), "read as BigDecimal: " + amount.getNodeType());
        assertEquals(DECIMAL, amount.decimalValue().toPlainString());
        assertEquals("{\"amount\":" + DECIMAL + "}", got.get(1).getPayload().toString());
        assertEquals("client-it", got.get(1).getMetadata().get("source"));
        assertEquals(tenant, got.get(1).getMetadata().get("queue_name"));

        assertEquals(ReceiptStatus.ACKED, ack(topic, "g", got.get(0)));
        assertEquals(ReceiptStatus.ACKED, ack(topic, "g", got.get(1)));
        assertEquals(ReceiptStatus.ALREADY_ACKED, ack(topic, "g", got.get(1)));
        assertTrue(publish(topic, message("k", "decimal", decimal)).getMessages().get(0).getDuplicate());
    }

    @Test
    void aFetchWithAByteBudgetReturnsNoMorePayloadBytesThanItExceptAFirstLargerMessageAlone() throws Exception {
        String topic = unique("bytes");
        String kilobyte = "x".repeat(998); // 1000 bytes of JSON text with its quotes
        publish(topic, message("k", "a", TextNode.valueOf(kilobyte)), message("k", "b", TextNode.valueOf(kilobyte)),
                message("k", "c", TextNode.valueOf(kilobyte)));
        List<DeliveredMessage> got = new ArrayList<>();
        await("a first fetch").atMost(Duration.ofSeconds(30)).until(() -> {
            got.addAll(consume.fetch(tenant, topic, "g", new FetchRequest().maxMessages(100).maxBytes(2_500).waitSeconds(2))
                    .getMessages());
            return !got.isEmpty();
        });
        assertEquals(List.of("a", "b"), got.stream().map(DeliveredMessage::getId).toList(), "2000 of 2500 bytes; 3000 would not fit");
        for (DeliveredMessage m : got) {
            assertEquals(ReceiptStatus.ACKED, ack(topic, "g", m));
        }
        List<DeliveredMessage> next = consume.fetch(tenant, topic, "g",
                new FetchRequest().maxMessages(100).maxBytes(10).waitSeconds(2)).getMessages();
        assertEquals(List.of("c"), next.stream().map(DeliveredMessage::getId).toList(), "larger than the budget: alone");
        assertEquals(ReceiptStatus.ACKED, ack(topic, "g", next.get(0)));
    }

    @Test
    void aLongPollOfTheLongestWaitEndsWithoutAClientTimeoutAndReturnsAMessagePublishedDuringIt() throws Exception {
        String topic = unique("long-poll");
        publish(topic, message("k", "first", JsonNodeFactory.instance.textNode("1")));
        assertEquals(ReceiptStatus.ACKED, ack(topic, "g", fetchAtLeast(topic, "g", 1, 30).get(0)));

        // The whole contract wait (30 s), longer than the 10 s default read timeout of generated clients.
        Instant start = Instant.now();
        List<DeliveredMessage> none = consume.fetch(tenant, topic, "g",
                new FetchRequest().waitSeconds((int) TenantMqClient.LONGEST_WAIT.toSeconds())).getMessages();
        assertEquals(List.of(), none);
        assertTrue(Duration.between(start, Instant.now()).compareTo(Duration.ofSeconds(29)) > 0, "the poll waited");

        CompletableFuture<List<DeliveredMessage>> poll = CompletableFuture.supplyAsync(() -> {
            try {
                return consume.fetch(tenant, topic, "g", new FetchRequest().waitSeconds(25)).getMessages();
            } catch (ApiException e) {
                throw new IllegalStateException(e);
            }
        });
        publish(topic, message("k", "second", JsonNodeFactory.instance.textNode("2")));
        List<DeliveredMessage> woken = poll.get(40, TimeUnit.SECONDS);
        assertEquals(List.of("second"), woken.stream().map(DeliveredMessage::getId).toList());
        assertEquals(ReceiptStatus.ACKED, ack(topic, "g", woken.get(0)));
    }

    @Test
    void anExtendedMessageStaysInvisiblePastItsFirstVisibilityTimeout() throws Exception {
        String topic = unique("extend");
        publish(topic, message("k", "slow", JsonNodeFactory.instance.numberNode(1)));
        DeliveredMessage m = fetchAtLeast(topic, "g", 1, 5).get(0);
        ReceiptStatus extended = consume.extend(tenant, topic, "g",
                new ExtendRequest().receipts(List.of(m.getReceipt())).visibilitySeconds(60)).getResults().get(0).getStatus();
        assertEquals(ReceiptStatus.EXTENDED, extended);
        letTimePass(Duration.ofSeconds(7), "the fetch's visibility timeout (5 s) and two scheduler ticks");
        assertEquals(List.of(), consume.fetch(tenant, topic, "g", new FetchRequest().waitSeconds(1)).getMessages());
        assertEquals(ReceiptStatus.ACKED, ack(topic, "g", m));
    }

    @Test
    void nacksDeadLetterTheMessageWithTheReasonAndAnAdminRequeueDeliversItAgain() throws Exception {
        String topic = unique("nack");
        publish(topic, message("order-1", "bad", JsonNodeFactory.instance.textNode("twelve")));
        nackUntilDead(topic, "billing", "amount does not parse");

        DeliveredMessage dead = fetchAtLeast(topic + ".dlq", "ops", 1, 30).get(0);
        assertEquals("bad", dead.getId());
        assertEquals("amount does not parse", dead.getMetadata().get("dead_letter_reason"));
        assertEquals(topic, dead.getMetadata().get("original_topic"));
        assertEquals("billing", dead.getMetadata().get("consumer_group"));
        assertEquals(MessageState.DEAD, stateOf(topic, "order-1", "bad", "billing").getState());

        RequeuedMessage requeued = admin.adminRequeue(tenant, topic + ".dlq", "order-1", "bad");
        assertEquals(List.of("billing"), requeued.getConsumerGroups());
        DeliveredMessage again = fetchAtLeast(topic, "billing", 1, 30).get(0);
        assertEquals("bad", again.getId());
        assertEquals(1, again.getDeliveryAttempt());
        assertEquals(ReceiptStatus.ACKED, ack(topic, "billing", again));
    }

    @Test
    void aGroupsMaxDeliveriesOfOneSetThroughTheAdminApiDeadLettersOnTheFirstNackAndClearingRestoresTheGlobal()
            throws Exception {
        String topic = unique("settings");
        Settings set = admin.adminPutSettings(tenant, topic, new SettingOverrides().maxDeliveries(1), "billing");
        assertEquals(1L, set.getEffective().getMaxDeliveries().getValue());
        assertEquals(SettingSource.GROUP, set.getEffective().getMaxDeliveries().getSource());
        assertEquals(SettingSource.GLOBAL, admin.adminGetSettings(tenant, topic, null).getEffective().getMaxDeliveries()
                .getSource());
        publish(topic, message("order-1", "bad", JsonNodeFactory.instance.numberNode(1)));
        DeliveredMessage m = fetchAtLeast(topic, "billing", 1, 30).get(0);
        consume.nack(tenant, topic, "billing", new NackRequest().receipts(List.of(m.getReceipt())).delaySeconds(0));
        assertEquals(MessageState.DEAD, stateOf(topic, "order-1", "bad", "billing").getState());

        Settings cleared = admin.adminClearSettings(tenant, topic, "billing");
        assertEquals((long) ServiceUnderTest.MAX_DELIVERIES, cleared.getEffective().getMaxDeliveries().getValue());
        assertEquals(SettingSource.GLOBAL, cleared.getEffective().getMaxDeliveries().getSource());
    }

    @Test
    void aDryRunShowsTheMoveAndAResetToTheEarliestDeliversTheTopicAgainInOrder() throws Exception {
        String topic = unique("replay");
        PublishResponse published = publish(topic, message("k", "a", JsonNodeFactory.instance.numberNode(1)),
                message("k", "b", JsonNodeFactory.instance.numberNode(2)));
        long first = published.getMessages().get(0).getOffset();
        for (DeliveredMessage m : fetchAtLeast(topic, "billing", 2, 30)) {
            assertEquals(ReceiptStatus.ACKED, ack(topic, "billing", m));
        }

        OffsetReset preview = admin.adminResetOffsets(tenant, topic, "billing", "earliest", null, null, null, true);
        assertTrue(preview.getDryRun());
        OffsetResetPartition p = preview.getPartitions().get(0);
        assertEquals("k", p.getPartitionKey());
        assertEquals(first - 1, p.getToOffset());
        assertEquals(first, p.getNextOffset());

        OffsetReset done = admin.adminResetOffsets(tenant, topic, "billing", "earliest", "k", null, null, false);
        assertFalse(done.getDryRun());
        List<DeliveredMessage> again = fetchAtLeast(topic, "billing", 2, 30);
        assertEquals(List.of("a", "b"), again.stream().map(DeliveredMessage::getId).toList());
    }

    @Test
    void theRunnerAcksWhatTheHandlerTakesAndNacksWithTheExceptionMessageUntilItIsDeadLettered() throws Exception {
        String topic = unique("runner");
        publish(topic, message("good", "g1", JsonNodeFactory.instance.textNode("ok")),
                message("good", "g2", JsonNodeFactory.instance.textNode("ok")),
                message("bad", "b1", JsonNodeFactory.instance.textNode("poison")));
        List<String> handled = new CopyOnWriteArrayList<>();
        try (ConsumerRunner runner = ConsumerRunner.builder(consume, tenant, topic, "workers").waitSeconds(2).handler(m -> {
            handled.add(m.getId());
            if (m.getPayload().asText().equals("poison")) {
                throw new IllegalArgumentException("poison payload in " + m.getId());
            }
        }).build().start()) {
            await("two acks and a dead letter").atMost(Duration.ofSeconds(60)).until(() -> runner.acked() == 2
                    && runner.nacked() == ServiceUnderTest.MAX_DELIVERIES);
        }
        assertEquals(List.of("g1", "g2"), handled.stream().filter(id -> id.startsWith("g")).toList());
        assertEquals(ServiceUnderTest.MAX_DELIVERIES, handled.stream().filter("b1"::equals).count());
        assertEquals(MessageState.ACKED, stateOf(topic, "good", "g1", "workers").getState());
        assertEquals(MessageState.ACKED, stateOf(topic, "good", "g2", "workers").getState());
        assertEquals(MessageState.DEAD, stateOf(topic, "bad", "b1", "workers").getState());
        DeliveredMessage dead = fetchAtLeast(topic + ".dlq", "ops", 1, 30).get(0);
        assertEquals("poison payload in b1", dead.getMetadata().get("dead_letter_reason"));
        assertEquals(Integer.toString(ServiceUnderTest.MAX_DELIVERIES), dead.getMetadata().get("delivery_attempts"));
    }

    @Test
    void theRunnerExtendsVisibilityWhileASlowHandlerRunsSoTheMessageIsDeliveredOnce() throws Exception {
        String topic = unique("runner-slow");
        publish(topic, message("k", "slow", JsonNodeFactory.instance.numberNode(1)));
        List<Integer> attempts = new CopyOnWriteArrayList<>();
        try (ConsumerRunner runner = ConsumerRunner.builder(consume, tenant, topic, "workers")
                .waitSeconds(1).visibilitySeconds(3).handler(m -> {
                    attempts.add(m.getDeliveryAttempt());
                    letTimePass(Duration.ofSeconds(7), "two visibility timeouts (3 s) and several scheduler ticks");
                }).build().start()) {
            await().atMost(Duration.ofSeconds(40)).until(() -> runner.acked() == 1);
            assertTrue(runner.extended() >= 2, "extended while the handler ran: " + runner.extended());
        }
        assertEquals(List.of(1), attempts);
        assertEquals(MessageState.ACKED, stateOf(topic, "k", "slow", "workers").getState());
    }

    @Test
    void aStoppedRunnerSettlesTheMessageInItsHandlerAndFetchesNoMore() throws Exception {
        String topic = unique("runner-stop");
        publish(topic, message("k", "in-flight", JsonNodeFactory.instance.numberNode(1)));
        CountDownLatch inHandler = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        List<String> handled = new CopyOnWriteArrayList<>();
        ConsumerRunner runner = ConsumerRunner.builder(consume, tenant, topic, "workers").waitSeconds(1).handler(m -> {
            handled.add(m.getId());
            inHandler.countDown();
            release.await();
        }).build().start();
        assertTrue(inHandler.await(30, TimeUnit.SECONDS), "the handler got the message");

        CompletableFuture<Boolean> stopping = CompletableFuture.supplyAsync(() -> {
            try {
                return runner.stop(Duration.ofSeconds(30));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        assertFalse(runner.awaitStopped(Duration.ofSeconds(2)), "stop waits for the handler");
        release.countDown();
        assertTrue(stopping.get(40, TimeUnit.SECONDS), "stopped after the handler returned");
        assertEquals(1, runner.acked());
        assertEquals(MessageState.ACKED, stateOf(topic, "k", "in-flight", "workers").getState());

        publish(topic, message("k", "after-stop", JsonNodeFactory.instance.numberNode(2)));
        letTimePass(Duration.ofSeconds(3), "long enough for a running loop (1 s polls) to have fetched it");
        ConsumerGroupState after = stateOf(topic, "k", "after-stop", "workers");
        assertNotNull(after);
        assertEquals(MessageState.NOT_DELIVERED, after.getState());
        assertEquals(List.of("in-flight"), handled);
    }

    @Test
    void aDelayedMessageShowsItsDueTimeAndHoldsItsPartitionUntilThen() throws Exception {
        String topic = unique("delayed");
        publish(topic, message("k", "later", IntNode.valueOf(1)).deliverAfterSeconds(3L),
                message("k", "after", IntNode.valueOf(2)));
        StoredMessage later = admin.adminInspectMessage(tenant, topic, "k", "later");
        assertEquals(Duration.ofSeconds(3), Duration.between(later.getCreatedAt(), later.getDeliverAt()));
        assertNull(admin.adminInspectMessage(tenant, topic, "k", "after").getDeliverAt());
        List<DeliveredMessage> got = fetchAtLeast(topic, "g", 2, 30);
        assertEquals(List.of("later", "after"), got.stream().map(DeliveredMessage::getId).toList(),
                "in offset order: the delay held the partition");
    }
}
