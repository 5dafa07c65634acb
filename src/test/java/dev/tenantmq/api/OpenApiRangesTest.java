package dev.tenantmq.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.tenantmq.api.dto.ExtendRequest;
import dev.tenantmq.api.dto.FetchRequest;
import dev.tenantmq.api.dto.IntegerRange;
import dev.tenantmq.api.dto.NackRequest;
import dev.tenantmq.api.dto.SettingsRequest;
import java.lang.reflect.RecordComponent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * openapi.yaml states the range of every integer field of a request body exactly as the server
 * checks it ({@link IntegerRange}, which names the rule's own constants): a client generated from
 * the document, or a fuzzer that trusts it, never sends a number the schema allows and the server
 * refuses. A field whose schema had no maximum let schemathesis send {@code maxDeliveries}
 * 6272325920511272, which the server refuses (docs/api.md, "Limits").
 */
class OpenApiRangesTest {
    /** Schema name in openapi.yaml, and the request record the server reads it into. */
    private static final Map<String, Class<? extends Record>> BODIES = Map.of(
            "FetchRequest", FetchRequest.class,
            "NackRequest", NackRequest.class,
            "ExtendRequest", ExtendRequest.class,
            "SettingOverrides", SettingsRequest.class);

    @Test
    void every_ranged_request_integer_has_the_servers_minimum_and_maximum_in_openapi() throws Exception {
        JsonNode schemas = new ObjectMapper(new YAMLFactory()).readTree(Files.readString(Path.of("openapi.yaml")))
                .path("components").path("schemas");
        List<String> wrong = new ArrayList<>();
        int ranged = 0;
        for (Map.Entry<String, Class<? extends Record>> body : BODIES.entrySet()) {
            JsonNode properties = schemas.path(body.getKey()).path("properties");
            assertTrue(properties.isObject(), "openapi.yaml has the schema " + body.getKey());
            for (RecordComponent c : body.getValue().getRecordComponents()) {
                IntegerRange range = c.getAnnotation(IntegerRange.class);
                if (range == null) {
                    continue;
                }
                ranged++;
                JsonNode p = properties.path(c.getName());
                String where = body.getKey() + "." + c.getName();
                if (!p.path("minimum").isIntegralNumber() || p.path("minimum").asLong() != range.min()) {
                    wrong.add(where + ": minimum " + p.path("minimum") + ", the server's " + range.min());
                }
                if (!p.path("maximum").isIntegralNumber() || p.path("maximum").asLong() != range.max()) {
                    wrong.add(where + ": maximum " + p.path("maximum") + ", the server's " + range.max()
                            + (range.maxSetting().isEmpty() ? "" : " (the default of " + range.maxSetting() + ")"));
                }
            }
        }
        assertTrue(ranged >= 10, "found the ranged request fields (" + ranged + ")");
        assertEquals(List.of(), wrong);
    }
}
