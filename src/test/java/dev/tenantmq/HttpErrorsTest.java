package dev.tenantmq;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.endsWith;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.startsWith;
import static org.hamcrest.Matchers.hasItem;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.restassured.http.ContentType;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

/**
 * Errors the HTTP layer answers before any resource runs are RFC 9457 problem+json too (SPEC
 * section 4, "Errors everywhere"), and nothing is stored by a rejected request. Oversized bodies
 * are written to a socket, because HTTP clients refuse to send them.
 */
@QuarkusTest
class HttpErrorsTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Sends no Content-Type unless told to, as REST Assured always does with a body. */
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @ConfigProperty(name = "mq.admin.token")
    String adminToken;

    @Inject
    AgroalDataSource dataSource;

    /** /q/health on the management interface (a port of its own). */
    @TestHTTPResource(value = "/health", management = true)
    URL health;

    private static final String ONE_MESSAGE = "{\"messages\":[{\"partitionKey\":\"k\",\"payload\":1}]}";

    @Test
    void a_body_of_another_content_type_gets_415_naming_application_json_and_stores_nothing() throws Exception {
        String tenant = TestIds.tenant();
        String topic = TestIds.topic();
        String path = "/tenants/" + tenant + "/topics/" + topic + "/messages";
        given().contentType("text/plain").body(ONE_MESSAGE).post(path).then().statusCode(415)
                .contentType("application/problem+json")
                .body("detail", containsString("Content-Type: application/json"));
        given().contentType(ContentType.URLENC).body(ONE_MESSAGE).post("/tenants/" + tenant + "/topics/" + topic
                + "/consumer-groups/g/fetch").then().statusCode(415)
                .body("detail", containsString("Content-Type: application/json"));
        assertEquals(0, stored(tenant, topic));
    }

    /** {@code curl -d} without {@code -H 'Content-Type: application/json'} sends a form's type. */
    @Test
    void a_body_sent_as_curl_sends_it_without_a_header_gets_415_naming_application_json() throws Exception {
        String tenant = TestIds.tenant();
        String topic = TestIds.topic();
        given().contentType("application/x-www-form-urlencoded").body(ONE_MESSAGE)
                .post("/tenants/" + tenant + "/topics/" + topic + "/messages").then().statusCode(415)
                .contentType("application/problem+json")
                .body("title", equalTo("Unsupported Media Type"))
                .body("detail", equalTo("the request body must be JSON: send it with Content-Type: application/json"));
        assertEquals(0, stored(tenant, topic));
    }

    /**
     * A body sent with no Content-Type at all ({@code curl -H 'Content-Type:'}, or a client that
     * sets none) or an empty one gets the same 415 as a body of another type, on every call that
     * takes a JSON body, and changes nothing; it was read as JSON and served (docs/api.md, "Errors").
     */
    @Test
    void a_body_without_a_content_type_gets_415_on_every_call_that_takes_one_and_changes_nothing() throws Exception {
        String tenant = TestIds.tenant();
        String topic = TestIds.topic();
        String data = "/tenants/" + tenant + "/topics/" + topic;
        String settings = "/admin/settings?tenant=" + tenant + "&topic=" + topic;
        List<List<String>> calls = jsonBodyCalls(data, settings);
        for (List<String> call : calls) {
            for (String contentType : java.util.Arrays.asList(null, "")) {
                HttpRequest.Builder request = request(call.get(1)).method(call.get(0),
                        HttpRequest.BodyPublishers.ofString(call.get(2)));
                if (contentType != null) {
                    request.header("Content-Type", contentType);
                }
                assertUnsupportedMediaType(send(request), call + " with Content-Type " + contentType);
            }
        }
        // A chunked body, whose length no header announces, is a body too.
        assertUnsupportedMediaType(send(request(data + "/messages").POST(HttpRequest.BodyPublishers.ofInputStream(
                () -> new java.io.ByteArrayInputStream(ONE_MESSAGE.getBytes(StandardCharsets.UTF_8))))), "chunked publish");
        assertEquals(0, stored(tenant, topic));
        given().header("Authorization", "Bearer " + adminToken).get(settings).then().statusCode(200)
                .body("topicOverrides.maxDeliveries", org.hamcrest.Matchers.nullValue());
    }

    /**
     * Every call that takes a JSON body, as (method, path, a valid body): the data plane's under
     * {@code data} (a topic's path) and the settings call at {@code settings}.
     */
    private static List<List<String>> jsonBodyCalls(String data, String settings) {
        return List.of(
                List.of("POST", data + "/messages", ONE_MESSAGE),
                List.of("POST", data + "/messages/committed", "{\"partitionKeys\":[\"k\"]}"),
                List.of("POST", data + "/consumer-groups/g/fetch", "{\"maxMessages\":1}"),
                List.of("POST", data + "/consumer-groups/g/ack", "{\"receipts\":[\"r\"]}"),
                List.of("POST", data + "/consumer-groups/g/nack", "{\"receipts\":[\"r\"]}"),
                List.of("POST", data + "/consumer-groups/g/extend", "{\"receipts\":[\"r\"],\"visibilitySeconds\":5}"),
                List.of("PUT", settings, "{\"maxDeliveries\":3}"));
    }

    /**
     * Content-Type is a singleton field (RFC 9110, section 8.3), and which of two a server takes
     * differs between servers: two of them get 415 naming the header on every call that takes a
     * JSON body, also two identical ones, as two traceparent headers are invalid whatever they say
     * (docs/api.md, "Errors"). Nothing changes: a fetch with both leased a batch.
     */
    @Test
    void two_content_type_headers_get_415_naming_the_header_on_every_call_that_takes_a_body_and_change_nothing()
            throws Exception {
        String tenant = TestIds.tenant();
        String topic = TestIds.topic();
        String data = "/tenants/" + tenant + "/topics/" + topic;
        String settings = "/admin/settings?tenant=" + tenant + "&topic=" + topic;
        given().contentType(ContentType.JSON).body(ONE_MESSAGE).post(data + "/messages").then().statusCode(201);
        List<List<String>> calls = jsonBodyCalls(data, settings);
        List<List<String>> pairs = List.of(List.of("application/json", "text/plain"),
                List.of("text/plain", "application/json"), List.of("application/json", "application/json"));
        for (List<String> call : calls) {
            for (List<String> pair : pairs) {
                HttpResponse<String> r = send(request(call.get(1)).method(call.get(0),
                        HttpRequest.BodyPublishers.ofString(call.get(2)))
                        .header("Content-Type", pair.get(0)).header("Content-Type", pair.get(1)));
                String what = call + " with Content-Type " + pair;
                assertEquals(415, r.statusCode(), what + ": " + r.body());
                assertEquals("application/problem+json", r.headers().firstValue("Content-Type").orElse(""), what);
                assertEquals("the request has 2 Content-Type headers (" + String.join(", ", pair) + "): send one,"
                        + " Content-Type: application/json", JSON.readTree(r.body()).get("detail").asText(), what);
            }
        }
        // Without a body too: the headers are there, and say two things.
        HttpResponse<String> bodiless = send(request(data + "/consumer-groups/g/fetch")
                .POST(HttpRequest.BodyPublishers.noBody())
                .header("Content-Type", "application/json").header("Content-Type", "application/json"));
        assertEquals(415, bodiless.statusCode(), bodiless.body());
        assertEquals(1, stored(tenant, topic));
        given().header("Authorization", "Bearer " + adminToken).get(settings).then().statusCode(200)
                .body("topicOverrides.maxDeliveries", org.hamcrest.Matchers.nullValue());
        // No fetch leased the message: the group's first delivery of it is its first attempt.
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(20)).until(() -> {
            JsonNode fetched = JSON.readTree(given().contentType(ContentType.JSON).body("{\"maxMessages\":1}")
                    .post(data + "/consumer-groups/g/fetch").then().statusCode(200).extract().asString());
            return fetched.get("messages").size() == 1
                    && fetched.get("messages").get(0).get("deliveryAttempt").asInt() == 1;
        });
    }

    /**
     * Calls that take no body need no Content-Type: a fetch without a body (its defaults), and the
     * admin calls named by query parameters alone, with no body or an empty one (as the CLI sends them).
     */
    @Test
    void calls_without_a_body_need_no_content_type() throws Exception {
        String tenant = TestIds.tenant();
        String topic = TestIds.topic();
        String data = "/tenants/" + tenant + "/topics/" + topic;
        given().contentType(ContentType.JSON).body(ONE_MESSAGE).post(data + "/messages").then().statusCode(201);
        // No body is a fetch with the defaults, which waits for nothing: again until the group's lease is taken.
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(20)).until(() -> {
            HttpResponse<String> fetched = send(request(data + "/consumer-groups/g/fetch")
                    .POST(HttpRequest.BodyPublishers.noBody()));
            assertEquals(200, fetched.statusCode(), fetched.body());
            return JSON.readTree(fetched.body()).get("messages").size() == 1;
        });
        String reset = "/admin/consumer-groups/reset-offsets?tenant=" + tenant + "&topic=" + topic
                + "&consumerGroup=g&to=earliest";
        for (HttpRequest.BodyPublisher empty : List.of(HttpRequest.BodyPublishers.noBody(),
                HttpRequest.BodyPublishers.ofString(""))) {
            HttpResponse<String> r = send(request(reset).POST(empty));
            assertEquals(200, r.statusCode(), r.body());
        }
        HttpResponse<String> requeue = send(request("/admin/messages/requeue?tenant=" + tenant + "&topic=" + topic
                + ".dlq&partitionKey=k&id=none").POST(HttpRequest.BodyPublishers.noBody()));
        assertEquals(404, requeue.statusCode(), requeue.body()); // no such dead letter: past the media type
        HttpResponse<String> cleared = send(request("/admin/settings?tenant=" + tenant + "&topic=" + topic).DELETE());
        assertEquals(200, cleared.statusCode(), cleared.body());
    }

    private static void assertUnsupportedMediaType(HttpResponse<String> r, String what) throws IOException {
        assertEquals(415, r.statusCode(), what + ": " + r.body());
        assertEquals("application/problem+json", r.headers().firstValue("Content-Type").orElse(""), what);
        JsonNode problem = JSON.readTree(r.body());
        assertEquals("Unsupported Media Type", problem.get("title").asText(), what);
        assertEquals("the request body must be JSON: send it with Content-Type: application/json",
                problem.get("detail").asText(), what);
    }

    /** A request with the admin token (which the data plane ignores) and no Content-Type unless one is added. */
    private HttpRequest.Builder request(String pathAndQuery) {
        return HttpRequest.newBuilder(URI.create("http://localhost:" + io.restassured.RestAssured.port + pathAndQuery))
                .timeout(java.time.Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + adminToken);
    }

    private static HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The commonest first mistake: one message posted as the body, without {"messages": [...]}. */
    @Test
    void a_publish_of_a_bare_message_says_what_a_publish_body_is() throws Exception {
        String tenant = TestIds.tenant();
        String topic = TestIds.topic();
        String path = "/tenants/" + tenant + "/topics/" + topic + "/messages";
        given().contentType(ContentType.JSON).body("{\"partitionKey\":\"k\",\"payload\":{\"a\":1}}").post(path)
                .then().statusCode(400).contentType("application/problem+json")
                .body("errors[0].field", equalTo("partitionKey"))
                .body("errors[0].message", containsString("a publish body is {\"messages\": [...]}"))
                .body("detail", containsString("a publish body is {\"messages\": [...]}"));
        given().contentType(ContentType.JSON).body("[{\"partitionKey\":\"k\",\"payload\":1}]").post(path)
                .then().statusCode(400).body("errors[0].field", equalTo("body"))
                .body("detail", containsString("a publish body is {\"messages\": [...]}"));
        // An unknown field of a fetch keeps its short answer: no publish shape there.
        given().contentType(ContentType.JSON).body("{\"partitionKey\":\"k\"}")
                .post("/tenants/" + tenant + "/topics/" + topic + "/consumer-groups/g/fetch")
                .then().statusCode(400).body("errors[0].message", equalTo("is not a known field"));
        assertEquals(0, stored(tenant, topic));
    }

    /** The detail names the management port (once bound, quarkus.management.port answers the port it listens on). */
    @Test
    void health_and_metrics_on_the_api_port_get_a_404_that_names_the_management_port() {
        int configured = org.eclipse.microprofile.config.ConfigProvider.getConfig()
                .getValue("quarkus.management.port", Integer.class);
        for (String path : List.of("/q/health", "/q/health/ready", "/q/metrics")) {
            given().get(path).then().statusCode(404).contentType("application/problem+json")
                    .body("status", equalTo(404))
                    .body("detail", startsWith(path + " is served on the management port " + configured
                            + ", not the API port: http://"))
                    .body("detail", endsWith(":" + configured + path));
        }
        assertEquals(health.getPort(), configured, "the port named is the one health is served on");
        given().get(health).then().statusCode(200);
    }

    /** A 405's detail names the methods, as its Allow header does (RFC 9110 section 15.5.6). */
    @Test
    void a_405_names_the_allowed_methods_in_its_detail() {
        given().get("/tenants/it-00/topics/t/messages").then().statusCode(405).contentType("application/problem+json")
                .body("detail", equalTo("GET is not allowed on this path; it allows POST, OPTIONS"));
        given().put("/admin/topics").then().statusCode(405)
                .body("detail", equalTo("PUT is not allowed on this path; it allows GET, HEAD, DELETE, OPTIONS"));
        given().post("/").then().statusCode(405)
                .body("detail", equalTo("POST is not allowed on this path; it allows GET, HEAD, OPTIONS"));
        // The admin UI's files, answered by a route of their own.
        given().post("/admin/ui/index.html").then().statusCode(405).contentType("application/problem+json")
                .body("detail", equalTo("POST is not allowed on this path; it allows GET, HEAD, OPTIONS"));
        given().delete("/admin/ui").then().statusCode(405)
                .body("detail", equalTo("DELETE is not allowed on this path; it allows GET, HEAD, OPTIONS"));
    }

    /** Parser limits and JSON rules in plain words, never the parser's own switch or limit names. */
    @Test
    void json_the_parser_refuses_is_named_in_plain_words() throws Exception {
        String tenant = TestIds.tenant();
        String topic = TestIds.topic();
        String path = "/tenants/" + tenant + "/topics/" + topic + "/messages";
        List<List<String>> cases = List.of(
                List.of("012", "numbers may not have leading zeros"),
                List.of("NaN", "NaN is not a JSON number"),
                List.of("+1", "numbers may not start with a plus sign"),
                List.of("1".repeat(1001), "a number longer than 1000 digits"),
                List.of("[".repeat(1001) + "]".repeat(1001), "nested deeper than 1000 levels"),
                List.of("1 /* c */", "comments are not allowed in JSON"));
        for (List<String> c : cases) {
            String body = "{\"messages\":[{\"partitionKey\":\"k\",\"payload\":" + c.get(0) + "}]}";
            given().contentType(ContentType.JSON).body(body).post(path).then().statusCode(400)
                    .contentType("application/problem+json")
                    .body("detail", containsString(c.get(1)))
                    .body("detail", not(containsString("JsonReadFeature")))
                    .body("detail", not(containsString("StreamReadConstraints")))
                    .body("detail", not(containsString("ALLOW_")))
                    .body("detail", not(containsString("`")));
        }
        assertEquals(0, stored(tenant, topic));
    }

    @Test
    void a_body_over_the_http_limit_gets_413_problem_json_and_stores_nothing() throws Exception {
        String tenant = TestIds.tenant();
        String topic = TestIds.topic();
        long declared = 70L * 1024 * 1024; // over quarkus.http.limits.max-body-size (64M)
        String head = "POST /tenants/" + tenant + "/topics/" + topic + "/messages HTTP/1.1\r\nHost: localhost\r\n"
                + "Content-Type: application/json\r\nContent-Length: " + declared + "\r\n\r\n";
        Raw r = raw(head, "{\"messages\":[{\"partitionKey\":\"k\",\"payload\":\"" + "x".repeat(1000));
        assertEquals(413, r.status(), r.text());
        assertProblem(r, 413, "body");
        assertEquals(0, stored(tenant, topic));
    }

    @Test
    void a_chunked_body_over_the_http_limit_gets_413_problem_json_and_stores_nothing() throws Exception {
        String tenant = TestIds.tenant();
        String topic = TestIds.topic();
        String head = "POST /tenants/" + tenant + "/topics/" + topic + "/messages HTTP/1.1\r\nHost: localhost\r\n"
                + "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n";
        Raw r = rawChunked(head, 65L * 1024 * 1024 + 1);
        assertEquals(413, r.status(), r.text());
        assertProblem(r, 413, "body");
        // Reading stops at the first chunk past the limit: the size got is known only that far.
        String message = JSON.readTree(r.body()).get("errors").get(0).get("message").asText();
        assertTrue(message.matches("is at least [0-9]+ bytes, over the limit of 67108864 bytes"
                + " \\(quarkus\\.http\\.limits\\.max-body-size\\)"), message);
        assertEquals(0, stored(tenant, topic));
    }

    /** A 413 names what was exceeded: the setting, its value, and the size the request declared. */
    @Test
    void a_body_over_the_http_limit_gets_a_413_naming_the_limit_its_value_and_the_declared_size() throws Exception {
        String tenant = TestIds.tenant();
        String topic = TestIds.topic();
        long declared = 70L * 1024 * 1024;
        String head = "POST /tenants/" + tenant + "/topics/" + topic + "/messages HTTP/1.1\r\nHost: localhost\r\n"
                + "Content-Type: application/json\r\nContent-Length: " + declared + "\r\n\r\n";
        Raw r = raw(head, "{\"messages\":[");
        assertEquals(413, r.status(), r.text());
        JsonNode problem = JSON.readTree(r.body());
        String rule = "is 73400320 bytes (its Content-Length), over the limit of 67108864 bytes"
                + " (quarkus.http.limits.max-body-size)";
        assertEquals("body", problem.get("errors").get(0).get("field").asText(), r.body());
        assertEquals(rule, problem.get("errors").get(0).get("message").asText(), r.body());
        assertEquals("the request body " + rule, problem.get("detail").asText(), r.body());
        assertEquals(0, stored(tenant, topic));
    }

    @Test
    void unknown_paths_and_methods_get_problem_json() {
        given().get("/no/such/path").then().statusCode(404).contentType("application/problem+json")
                .body("status", equalTo(404));
        given().get("/tenants/it-00/topics/t/messages").then().statusCode(405).contentType("application/problem+json")
                .body("status", equalTo(405));
    }

    /** RFC 9110 section 15.5.6: a 405 lists the methods the path supports in Allow. */
    @Test
    void a_406_and_a_404_say_what_the_api_answers_and_where_its_paths_are() {
        given().accept("application/xml").contentType(ContentType.JSON).body("{}")
                .post("/tenants/it-00/topics/t/consumer-groups/g/fetch").then().statusCode(406)
                .contentType("application/problem+json")
                .body("detail", equalTo("the API answers application/json and application/problem+json (errors):"
                        + " send Accept: application/json, or no Accept header"));
        given().get("/tenants/demo").then().statusCode(404).contentType("application/problem+json")
                .body("detail", equalTo("no resource at /tenants/demo: the API's paths are listed at / and described in"
                        + " /q/openapi (messages are under /tenants/{tenant}/topics/{topic}/...)"));
    }

    @Test
    void a_405_carries_an_allow_header_with_the_methods_of_the_path() {
        given().get("/tenants/it-00/topics/t/messages").then().statusCode(405)
                .header("Allow", equalTo("POST, OPTIONS"));
        given().put("/tenants/it-00/topics/t/consumer-groups/g/ack").then().statusCode(405)
                .header("Allow", equalTo("POST, OPTIONS"));
        given().post("/admin/topics").then().statusCode(405).header("Allow", equalTo("GET, HEAD, DELETE, OPTIONS"));
        given().put("/admin/messages").then().statusCode(405).header("Allow", equalTo("GET, HEAD, DELETE, OPTIONS"));
        given().get("/admin/messages/requeue").then().statusCode(405).header("Allow", equalTo("POST, OPTIONS"));
    }

    /** The index follows the same method rules as the resources: HEAD works, others are 405 with Allow. */
    @Test
    void the_root_answers_head_and_rejects_other_methods_with_an_allow_header() {
        given().head("/").then().statusCode(200);
        given().post("/").then().statusCode(405).contentType("application/problem+json")
                .header("Allow", equalTo("GET, HEAD, OPTIONS")).body("status", equalTo(405));
        given().put("/").then().statusCode(405).header("Allow", equalTo("GET, HEAD, OPTIONS"));
        given().options("/").then().statusCode(200).header("Allow", equalTo("GET, HEAD, OPTIONS"));
    }

    /** OPTIONS names the methods a path serves: the same list its 405 answers carry. */
    @Test
    void options_lists_the_methods_a_405_names() {
        given().options("/admin/topics").then().statusCode(200).header("Allow", equalTo("GET, HEAD, DELETE, OPTIONS"));
        given().options("/tenants/it-00/topics/t/messages").then().statusCode(200)
                .header("Allow", equalTo("POST, OPTIONS"));
        given().options("/admin/messages").then().statusCode(200)
                .header("Allow", equalTo("GET, HEAD, DELETE, OPTIONS"));
    }

    @Test
    void the_root_answers_an_index_of_links() {
        given().get("/").then().statusCode(200).contentType("application/json")
                .body("links.openapi", equalTo("/q/openapi"))
                .body("links.keySet()", hasItem("health"));
    }

    private static void assertProblem(Raw r, int status, String field) throws IOException {
        assertTrue(r.headers().toLowerCase().contains("content-type: application/problem+json"), r.headers());
        JsonNode problem = JSON.readTree(r.body());
        assertEquals(status, problem.get("status").asInt(), r.body());
        assertTrue(problem.get("type").asText().startsWith("urn:tenant-mq:problem:"), r.body());
        if (field != null) {
            assertEquals(field, problem.get("errors").get(0).get("field").asText(), r.body());
        }
    }

    private long stored(String tenant, String topic) throws Exception {
        return RowCount.of(dataSource, "SELECT COUNT(*) FROM queue_messages WHERE tenant = ? AND topic = ?", tenant, topic);
    }

    /** A response read off the socket. */
    private record Raw(String text) {
        int status() {
            return Integer.parseInt(text.substring(9, 12));
        }

        String headers() {
            int end = text.indexOf("\r\n\r\n");
            return end < 0 ? text : text.substring(0, end);
        }

        String body() {
            int end = text.indexOf("\r\n\r\n");
            return end < 0 ? "" : text.substring(end + 4);
        }
    }

    /** Sends {@code head} and the start of a body, then reads the response until the server closes or 5 s pass. */
    private static Raw raw(String head, String partialBody) throws IOException {
        try (Socket socket = new Socket("localhost", io.restassured.RestAssured.port)) {
            socket.setSoTimeout(5_000);
            OutputStream out = socket.getOutputStream();
            out.write(head.getBytes(StandardCharsets.UTF_8));
            out.write(partialBody.getBytes(StandardCharsets.UTF_8));
            out.flush();
            return new Raw(readResponse(socket.getInputStream()));
        }
    }

    /** Sends {@code head}, then {@code bytes} of a JSON string value in 64 KiB chunks, then reads the response. */
    private static Raw rawChunked(String head, long bytes) throws IOException {
        try (Socket socket = new Socket("localhost", io.restassured.RestAssured.port)) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write(head.getBytes(StandardCharsets.UTF_8));
            byte[] chunk = "x".repeat(64 * 1024).getBytes(StandardCharsets.US_ASCII);
            String start = "{\"messages\":[{\"partitionKey\":\"k\",\"payload\":\"";
            writeChunk(out, start.getBytes(StandardCharsets.US_ASCII));
            try {
                for (long sent = start.length(); sent < bytes; sent += chunk.length) {
                    writeChunk(out, chunk);
                }
                out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                out.flush();
            } catch (IOException closedEarly) {
                // the server answered and closed before the whole body was sent: read its answer
            }
            return new Raw(readResponse(socket.getInputStream()));
        }
    }

    private static void writeChunk(OutputStream out, byte[] data) throws IOException {
        out.write((Integer.toHexString(data.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
        out.write(data);
        out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
    }

    /** Reads one response: its head, then as many body bytes as content-length says (or until close). */
    private static String readResponse(InputStream in) throws IOException {
        StringBuilder text = new StringBuilder();
        byte[] buf = new byte[8192];
        int contentLength = -1;
        try {
            int n;
            while ((n = in.read(buf)) > 0) {
                text.append(new String(buf, 0, n, StandardCharsets.UTF_8));
                int end = text.indexOf("\r\n\r\n");
                if (end >= 0 && contentLength < 0) {
                    for (String line : text.substring(0, end).split("\r\n")) {
                        if (line.toLowerCase().startsWith("content-length:")) {
                            contentLength = Integer.parseInt(line.substring(15).trim());
                        }
                    }
                }
                if (end >= 0 && contentLength >= 0 && text.length() - end - 4 >= contentLength) {
                    break;
                }
            }
        } catch (java.net.SocketTimeoutException | java.net.SocketException e) {
            // the server reset or stopped sending: what was read is the response
        }
        return text.toString();
    }
}
