package dev.tenantmq.api;

import dev.tenantmq.api.dto.AdminResponses;
import dev.tenantmq.api.dto.ExtendRequest;
import dev.tenantmq.api.dto.FetchRequest;
import dev.tenantmq.api.dto.FetchResponse;
import dev.tenantmq.api.dto.NackRequest;
import dev.tenantmq.api.dto.Problem;
import dev.tenantmq.api.dto.PublishRequest;
import dev.tenantmq.api.dto.PublishResponse;
import dev.tenantmq.api.dto.ReceiptsRequest;
import dev.tenantmq.api.dto.ReceiptsResponse;
import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * Registers for reflection, in a native image (the {@code native} Maven profile), every type
 * that Jackson reads or writes by reflection: the request and response records, including the
 * nested ones that only appear as list elements (Quarkus registers a resource method's
 * declared parameter and return types, but not always the element types inside them), and
 * {@link RawJson} with its custom deserializer and {@link Utf8JsonSerializer}, which Jackson
 * instantiates by reflection.
 * The JVM build does not need this; it keeps the native profile correct.
 */
@RegisterForReflection(targets = {
        PublishRequest.class, PublishRequest.Message.class, RawJson.class, RawJson.Deserializer.class,
        PublishResponse.class, PublishResponse.Published.class,
        FetchRequest.class, FetchResponse.class, FetchResponse.Message.class, Utf8JsonSerializer.class,
        ReceiptsRequest.class, ExtendRequest.class, NackRequest.class,
        ReceiptsResponse.class, ReceiptsResponse.Result.class,
        Problem.class, Problem.FieldError.class,
        AdminResponses.Topics.class, AdminResponses.TopicRow.class,
        AdminResponses.Offsets.class, AdminResponses.OffsetRow.class,
        AdminResponses.Leases.class, AdminResponses.LeaseRow.class,
        AdminResponses.Subscribers.class, AdminResponses.SubscriberRow.class,
        AdminResponses.Message.class, AdminResponses.GroupState.class,
        AdminResponses.Deleted.class, AdminResponses.Requeued.class,
        AdminResponses.Browse.class, AdminResponses.BrowsedMessage.class,
})
public final class NativeReflection {
    private NativeReflection() {}
}
