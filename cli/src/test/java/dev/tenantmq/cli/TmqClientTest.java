package dev.tenantmq.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * What goes over the wire, seen by a stub server: the exact percent-encoding of awkward query
 * values and path segments, and the bearer token on admin and data-plane calls alike.
 */
class TmqClientTest {
    private JsonStub stub;
    private final List<String> rawUris = new CopyOnWriteArrayList<>();
    private final List<String> authorizations = new CopyOnWriteArrayList<>();
    private final List<String> bodies = new CopyOnWriteArrayList<>();
    private String url;

    @BeforeEach
    void startStub() throws Exception {
        stub = JsonStub.start("/", exchange -> {
            rawUris.add(exchange.getRequestURI().getRawPath()
                    + (exchange.getRequestURI().getRawQuery() == null ? "" : "?" + exchange.getRequestURI().getRawQuery()));
            authorizations.add(String.valueOf(exchange.getRequestHeaders().getFirst("Authorization")));
            bodies.add(String.valueOf(exchange.getAttribute("requestBody")));
            return "{\"messages\":[{\"id\":\"i\",\"partitionKey\":\"k\",\"offset\":1,\"duplicate\":false}]}";
        });
        url = stub.url();
    }

    @AfterEach
    void stopStub() {
        stub.close();
    }

    @Test
    void queryValuesArePercentEncodedAsUtf8WithSpaceAsPercent20AndPlusAsPercent2B() {
        new TmqClient(url, "t0ken-value-xyz").get("/admin/messages",
                TmqClient.query("tenant", "demo", "topic", "orders", "partitionKey", "a b/c%2F+é😀?#&=", "id", "x"));
        assertEquals("/admin/messages?tenant=demo&topic=orders&partitionKey=a%20b%2Fc%252F%2B%C3%A9%F0%9F%98%80%3F%23%26%3D&id=x",
                rawUris.get(0));
        assertEquals("Bearer t0ken-value-xyz", authorizations.get(0));
    }

    @Test
    void publishSendsTheBearerTokenOnTheDataPlaneToo() {
        CommandLine cmd = Tmq.commandLine();
        StringWriter out = new StringWriter();
        cmd.setOut(new PrintWriter(out));
        cmd.setErr(new PrintWriter(new StringWriter()));
        System.setIn(new java.io.ByteArrayInputStream("{\"a\":1}".getBytes(StandardCharsets.UTF_8)));
        int code = cmd.execute("publish", "--url", url, "--token", "jwt-or-admin-token", "--tenant", "demo", "--topic", "ord:ers",
                "--partition-key", "k");
        assertEquals(0, code, out::toString);
        assertEquals("/tenants/demo/topics/ord%3Aers/messages", rawUris.get(0));
        assertEquals("Bearer jwt-or-admin-token", authorizations.get(0));
        assertTrue(out.toString().startsWith("published demo/ord:ers"), out::toString);
        assertFalse(out.toString().contains("jwt-or-admin-token"));
    }

    @Test
    void withoutATokenNoAuthorizationHeaderIsSent() {
        new TmqClient(url, null).get("/admin/topics", TmqClient.query("tenant", "demo"));
        assertEquals("null", authorizations.get(0));
    }

    @Test
    void publishWithDelayOrDeliverAtSendsTheDelayField() {
        for (List<String> option : List.of(List.of("--delay", "900"), List.of("--deliver-at", "2030-01-01T00:00:00Z"))) {
            CommandLine cmd = Tmq.commandLine();
            StringWriter out = new StringWriter();
            cmd.setOut(new PrintWriter(out));
            cmd.setErr(new PrintWriter(new StringWriter()));
            System.setIn(new java.io.ByteArrayInputStream("1".getBytes(StandardCharsets.UTF_8)));
            List<String> args = new java.util.ArrayList<>(List.of("publish", "--url", url, "--tenant", "demo", "--topic",
                    "orders", "--partition-key", "k"));
            args.addAll(option);
            assertEquals(0, cmd.execute(args.toArray(String[]::new)), out::toString);
        }
        assertTrue(bodies.get(0).contains("\"deliverAfterSeconds\":900"), bodies.get(0));
        assertTrue(bodies.get(1).contains("\"deliverAt\":\"2030-01-01T00:00:00Z\""), bodies.get(1));
    }
}
