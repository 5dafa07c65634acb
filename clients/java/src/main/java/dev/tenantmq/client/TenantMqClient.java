package dev.tenantmq.client;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.tenantmq.client.invoker.ApiClient;
import java.net.http.HttpClient;
import java.time.Duration;

/**
 * Builds the generated {@link ApiClient} with the settings that keep the service's promises
 * (docs/api.md, "Clients"): payloads keep their exact numbers, a JSON {@code null} payload is sent as
 * {@code null}, unknown response fields are ignored, and a long poll never hits the read
 * timeout. Create the generated {@code PublishApi}, {@code ConsumeApi} and {@code AdminApi} from
 * the returned client: each copies the client's mapper when it is constructed.
 */
public final class TenantMqClient {
    /** The longest long poll the contract allows ({@code FetchRequest.waitSeconds} maximum, 30 s). */
    public static final Duration LONGEST_WAIT = Duration.ofSeconds(30);
    /**
     * Read timeout of every request: above {@link #LONGEST_WAIT}, with 15 s for the service to
     * answer once the wait is over (a busy database, a slow ack of 1,000 receipts).
     */
    public static final Duration READ_TIMEOUT = LONGEST_WAIT.plusSeconds(15);
    /** TCP connect timeout. */
    public static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);

    private TenantMqClient() {}

    /**
     * The generator's Jackson mapper, changed so that numbers are exact: floating-point numbers
     * read as {@link java.math.BigDecimal} keeping their scale ({@code 12345678901234567890.10}
     * stays that, not {@code 1.2345678901234567E19}) and integers beyond {@code long} as
     * {@link java.math.BigInteger}. Unknown properties are ignored, so a newer service can add
     * response fields. A {@code JsonNode} payload that is {@code NullNode} is written as
     * {@code null} (the generated models always include {@code payload}).
     */
    public static ObjectMapper objectMapper() {
        ObjectMapper mapper = ApiClient.createDefaultObjectMapper();
        mapper.configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
        mapper.enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);
        mapper.enable(DeserializationFeature.USE_BIG_INTEGER_FOR_INTS);
        mapper.setNodeFactory(JsonNodeFactory.withExactBigDecimals(true));
        return mapper;
    }

    /**
     * A client of the data plane (publish and consume) at {@code baseUri}, for example
     * {@code http://127.0.0.1:8080}.
     */
    public static ApiClient apiClient(String baseUri) {
        ApiClient client = new ApiClient(HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(CONNECT_TIMEOUT), objectMapper(), baseUri);
        client.setConnectTimeout(CONNECT_TIMEOUT);
        client.setReadTimeout(READ_TIMEOUT);
        return client;
    }

    /**
     * A client that also sends {@code Authorization: Bearer <adminToken>} (the service's
     * {@code MQ_ADMIN_TOKEN}), for the {@code /admin} operations of {@code AdminApi}.
     */
    public static ApiClient adminClient(String baseUri, String adminToken) {
        ApiClient client = apiClient(baseUri);
        client.setRequestInterceptor(request -> request.header("Authorization", "Bearer " + adminToken));
        return client;
    }
}
