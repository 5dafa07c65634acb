package dev.tenantmq;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.startsWith;

import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * openapi.yaml declares the optional request fields non-nullable: absent means the default, an
 * explicit JSON null is 400 problem+json naming the field, and nothing is stored. Only
 * {@code payload} may be null (any JSON value, SPEC section 4). The same holds for fetch's
 * optional body: absent is all defaults, the literal {@code null} is 400.
 */
@QuarkusTest
class ExplicitNullTest {
    private final String tenant = TestIds.tenant();
    private final String topic = TestIds.topic();

    @Inject
    AgroalDataSource dataSource;

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "{\"messages\":[{\"id\":null,\"partitionKey\":\"k\",\"payload\":1}]}|messages[0].id",
            "{\"messages\":[{\"partitionKey\":\"k\",\"payload\":1,\"metadata\":null}]}|messages[0].metadata",
            "{\"messages\":[{\"partitionKey\":\"k\",\"payload\":1},{\"partitionKey\":\"k\",\"id\":null,\"payload\":2}]}|messages[1].id"})
    void an_explicit_null_id_or_metadata_is_400_naming_the_field_and_stores_nothing(String body, String field)
            throws Exception {
        given().contentType(ContentType.JSON).body(body).post("/tenants/{t}/topics/{topic}/messages", tenant, topic)
                .then().statusCode(400).contentType("application/problem+json")
                .body("type", equalTo("urn:tenant-mq:problem:invalid-request"))
                .body("errors[0].field", equalTo(field))
                .body("errors[0].message", containsString("must not be null"));
        org.junit.jupiter.api.Assertions.assertEquals(0, RowCount.of(dataSource,
                "SELECT COUNT(*) FROM queue_messages WHERE tenant = ? AND topic = ?", tenant, topic));
    }

    @Test
    void a_null_payload_is_a_value_and_is_stored() {
        given().contentType(ContentType.JSON).body("{\"messages\":[{\"partitionKey\":\"k\",\"id\":\"a\",\"payload\":null}]}")
                .post("/tenants/{t}/topics/{topic}/messages", tenant, topic)
                .then().statusCode(201).body("messages[0].id", equalTo("a"));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "fetch|{\"visibilitySeconds\":null}|visibilitySeconds",
            "fetch|{\"maxMessages\":null}|maxMessages",
            "fetch|{\"waitSeconds\":null}|waitSeconds",
            "nack|{\"receipts\":[\"x\"],\"reason\":null}|reason",
            "nack|{\"receipts\":[\"x\"],\"delaySeconds\":null}|delaySeconds"})
    void an_explicit_null_optional_consumer_field_is_400_naming_it(String operation, String body, String field) {
        given().contentType(ContentType.JSON).body(body)
                .post("/tenants/{t}/topics/{topic}/consumer-groups/g/" + operation, tenant, topic)
                .then().statusCode(400).contentType("application/problem+json")
                .body("errors[0].field", equalTo(field))
                .body("errors[0].message", containsString("must not be null"));
    }

    @Test
    void absent_optional_fields_still_take_their_defaults() {
        given().contentType(ContentType.JSON).body("{\"receipts\":[\"x\"]}")
                .post("/tenants/{t}/topics/{topic}/consumer-groups/g/nack", tenant, topic)
                .then().statusCode(200).body("results[0].status", equalTo("INVALID"));
        given().contentType(ContentType.JSON).body("{}")
                .post("/tenants/{t}/topics/{topic}/consumer-groups/g/fetch", tenant, topic)
                .then().statusCode(200);
        given().contentType(ContentType.JSON)
                .post("/tenants/{t}/topics/{topic}/consumer-groups/g/fetch", tenant, topic)
                .then().statusCode(200);
    }

    @Test
    void a_fetch_body_of_json_null_is_400_naming_the_body() {
        given().contentType(ContentType.JSON).body("null")
                .post("/tenants/{t}/topics/{topic}/consumer-groups/g/fetch", tenant, topic)
                .then().statusCode(400).contentType("application/problem+json")
                .body("errors[0].field", equalTo("body"));
    }

    /** Valid JSON of the wrong shape is told apart from malformed JSON. */
    @Test
    void a_body_that_is_json_but_not_an_object_is_named_as_such() {
        given().contentType(ContentType.JSON).body("[]")
                .post("/tenants/{t}/topics/{topic}/consumer-groups/g/fetch", tenant, topic)
                .then().statusCode(400).contentType("application/problem+json")
                .body("errors[0].field", equalTo("body"))
                .body("errors[0].message", equalTo("must be a JSON object, not an array (see openapi.yaml)"));
        given().contentType(ContentType.JSON).body("{")
                .post("/tenants/{t}/topics/{topic}/consumer-groups/g/fetch", tenant, topic)
                .then().statusCode(400).body("errors[0].message", startsWith("is not valid JSON"));
    }
}
