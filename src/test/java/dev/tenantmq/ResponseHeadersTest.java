package dev.tenantmq;

import static dev.tenantmq.Api.msg;
import static dev.tenantmq.Api.publishOk;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.config.RedirectConfig;
import io.restassured.config.RestAssuredConfig;
import io.restassured.response.ValidatableResponse;
import java.net.URL;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Every answer tells browsers and caches along the way not to sniff its type and not to store it
 * (docs/security.md, "Response headers"): message payloads are tenant data. That holds on the
 * management port too; the admin UI's answers say no-cache instead of no-store (its other
 * headers: AdminUiTest).
 */
@QuarkusTest
class ResponseHeadersTest {
    private static final String ADMIN_TOKEN = "test-admin-token-0123456789";

    /** /q/health on the management interface (a port of its own). */
    @TestHTTPResource(value = "/health", management = true)
    URL health;

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
    void the_management_ports_answers_are_neither_sniffed_nor_stored() {
        String management = health.toString().substring(0, health.toString().indexOf("/q/health"));
        neitherSniffedNorStored(given().get(management + "/q/health").then().statusCode(200));
        neitherSniffedNorStored(given().get(management + "/q/metrics").then().statusCode(200));
        neitherSniffedNorStored(given().get(management + "/q/no-such-path").then().statusCode(404));
    }

    /** The UI's shell may be kept, but is asked for again each time: a new version shows at once. */
    @Test
    void the_admin_uis_answers_are_not_sniffed_and_are_revalidated() {
        var noRedirects = RestAssuredConfig.config().redirect(RedirectConfig.redirectConfig().followRedirects(false));
        for (ValidatableResponse r : List.of(given().config(noRedirects).get("/admin/ui").then().statusCode(302),
                given().get("/admin/ui/").then().statusCode(200),
                given().get("/admin/ui/no-such-file.js").then().statusCode(404),
                given().post("/admin/ui/").then().statusCode(405))) {
            r.header("X-Content-Type-Options", equalTo("nosniff")).header("Cache-Control", equalTo("no-cache"));
        }
    }

    @Test
    void admin_calls_are_neither_sniffed_nor_stored_nor_their_refusals() {
        publishOk(tenant, topic, List.of(msg("k", "1", 1)));
        neitherSniffedNorStored(given().header("Authorization", "Bearer " + ADMIN_TOKEN).queryParam("tenant", tenant)
                .get("/admin/topics").then().statusCode(200));
        neitherSniffedNorStored(given().queryParam("tenant", tenant).get("/admin/topics").then().statusCode(401));
    }
}
