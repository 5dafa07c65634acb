package dev.tenantmq;

import static dev.tenantmq.Api.msg;
import static dev.tenantmq.Api.publishOk;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.ValidatableResponse;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Every API answer tells browsers and caches along the way not to sniff its type and not to
 * store it (docs/security.md, "Response headers"): message payloads are tenant data. The admin
 * UI's own files keep their headers (AdminUiTest).
 */
@QuarkusTest
class ResponseHeadersTest {
    private static final String ADMIN_TOKEN = "test-admin-token-0123456789";

    private final String tenant = TestIds.tenant();
    private final String topic = TestIds.topic();

    private static void neitherSniffedNorStored(ValidatableResponse response) {
        response.header("X-Content-Type-Options", equalTo("nosniff")).header("Cache-Control", equalTo("no-store"));
    }

    @Test
    void a_publish_and_a_fetch_are_neither_sniffed_nor_stored() {
        neitherSniffedNorStored(Api.publish(tenant, topic, Map.of("messages", List.of(msg("k", "1", 1))))
                .then().statusCode(201));
        neitherSniffedNorStored(Api.fetch(tenant, topic, "g", Fetch.upTo(10).waitSeconds(0).body())
                .then().statusCode(200));
    }

    @Test
    void a_problem_is_neither_sniffed_nor_stored() {
        neitherSniffedNorStored(Api.publish(tenant, topic, Map.of("messages", List.of())).then().statusCode(400)
                .contentType("application/problem+json"));
        // Answered outside the resources.
        neitherSniffedNorStored(given().get("/no-such-path").then().statusCode(404));
    }

    @Test
    void admin_calls_are_neither_sniffed_nor_stored_nor_their_refusals() {
        publishOk(tenant, topic, List.of(msg("k", "1", 1)));
        neitherSniffedNorStored(given().header("Authorization", "Bearer " + ADMIN_TOKEN).queryParam("tenant", tenant)
                .get("/admin/topics").then().statusCode(200));
        neitherSniffedNorStored(given().queryParam("tenant", tenant).get("/admin/topics").then().statusCode(401));
    }
}
