package dev.tenantmq;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tenantmq.api.AdminUiRoutes;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.config.RedirectConfig;
import io.restassured.config.RestAssuredConfig;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The admin web UI (docs/operations.md, "Admin web UI"): its static shell is served on the API port without
 * a token, with a Content-Security-Policy that allows no inline script, and it keeps the
 * service's HTTP rules (404 and 405 problem+json); the admin API it calls still needs the token.
 * The browser test (scripts/ui-test.sh) drives the page itself.
 */
@QuarkusTest
class AdminUiTest {
    private static final String CSP = "Content-Security-Policy";

    @Test
    void the_page_is_served_without_a_token_as_html_with_the_csp() {
        String html = given().get("/admin/ui/").then().statusCode(200)
                .contentType(startsWith("text/html"))
                .header(CSP, equalTo(AdminUiRoutes.CSP))
                .header("X-Content-Type-Options", equalTo("nosniff"))
                .header("X-Frame-Options", equalTo("DENY"))
                .extract().asString();
        assertTrue(html.contains("<script type=\"module\" src=\"admin.js\"></script>"), html);
        // The CSP allows scripts from files of this origin only: an inline script would not run.
        assertFalse(Pattern.compile("<script(?![^>]*\\bsrc=)[^>]*>").matcher(html).find(), "inline script in " + html);
        assertFalse(html.contains(" style=\""), "inline style in the page");
        assertTrue(AdminUiRoutes.CSP.contains("script-src 'self'") && !AdminUiRoutes.CSP.contains("unsafe-inline"),
                AdminUiRoutes.CSP);
    }

    @Test
    void the_module_and_the_stylesheet_have_their_content_types_and_the_csp() {
        given().get("/admin/ui/admin.js").then().statusCode(200)
                .contentType(startsWith("text/javascript"))
                .header(CSP, equalTo(AdminUiRoutes.CSP))
                .body(containsString("Authorization"));
        given().get("/admin/ui/admin.css").then().statusCode(200)
                .contentType(startsWith("text/css"))
                .header(CSP, equalTo(AdminUiRoutes.CSP));
    }

    /** A page without an icon of its own makes the browser ask for /favicon.ico: a 404 in its console. */
    @Test
    void the_page_names_its_own_icon_and_it_is_served() {
        String html = given().get("/admin/ui/").then().statusCode(200).extract().asString();
        java.util.regex.Matcher icon = Pattern.compile("<link rel=\"icon\" href=\"([^\"/]+)\"").matcher(html);
        assertTrue(icon.find(), "no icon link in " + html);
        given().get("/admin/ui/" + icon.group(1)).then().statusCode(200)
                .contentType(startsWith("image/svg+xml"))
                .header(CSP, equalTo(AdminUiRoutes.CSP));
    }

    @Test
    void the_index_links_to_the_page() {
        given().get("/").then().statusCode(200).body("links.adminUi", equalTo(AdminUiRoutes.BASE));
    }

    @Test
    void the_path_without_a_slash_redirects_to_the_page() {
        given().config(RestAssuredConfig.config().redirect(RedirectConfig.redirectConfig().followRedirects(false)))
                .get("/admin/ui").then().statusCode(302).header("Location", equalTo(AdminUiRoutes.BASE));
    }

    @Test
    void unknown_files_and_other_methods_get_problem_json() {
        given().get("/admin/ui/no-such-file.js").then().statusCode(404)
                .contentType("application/problem+json").body("status", equalTo(404));
        given().contentType("application/json").body("{}").post("/admin/ui/").then().statusCode(405)
                .contentType("application/problem+json").header("Allow", equalTo("GET, HEAD, OPTIONS"))
                .body("status", equalTo(405));
        given().delete("/admin/ui/admin.js").then().statusCode(405)
                .contentType("application/problem+json").header("Allow", equalTo("GET, HEAD, OPTIONS"));
        given().options("/admin/ui/").then().statusCode(200).header("Allow", equalTo("GET, HEAD, OPTIONS"));
    }

    @Test
    void the_admin_api_the_page_calls_still_needs_the_token() {
        // The page is the same origin, so nothing it sends (cookies, Referer) can stand in for the token.
        given().header("Referer", "http://localhost/admin/ui/").queryParam("allTenants", "true")
                .get("/admin/topics").then().statusCode(401)
                .contentType("application/problem+json")
                .header("WWW-Authenticate", startsWith("Bearer"))
                .body("detail", not(equalTo(null)));
        given().queryParam("allTenants", "true").header("Authorization", "Bearer " + "not-the-token-0123456789")
                .get("/admin/leases").then().statusCode(401);
    }
}
