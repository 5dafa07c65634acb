package dev.tenantmq.api;

import dev.tenantmq.api.dto.CommittedRequest;
import dev.tenantmq.api.dto.CommittedResponse;
import dev.tenantmq.api.dto.PublishRequest;
import dev.tenantmq.api.dto.PublishResponse;
import dev.tenantmq.domain.PublishService;
import dev.tenantmq.model.TraceContext;
import dev.tenantmq.ops.MessagingSpans;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.List;

/** Publish (SPEC section 4, "Publish"). */
@Path("/tenants/{tenant}/topics/{topic}/messages")
@Consumes(MediaType.APPLICATION_JSON)
@Produces(MediaType.APPLICATION_JSON)
public class MessagesResource {
    private final RequestValidator validator;
    private final PublishService publisher;
    private final MessagingSpans spans;

    MessagesResource(RequestValidator validator, PublishService publisher, MessagingSpans spans) {
        this.validator = validator;
        this.publisher = publisher;
        this.spans = spans;
    }

    /**
     * Publishes 1..1000 messages in one transaction; 201 with one result per message. The
     * request's W3C {@code traceparent} and {@code tracestate} are stored with each message; an
     * invalid one is ignored (docs/api.md, "Trace context").
     */
    @POST
    public Response publish(@PathParam("tenant") String tenant, @PathParam("topic") String topic,
                            @Context HttpHeaders headers, PublishRequest body) {
        RequestValidator.TopicPath path = validator.topicPath(tenant, topic);
        MessagingSpans.Traced span = spans.start(MessagingSpans.Operation.PUBLISH, path.tenant().value(),
                path.topic().value(), null);
        try {
            List<PublishService.Outgoing> messages = validator.publishBody(body);
            span.messages(messages.size());
            TraceContext trace = TraceContext.fromHeaders(headers.getRequestHeader(TRACEPARENT),
                    headers.getRequestHeader(TRACESTATE));
            List<PublishResponse.Published> results = publisher.publish(path.tenant(), path.topic(), messages, trace)
                    .stream()
                    .map(r -> new PublishResponse.Published(r.id(), r.partitionKey(), r.offset(), r.duplicate()))
                    .toList();
            return Response.status(Response.Status.CREATED).entity(new PublishResponse(results)).build();
        } catch (RuntimeException e) {
            span.failed(e);
            throw e;
        } finally {
            span.end();
        }
    }

    /** The W3C Trace Context request headers (https://www.w3.org/TR/trace-context/). */
    static final String TRACEPARENT = "traceparent";
    static final String TRACESTATE = "tracestate";

    /**
     * The committed notice of a publish made in an application's own transaction (the JDBC
     * library, docs/transactional-publish.md, "Waking consumers"): wakes this process's long polls
     * waiting on those partitions as an HTTP publish would; 200 naming them. Best-effort by design: a notice
     * that never comes costs a poll at most one re-check interval.
     */
    @POST
    @Path("/committed")
    public Response committed(@PathParam("tenant") String tenant, @PathParam("topic") String topic,
                              CommittedRequest body) {
        RequestValidator.TopicPath path = validator.topicPath(tenant, topic);
        List<String> woken = publisher.committedElsewhere(path.tenant(), path.topic(), validator.committedBody(body));
        return Response.ok(new CommittedResponse(woken)).build();
    }
}
