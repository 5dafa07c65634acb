package dev.tenantmq.api;

import dev.tenantmq.api.dto.ExtendRequest;
import dev.tenantmq.api.dto.FetchRequest;
import dev.tenantmq.api.dto.FetchResponse;
import dev.tenantmq.api.dto.NackRequest;
import dev.tenantmq.api.dto.ReceiptsRequest;
import dev.tenantmq.api.dto.ReceiptsResponse;
import dev.tenantmq.domain.ConsumeService;
import dev.tenantmq.ops.MessagingSpans;
import io.smallrye.mutiny.Uni;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import java.util.List;

/** Lease-fetch, ack, nack and extend for one consumer group of a topic (SPEC section 4). */
@Path("/tenants/{tenant}/topics/{topic}/consumer-groups/{consumerGroup}")
@Consumes(MediaType.APPLICATION_JSON)
@Produces(MediaType.APPLICATION_JSON)
public class ConsumerGroupResource {
    private final RequestValidator validator;
    private final ConsumeService consumer;
    private final Caller caller;
    private final MessagingSpans spans;

    ConsumerGroupResource(RequestValidator validator, ConsumeService consumer, Caller caller, MessagingSpans spans) {
        this.validator = validator;
        this.consumer = consumer;
        this.caller = caller;
        this.spans = spans;
    }

    /**
     * Long-poll lease-fetch. Runs on the event loop and never blocks it: database work is
     * offloaded, and the wait is asynchronous.
     */
    @POST
    @Path("/fetch")
    public Uni<FetchResponse> fetch(@PathParam("tenant") String tenant, @PathParam("topic") String topic,
                                    @PathParam("consumerGroup") String consumerGroup,
                                    @HeaderParam(HttpHeaders.CONTENT_LENGTH) String contentLength,
                                    @HeaderParam("Transfer-Encoding") String transferEncoding, FetchRequest body) {
        RequestValidator.GroupPath path = validator.groupPath(tenant, topic, consumerGroup);
        MessagingSpans.Traced span = spans.start(MessagingSpans.Operation.FETCH, path.tenant().value(),
                path.topic().value(), path.consumerGroup().value());
        Uni<ConsumeService.FetchOutcome> outcome;
        List<ReceiptsResponse.Result> noAcks;
        try {
            validator.objectOrNoBody(body, contentLength, transferEncoding);
            ConsumeService.Fetch fetch = validator.fetch(path, body);
            var ack = caller.requireReceipts(ConsumeService.FETCH_ACK_FIELD, // as an ack: 403 before the database
                    validator.fetchAck(body));
            // An empty ack list is answered with empty results, no ack field with none.
            noAcks = ack.size() == 0 ? (body != null && body.ack() != null ? List.of() : null) : null;
            outcome = ack.size() == 0
                    ? consumer.fetch(fetch).map(list -> new ConsumeService.FetchOutcome(List.of(), list))
                    : consumer.fetch(fetch, ack);
        } catch (RuntimeException e) {
            span.failed(e);
            span.end();
            throw e;
        }
        boolean acked = noAcks == null && body != null && body.ack() != null && !body.ack().isEmpty();
        // The span lasts as long as the long poll, and links to the trace of each message it delivers.
        return outcome.onItemOrFailure().invoke((o, failure) -> {
            if (failure != null) {
                span.failed(failure);
            } else {
                span.messages(o.messages().size());
                span.linkTo(o.messages().stream().map(ConsumeService.Delivered::trace).toList());
            }
        }).onTermination().invoke(span::end).map(o -> new FetchResponse(messages(o.messages()),
                acked ? results(o.acks()).results() : noAcks));
    }

    private static List<FetchResponse.Message> messages(List<ConsumeService.Delivered> delivered) {
        return delivered.stream()
                .map(d -> new FetchResponse.Message(d.partitionKey(), d.id(), d.offset(), d.payload(), d.metadataJson(),
                        d.createdAt(), d.deliveryAttempt(), d.receipt(),
                        d.trace() == null ? null : d.trace().traceparent(),
                        d.trace() == null ? null : d.trace().tracestate()))
                .toList();
    }

    /** Acknowledges deliveries by receipt; one result per receipt, in request order. */
    @POST
    @Path("/ack")
    public ReceiptsResponse ack(@PathParam("tenant") String tenant, @PathParam("topic") String topic,
                                @PathParam("consumerGroup") String consumerGroup, ReceiptsRequest body) {
        RequestValidator.GroupPath path = validator.groupPath(tenant, topic, consumerGroup);
        MessagingSpans.Traced span = spans.start(MessagingSpans.Operation.ACK, path.tenant().value(),
                path.topic().value(), path.consumerGroup().value());
        try {
            var receipts = validator.receipts(body == null ? null : body.receipts());
            span.messages(receipts.size());
            var tokens = caller.requireReceipts(receipts); // a receipt of a queue the caller may not consume: 403, before the database
            return results(consumer.ack(path.tenant(), path.topic(), path.consumerGroup(), tokens));
        } catch (RuntimeException e) {
            span.failed(e);
            throw e;
        } finally {
            span.end();
        }
    }

    /** Pushes back the redelivery of in-flight deliveries; one result per receipt, in request order. */
    @POST
    @Path("/extend")
    public ReceiptsResponse extend(@PathParam("tenant") String tenant, @PathParam("topic") String topic,
                                   @PathParam("consumerGroup") String consumerGroup, ExtendRequest body) {
        RequestValidator.GroupPath path = validator.groupPath(tenant, topic, consumerGroup);
        var receipts = validator.receipts(body == null ? null : body.receipts());
        var tokens = caller.requireReceipts(receipts); // a receipt of a queue the caller may not consume: 403, before the database
        var visibility = validator.visibility(body == null ? null : body.visibilitySeconds());
        return results(consumer.extend(path.tenant(), path.topic(), path.consumerGroup(), tokens, visibility));
    }

    /**
     * Negative acknowledgement: the deliveries failed. Each message is redelivered after
     * {@code delaySeconds} (or exponential backoff), or dead-lettered once it has failed
     * {@code mq.max-deliveries} times; one result per receipt, in request order.
     */
    @POST
    @Path("/nack")
    public ReceiptsResponse nack(@PathParam("tenant") String tenant, @PathParam("topic") String topic,
                                 @PathParam("consumerGroup") String consumerGroup, NackRequest body) {
        RequestValidator.GroupPath path = validator.groupPath(tenant, topic, consumerGroup);
        var receipts = validator.receipts(body == null ? null : body.receipts());
        var tokens = caller.requireReceipts(receipts); // a receipt of a queue the caller may not consume: 403, before the database
        var options = validator.nack(body == null ? null : body.delaySeconds(), body == null ? null : body.reason());
        return results(consumer.nack(path.tenant(), path.topic(), path.consumerGroup(), tokens, options.delay(),
                options.reason()));
    }

    private static ReceiptsResponse results(java.util.List<ConsumeService.ReceiptResult> results) {
        return new ReceiptsResponse(results.stream()
                .map(r -> new ReceiptsResponse.Result(r.receipt(), r.status().name()))
                .toList());
    }
}
