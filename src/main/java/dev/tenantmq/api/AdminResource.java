package dev.tenantmq.api;

import dev.tenantmq.api.dto.AdminResponses;
import dev.tenantmq.api.dto.OffsetResetResponse;
import dev.tenantmq.domain.AdminService;
import dev.tenantmq.domain.AdminViews;
import dev.tenantmq.api.dto.SettingsRequest;
import dev.tenantmq.domain.SettingsService;
import dev.tenantmq.model.EffectiveSettings;
import dev.tenantmq.model.SettingOverrides;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.PUT;
import dev.tenantmq.domain.OffsetResetService;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.UriInfo;
import java.util.List;
import java.util.Set;
import jakarta.ws.rs.core.MediaType;

/**
 * The admin API (SPEC section 4, "Admin"). Requires the admin role ({@link AdminAuthFilter}) for
 * the tenant of each call ({@link Caller#requireAdmin}).
 * Listings take exactly one of {@code tenant} or {@code allTenants=true}; messages are named
 * by query parameters so that any partition key or id works. Query parameters are decoded by
 * {@link StrictQuery}: malformed or repeated ones are 400.
 */
@Path("/admin")
@Produces(MediaType.APPLICATION_JSON)
public class AdminResource {
    private final RequestValidator validator;
    private final AdminService admin;
    private final Caller caller;
    private final SettingsService settings;
    private final OffsetResetService offsetReset;

    AdminResource(RequestValidator validator, AdminService admin, Caller caller, SettingsService settings,
                  OffsetResetService offsetReset) {
        this.settings = settings;
        this.validator = validator;
        this.admin = admin;
        this.caller = caller;
        this.offsetReset = offsetReset;
    }

    /**
     * The scope (exactly one of tenant or allTenants=true) and limit every listing takes; the
     * caller must administer the tenant, or every tenant for allTenants=true (403 otherwise).
     */
    private RequestValidator.Listing listing(StrictQuery q) {
        RequestValidator.Listing l = validator.listing(q.get(TENANT), q.get(ALL_TENANTS), q.get(LIMIT));
        caller.requireAdmin(l.scope());
        return l;
    }

    /** Topics with partition and message counts. */
    @GET
    @Path("/topics")
    public AdminResponses.Topics topics(@Context UriInfo uri) {
        StrictQuery q = query(uri, LISTING);
        RequestValidator.Listing l = listing(q);
        AdminService.Page<AdminViews.TopicView> page = admin.topics(l.scope(), l.limit());
        return new AdminResponses.Topics(page.rows().stream().map(t -> new AdminResponses.TopicRow(t.tenant(), t.topic(),
                t.partitions(), t.messages())).toList(), page.truncated());
    }

    /** Committed offset and lag per partition and consumer group, optionally of one topic and group. */
    @GET
    @Path("/offsets")
    public AdminResponses.Offsets offsets(@Context UriInfo uri) {
        StrictQuery q = query(uri, OFFSETS);
        RequestValidator.Listing l = listing(q);
        AdminService.Page<AdminViews.OffsetView> page = admin.offsets(l.scope(), validator.optionalTopic(q.get(TOPIC)),
                validator.optionalGroup(q.get(CONSUMER_GROUP)), l.limit());
        return new AdminResponses.Offsets(page.rows().stream().map(o -> new AdminResponses.OffsetRow(o.tenant(),
                o.topic(), o.partitionKey(), o.consumerGroup(), o.committedOffset(), o.latestOffset(), o.lag())).toList(),
                page.truncated());
    }

    /**
     * Lag, in-flight deliveries, dead letters and oldest unacknowledged age per (tenant, topic,
     * consumer group), optionally of one topic; computed on demand (docs/operations.md, "Admin API").
     */
    @GET
    @Path("/consumer-groups")
    public AdminResponses.ConsumerGroups consumerGroups(@Context UriInfo uri) {
        StrictQuery q = query(uri, GROUPS);
        RequestValidator.Listing l = listing(q);
        AdminService.Page<AdminViews.GroupStatsView> page = admin.consumerGroups(l.scope(),
                validator.optionalTopic(q.get(TOPIC)), l.limit());
        return new AdminResponses.ConsumerGroups(page.rows().stream().map(g -> new AdminResponses.ConsumerGroupRow(
                g.tenant(), g.topic(), g.consumerGroup(), g.lag(), g.inFlight(), g.deadLetters(),
                g.oldestUnackedAgeSeconds())).toList(), page.truncated());
    }

    /**
     * The tenants this process serves ({@code mq.tenants}) that the caller may administer (all of
     * them for the static token or an unrestricted admin): what the admin UI's tenant picker offers.
     */
    @GET
    @Path("/tenants")
    public AdminResponses.Tenants tenants(@Context UriInfo uri) {
        query(uri, Set.of());
        return new AdminResponses.Tenants(caller.administrable(admin.servedTenants()));
    }

    /** Partition leases, optionally only {@code state=active} or {@code state=stale}. */
    @GET
    @Path("/leases")
    public AdminResponses.Leases leases(@Context UriInfo uri) {
        StrictQuery q = query(uri, LEASES);
        RequestValidator.Listing l = listing(q);
        AdminService.Page<AdminViews.LeaseView> page = admin.leases(l.scope(), validator.leaseState(q.get(STATE)),
                l.limit());
        return new AdminResponses.Leases(page.rows().stream().map(x -> new AdminResponses.LeaseRow(x.tenant(),
                x.consumerGroup(), x.topic(), x.partitionKey(), x.leasedBy(), x.epoch(), x.expiresAt(), x.acquiredAt(),
                x.renewedAt(), x.active())).toList(), page.truncated());
    }

    /** Subscriber heartbeats. */
    @GET
    @Path("/subscribers")
    public AdminResponses.Subscribers subscribers(@Context UriInfo uri) {
        StrictQuery q = query(uri, LISTING);
        RequestValidator.Listing l = listing(q);
        AdminService.Page<AdminViews.SubscriberView> page = admin.subscribers(l.scope(), l.limit());
        return new AdminResponses.Subscribers(page.rows().stream().map(s -> new AdminResponses.SubscriberRow(s.tenant(),
                s.consumerGroup(), s.topic(), s.subscriberName(), s.startedAt(), s.lastSeenAt(), s.live())).toList(),
                page.truncated());
    }

    /** One message by its complete identity, with each consumer group's state of it. */
    @GET
    @Path("/messages")
    public AdminResponses.Message message(@Context UriInfo uri) {
        AdminService.MessageIdentity m = identity(uri);
        AdminViews.MessageView s = admin.message(m);
        return stored(m.tenant().value(), m.topic().value(), new AdminViews.StoredView(m.partitionKey().value(),
                        m.id().value(), s.offset(), s.payloadJson(), s.metadataJson(), s.createdAt(), s.deliverAt(),
                        s.trace()))
                .withGroups(s.groups().stream().map(g -> new AdminResponses.GroupState(g.consumerGroup(),
                        g.committedOffset(), g.state(), g.deliveryAttempt(), g.visibleAt())).toList());
    }

    /**
     * A page of a topic's stored messages in offset order, without touching any consumer state:
     * how tools read a dead-letter topic without consuming it. Page on with
     * {@code afterOffset=nextAfterOffset} until that is null.
     */
    @GET
    @Path("/messages/browse")
    public AdminResponses.Browse browse(@Context UriInfo uri) {
        StrictQuery q = query(uri, BROWSE);
        AdminService.Browse b = validator.browse(q.get(TENANT), q.get(TOPIC), q.get(PARTITION_KEY), q.get(AFTER_OFFSET),
                q.get(LIMIT));
        caller.requireAdmin(new AdminService.Scope(java.util.Optional.of(b.tenant())));
        AdminViews.BrowsePage page = admin.browse(b);
        return new AdminResponses.Browse(page.messages().stream()
                .map(s -> stored(b.tenant().value(), b.topic().value(), s)).toList(), page.nextAfterOffset());
    }

    /** The fields inspect and browse share, mapped in this one place. */
    private static AdminResponses.BrowsedMessage stored(String tenant, String topic, AdminViews.StoredView s) {
        return new AdminResponses.BrowsedMessage(tenant, topic, s.partitionKey(), s.id(), s.offset(), s.payloadJson(),
                s.metadataJson(), s.createdAt(), s.deliverAt(), s.trace() == null ? null : s.trace().traceparent(),
                s.trace() == null ? null : s.trace().tracestate());
    }

    /** Deletes one message by its complete identity. */
    @DELETE
    @Path("/messages")
    public AdminResponses.Deleted delete(@Context UriInfo uri) {
        AdminService.MessageIdentity m = identity(uri);
        return new AdminResponses.Deleted(m.tenant().value(), m.topic().value(), m.partitionKey().value(), m.id().value(),
                admin.delete(m));
    }

    /** Requeues one dead letter, named by its identity in the dead-letter topic. */
    @POST
    @Path("/messages/requeue")
    public AdminResponses.Requeued requeue(@Context UriInfo uri) {
        AdminService.MessageIdentity m = identity(uri);
        AdminViews.Requeued done = admin.requeue(m);
        return new AdminResponses.Requeued(m.tenant().value(), done.originalTopic(), m.partitionKey().value(),
                m.id().value(), done.originalOffset(), done.consumerGroups());
    }

    /**
     * The settings of a topic, or of a consumer group on it: each effective value with its source
     * ({@code group}, {@code topic}, {@code global}), and the stored overrides (docs/settings.md,
     * "Per-topic and per-group settings").
     */
    @GET
    @Path("/settings")
    public AdminResponses.Settings settings(@Context UriInfo uri) {
        RequestValidator.SettingsTarget t = settingsTarget(uri);
        return settings(settings.view(t.tenant(), t.topic(), t.consumerGroup()));
    }

    /**
     * Replaces the overrides of a topic, or of a consumer group on it: a field absent or null
     * inherits. Every instance applies the change within one scheduler tick.
     */
    @PUT
    @Path("/settings")
    @Consumes(MediaType.APPLICATION_JSON)
    public AdminResponses.Settings putSettings(@Context UriInfo uri, SettingsRequest body) {
        RequestValidator.SettingsTarget t = settingsTarget(uri);
        if (body == null) {
            // Quarkus reads whitespace alone as no value too, so either may have been given.
            throw dev.tenantmq.model.InvalidRequestException.of("body", "must be a JSON object of overrides ({} clears"
                    + " them), not null or whitespace alone");
        }
        return settings(settings.replace(t.tenant(), t.topic(), t.consumerGroup(), new SettingOverrides(
                body.maxDeliveries(), body.defaultVisibilitySeconds(), body.maxVisibilitySeconds(),
                body.nackBackoffBaseMillis(), body.nackBackoffCapMillis(), body.retentionMaxAgeSeconds(),
                body.dedupWindowSeconds(), body.deadLetterEnabled())));
    }

    /** Clears the overrides of a topic (its groups' stay), or of a consumer group on it. */
    @DELETE
    @Path("/settings")
    public AdminResponses.Settings clearSettings(@Context UriInfo uri) {
        RequestValidator.SettingsTarget t = settingsTarget(uri);
        return settings(settings.clear(t.tenant(), t.topic(), t.consumerGroup()));
    }

    private RequestValidator.SettingsTarget settingsTarget(UriInfo uri) {
        StrictQuery q = query(uri, SETTINGS);
        RequestValidator.SettingsTarget t = validator.settingsTarget(q.get(TENANT), q.get(TOPIC), q.get(CONSUMER_GROUP));
        caller.requireAdmin(new AdminService.Scope(java.util.Optional.of(t.tenant())));
        return t;
    }

    private static AdminResponses.Settings settings(SettingsService.View v) {
        EffectiveSettings e = v.effective();
        return new AdminResponses.Settings(v.tenant().value(), v.topic().value(),
                v.consumerGroup().map(g -> g.value()).orElse(null),
                new AdminResponses.EffectiveSettings(number(e.maxDeliveries()), number(e.defaultVisibilitySeconds()),
                        number(e.maxVisibilitySeconds()), number(e.nackBackoffBaseMillis()),
                        number(e.nackBackoffCapMillis()), number(e.retentionMaxAgeSeconds()),
                        number(e.dedupWindowSeconds()), new AdminResponses.SettingFlag(e.deadLetterEnabled().value(),
                                source(e.deadLetterEnabled().source()))),
                overrides(v.topicOverrides()), v.consumerGroup().isPresent() ? overrides(v.groupOverrides()) : null);
    }

    private static AdminResponses.SettingValue number(EffectiveSettings.Value<? extends Number> v) {
        return new AdminResponses.SettingValue(v.value().longValue(), source(v.source()));
    }

    private static String source(EffectiveSettings.Source s) {
        return s.name().toLowerCase(java.util.Locale.ROOT);
    }

    private static SettingsRequest overrides(SettingOverrides o) {
        return new SettingsRequest(o.maxDeliveries(), o.defaultVisibilitySeconds(), o.maxVisibilitySeconds(),
                o.nackBackoffBaseMillis(), o.nackBackoffCapMillis(), o.retentionMaxAgeSeconds(), o.dedupWindowSeconds(),
                o.deadLetterEnabled());
    }

    /**
     * Moves a consumer group's committed offsets on one topic (all its partitions, or
     * {@code partitionKey}) to the earliest stored message, the latest, an offset (the next
     * message delivered) or a time; with {@code dryRun=true} only answers what would move.
     * Fences the group's in-flight deliveries (docs/operations.md, "Replay: resetting a group's
     * offsets"). 404 when the group has no committed offset there.
     */
    @POST
    @Path("/consumer-groups/reset-offsets")
    public OffsetResetResponse resetOffsets(@Context UriInfo uri) {
        StrictQuery q = query(uri, RESET_OFFSETS);
        OffsetResetService.Request r = validator.offsetReset(q.get(TENANT), q.get(TOPIC), q.get(CONSUMER_GROUP),
                q.get(PARTITION_KEY), q.get(RESET_TO), q.get(RESET_OFFSET), q.get(RESET_DATETIME), q.get(DRY_RUN));
        caller.requireAdmin(new AdminService.Scope(java.util.Optional.of(r.tenant())));
        List<OffsetResetResponse.Partition> rows = offsetReset.reset(r).stream()
                .map(p -> new OffsetResetResponse.Partition(p.partitionKey(), p.from(), p.to(), p.nextOffset(),
                        p.earliestOffset(), p.earliestCreatedAt(), p.latestOffset(), p.beforeEarliest()))
                .toList();
        return new OffsetResetResponse(r.tenant().value(), r.topic().value(), r.consumerGroup().value(),
                r.target().kind().apiName(), r.dryRun(), rows);
    }

    private static final String RESET_TO = "to";
    private static final String RESET_OFFSET = "toOffset";
    private static final String RESET_DATETIME = "toDatetime";
    private static final String DRY_RUN = "dryRun";
    /** The query parameters of a reset (openapi.yaml); any other is 400 naming these. */
    private static final Set<String> RESET_OFFSETS = Set.of("tenant", "topic", "consumerGroup", "partitionKey",
            RESET_TO, RESET_OFFSET, RESET_DATETIME, DRY_RUN);

    private static final String TENANT = "tenant";
    private static final String ALL_TENANTS = "allTenants";
    private static final String LIMIT = "limit";
    private static final String TOPIC = "topic";
    private static final String CONSUMER_GROUP = "consumerGroup";
    private static final String STATE = "state";
    private static final String PARTITION_KEY = "partitionKey";
    private static final String ID = "id";
    private static final String AFTER_OFFSET = "afterOffset";
    /** The query parameters each call takes (openapi.yaml); any other is 400 naming these. */
    private static final Set<String> LISTING = Set.of(TENANT, ALL_TENANTS, LIMIT);
    private static final Set<String> OFFSETS = Set.of(TENANT, ALL_TENANTS, LIMIT, TOPIC, CONSUMER_GROUP);
    private static final Set<String> GROUPS = Set.of(TENANT, ALL_TENANTS, LIMIT, TOPIC);
    private static final Set<String> LEASES = Set.of(TENANT, ALL_TENANTS, LIMIT, STATE);
    private static final Set<String> IDENTITY = Set.of(TENANT, TOPIC, PARTITION_KEY, ID);
    private static final Set<String> BROWSE = Set.of(TENANT, TOPIC, PARTITION_KEY, AFTER_OFFSET, LIMIT);
    private static final Set<String> SETTINGS = Set.of(TENANT, TOPIC, CONSUMER_GROUP);

    private static StrictQuery query(UriInfo uri, Set<String> names) {
        return StrictQuery.parse(uri.getRequestUri().getRawQuery(), names);
    }

    private AdminService.MessageIdentity identity(UriInfo uri) {
        StrictQuery q = query(uri, IDENTITY);
        AdminService.MessageIdentity m = validator.messageIdentity(q.get(TENANT), q.get(TOPIC), q.get(PARTITION_KEY),
                q.get(ID));
        caller.requireAdmin(new AdminService.Scope(java.util.Optional.of(m.tenant())));
        return m;
    }
}
