package dev.tenantmq.api;

import dev.tenantmq.api.dto.AdminResponses;
import dev.tenantmq.domain.AdminService;
import dev.tenantmq.store.AdminStore;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;

/**
 * The admin API (SPEC section 4, "Admin"). Requires the admin role ({@link AdminAuthFilter}).
 * Listings take exactly one of {@code tenant} or {@code allTenants=true}; messages are named
 * by query parameters so that any partition key or id works.
 */
@Path("/admin")
@Produces(MediaType.APPLICATION_JSON)
public class AdminResource {
    private final RequestValidator validator;
    private final AdminService admin;

    AdminResource(RequestValidator validator, AdminService admin) {
        this.validator = validator;
        this.admin = admin;
    }

    /** Topics with partition and message counts. */
    @GET
    @Path("/topics")
    public AdminResponses.Topics topics(@QueryParam("tenant") String tenant, @QueryParam("allTenants") String allTenants,
                                        @QueryParam("limit") String limit) {
        RequestValidator.Listing l = validator.listing(tenant, allTenants, limit);
        AdminService.Page<AdminStore.TopicRow> page = admin.topics(l.scope(), l.limit());
        return new AdminResponses.Topics(page.rows(), page.truncated());
    }

    /** Committed offset and lag per partition and consumer group, optionally of one topic and group. */
    @GET
    @Path("/offsets")
    public AdminResponses.Offsets offsets(@QueryParam("tenant") String tenant, @QueryParam("allTenants") String allTenants,
                                          @QueryParam("topic") String topic, @QueryParam("consumerGroup") String group,
                                          @QueryParam("limit") String limit) {
        RequestValidator.Listing l = validator.listing(tenant, allTenants, limit);
        AdminService.Page<AdminStore.OffsetRow> page = admin.offsets(l.scope(), validator.optionalTopic(topic),
                validator.optionalGroup(group), l.limit());
        return new AdminResponses.Offsets(page.rows(), page.truncated());
    }

    /** Partition leases, optionally only {@code state=active} or {@code state=stale}. */
    @GET
    @Path("/leases")
    public AdminResponses.Leases leases(@QueryParam("tenant") String tenant, @QueryParam("allTenants") String allTenants,
                                        @QueryParam("state") String state, @QueryParam("limit") String limit) {
        RequestValidator.Listing l = validator.listing(tenant, allTenants, limit);
        AdminService.Page<AdminStore.LeaseRow> page = admin.leases(l.scope(), validator.leaseState(state), l.limit());
        return new AdminResponses.Leases(page.rows(), page.truncated());
    }

    /** Subscriber heartbeats. */
    @GET
    @Path("/subscribers")
    public AdminResponses.Subscribers subscribers(@QueryParam("tenant") String tenant,
                                                  @QueryParam("allTenants") String allTenants,
                                                  @QueryParam("limit") String limit) {
        RequestValidator.Listing l = validator.listing(tenant, allTenants, limit);
        AdminService.Page<AdminStore.SubscriberRow> page = admin.subscribers(l.scope(), l.limit());
        return new AdminResponses.Subscribers(page.rows(), page.truncated());
    }

    /** One message by its complete identity, with each consumer group's state of it. */
    @GET
    @Path("/messages")
    public AdminResponses.Message message(@QueryParam("tenant") String tenant, @QueryParam("topic") String topic,
                                          @QueryParam("partitionKey") String partitionKey, @QueryParam("id") String id) {
        AdminService.MessageIdentity m = validator.messageIdentity(tenant, topic, partitionKey, id);
        AdminStore.StoredMessage s = admin.message(m);
        return new AdminResponses.Message(tenant, topic, partitionKey, id, s.offset(), s.payloadJson(), s.metadataJson(),
                s.createdAt(), s.groups().stream().map(g -> new AdminResponses.GroupState(g.consumerGroup(),
                        g.committedOffset(), groupState(g, s.offset()), g.deliveryAttempt(), g.visibleAt())).toList());
    }

    /** Deletes one message by its complete identity. */
    @DELETE
    @Path("/messages")
    public AdminResponses.Deleted delete(@QueryParam("tenant") String tenant, @QueryParam("topic") String topic,
                                         @QueryParam("partitionKey") String partitionKey, @QueryParam("id") String id) {
        AdminService.MessageIdentity m = validator.messageIdentity(tenant, topic, partitionKey, id);
        return new AdminResponses.Deleted(tenant, topic, partitionKey, id, admin.delete(m));
    }

    /** Requeues one dead letter, named by its identity in the dead-letter topic. */
    @POST
    @Path("/messages/requeue")
    public AdminResponses.Requeued requeue(@QueryParam("tenant") String tenant, @QueryParam("topic") String topic,
                                           @QueryParam("partitionKey") String partitionKey, @QueryParam("id") String id) {
        AdminService.MessageIdentity m = validator.messageIdentity(tenant, topic, partitionKey, id);
        AdminStore.Requeue.Done done = admin.requeue(m);
        return new AdminResponses.Requeued(tenant, done.originalTopic(), partitionKey, id, done.originalOffset(),
                done.consumerGroups());
    }

    /** A group without delivery state of the message has acked it (at or below its offset) or not got it yet. */
    private static String groupState(AdminStore.GroupState g, long offset) {
        if (g.state() != null) {
            return g.state();
        }
        return offset <= g.committedOffset() ? "ACKED" : "NOT_DELIVERED";
    }
}
