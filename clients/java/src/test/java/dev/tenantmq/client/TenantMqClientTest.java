package dev.tenantmq.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.NullNode;
import dev.tenantmq.client.invoker.ApiClient;
import dev.tenantmq.client.model.DeliveredMessage;
import dev.tenantmq.client.model.OutgoingMessage;
import dev.tenantmq.client.model.ReceiptStatus;
import dev.tenantmq.client.model.ReceiptsResponse;
import org.junit.jupiter.api.Test;

/** The generated models with {@link TenantMqClient}'s mapper keep the client promises of docs/api.md, "Clients". */
class TenantMqClientTest {
    private final ObjectMapper mapper = TenantMqClient.objectMapper();

    @Test
    void aNullPayloadIsSentAsJsonNull() throws Exception {
        String json = mapper.writeValueAsString(new OutgoingMessage().partitionKey("k").payload(NullNode.getInstance()));
        assertTrue(json.contains("\"payload\":null"), json);
        String javaNull = mapper.writeValueAsString(new OutgoingMessage().partitionKey("k").payload(null));
        assertTrue(javaNull.contains("\"payload\":null"), javaNull);
    }

    @Test
    void payloadNumbersRoundTripWithTheirExactDigits() throws Exception {
        String in = "{\"partitionKey\":\"k\",\"id\":\"i\",\"offset\":1,\"payload\":{\"a\":12345678901234567890.10,"
                + "\"b\":123456789012345678901234567890,\"c\":1.0E+2},\"metadata\":{},\"createdAt\":\"2026-01-01T00:00:00Z\","
                + "\"deliveryAttempt\":1,\"receipt\":\"r\"}";
        DeliveredMessage m = mapper.readValue(in, DeliveredMessage.class);
        String out = mapper.writeValueAsString(new OutgoingMessage().partitionKey("k").payload(m.getPayload()));
        assertTrue(out.contains("{\"a\":12345678901234567890.10,\"b\":123456789012345678901234567890,\"c\":1.0E+2}"), out);
    }

    @Test
    void unknownFieldsAndStatusesOfANewerServiceAreTolerated() throws Exception {
        ReceiptsResponse r = mapper.readValue("{\"results\":[{\"receipt\":\"r\",\"status\":\"SOMETHING_NEW\",\"hint\":1}],\"more\":true}",
                ReceiptsResponse.class);
        assertEquals(ReceiptStatus.UNKNOWN_DEFAULT_OPEN_API, r.getResults().get(0).getStatus());
    }

    @Test
    void theReadTimeoutOutlastsTheLongestLongPoll() {
        ApiClient client = TenantMqClient.apiClient("http://127.0.0.1:8080");
        assertTrue(client.getReadTimeout().compareTo(TenantMqClient.LONGEST_WAIT) > 0, client.getReadTimeout().toString());
    }
}
