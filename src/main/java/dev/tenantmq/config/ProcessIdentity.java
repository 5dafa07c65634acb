package dev.tenantmq.config;

import dev.tenantmq.model.Identifiers;
import dev.tenantmq.model.SubscriberName;
import dev.tenantmq.model.Tenant;
import io.quarkus.runtime.Startup;
import jakarta.enterprise.context.ApplicationScoped;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * What this process is: the tenants it serves ({@code MQ_TENANTS}, parsed once at start-up)
 * and its subscriber name. Start-up fails with a clear message when either is invalid, or when
 * the scheduler timings cannot work
 * (SPEC section 6, RFC "Subscriber discovery": consumers reject an empty list).
 */
@Startup
@ApplicationScoped
public class ProcessIdentity {
    private final Set<Tenant> tenants;
    private final List<String> tenantNames;
    private final SubscriberName subscriberName;

    ProcessIdentity(MqConfig config) {
        List<String> problems = new ArrayList<>();
        Set<Tenant> parsed = new LinkedHashSet<>();
        for (String raw : config.tenants().orElse(List.of())) {
            String t = raw.trim();
            if (t.isEmpty()) {
                continue;
            }
            String problem = Identifiers.nameProblem(t);
            if (problem != null) {
                problems.add("'" + t + "' " + problem);
            } else {
                parsed.add(new Tenant(t));
            }
        }
        if (parsed.isEmpty() && problems.isEmpty()) {
            problems.add("it is not set or empty");
        }
        if (!problems.isEmpty()) {
            throw new IllegalStateException("MQ_TENANTS (mq.tenants) must be a comma-separated, non-empty list of tenant"
                    + " names (1-255 characters of [A-Za-z0-9._:-], starting with a letter or digit): "
                    + String.join("; ", problems));
        }
        this.tenants = Set.copyOf(parsed);
        this.tenantNames = parsed.stream().map(Tenant::value).toList();
        String name = config.subscriberName().map(String::trim).filter(s -> !s.isEmpty()).orElseGet(ProcessIdentity::hostName);
        String problem = Identifiers.nameProblem(name);
        if (problem != null) {
            throw new IllegalStateException("MQ_SUBSCRIBER_NAME (mq.subscriber-name) '" + name + "' " + problem);
        }
        this.subscriberName = new SubscriberName(name);
        if (config.publish().maxMetadataBytes() < 64 || config.publish().maxMetadataBytes() > 61_440) {
            throw new IllegalStateException("mq.publish.max-metadata-bytes must be between 64 and 61440 (the metadata"
                    + " column holds 64 KiB), got " + config.publish().maxMetadataBytes());
        }
        if (config.admin().token().map(t -> t.length() < 16).orElse(false)) {
            throw new IllegalStateException("MQ_ADMIN_TOKEN (mq.admin.token) must be at least 16 characters");
        }
        if (config.maxDeliveries() < 1) {
            throw new IllegalStateException("mq.max-deliveries must be at least 1, got " + config.maxDeliveries());
        }
        // A retention batch of 0 would never advance; a negative age has no meaning.
        if (config.retention().batchSize() < 1 || config.retention().batchSize() > 10_000) {
            throw new IllegalStateException("mq.retention.batch-size must be between 1 and 10000, got "
                    + config.retention().batchSize());
        }
        if (config.retention().maxAge().isNegative()) {
            throw new IllegalStateException("mq.retention.max-age must not be negative, got " + config.retention().maxAge());
        }
        if (config.publish().dedupWindow().isNegative()) {
            throw new IllegalStateException("mq.publish.dedup-window must not be negative, got "
                    + config.publish().dedupWindow());
        }
        // Quarkus's scheduler checks its jobs once a second: a shorter interval would silently
        // run as 1 s (with only a warning), so it is refused here, naming the setting.
        requireAtLeastOneSecond("mq.tick-interval", config.tickInterval());
        requireAtLeastOneSecond("mq.retention.interval", config.retention().interval());
        // A lease or heartbeat shorter than a tick would expire between two renewals.
        if (config.tickInterval().compareTo(config.heartbeatTimeout()) >= 0
                || config.tickInterval().compareTo(config.leaseDuration()) >= 0) {
            throw new IllegalStateException("mq.tick-interval (" + config.tickInterval() + ") must be shorter than"
                    + " mq.heartbeat-timeout (" + config.heartbeatTimeout() + ") and mq.lease-duration ("
                    + config.leaseDuration() + ")");
        }
    }

    private static void requireAtLeastOneSecond(String setting, java.time.Duration value) {
        if (value.compareTo(java.time.Duration.ofSeconds(1)) < 0) {
            throw new IllegalStateException(setting + " must be at least 1s (the scheduler runs jobs at most once a"
                    + " second), got " + value);
        }
    }

    private static String hostName() {
        String env = System.getenv("HOSTNAME");
        if (env != null && !env.isBlank()) {
            return env.trim();
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "tenant-mq";
        }
    }

    /** True when this process serves {@code tenant}. */
    public boolean serves(Tenant tenant) {
        return tenants.contains(tenant);
    }

    /** The served tenants, in the order {@code MQ_TENANTS} lists them. */
    public List<String> tenantNames() {
        return tenantNames;
    }

    /** This process's subscriber name in every consumer group it joins. */
    public SubscriberName subscriberName() {
        return subscriberName;
    }
}
