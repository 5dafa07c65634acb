package dev.tenantmq;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.RequestOptions;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

/**
 * Slow request bodies hold no worker thread (docs/security.md, "Slow clients"): a body is read in
 * full on the event loop, within {@code mq.http.body-read-timeout}, and one client may send
 * {@code mq.http.max-body-reads-per-client} bodies at once. The attacker's connections come from
 * 127.0.0.2, everyone else's from 127.0.0.1, so the per-client bound spares the others.
 */
@QuarkusTest
@DatabaseAgnostic
class SlowBodyTest {
    /** As many slow bodies as the attack of docs/security.md, "Slow clients": more than the 48 worker threads. */
    private static final int SLOW = 100;

    @TestHTTPResource("/")
    URL base;

    @ConfigProperty(name = "mq.http.body-read-timeout")
    Duration readTimeout;

    @ConfigProperty(name = "mq.http.max-body-reads-per-client")
    int perClient;

    @ConfigProperty(name = "mq.admin.token")
    String adminToken;

    @Test
    void slow_bodies_of_one_client_neither_stall_other_tenants_nor_stay_open_past_the_read_timeout() throws Exception {
        slowBodiesOfOneClient(false);
    }

    /** The same with chunked bodies, whose length no header announces: held to the same bounds. */
    @Test
    void slow_chunked_bodies_are_held_to_the_same_read_timeout_and_count_per_client() throws Exception {
        slowBodiesOfOneClient(true);
    }

    private void slowBodiesOfOneClient(boolean chunked) throws Exception {
        String attacked = TestIds.tenant();
        String other = TestIds.tenant();
        while (other.equals(attacked)) {
            other = TestIds.tenant();
        }
        List<Socket> slow = new ArrayList<>();
        try {
            for (int i = 0; i < SLOW; i++) {
                slow.add(slowBody(attacked, chunked));
            }
            // Every worker thread would be taken by now if bodies were read on them.
            long started = System.nanoTime();
            String topic = TestIds.topic();
            java.net.http.HttpClient client = java.net.http.HttpClient.newBuilder()
                    .version(java.net.http.HttpClient.Version.HTTP_1_1).build();
            HttpResponse<String> published = client.send(json(other, "/topics/" + topic + "/messages",
                    "{\"messages\":[{\"partitionKey\":\"k\",\"id\":\"a\",\"payload\":1}]}"), HttpResponse.BodyHandlers.ofString());
            assertEquals(201, published.statusCode(), published.body());
            HttpResponse<String> fetched = client.send(json(other, "/topics/" + topic + "/consumer-groups/g/fetch",
                    "{\"maxMessages\":1,\"waitSeconds\":10}"), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, fetched.statusCode(), fetched.body());
            assertTrue(fetched.body().contains("\"id\":\"a\""), fetched.body());
            HttpResponse<String> tenants = client.send(HttpRequest.newBuilder(base.toURI().resolve("/admin/tenants"))
                    .header("Authorization", "Bearer " + adminToken).timeout(Duration.ofSeconds(30)).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, tenants.statusCode(), tenants.body());
            assertTrue(System.nanoTime() - started < readTimeout.toNanos(),
                    "the other tenant was answered while the slow bodies were still open");

            // The server ends every slow body: past the per-client bound at once (429), the rest
            // when the read timeout is up (408), though each still sends a byte every second.
            List<String> statuses = new ArrayList<>();
            long deadline = System.nanoTime() + readTimeout.toNanos() + TimeUnit.SECONDS.toNanos(60);
            for (Socket s : slow) {
                statuses.add(answerWhileTrickling(s, slow, deadline));
            }
            assertEquals(SLOW - perClient, statuses.stream().filter("429"::equals).count(), String.valueOf(statuses));
            assertEquals(perClient, statuses.stream().filter("408"::equals).count(), String.valueOf(statuses));
        } finally {
            for (Socket s : slow) {
                s.close();
            }
        }
    }

    /**
     * An HTTP/1.0 request with chunks and a Content-Length of 0 beside them: the chunks are its
     * body (RFC 9112 section 6.3), read within the read timeout like any other.
     */
    @Test
    void a_chunked_body_with_a_content_length_beside_it_is_held_to_the_read_timeout() throws Exception {
        try (Socket s = new Socket(base.getHost(), base.getPort())) {
            String head = "POST /tenants/" + TestIds.tenant() + "/topics/x/messages HTTP/1.0\r\nHost: localhost\r\n"
                    + "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\nContent-Length: 0\r\n\r\n186A0\r\n{";
            s.getOutputStream().write(head.getBytes(StandardCharsets.US_ASCII));
            s.getOutputStream().flush();
            s.setSoTimeout((int) readTimeout.plusSeconds(30).toMillis());
            byte[] status = s.getInputStream().readNBytes(12);
            assertEquals("HTTP/1.0 408", new String(status, StandardCharsets.US_ASCII));
        }
    }

    @Test
    void a_client_that_goes_away_mid_body_is_one_info_line_and_no_error() throws Exception {
        try (LogCapture log = LogCapture.start(); Socket s = new Socket(base.getHost(), base.getPort())) {
            String head = "POST /tenants/" + TestIds.tenant() + "/topics/x/messages HTTP/1.1\r\nHost: localhost\r\n"
                    + "Content-Type: application/json\r\nContent-Length: 100000\r\nExpect: 100-continue\r\n\r\n";
            s.getOutputStream().write(head.getBytes(StandardCharsets.US_ASCII));
            s.getOutputStream().flush();
            s.setSoTimeout(30_000);
            // The service answers 100 Continue once it reads the body: then the client goes away.
            byte[] status = s.getInputStream().readNBytes(12);
            assertEquals("HTTP/1.1 100", new String(status, StandardCharsets.US_ASCII));
            s.getOutputStream().write("{\"messages\":[".getBytes(StandardCharsets.US_ASCII));
            s.getOutputStream().flush();
            s.close();
            await("the INFO line of a client that went away").atMost(Duration.ofSeconds(30))
                    .until(() -> log.lines().stream().anyMatch(l -> l.contains(" INFO client went away")));
            assertEquals(List.of(), log.lines().stream().filter(l -> l.contains(" ERROR ") || l.contains(" SEVERE ")).toList());
        }
    }

    @Test
    void publish_and_fetch_over_http2_read_their_bodies_before_the_resource() throws Exception {
        String tenant = TestIds.tenant();
        String topic = TestIds.topic();
        Vertx vertx = Vertx.vertx();
        try {
            HttpClient h2 = vertx.createHttpClient(new HttpClientOptions().setProtocolVersion(HttpVersion.HTTP_2)
                    .setHttp2ClearTextUpgrade(false));
            String publish = h2c(h2, "/tenants/" + tenant + "/topics/" + topic + "/messages",
                    "{\"messages\":[{\"partitionKey\":\"k\",\"id\":\"h2\",\"payload\":{\"n\":12.50}}]}", 201);
            assertTrue(publish.contains("\"h2\""), publish);
            String fetched = h2c(h2, "/tenants/" + tenant + "/topics/" + topic + "/consumer-groups/g/fetch",
                    "{\"maxMessages\":1,\"waitSeconds\":10}", 200);
            assertTrue(fetched.contains("12.50"), fetched);
        } finally {
            vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        }
    }

    private String h2c(HttpClient h2, String path, String body, int expected) throws Exception {
        RequestOptions options = new RequestOptions().setMethod(HttpMethod.POST).setHost(base.getHost())
                .setPort(base.getPort()).setURI(path).putHeader("Content-Type", "application/json");
        var answer = h2.request(options)
                .compose(r -> r.send(Buffer.buffer(body)).compose(res -> {
                    assertEquals(HttpVersion.HTTP_2, res.version());
                    return res.body().map(b -> res.statusCode() + " " + b);
                }))
                .toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
        assertTrue(answer.startsWith(expected + " "), answer);
        return answer;
    }

    private HttpRequest json(String tenant, String rest, String body) throws Exception {
        return HttpRequest.newBuilder(base.toURI().resolve("/tenants/" + tenant + rest))
                .header("Content-Type", "application/json").timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
    }

    /**
     * A connection from 127.0.0.2 that has sent a publish's head and the first byte of its body:
     * a body of 100,000 bytes announced by Content-Length, or the first chunk of one, as long.
     */
    private Socket slowBody(String tenant, boolean chunked) throws IOException {
        Socket s = new Socket();
        try {
            s.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.2"), 0));
        } catch (IOException e) {
            s.close();
            assumeTrue(false, "127.0.0.2 is not a loopback address here: " + e);
        }
        s.connect(new InetSocketAddress(base.getHost(), base.getPort()), 10_000);
        String head = "POST /tenants/" + tenant + "/topics/x/messages HTTP/1.1\r\nHost: localhost\r\n"
                + "Content-Type: application/json\r\n"
                + (chunked ? "Transfer-Encoding: chunked\r\n\r\n186A0\r\n{" : "Content-Length: 100000\r\n\r\n{");
        s.getOutputStream().write(head.getBytes(StandardCharsets.US_ASCII));
        s.getOutputStream().flush();
        return s;
    }

    /**
     * The status line the server answers on {@code s} (or "closed" when it closes without one),
     * while every still-open slow body gets one more byte a second; "open" past the deadline.
     */
    private static String answerWhileTrickling(Socket s, List<Socket> all, long deadline) throws IOException {
        s.setSoTimeout(1000);
        InputStream in = s.getInputStream();
        StringBuilder line = new StringBuilder();
        while (System.nanoTime() < deadline) {
            try {
                int c = in.read();
                if (c < 0) {
                    return line.length() >= 12 ? line.substring(9, 12) : "closed";
                }
                line.append((char) c);
                if (line.length() == 12) {
                    return line.substring(9, 12);
                }
            } catch (SocketTimeoutException e) {
                for (Socket other : all) {
                    trickle(other);
                }
            }
        }
        return "open";
    }

    private static void trickle(Socket s) {
        try {
            OutputStream out = s.getOutputStream();
            out.write(' ');
            out.flush();
        } catch (IOException closed) {
            // the server closed it: that is what is awaited
        }
    }
}
