package dev.tenantmq.api;

import dev.tenantmq.api.dto.DeletionResponses;
import dev.tenantmq.domain.AdminService;
import dev.tenantmq.domain.DeletionService;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.UriInfo;
import java.util.Optional;
import java.util.Set;

/**
 * Deleting a topic or a consumer group through the admin API (docs/operations.md, "Deleting a
 * topic or a consumer group"): an idempotent DELETE that deletes a bounded number of rows and
 * answers 200 with {@code done}; the caller repeats it until {@code done} is true, as with Kafka's
 * deleteRecords. Needs the admin role on the tenant ({@link AdminAuthFilter}, {@link Caller#requireAdmin}).
 */
@Path("/admin")
@Produces(MediaType.APPLICATION_JSON)
public class DeletionResource {
    private final RequestValidator validator;
    private final DeletionService deletion;
    private final Caller caller;

    DeletionResource(RequestValidator validator, DeletionService deletion, Caller caller) {
        this.validator = validator;
        this.deletion = deletion;
        this.caller = caller;
    }

    private static final String TENANT = "tenant";
    private static final String TOPIC = "topic";
    private static final String CONSUMER_GROUP = "consumerGroup";
    private static final String INCLUDE_DEAD_LETTERS = "includeDeadLetters";

    /** Deletes (part of) a topic, and its dead-letter topic with {@code includeDeadLetters=true}. */
    @DELETE
    @Path("/topics")
    public DeletionResponses.TopicDeletion deleteTopic(@Context UriInfo uri) {
        StrictQuery q = StrictQuery.parse(uri.getRequestUri().getRawQuery(), Set.of(TENANT, TOPIC, INCLUDE_DEAD_LETTERS));
        RequestValidator.DeletionTarget t = validator.topicDeletion(q.get(TENANT), q.get(TOPIC), q.get(INCLUDE_DEAD_LETTERS));
        caller.requireAdmin(new AdminService.Scope(Optional.of(t.tenant())));
        DeletionService.TopicDeletion d = deletion.deleteTopic(t.tenant(), t.topic(), t.includeDeadLetters());
        return new DeletionResponses.TopicDeletion(t.tenant().value(), t.topic().value(), d.done(), d.topics().stream()
                .map(p -> new DeletionResponses.TopicProgress(p.topic(), p.done(), rows(p.deleted()))).toList());
    }

    /** Deletes (part of) a consumer group's state on one topic. */
    @DELETE
    @Path("/consumer-groups")
    public DeletionResponses.GroupDeletion deleteGroup(@Context UriInfo uri) {
        StrictQuery q = StrictQuery.parse(uri.getRequestUri().getRawQuery(), Set.of(TENANT, TOPIC, CONSUMER_GROUP));
        RequestValidator.DeletionTarget t = validator.groupDeletion(q.get(TENANT), q.get(TOPIC), q.get(CONSUMER_GROUP));
        caller.requireAdmin(new AdminService.Scope(Optional.of(t.tenant())));
        DeletionService.GroupDeletion d = deletion.deleteGroup(t.tenant(), t.topic(), t.consumerGroup());
        return new DeletionResponses.GroupDeletion(t.tenant().value(), t.topic().value(), t.consumerGroup().value(),
                d.done(), rows(d.deleted()));
    }

    private static DeletionResponses.DeletedRows rows(DeletionService.DeletedRows r) {
        return new DeletionResponses.DeletedRows(r.messages(), r.deliveryStates(), r.offsets(), r.leases(),
                r.heartbeats(), r.partitionHeads(), r.dedupIds());
    }
}
