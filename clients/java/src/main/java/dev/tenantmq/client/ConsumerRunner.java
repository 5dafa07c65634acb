package dev.tenantmq.client;

import dev.tenantmq.client.api.ConsumeApi;
import dev.tenantmq.client.invoker.ApiException;
import dev.tenantmq.client.model.DeliveredMessage;
import dev.tenantmq.client.model.ExtendRequest;
import dev.tenantmq.client.model.FetchRequest;
import dev.tenantmq.client.model.FetchResponse;
import dev.tenantmq.client.model.NackRequest;
import dev.tenantmq.client.model.ReceiptResult;
import dev.tenantmq.client.model.ReceiptsRequest;
import dev.tenantmq.client.model.ReceiptsResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The consume loop of one (tenant, topic, consumer group), so that no application writes it by
 * hand (SPEC section 4, "Fetch" and "Ack, nack, extend"). One thread long-polls
 * {@code fetch}, hands each delivered message to the {@link Handler} in delivery order, acks it
 * when the handler returns and nacks it, with the exception's message as the {@code reason},
 * when it throws. The acks of a batch ride on the next fetch ({@code FetchRequest.ack}: one round
 * trip settles the finished batch and takes the next, docs/api.md "Fetch and ack in one call");
 * a stop sends the last ones with a plain ack. A nack goes at once. While the handler runs, a second thread extends the visibility of the
 * batch's unsettled messages every {@code extendEvery} (a third of the visibility timeout by
 * default), so a slow handler keeps its messages instead of losing them to redelivery.
 *
 * <p>Order: after a nack, the service hands back the later in-flight messages of that
 * partition, so the runner skips the rest of the partition's messages in the batch (they come
 * again, after the nacked one, in offset order) instead of handling them out of order.
 *
 * <p>An ack that answers STALE (the lease moved while the batch was handled) is known only at
 * the next fetch, after the rest of the batch was handled: the partition's messages from the
 * stale one on come again in offset order, as after any lost lease (at-least-once).
 *
 * <p>{@link #stop(Duration)} is graceful: no new fetch starts, a fetch in progress finishes
 * (at most {@code waitSeconds}), and the messages already fetched are handled and settled
 * before the loop ends. Nothing is left leased to time out.
 *
 * <p>Traces: with the OpenTelemetry API on the class path (an optional dependency), each
 * message is handled inside a CONSUMER span named {@code process} whose parent is the
 * message's {@code traceparent}, the publisher's span (docs/api.md, "Trace context"): the
 * handler's own spans continue the publisher's trace. The spans go to the global OpenTelemetry
 * (the Java agent's, or the SDK's when registered), or to {@link Builder#openTelemetry}.
 */
public final class ConsumerRunner implements AutoCloseable {
    /** Largest nack reason the service accepts, in Unicode code points (NackRequest.reason). */
    public static final int MAX_REASON_CODE_POINTS = 1024;

    /** Processes one message. Return to ack it; throw to nack it with the exception's message. */
    @FunctionalInterface
    public interface Handler {
        /** Handles one delivered message; may take longer than the visibility timeout. */
        void handle(DeliveredMessage message) throws Exception;
    }

    private static final System.Logger LOG = System.getLogger(ConsumerRunner.class.getName());

    private final ConsumeApi api;
    /** Handled messages whose ack the next fetch carries; only the loop's thread touches it. */
    private final List<DeliveredMessage> toAck = new ArrayList<>();
    private final String tenant;
    private final String topic;
    private final String consumerGroup;
    private final Handler handler;
    private final int maxMessages;
    /** The byte budget of each fetch; null for the server's default (mq.fetch.default-max-bytes). */
    private final Integer maxBytes;
    private final int waitSeconds;
    private final int visibilitySeconds;
    private final Duration extendEvery;
    private final Duration errorBackoff;
    private final MessageTracing tracing;

    private final CountDownLatch stopRequested = new CountDownLatch(1);
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final AtomicLong acked = new AtomicLong();
    private final AtomicLong nacked = new AtomicLong();
    private final AtomicLong extended = new AtomicLong();
    private final ScheduledExecutorService extender;
    private Thread loop;

    private ConsumerRunner(Builder b) {
        this.api = b.api;
        this.tenant = b.tenant;
        this.topic = b.topic;
        this.consumerGroup = b.consumerGroup;
        this.handler = Objects.requireNonNull(b.handler, "handler");
        this.maxMessages = b.maxMessages;
        this.maxBytes = b.maxBytes;
        this.waitSeconds = b.waitSeconds;
        this.visibilitySeconds = b.visibilitySeconds;
        this.extendEvery = b.extendEvery != null ? b.extendEvery : defaultExtendEvery(b.visibilitySeconds);
        if (extendEvery.isZero() || extendEvery.isNegative() || extendEvery.compareTo(Duration.ofSeconds(visibilitySeconds)) >= 0) {
            throw new IllegalArgumentException("extendEvery must be positive and shorter than the visibility timeout ("
                    + visibilitySeconds + " s), else messages expire before they are extended: " + extendEvery);
        }
        this.errorBackoff = b.errorBackoff;
        this.tracing = b.tracing ? MessageTracing.of(b.openTelemetry, tenant, topic, consumerGroup) : MessageTracing.NONE;
        this.extender = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "tenant-mq-extend-" + consumerGroup);
            t.setDaemon(true);
            return t;
        });
    }

    /** A builder for the consumer group {@code consumerGroup} of {@code tenant}'s {@code topic}. */
    public static Builder builder(ConsumeApi api, String tenant, String topic, String consumerGroup) {
        return new Builder(api, tenant, topic, consumerGroup);
    }

    /**
     * The default extension period: a third of the visibility timeout, so that one failed
     * extension still leaves a second chance before the messages expire.
     */
    static Duration defaultExtendEvery(int visibilitySeconds) {
        return Duration.ofMillis(visibilitySeconds * 1000L / 3);
    }

    /**
     * The nack reason for a failure: the exception's message, or its class name when it has
     * none, cut to {@link #MAX_REASON_CODE_POINTS} code points (never inside a surrogate pair).
     */
    public static String reasonOf(Throwable failure) {
        String message = failure.getMessage();
        String reason = message == null || message.isBlank() ? failure.getClass().getName() : message;
        if (reason.codePointCount(0, reason.length()) > MAX_REASON_CODE_POINTS) {
            reason = reason.substring(0, reason.offsetByCodePoints(0, MAX_REASON_CODE_POINTS));
        }
        return reason;
    }

    /** Starts the loop thread. A runner starts once. */
    public synchronized ConsumerRunner start() {
        if (loop != null) {
            throw new IllegalStateException("already started");
        }
        loop = new Thread(this::run, "tenant-mq-consumer-" + consumerGroup);
        loop.start();
        return this;
    }

    /**
     * Stops gracefully: no new fetch, the fetch in progress and the messages it returns are
     * finished and settled. Returns whether the loop ended within {@code timeout}; if not, it is
     * still finishing (a slow handler) and {@link #awaitStopped} can wait longer.
     */
    public boolean stop(Duration timeout) throws InterruptedException {
        stopRequested.countDown();
        return awaitStopped(timeout);
    }

    /** Waits for the loop to end after {@link #stop}; returns whether it did within {@code timeout}. */
    public boolean awaitStopped(Duration timeout) throws InterruptedException {
        synchronized (this) {
            if (loop == null) {
                return true;
            }
        }
        return stopped.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** {@link #stop} with the longest a fetch can take plus a minute for the handler. */
    @Override
    public void close() throws InterruptedException {
        stop(TenantMqClient.READ_TIMEOUT.plusMinutes(1));
    }

    /** Messages acked so far (the ack answered ACKED or ALREADY_ACKED). */
    public long acked() {
        return acked.get();
    }

    /** Messages nacked so far (the nack answered NACKED). */
    public long nacked() {
        return nacked.get();
    }

    /** Receipts extended so far (each extension of each receipt answered EXTENDED). */
    public long extended() {
        return extended.get();
    }

    private void run() {
        try {
            while (stopRequested.getCount() > 0) {
                List<DeliveredMessage> batch;
                try {
                    List<DeliveredMessage> acking = new ArrayList<>(toAck);
                    FetchRequest request = new FetchRequest().maxMessages(maxMessages).maxBytes(maxBytes)
                            .waitSeconds(waitSeconds).visibilitySeconds(visibilitySeconds);
                    if (!acking.isEmpty()) {
                        request.ack(acking.stream().map(DeliveredMessage::getReceipt).toList());
                    }
                    FetchResponse response = api.fetch(tenant, topic, consumerGroup, request);
                    toAck.clear(); // settled (a failed fetch keeps them for the next one: acks repeat safely)
                    acked(acking, response.getAckResults());
                    batch = response.getMessages() == null ? List.of() : response.getMessages();
                } catch (ApiException | RuntimeException e) {
                    LOG.log(System.Logger.Level.WARNING, "fetch of {0}/{1}/{2} failed ({3}); retrying in {4}",
                            tenant, topic, consumerGroup, describe(e), errorBackoff);
                    stopRequested.await(errorBackoff.toMillis(), TimeUnit.MILLISECONDS);
                    continue;
                }
                if (!batch.isEmpty()) {
                    handle(batch); // also after a stop request: settle what was fetched
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            flushAcks();
            extender.shutdownNow();
            stopped.countDown();
        }
    }

    /** Sends the acks no fetch will carry any more (on stop), in one ack call. */
    private void flushAcks() {
        if (toAck.isEmpty()) {
            return;
        }
        List<DeliveredMessage> acking = new ArrayList<>(toAck);
        toAck.clear();
        try {
            ReceiptsResponse r = api.ack(tenant, topic, consumerGroup,
                    new ReceiptsRequest().receipts(acking.stream().map(DeliveredMessage::getReceipt).toList()));
            acked(acking, r.getResults());
        } catch (ApiException | RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "ack of {0} messages failed ({1}): they are delivered again after their"
                    + " visibility timeout", acking.size(), describe(e));
        }
    }

    /** Counts the acks that answered ACKED or ALREADY_ACKED, and logs the others (one result per message, in order). */
    private void acked(List<DeliveredMessage> acking, List<ReceiptResult> results) {
        for (int i = 0; i < acking.size(); i++) {
            DeliveredMessage m = acking.get(i);
            String status = results == null || i >= results.size() ? "none" : String.valueOf(results.get(i).getStatus());
            if ("ACKED".equals(status) || "ALREADY_ACKED".equals(status)) {
                acked.incrementAndGet();
            } else {
                LOG.log(System.Logger.Level.WARNING, "ack of {0}/{1} offset {2} answered {3}: it is delivered again",
                        topic, m.getPartitionKey(), m.getOffset(), status);
            }
        }
    }

    private void handle(List<DeliveredMessage> batch) {
        Set<String> unsettled = ConcurrentHashMap.newKeySet();
        batch.forEach(m -> unsettled.add(m.getReceipt()));
        ScheduledFuture<?> extension = extender.scheduleAtFixedRate(() -> extend(unsettled),
                extendEvery.toMillis(), extendEvery.toMillis(), TimeUnit.MILLISECONDS);
        Set<String> handedBack = new HashSet<>();
        try {
            for (DeliveredMessage m : batch) {
                if (handedBack.contains(m.getPartitionKey())) {
                    // The nack of an earlier message of this partition handed this one back.
                    unsettled.remove(m.getReceipt());
                    continue;
                }
                Throwable failure = null;
                try (MessageTracing.Handling traced = tracing.start(m)) {
                    try {
                        handler.handle(m);
                    } catch (Throwable t) {
                        failure = t;
                        traced.failed(t);
                    }
                }
                unsettled.remove(m.getReceipt());
                if (failure == null) {
                    toAck.add(m); // acked by the next fetch, or by the flush on stop
                } else {
                    nack(m, failure);
                    handedBack.add(m.getPartitionKey());
                }
                if (failure instanceof Error error) {
                    throw error;
                }
            }
        } finally {
            extension.cancel(false);
        }
    }

    /** Returns false: after a nack (or a failed one) the partition's later messages are not handled in this batch. */
    private boolean nack(DeliveredMessage m, Throwable failure) {
        String reason = reasonOf(failure);
        try {
            ReceiptsResponse r = api.nack(tenant, topic, consumerGroup,
                    new NackRequest().receipts(List.of(m.getReceipt())).reason(reason));
            String status = status(r);
            if ("NACKED".equals(status)) {
                nacked.incrementAndGet();
            } else {
                LOG.log(System.Logger.Level.WARNING, "nack of {0}/{1} offset {2} answered {3}",
                        topic, m.getPartitionKey(), m.getOffset(), status);
            }
        } catch (ApiException | RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "nack of {0}/{1} offset {2} failed ({3}): it is delivered again after its visibility timeout",
                    topic, m.getPartitionKey(), m.getOffset(), describe(e));
        }
        return false;
    }

    private void extend(Set<String> unsettled) {
        List<String> receipts = new ArrayList<>(unsettled);
        if (receipts.isEmpty()) {
            return;
        }
        try {
            ReceiptsResponse r = api.extend(tenant, topic, consumerGroup,
                    new ExtendRequest().receipts(receipts).visibilitySeconds(visibilitySeconds));
            if (r.getResults() != null) {
                for (ReceiptResult result : r.getResults()) {
                    if ("EXTENDED".equals(String.valueOf(result.getStatus()))) {
                        extended.incrementAndGet();
                    }
                }
            }
        } catch (ApiException | RuntimeException e) {
            // The next period tries again; the visibility timeout leaves room for two misses.
            LOG.log(System.Logger.Level.WARNING, "extend of {0} receipts failed ({1})", receipts.size(), describe(e));
        }
    }

    private static String status(ReceiptsResponse r) {
        return r.getResults() == null || r.getResults().isEmpty() ? "none" : String.valueOf(r.getResults().get(0).getStatus());
    }

    private static String describe(Exception e) {
        return e instanceof ApiException api && api.getCode() != 0 ? "HTTP " + api.getCode() + ": " + api.getResponseBody() : String.valueOf(e);
    }

    /** Settings of a {@link ConsumerRunner}; the defaults suit most consumers. */
    public static final class Builder {
        private final ConsumeApi api;
        private final String tenant;
        private final String topic;
        private final String consumerGroup;
        private Handler handler;
        private int maxMessages = 10;
        private Integer maxBytes;
        private int waitSeconds = 20;
        private int visibilitySeconds = 30;
        private Duration extendEvery;
        private Duration errorBackoff = Duration.ofSeconds(1);
        private boolean tracing = true;
        /** An io.opentelemetry.api.OpenTelemetry; typed Object so that the API stays optional. */
        private Object openTelemetry;

        private Builder(ConsumeApi api, String tenant, String topic, String consumerGroup) {
            this.api = Objects.requireNonNull(api, "api");
            this.tenant = Objects.requireNonNull(tenant, "tenant");
            this.topic = Objects.requireNonNull(topic, "topic");
            this.consumerGroup = Objects.requireNonNull(consumerGroup, "consumerGroup");
        }

        /** The handler, called on the runner's thread, one message at a time in delivery order. */
        public Builder handler(Handler handler) {
            this.handler = handler;
            return this;
        }

        /** Most messages per fetch, 1..1000 (default 10). */
        public Builder maxMessages(int maxMessages) {
            this.maxMessages = maxMessages;
            return this;
        }

        /**
         * Byte budget of each fetch: most payload bytes (the UTF-8 length of each payload's JSON
         * text) one fetch returns, 1..the server's {@code mq.fetch.max-bytes} (50 MiB as shipped).
         * Default: the server's {@code mq.fetch.default-max-bytes} (8 MiB as shipped). A first
         * message larger than the budget still comes, alone.
         */
        public Builder maxBytes(int maxBytes) {
            if (maxBytes < 1) {
                throw new IllegalArgumentException("maxBytes must be at least 1: " + maxBytes);
            }
            this.maxBytes = maxBytes;
            return this;
        }

        /**
         * Long-poll wait in seconds, 1..30 (default 20). It also bounds how long {@link #stop}
         * waits for a fetch in progress.
         */
        public Builder waitSeconds(int waitSeconds) {
            if (waitSeconds < 1 || waitSeconds > TenantMqClient.LONGEST_WAIT.toSeconds()) {
                throw new IllegalArgumentException("waitSeconds must be 1..30: " + waitSeconds);
            }
            this.waitSeconds = waitSeconds;
            return this;
        }

        /** Visibility timeout in seconds, 1..43200 (default 30), applied on fetch and on each extension. */
        public Builder visibilitySeconds(int visibilitySeconds) {
            this.visibilitySeconds = visibilitySeconds;
            return this;
        }

        /** How often visibility is extended while a batch is being handled (default a third of it). */
        public Builder extendEvery(Duration extendEvery) {
            this.extendEvery = extendEvery;
            return this;
        }

        /** Pause after a failed fetch before the next one (default 1 s). */
        public Builder errorBackoff(Duration errorBackoff) {
            this.errorBackoff = errorBackoff;
            return this;
        }

        /**
         * The OpenTelemetry whose tracer makes the handler's consumer spans (default: the global
         * one, {@code GlobalOpenTelemetry.get()}, when the API is on the class path).
         */
        public Builder openTelemetry(io.opentelemetry.api.OpenTelemetry openTelemetry) {
            this.openTelemetry = Objects.requireNonNull(openTelemetry, "openTelemetry");
            return this;
        }

        /** Whether the handler runs inside a consumer span (default true; nothing happens without OpenTelemetry). */
        public Builder tracing(boolean tracing) {
            this.tracing = tracing;
            return this;
        }

        /** The runner, not yet started. */
        public ConsumerRunner build() {
            return new ConsumerRunner(this);
        }
    }
}
