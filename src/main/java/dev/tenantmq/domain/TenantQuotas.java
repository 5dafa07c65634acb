package dev.tenantmq.domain;

import dev.tenantmq.config.MqConfig;
import dev.tenantmq.model.InvalidRequestException;
import dev.tenantmq.model.Tenant;
import dev.tenantmq.model.Topic;
import dev.tenantmq.ops.QuotaMetrics;
import dev.tenantmq.store.QuotaStore;
import io.quarkus.runtime.Startup;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The one home of the per-tenant quotas (docs/security.md, "Quotas"):
 * {@link PublishService} asks {@link #admit} once per batch, after validating it and before the
 * store is touched. A batch over any quota is refused whole with
 * {@link QuotaExceededException} (429), and one tenant's buckets and counts never affect another's:
 * the publish rate, the unacknowledged messages per topic, and those of the whole tenant (so more
 * topics do not dodge the per-topic limit).
 * A tenant without limits (the default) costs a map look-up and nothing else. Created at
 * start-up, so invalid quota settings stop the process there.
 */
@Startup
@ApplicationScoped
public class TenantQuotas {
    private final MqConfig config;
    private final QuotaMetrics metrics;
    private final PublishRateLimiter rates;
    private final PublishRateLimiter byteRates;
    private final UnackedCounts unacked;
    /** The whole tenant's unacknowledged messages: one entry per tenant, under the scope {@link #WHOLE_TENANT}. */
    private final UnackedCounts tenantUnacked;
    private static final String WHOLE_TENANT = "";
    private final Map<String, QuotaLimits> limits = new ConcurrentHashMap<>();

    TenantQuotas(MqConfig config, QuotaMetrics metrics, QuotaStore store) {
        QuotaLimits.validate(config.quota());
        this.config = config;
        this.metrics = metrics;
        this.rates = new PublishRateLimiter(System::nanoTime);
        this.byteRates = new PublishRateLimiter(System::nanoTime);
        this.unacked = new UnackedCounts(store::unacked, System::nanoTime, config.interestTimeout());
        this.tenantUnacked = new UnackedCounts((tenant, wholeTenant, atMost) -> store.unackedInTenant(tenant, atMost),
                System::nanoTime, config.interestTimeout());
    }

    /** An admitted batch: call {@link #stored} after it is stored, or {@link #failed} if storing failed. */
    public interface Admission {
        /** The batch was stored; {@code newMessages} of it were not duplicates. */
        void stored(int newMessages);

        /** The batch was not stored. */
        void failed();
    }

    private static final Admission FREE = new Admission() {
        @Override
        public void stored(int newMessages) {}

        @Override
        public void failed() {}
    };

    /** The limits of {@code tenant} (resolved once). */
    public QuotaLimits limitsOf(Tenant tenant) {
        return limits.computeIfAbsent(tenant.value(), t -> QuotaLimits.of(config.quota(), t));
    }

    /**
     * Admits a batch of {@code messages} with {@code payloadBytes} of payload to (tenant, topic)
     * under every quota, or refuses it whole. The unacknowledged-messages checks (the topic's,
     * then the tenant's) reserve their room first, and the message rate takes its tokens before
     * the byte rate; each is given back when a later check refuses, so a refused batch takes
     * nothing from any quota.
     *
     * @param payloadBytes the batch's payload bytes: the UTF-8 length of each payload's JSON text, summed
     * @throws QuotaExceededException (429) when the batch is over a quota; counted in {@code mq.quota.rejections}
     * @throws InvalidRequestException (400, field {@code messages}) when the batch is larger than
     *     the tenant's publish burst or byte burst, so that no retry could ever pass
     */
    public Admission admit(Tenant tenant, Topic topic, int messages, long payloadBytes) {
        QuotaLimits l = limitsOf(tenant);
        if (!l.limitsRate() && !l.limitsUnacked() && !l.limitsTenantUnacked() && !l.limitsByteRate()) {
            return FREE;
        }
        if (l.limitsRate() && messages > l.publishBurst()) {
            throw InvalidRequestException.of("messages", "must hold at most " + l.publishBurst() + " messages for tenant '"
                    + tenant.value() + "': its publish quota admits at most that many at once (publish-burst; got "
                    + messages + ")");
        }
        if (l.limitsByteRate() && payloadBytes > l.publishByteBurst()) {
            throw InvalidRequestException.of("messages", "must hold at most " + l.publishByteBurst()
                    + " payload bytes for tenant '" + tenant.value() + "': its publish quota admits at most that many"
                    + " at once (publish-byte-burst; got " + payloadBytes + ")");
        }
        long tickSeconds = Math.max(1, (config.tickInterval().toMillis() + 999) / 1000);
        List<UnackedCounts.Reservation> reservations = new ArrayList<>(2);
        if (l.limitsUnacked()) {
            UnackedCounts.Reservation r = unacked.tryReserve(tenant.value(), topic.value(), messages, l.maxUnackedPerTopic());
            if (r == null) {
                throw refused(tenant, QuotaExceededException.Kind.MAX_UNACKED_PER_TOPIC, l.maxUnackedPerTopic(), tickSeconds,
                        "tenant '" + tenant.value() + "' topic '" + topic.value() + "' holds its limit of "
                                + l.maxUnackedPerTopic() + " unacknowledged messages (max-unacked-per-topic); a batch of "
                                + messages + " does not fit. Nothing was stored: consume and ack, then retry");
            }
            reservations.add(r);
        }
        if (l.limitsTenantUnacked()) {
            UnackedCounts.Reservation r = tenantUnacked.tryReserve(tenant.value(), WHOLE_TENANT, messages,
                    l.maxUnackedPerTenant());
            if (r == null) {
                reservations.forEach(UnackedCounts.Reservation::cancel);
                throw refused(tenant, QuotaExceededException.Kind.MAX_UNACKED_PER_TENANT, l.maxUnackedPerTenant(),
                        tickSeconds, "tenant '" + tenant.value() + "' holds its limit of " + l.maxUnackedPerTenant()
                                + " unacknowledged messages over all its topics (max-unacked-per-tenant); a batch of "
                                + messages + " to topic '" + topic.value() + "' does not fit. Nothing was stored:"
                                + " consume and ack, then retry");
            }
            reservations.add(r);
        }
        if (l.limitsRate()) {
            long retryAfter = rates.tryAcquire(tenant.value(), l, messages);
            if (retryAfter > 0) {
                reservations.forEach(UnackedCounts.Reservation::cancel);
                throw refused(tenant, QuotaExceededException.Kind.PUBLISH_RATE, l.publishRate(), retryAfter,
                        "tenant '" + tenant.value() + "' is over its publish rate of " + l.publishRate()
                                + " messages per second (publish-rate, burst " + l.publishBurst() + "); a batch of "
                                + messages + " was refused whole. Nothing was stored: retry after " + retryAfter + " s");
            }
        }
        if (l.limitsByteRate()) {
            long retryAfter = byteRates.tryAcquire(tenant.value(), l.publishByteBurst(), l.publishByteRate(), payloadBytes);
            if (retryAfter > 0) {
                if (l.limitsRate()) {
                    rates.giveBack(tenant.value(), messages);
                }
                reservations.forEach(UnackedCounts.Reservation::cancel);
                throw refused(tenant, QuotaExceededException.Kind.PUBLISH_BYTE_RATE, l.publishByteRate(), retryAfter,
                        "tenant '" + tenant.value() + "' is over its publish rate of " + l.publishByteRate()
                                + " payload bytes per second (publish-byte-rate, burst " + l.publishByteBurst()
                                + "); a batch of " + payloadBytes + " payload bytes was refused whole. Nothing was"
                                + " stored: retry after " + retryAfter + " s");
            }
        }
        if (reservations.isEmpty()) {
            return FREE;
        }
        return new Admission() {
            @Override
            public void stored(int newMessages) {
                reservations.forEach(r -> r.stored(newMessages));
            }

            @Override
            public void failed() {
                reservations.forEach(UnackedCounts.Reservation::cancel);
            }
        };
    }

    private QuotaExceededException refused(Tenant tenant, QuotaExceededException.Kind kind, long limit, long retryAfter,
                                           String detail) {
        metrics.rejected(tenant.value(), kind.tag());
        return new QuotaExceededException(tenant.value(), kind, limit, retryAfter, detail);
    }

    /**
     * Re-reads, every {@code mq.tick-interval}, the unacknowledged-message counts of the topics
     * and tenants published to under a limit; acks anywhere free room here within one tick.
     */
    @Scheduled(every = "${mq.tick-interval}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
            skipExecutionIf = Scheduled.ApplicationNotRunning.class, // none once the shutdown began (docs/deployment.md, "Stopping")
            identity = "mq-quota-unacked-refresh")
    void refreshUnacked() {
        unacked.refresh();
        tenantUnacked.refresh();
    }
}
