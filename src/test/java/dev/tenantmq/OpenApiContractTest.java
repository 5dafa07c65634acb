package dev.tenantmq;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.annotation.JsonRawValue;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.tenantmq.api.AdminResource;
import dev.tenantmq.api.DeletionResource;
import dev.tenantmq.api.ConsumerGroupResource;
import dev.tenantmq.api.MessagesResource;
import dev.tenantmq.api.RequestValidator;
import dev.tenantmq.api.dto.AdminResponses;
import dev.tenantmq.api.dto.DeletionResponses;
import dev.tenantmq.api.dto.ExtendRequest;
import dev.tenantmq.api.dto.FetchRequest;
import dev.tenantmq.api.dto.FetchResponse;
import dev.tenantmq.model.Utf8Json;
import dev.tenantmq.api.dto.NackRequest;
import dev.tenantmq.api.dto.OffsetResetResponse;
import dev.tenantmq.api.dto.Problem;
import dev.tenantmq.api.dto.QuotaProblem;
import dev.tenantmq.api.dto.PublishRequest;
import dev.tenantmq.api.dto.PublishResponse;
import dev.tenantmq.api.dto.ReceiptsRequest;
import dev.tenantmq.api.dto.ReceiptsResponse;
import dev.tenantmq.domain.ConsumeService;
import dev.tenantmq.model.DeliveryState;
import dev.tenantmq.model.Identifiers;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import java.lang.reflect.Method;
import java.lang.reflect.RecordComponent;
import java.nio.file.Files;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Test;

/**
 * openapi.yaml states exactly what the server does, per operation: its routes, parameters,
 * request schemas (fields, required, nullability, ranges, identifier rules), response schemas
 * (against the DTOs and against real answers), status codes, examples and the Allow header of
 * 405. {@code /q/openapi} serves the same document.
 */
@QuarkusTest
class OpenApiContractTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final List<Class<?>> RESOURCES = List.of(MessagesResource.class, ConsumerGroupResource.class,
            AdminResource.class, DeletionResource.class);
    private static final List<String> VERBS = List.of("get", "post", "put", "delete", "patch");
    private static final String ADMIN_TOKEN = ConfigProvider.getConfig().getValue("mq.admin.token", String.class);

    /** Request body schema -> the DTO Jackson reads it into. */
    private static final Map<String, Class<?>> REQUEST_DTOS = Map.of(
            "PublishRequest", PublishRequest.class, "OutgoingMessage", PublishRequest.Message.class,
            "FetchRequest", FetchRequest.class, "ReceiptsRequest", ReceiptsRequest.class,
            "ExtendRequest", ExtendRequest.class, "NackRequest", NackRequest.class,
            "SettingOverrides", dev.tenantmq.api.dto.SettingsRequest.class,
            "CommittedRequest", dev.tenantmq.api.dto.CommittedRequest.class);

    /** Response schema -> the DTO the server writes. */
    private static final Map<String, Class<?>> RESPONSE_DTOS = Map.ofEntries(
            Map.entry("PublishResponse", PublishResponse.class), Map.entry("PublishedMessage", PublishResponse.Published.class),
            Map.entry("FetchResponse", FetchResponse.class), Map.entry("DeliveredMessage", FetchResponse.Message.class),
            Map.entry("ReceiptsResponse", ReceiptsResponse.class), Map.entry("ReceiptResult", ReceiptsResponse.Result.class),
            Map.entry("TopicList", AdminResponses.Topics.class), Map.entry("TopicRow", AdminResponses.TopicRow.class),
            Map.entry("OffsetList", AdminResponses.Offsets.class), Map.entry("OffsetRow", AdminResponses.OffsetRow.class),
            Map.entry("ConsumerGroupList", AdminResponses.ConsumerGroups.class),
            Map.entry("ConsumerGroupRow", AdminResponses.ConsumerGroupRow.class),
            Map.entry("ServedTenants", AdminResponses.Tenants.class),
            Map.entry("LeaseList", AdminResponses.Leases.class), Map.entry("LeaseRow", AdminResponses.LeaseRow.class),
            Map.entry("SubscriberList", AdminResponses.Subscribers.class),
            Map.entry("SubscriberRow", AdminResponses.SubscriberRow.class),
            Map.entry("StoredMessage", AdminResponses.Message.class),
            Map.entry("ConsumerGroupState", AdminResponses.GroupState.class),
            Map.entry("MessagePage", AdminResponses.Browse.class),
            Map.entry("BrowsedMessage", AdminResponses.BrowsedMessage.class),
            Map.entry("DeletedMessage", AdminResponses.Deleted.class), Map.entry("RequeuedMessage", AdminResponses.Requeued.class),
            Map.entry("Problem", Problem.class), Map.entry("FieldError", Problem.FieldError.class),
            Map.entry("QuotaProblem", QuotaProblem.class),
            Map.entry("Settings", AdminResponses.Settings.class), Map.entry("SettingOverrides", dev.tenantmq.api.dto.SettingsRequest.class),
            Map.entry("EffectiveSettings", AdminResponses.EffectiveSettings.class),
            Map.entry("SettingValue", AdminResponses.SettingValue.class), Map.entry("SettingFlag", AdminResponses.SettingFlag.class),
            Map.entry("CommittedResponse", dev.tenantmq.api.dto.CommittedResponse.class),
            Map.entry("DeletedRows", DeletionResponses.DeletedRows.class),
            Map.entry("TopicDeletionProgress", DeletionResponses.TopicProgress.class),
            Map.entry("TopicDeletion", DeletionResponses.TopicDeletion.class),
            Map.entry("GroupDeletion", DeletionResponses.GroupDeletion.class),
            Map.entry("OffsetReset", OffsetResetResponse.class),
            Map.entry("OffsetResetPartition", OffsetResetResponse.Partition.class));

    private final JsonNode doc = load();
    private final ContractSchema schemas = new ContractSchema(doc);

    private static JsonNode load() {
        try {
            return YAML.readTree(Files.readString(java.nio.file.Path.of("openapi.yaml")));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** One operation of the document. */
    private record Op(String path, String verb, JsonNode node, JsonNode pathItem) {
        String id() {
            return node.get("operationId").asText();
        }

        List<JsonNode> parameters(ContractSchema schemas) {
            List<JsonNode> out = new ArrayList<>();
            Stream.concat(iterate(pathItem.path("parameters")), iterate(node.path("parameters")))
                    .map(schemas::resolve).forEach(out::add);
            return out;
        }

        boolean dataPlane() {
            return path.startsWith("/tenants/");
        }
    }

    private List<Op> operations() {
        List<Op> ops = new ArrayList<>();
        for (Iterator<String> paths = doc.get("paths").fieldNames(); paths.hasNext(); ) {
            String path = paths.next();
            JsonNode item = doc.get("paths").get(path);
            for (String verb : VERBS) {
                if (item.has(verb)) {
                    ops.add(new Op(path, verb, item.get(verb), item));
                }
            }
        }
        return ops;
    }

    @Test
    void served_document_equals_the_repository_contract() throws Exception {
        JsonNode served = JSON.readTree(given().queryParam("format", "json").get("/q/openapi")
                .then().statusCode(200).extract().asString());
        assertEquals(doc.get("paths"), served.get("paths"));
        assertEquals(doc.get("components"), served.get("components"));
    }

    @Test
    void every_resource_route_is_in_the_contract_and_nothing_else() {
        TreeSet<String> documented = operations().stream().map(o -> o.verb().toUpperCase() + " " + o.path())
                .collect(Collectors.toCollection(TreeSet::new));
        TreeSet<String> implemented = new TreeSet<>();
        for (Class<?> resource : RESOURCES) {
            for (Method m : resource.getDeclaredMethods()) {
                String verb = verb(m);
                if (verb != null) {
                    implemented.add(verb + " " + route(resource, m));
                }
            }
        }
        assertEquals(implemented, documented);
    }

    @Test
    void path_parameters_are_exactly_those_of_the_resource_method() {
        for (Class<?> resource : RESOURCES) {
            for (Method m : resource.getDeclaredMethods()) {
                if (verb(m) == null) {
                    continue;
                }
                Op op = operations().stream().filter(o -> o.path().equals(route(resource, m))
                        && o.verb().equalsIgnoreCase(verb(m))).findFirst().orElseThrow();
                Set<String> implemented = Arrays.stream(m.getParameters()).filter(p -> p.isAnnotationPresent(PathParam.class))
                        .map(p -> p.getAnnotation(PathParam.class).value()).collect(Collectors.toCollection(TreeSet::new));
                Set<String> documented = op.parameters(schemas).stream().filter(p -> p.get("in").asText().equals("path"))
                        .peek(p -> assertTrue(p.path("required").asBoolean(), op.id() + " " + p))
                        .map(p -> p.get("name").asText()).collect(Collectors.toCollection(TreeSet::new));
                assertEquals(implemented, documented, op.id());
            }
        }
    }

    /** The identifier schemas accept exactly the values {@link Identifiers} accepts (SPEC section 3). */
    @Test
    void identifier_schemas_accept_exactly_what_the_identifier_rules_accept() {
        JsonNode name = component("Name");
        JsonNode topic = component("Topic");
        JsonNode publishTopic = component("PublishTopic");
        JsonNode key = component("Key");
        int publishMax = Identifiers.MAX_LENGTH - ConfigProvider.getConfig().getValue("mq.dlq-suffix", String.class).length();
        List<String> names = List.of("", "a", "A", "0", "a.b_c:d-e", "-a", ".a", "_a", "a b", "a/b", "a\u0000", "é", "a\n",
                "a".repeat(publishMax), "a".repeat(publishMax + 1), "a".repeat(255), "a".repeat(256));
        for (String v : names) {
            boolean rule = Identifiers.nameProblem(v) == null;
            assertEquals(rule, schemas.accepts(name, TextNode.valueOf(v)), "Name " + v);
            assertEquals(rule, schemas.accepts(topic, TextNode.valueOf(v)), "Topic " + v);
            assertEquals(rule && v.length() <= publishMax, schemas.accepts(publishTopic, TextNode.valueOf(v)),
                    "PublishTopic " + v);
        }
        String emoji = "\uD83D\uDE00";
        List<String> keys = List.of("", "k", " ", "k ", " k", "k\t", "k\n", "a\u0000b", "\u0000", "ü", emoji,
                emoji.repeat(255), emoji.repeat(256), "a".repeat(255), "a".repeat(256), "a".repeat(254) + " ",
                "/%?# ok");
        for (String v : keys) {
            assertEquals(Identifiers.keyProblem(v) == null, schemas.accepts(key, TextNode.valueOf(v)),
                    "Key " + JSON.valueToTree(v));
        }
        // Every identifier in a request, body or parameter, uses these schemas.
        for (Op op : operations()) {
            for (JsonNode p : op.parameters(schemas)) {
                String n = p.get("name").asText();
                if (Set.of("tenant", "topic", "consumerGroup", "partitionKey", "id").contains(n)) {
                    String ref = p.get("schema").path("$ref").asText();
                    assertTrue(ref.matches("#/components/schemas/(Name|Topic|PublishTopic|Key)"), op.id() + " " + n);
                }
            }
        }
        assertEquals("#/components/schemas/Key",
                component("OutgoingMessage").get("properties").get("partitionKey").get("$ref").asText());
        assertEquals("#/components/schemas/Key", component("OutgoingMessage").get("properties").get("id").get("$ref").asText());
    }

    /** Request schemas name exactly the DTO's fields, forbid others, and are never inline objects. */
    @Test
    void request_schemas_name_exactly_the_fields_of_the_request_dtos() {
        for (Map.Entry<String, Class<?>> e : REQUEST_DTOS.entrySet()) {
            JsonNode schema = component(e.getKey());
            assertEquals(fields(e.getValue()), names(schema.get("properties")), e.getKey());
            assertFalse(schema.get("additionalProperties").asBoolean(true), e.getKey() + " must forbid other fields");
        }
        for (Op op : operations()) {
            JsonNode body = op.node().path("requestBody").path("content").path("application/json").path("schema");
            if (!body.isMissingNode()) {
                String name = body.get("$ref").asText().replace("#/components/schemas/", "");
                assertTrue(REQUEST_DTOS.containsKey(name), op.id() + " body " + name);
            }
        }
    }

    /**
     * Response schemas name exactly the DTO's fields with matching types; a field the DTO always
     * writes (a primitive, a list) is required; one it may write as null is nullable or optional.
     */
    @Test
    void response_schemas_match_the_response_dtos_field_by_field() {
        for (Map.Entry<String, Class<?>> e : RESPONSE_DTOS.entrySet()) {
            JsonNode schema = component(e.getKey());
            assertEquals(fields(e.getValue()), names(schema.get("properties")), e.getKey());
            Set<String> required = new TreeSet<>();
            schema.path("required").forEach(r -> required.add(r.asText()));
            for (RecordComponent c : e.getValue().getRecordComponents()) {
                String at = e.getKey() + "." + c.getName();
                JsonNode p = schemas.resolve(schema.get("properties").get(c.getName()));
                Class<?> t = c.getType();
                if (c.getAccessor().isAnnotationPresent(JsonRawValue.class) || c.isAnnotationPresent(JsonRawValue.class)
                        || t == Utf8Json.class) { // written raw too, from its bytes (Utf8JsonSerializer)
                    assertTrue(!p.has("type") || p.get("type").asText().equals("object"), at + " raw JSON");
                    continue;
                }
                String expected = t == long.class || t == Long.class || t == int.class || t == Integer.class ? "integer"
                        : t == boolean.class || t == Boolean.class ? "boolean"
                        : t == String.class || t == Instant.class ? "string"
                        : List.class.isAssignableFrom(t) ? "array" : "object";
                assertEquals(expected, p.path("type").asText(), at);
                if (t == long.class || t == Long.class) {
                    assertEquals("int64", p.path("format").asText(), at);
                }
                if (t == Instant.class) {
                    assertEquals("date-time", p.path("format").asText(), at);
                }
                boolean writtenWhenNull = !omitsNulls(e.getValue()); // a null list is left out under NON_NULL
                if (t.isPrimitive() || (List.class.isAssignableFrom(t) && e.getValue() != Problem.class && writtenWhenNull)) {
                    assertTrue(required.contains(c.getName()), at + " is always written, so required");
                }
                if (t == Integer.class && required.contains(c.getName())) {
                    assertTrue(p.path("nullable").asBoolean(), at + " may be null, so nullable or optional");
                }
            }
        }
    }

    /** Whether the DTO leaves null fields out ({@code @JsonInclude(NON_NULL)}): then a list may be absent. */
    private static boolean omitsNulls(Class<?> dto) {
        com.fasterxml.jackson.annotation.JsonInclude include =
                dto.getAnnotation(com.fasterxml.jackson.annotation.JsonInclude.class);
        return include != null && include.value() == com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL;
    }

    @Test
    void status_enums_are_the_servers() {
        assertEquals(Arrays.stream(ConsumeService.ReceiptStatus.values()).map(Enum::name).collect(Collectors.toSet()),
                texts(component("ReceiptStatus").get("enum")));
        Set<String> states = Arrays.stream(DeliveryState.values()).map(Enum::name).collect(Collectors.toCollection(TreeSet::new));
        states.add("NOT_DELIVERED");
        assertEquals(states, texts(component("MessageState").get("enum")));
    }

    /** Every operation has an example request (parameters and body) and an example answer, and each conforms. */
    @Test
    void every_operation_has_examples_that_conform_to_its_schemas() {
        for (Op op : operations()) {
            for (JsonNode p : op.parameters(schemas)) {
                assertTrue(p.has("example") || !p.path("required").asBoolean(), op.id() + " parameter " + p.get("name"));
                if (p.has("example")) {
                    assertEquals(List.of(), schemas.errors(p.get("schema"), p.get("example")), op.id() + " " + p.get("name"));
                }
            }
            JsonNode body = op.node().path("requestBody").path("content").path("application/json").path("schema");
            if (!body.isMissingNode()) {
                JsonNode example = schemas.resolve(body).get("example");
                assertNotNull(example, op.id() + " request example");
                assertEquals(List.of(), schemas.errors(body, example), op.id() + " request example");
            }
            boolean success = false;
            for (Iterator<Map.Entry<String, JsonNode>> it = op.node().get("responses").fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> r = it.next();
                for (JsonNode media : schemas.resolve(r.getValue()).path("content")) {
                    if (media.has("example")) {
                        assertEquals(List.of(), schemas.errors(media.get("schema"), media.get("example")),
                                op.id() + " " + r.getKey() + " example");
                        success |= r.getKey().startsWith("2");
                    }
                }
            }
            assertTrue(success, op.id() + " has no example answer");
        }
    }

    /**
     * The operation's example request gets its documented 2xx (or a documented 404/409 where the
     * example names a message this database does not hold), and every answer conforms to the
     * schema documented for its status.
     */
    @Test
    void example_requests_get_a_documented_status_and_a_conforming_answer() {
        for (Op op : operations()) {
            Response r = send(op, exampleParams(op), exampleBody(op), true, "application/json");
            assertConforms(op, r);
            if (op.id().startsWith("admin") && (op.path().startsWith("/admin/messages")
                    || Set.of("adminDeleteTopic", "adminDeleteConsumerGroup").contains(op.id()))) {
                assertTrue(Set.of(200, 404, 409).contains(r.statusCode()), op.id() + " " + r.asString());
            } else {
                assertEquals(successStatus(op), r.statusCode(), op.id() + " " + r.asString());
            }
        }
    }

    /** Each documented query parameter is checked by the server as its schema says, and a required one must be given. */
    @Test
    void the_server_rejects_each_parameter_value_its_schema_rejects() {
        for (Op op : operations()) {
            for (JsonNode p : op.parameters(schemas)) {
                String name = p.get("name").asText();
                if (op.dataPlane() && name.equals("tenant")) {
                    continue; // a pattern-conforming tenant that is not served is 403, covered below
                }
                if (acceptsEveryString(schemas.resolve(p.get("schema")))) {
                    continue; // no value to break: traceparent and tracestate, ignored when invalid (docs/api.md, "Trace context")
                }
                Map<String, String> params = exampleParams(op);
                params.put(p.get("in").asText() + "." + name, breaking(schemas.resolve(p.get("schema"))));
                Response r = send(op, params, exampleBody(op), true, "application/json");
                assertEquals(400, r.statusCode(), op.id() + " " + name + " " + r.asString());
                assertTrue(r.jsonPath().getList("errors.field").contains(name), op.id() + " " + name + " " + r.asString());
                assertConforms(op, r);
                JsonNode ps = schemas.resolve(p.get("schema"));
                for (String bound : List.of("minimum", "maximum")) {
                    if (ps.has(bound)) {
                        Map<String, String> at = exampleParams(op);
                        at.put(p.get("in").asText() + "." + name, ps.get(bound).asText());
                        Response ok = send(op, at, exampleBody(op), true, "application/json");
                        assertEquals(successStatus(op), ok.statusCode(), op.id() + " " + name + " at its " + bound);
                    }
                }
                if (p.path("in").asText().equals("query") && p.path("required").asBoolean()) {
                    Map<String, String> without = exampleParams(op);
                    without.remove("query." + name);
                    Response missing = send(op, without, null, true, "application/json");
                    assertEquals(400, missing.statusCode(), op.id() + " without " + name);
                    assertTrue(missing.jsonPath().getList("errors.field").contains(name), op.id() + " without " + name);
                }
            }
        }
    }

    /**
     * Request bodies: an explicit null is 400 naming the field unless the schema says nullable;
     * an integer one past its documented range is 400 naming it; an undocumented field is 400.
     */
    @Test
    void the_server_rejects_each_body_field_value_its_schema_rejects() {
        for (Op op : operations()) {
            JsonNode bodySchema = op.node().path("requestBody").path("content").path("application/json").path("schema");
            if (bodySchema.isMissingNode()) {
                continue;
            }
            JsonNode schema = schemas.resolve(bodySchema);
            ObjectNode example = (ObjectNode) exampleBody(op);
            List<Map.Entry<String, JsonNode>> probes = new ArrayList<>();
            for (Iterator<Map.Entry<String, JsonNode>> it = schema.get("properties").fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> f = it.next();
                probes.add(Map.entry(f.getKey(), f.getValue()));
            }
            for (Map.Entry<String, JsonNode> f : probes) {
                mutateAndCheck(op, example, f.getKey(), schemas.resolve(f.getValue()), f.getKey(), null);
            }
            if (op.id().equals("publish")) {
                JsonNode message = component("OutgoingMessage");
                for (Iterator<Map.Entry<String, JsonNode>> it = message.get("properties").fields(); it.hasNext(); ) {
                    Map.Entry<String, JsonNode> f = it.next();
                    mutateAndCheck(op, example, f.getKey(), schemas.resolve(f.getValue()), "messages[0]." + f.getKey(),
                            "messages");
                }
            }
            ObjectNode extra = example.deepCopy();
            extra.put("undocumented", 1);
            Response r = send(op, exampleParams(op), extra, true, "application/json");
            assertEquals(400, r.statusCode(), op.id() + " undocumented field");
            assertEquals("undocumented", r.jsonPath().getString("errors[0].field"), op.id());
        }
    }

    private void mutateAndCheck(Op op, ObjectNode example, String field, JsonNode schema, String errorField, String inList) {
        List<JsonNode> rejected = new ArrayList<>();
        if (!schemas.nullable(schema)) {
            rejected.add(JsonNodeFactory.instance.nullNode());
        }
        if (schema.has("minimum")) {
            rejected.add(JsonNodeFactory.instance.numberNode(schema.get("minimum").asLong() - 1));
        }
        if (schema.has("maximum")) {
            rejected.add(JsonNodeFactory.instance.numberNode(schema.get("maximum").asLong() + 1));
        }
        for (JsonNode bad : rejected) {
            ObjectNode body = example.deepCopy();
            ObjectNode target = inList == null ? body : (ObjectNode) body.get(inList).get(0);
            target.set(field, bad);
            assertFalse(schemas.accepts(op.node().get("requestBody").get("content").get("application/json").get("schema"),
                    body), op.id() + " " + errorField + "=" + bad + " should break the schema");
            Response r = send(op, exampleParams(op), body, true, "application/json");
            assertEquals(400, r.statusCode(), op.id() + " " + errorField + "=" + bad + ": " + r.asString());
            assertEquals(errorField, r.jsonPath().getString("errors[0].field"), op.id() + " " + errorField + "=" + bad);
            assertConforms(op, r);
        }
        for (String bound : List.of("minimum", "maximum")) {
            if (!schema.has(bound)) {
                continue;
            }
            if (field.equals("waitSeconds") && bound.equals("maximum")) {
                // Accepting it would hold the test for the whole long poll; the limit itself is compared.
                assertEquals(dev.tenantmq.model.ConsumeLimits.MAX_WAIT_SECONDS, schema.get(bound).asInt(), "waitSeconds maximum");
                continue;
            }
            ObjectNode body = example.deepCopy();
            ObjectNode target = inList == null ? body : (ObjectNode) body.get(inList).get(0);
            target.set(field, schema.get(bound));
            // The rule across two fields that a schema cannot state (openapi.yaml, SettingOverrides): a nack
            // backoff base at most its cap, set in the same body or inherited. The other one goes to its far bound.
            if (field.equals("nackBackoffBaseMillis")) {
                target.put("nackBackoffCapMillis", dev.tenantmq.model.SettingOverrides.MAX_BACKOFF_MILLIS);
            } else if (field.equals("nackBackoffCapMillis")) {
                target.put("nackBackoffBaseMillis", 0L);
            }
            Response r = send(op, exampleParams(op), body, true, "application/json");
            assertEquals(successStatus(op), r.statusCode(), op.id() + " " + errorField + " at its " + bound + ": "
                    + r.asString());
        }
        if (schemas.nullable(schema)) {
            ObjectNode body = example.deepCopy();
            ObjectNode target = inList == null ? body : (ObjectNode) body.get(inList).get(0);
            target.putNull(field);
            Response r = send(op, exampleParams(op), body, true, "application/json");
            assertEquals(successStatus(op), r.statusCode(), op.id() + " nullable " + errorField + ": " + r.asString());
        }
    }

    /**
     * Every operation that takes a body documents what the body reader answers before any resource
     * runs, for every path alike (docs/security.md, "Slow clients"; docs/api.md, "Errors"): 408 for
     * a body not read in time, 413 for one over the size limit, 429 for too many bodies at once
     * from one client or tenant (publish's 429 is its quota's response, which names both causes).
     */
    @Test
    void every_operation_that_takes_a_body_documents_the_body_readers_answers() {
        List<String> missing = new ArrayList<>();
        for (Op op : operations()) {
            if (op.node().has("requestBody")) {
                for (String status : List.of("408", "413", "429")) {
                    if (!op.node().path("responses").has(status)) {
                        missing.add(op.id() + " " + status);
                    }
                }
            }
        }
        assertEquals(List.of(), missing, "operations with a body that do not document a body reader's answer");
    }

    /**
     * Error statuses the server answers are the documented ones, with problem+json of the Problem
     * schema: 400, 401 (admin without token), 403 (tenant not served), 405 with the Allow header
     * naming exactly the documented methods of the path, 406 and 415.
     */
    @Test
    void error_statuses_the_server_answers_are_documented_per_operation() {
        for (Op op : operations()) {
            Map<String, String> params = exampleParams(op);
            if (op.dataPlane()) {
                params.put("path.tenant", "not-served-" + TestIds.topic());
                assertDocumented(op, send(op, params, exampleBody(op), true, "application/json"), 403);
                if (op.node().has("requestBody")) {
                    Response r = withParams(op, exampleParams(op), given().contentType("text/plain").body("x"), true)
                            .request(op.verb(), uri(op, exampleParams(op)));
                    assertDocumented(op, r, 415);
                }
            } else {
                assertDocumented(op, send(op, params, null, false, "application/json"), 401);
            }
            assertDocumented(op, send(op, exampleParams(op), exampleBody(op), true, "text/plain"), 406);
            String unsupported = Stream.of("put", "patch", "post", "get").filter(v -> !op.pathItem().has(v)).findFirst()
                    .orElseThrow();
            Response r = withParams(op, exampleParams(op), given(), true).request(unsupported, uri(op, exampleParams(op)));
            assertDocumented(op, r, 405);
            Set<String> allowed = new TreeSet<>();
            VERBS.stream().filter(v -> op.pathItem().has(v)).forEach(v -> allowed.add(v.toUpperCase()));
            if (allowed.contains("GET")) {
                allowed.add("HEAD");
            }
            allowed.add("OPTIONS");
            assertNotNull(r.getHeader("Allow"), op.id() + " 405 without Allow");
            assertEquals(allowed, Arrays.stream(r.getHeader("Allow").split(",")).map(String::trim)
                    .collect(Collectors.toCollection(TreeSet::new)), op.id() + " Allow");
        }
    }

    /**
     * Every operation states its security (docs/security.md): the data plane a bearer JWT or nothing (the
     * empty requirement of mq.auth.mode=none on loopback), the admin API the static token or a JWT;
     * and each documents 401 and 403 through the shared problem+json responses.
     */
    @Test
    void security_is_stated_per_operation() {
        JsonNode schemes = doc.get("components").get("securitySchemes");
        assertEquals("JWT", schemes.get("bearerJwt").get("bearerFormat").asText());
        assertEquals("bearer", schemes.get("adminToken").get("scheme").asText());
        for (Op op : operations()) {
            JsonNode security = op.node().get("security");
            assertNotNull(security, op.id());
            assertEquals(2, security.size(), op.id());
            if (op.dataPlane()) {
                assertTrue(security.get(0).has("bearerJwt"), op.id());
                assertEquals(0, security.get(1).size(), op.id() + ": mq.auth.mode=none needs no token");
            } else {
                assertTrue(security.get(0).has("adminToken"), op.id());
                assertTrue(security.get(1).has("bearerJwt"), op.id());
            }
            assertEquals("#/components/responses/Unauthorized",
                    op.node().get("responses").path("401").path("$ref").asText(), op.id() + " 401");
            assertEquals(op.dataPlane() ? "#/components/responses/Forbidden" : "#/components/responses/AdminForbidden",
                    op.node().get("responses").path("403").path("$ref").asText(), op.id() + " 403");
        }
        assertTrue(doc.get("info").get("description").asText().contains("Who is trusted"));
    }

    private void assertDocumented(Op op, Response r, int status) {
        assertEquals(status, r.statusCode(), op.id() + ": " + r.asString());
        assertConforms(op, r);
    }

    /** The status is documented for the operation, and the answer has the documented media type and schema. */
    private void assertConforms(Op op, Response r) {
        String status = String.valueOf(r.statusCode());
        JsonNode response = schemas.resolve(op.node().get("responses").get(status));
        assertNotNull(response, op.id() + " answered an undocumented " + status + ": " + r.asString());
        JsonNode content = response.path("content");
        if (content.isMissingNode() || r.asString().isEmpty()) {
            return;
        }
        String type = r.contentType().split(";")[0].trim();
        assertTrue(content.has(type), op.id() + " " + status + " answered " + type);
        try {
            assertEquals(List.of(), schemas.errors(content.get(type).get("schema"), JSON.readTree(r.asString())),
                    op.id() + " " + status + ": " + r.asString());
        } catch (java.io.IOException e) {
            throw new AssertionError(op.id() + " " + status + " is not JSON: " + r.asString(), e);
        }
        JsonNode headers = response.path("headers");
        for (Iterator<Map.Entry<String, JsonNode>> it = headers.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> h = it.next();
            if (h.getValue().path("required").asBoolean()) {
                assertNotNull(r.getHeader(h.getKey()), op.id() + " " + status + " without " + h.getKey());
            }
        }
    }

    private int successStatus(Op op) {
        List<Integer> ok = new ArrayList<>();
        op.node().get("responses").fieldNames().forEachRemaining(s -> {
            if (s.startsWith("2")) {
                ok.add(Integer.parseInt(s));
            }
        });
        assertEquals(1, ok.size(), op.id() + " documents one success status");
        return ok.get(0);
    }

    /** The example of every parameter, keyed "in.name"; the data plane gets a served tenant and a fresh topic. */
    private Map<String, String> exampleParams(Op op) {
        Map<String, String> out = new LinkedHashMap<>();
        for (JsonNode p : op.parameters(schemas)) {
            if (p.has("example")) {
                out.put(p.get("in").asText() + "." + p.get("name").asText(), p.get("example").asText());
            }
        }
        if (op.dataPlane()) {
            out.put("path.tenant", TestIds.tenant());
            out.put("path.topic", TestIds.topic());
        }
        if (Set.of("adminTopics", "adminOffsets", "adminConsumerGroups", "adminLeases", "adminSubscribers").contains(op.id())) {
            out.remove("query.allTenants"); // exactly one of tenant or allTenants=true
        }
        if (op.id().equals("adminResetOffsets")) {
            out.put("query.tenant", resetTenant()); // where the example's group has a committed offset
        }
        return out;
    }

    /** A served tenant where group billing consumed partition order-42 of topic orders (the reset example's names). */
    private static String resetTenant;

    private static synchronized String resetTenant() {
        if (resetTenant == null) {
            String tenant = TestIds.tenant();
            Api.publishOk(tenant, "orders", List.of(Api.msg("order-42", "evt-1", 1)));
            assertEquals(1, Api.fetchOk(tenant, "orders", "billing", Fetch.upTo(1)).size(), "billing leased order-42");
            resetTenant = tenant;
        }
        return resetTenant;
    }

    /** The request body's example; a fetch does not wait. */
    private JsonNode exampleBody(Op op) {
        JsonNode schema = op.node().path("requestBody").path("content").path("application/json").path("schema");
        if (schema.isMissingNode()) {
            return null;
        }
        JsonNode example = schemas.resolve(schema).get("example").deepCopy();
        if (example.has("waitSeconds")) {
            ((ObjectNode) example).put("waitSeconds", 0);
        }
        return example;
    }

    /** A string schema without a constraint: every value conforms, so none can be rejected. */
    private static boolean acceptsEveryString(JsonNode schema) {
        return schema.path("type").asText().equals("string") && schema.size() == 1;
    }

    /** A value the schema rejects and the rules of SPEC section 3 reject too. */
    private String breaking(JsonNode schema) {
        String candidate = switch (schema.path("type").asText()) {
            case "integer" -> String.valueOf(schema.path("maximum").asLong(Integer.MAX_VALUE) + 1);
            case "boolean" -> "maybe";
            default -> schema.has("enum") ? "bogus" : schema.has("pattern") && schema.get("pattern").asText().contains("A-Z")
                    ? "-starts-with-dash" : "ends with a space ";
        };
        assertFalse(schemas.accepts(schema, schema.path("type").asText().equals("string") ? TextNode.valueOf(candidate)
                : JsonNodeFactory.instance.textNode(candidate)) && schema.path("type").asText().equals("string"));
        return candidate;
    }

    private Response send(Op op, Map<String, String> params, JsonNode body, boolean admin, String accept) {
        RequestSpecification spec = given().accept(accept);
        if (body != null) {
            spec = spec.contentType("application/json").body(body.toString());
        }
        return withParams(op, params, spec, admin).request(op.verb(), uri(op, params));
    }

    private RequestSpecification withParams(Op op, Map<String, String> params, RequestSpecification spec, boolean admin) {
        if (admin && !op.dataPlane()) {
            spec = spec.header("Authorization", "Bearer " + ADMIN_TOKEN);
        }
        for (Map.Entry<String, String> e : params.entrySet()) {
            if (e.getKey().startsWith("query.")) {
                spec = spec.queryParam(e.getKey().substring(6), e.getValue());
            } else if (e.getKey().startsWith("header.")) {
                spec = spec.header(e.getKey().substring(7), e.getValue());
            }
        }
        return spec;
    }

    private static String uri(Op op, Map<String, String> params) {
        String uri = op.path();
        for (Map.Entry<String, String> e : params.entrySet()) {
            if (e.getKey().startsWith("path.")) {
                uri = uri.replace("{" + e.getKey().substring(5) + "}",
                        java.net.URLEncoder.encode(e.getValue(), java.nio.charset.StandardCharsets.UTF_8).replace("+", "%20"));
            }
        }
        return uri;
    }

    private JsonNode component(String name) {
        return doc.get("components").get("schemas").get(name);
    }

    private static String verb(Method m) {
        return m.isAnnotationPresent(POST.class) ? "POST" : m.isAnnotationPresent(GET.class) ? "GET"
                : m.isAnnotationPresent(PUT.class) ? "PUT" : m.isAnnotationPresent(DELETE.class) ? "DELETE" : null;
    }

    private static String route(Class<?> resource, Method m) {
        Path sub = m.getAnnotation(Path.class);
        return resource.getAnnotation(Path.class).value() + (sub == null ? "" : sub.value());
    }

    private static Set<String> fields(Class<?> record) {
        return Arrays.stream(record.getRecordComponents()).map(RecordComponent::getName)
                .collect(Collectors.toCollection(TreeSet::new));
    }

    private static Set<String> names(JsonNode properties) {
        Set<String> out = new TreeSet<>();
        properties.fieldNames().forEachRemaining(out::add);
        return out;
    }

    private static Set<String> texts(JsonNode array) {
        Set<String> out = new TreeSet<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }

    private static Stream<JsonNode> iterate(JsonNode array) {
        List<JsonNode> out = new ArrayList<>();
        array.forEach(out::add);
        return out.stream();
    }
}
