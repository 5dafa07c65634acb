package dev.tenantmq;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import jakarta.inject.Inject;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The data plane takes no query parameters (docs/api.md, "Errors"): a caller who puts a body
 * field in the query gets 400 naming it, not an answer computed from the body's defaults.
 */
@QuarkusTest
class DataPlaneQueryTest {
    @Inject
    AgroalDataSource dataSource;

    @Test
    void a_query_parameter_on_any_data_plane_call_gets_400_naming_it_and_stores_nothing() throws Exception {
        String tenant = TestIds.tenant();
        String topic = TestIds.topic();
        String base = "/tenants/" + tenant + "/topics/" + topic;
        String group = base + "/consumer-groups/g";
        Map<String, String> bodies = Map.of(
                base + "/messages", "{\"messages\":[{\"partitionKey\":\"k\",\"payload\":1}]}",
                base + "/messages/committed", "{\"partitionKeys\":[\"k\"]}",
                group + "/fetch", "{}",
                group + "/ack", "{\"receipts\":[\"x\"]}",
                group + "/nack", "{\"receipts\":[\"x\"]}",
                group + "/extend", "{\"receipts\":[\"x\"],\"visibilitySeconds\":30}");
        bodies.forEach((path, body) -> given().contentType(ContentType.JSON).body(body)
                .post(path + "?waitSeconds=99")
                .then().statusCode(400).contentType("application/problem+json")
                .body("errors[0].field", equalTo("waitSeconds"))
                .body("errors[0].message", equalTo("is not a parameter of this call: it takes no query parameters"))
                .body("detail", containsString("waitSeconds")));
        assertEquals(0, RowCount.of(dataSource, "SELECT COUNT(*) FROM queue_messages WHERE tenant = ? AND topic = ?",
                tenant, topic), "the refused publish stored nothing");
        // Without the query the same publish is accepted: the 400 above was the query's.
        given().contentType(ContentType.JSON).body(bodies.get(base + "/messages")).post(base + "/messages")
                .then().statusCode(201);
    }
}
