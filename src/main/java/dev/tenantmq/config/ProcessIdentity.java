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
 * the scheduler timings cannot work together (SPEC section 6, RFC "Subscriber discovery":
 * consumers reject an empty list). The bounds of single settings are constraints on
 * {@link MqConfig}, which Quarkus checks before this runs.
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
        // A lease or heartbeat shorter than a tick would expire between two renewals.
        if (config.tickInterval().compareTo(config.heartbeatTimeout()) >= 0
                || config.tickInterval().compareTo(config.leaseDuration()) >= 0) {
            throw new IllegalStateException("mq.tick-interval (" + config.tickInterval() + ") must be shorter than"
                    + " mq.heartbeat-timeout (" + config.heartbeatTimeout() + ") and mq.lease-duration ("
                    + config.leaseDuration() + ")");
        }
        if (config.fetch().defaultMaxBytes() > config.fetch().maxBytes()) {
            throw new IllegalStateException("mq.fetch.default-max-bytes (" + config.fetch().defaultMaxBytes()
                    + ") must be at most mq.fetch.max-bytes (" + config.fetch().maxBytes() + ")");
        }
        // A backoff is min(cap, base * 2^(attempt - 1)): a base above the cap would never be waited.
        if (config.nack().backoffBase().compareTo(config.nack().backoffCap()) > 0) {
            throw new IllegalStateException("mq.nack.backoff-base (" + config.nack().backoffBase()
                    + ") must be at most mq.nack.backoff-cap (" + config.nack().backoffCap() + ")");
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
