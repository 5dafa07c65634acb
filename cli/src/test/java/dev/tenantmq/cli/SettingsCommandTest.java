package dev.tenantmq.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code tmq settings} against a stub of {@code /admin/settings}: {@code set} reads the level's
 * overrides and writes them back with only the named ones changed, {@code clear} without
 * {@code --setting} deletes, and {@code get} prints each effective value with its source.
 */
class SettingsCommandTest {
    private static final String ANSWER = """
            {"tenant":"demo","topic":"orders","consumerGroup":"billing",
             "effective":{"maxDeliveries":{"value":1,"source":"group"},"defaultVisibilitySeconds":{"value":60,"source":"topic"},
              "maxVisibilitySeconds":{"value":43200,"source":"global"},"nackBackoffBaseMillis":{"value":1000,"source":"global"},
              "nackBackoffCapMillis":{"value":300000,"source":"global"},"retentionMaxAgeSeconds":{"value":604800,"source":"global"},
              "dedupWindowSeconds":{"value":86400,"source":"global"},"deadLetterEnabled":{"value":true,"source":"global"}},
             "topicOverrides":{"maxDeliveries":3,"defaultVisibilitySeconds":60,"maxVisibilitySeconds":null,
              "nackBackoffBaseMillis":null,"nackBackoffCapMillis":null,"retentionMaxAgeSeconds":null,"dedupWindowSeconds":null,
              "deadLetterEnabled":null},
             "groupOverrides":{"maxDeliveries":1,"defaultVisibilitySeconds":null,"maxVisibilitySeconds":120,
              "nackBackoffBaseMillis":null,"nackBackoffCapMillis":null,"retentionMaxAgeSeconds":null,"dedupWindowSeconds":null,
              "deadLetterEnabled":null}}""";

    private final List<String> calls = new ArrayList<>();
    private HttpServer server;
    private String url;

    @BeforeEach
    void start() throws Exception {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/admin/settings", exchange -> {
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            calls.add(exchange.getRequestMethod() + " " + exchange.getRequestURI().getRawQuery() + (body.isEmpty() ? "" : " " + body));
            byte[] out = ANSWER.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, out.length);
            exchange.getResponseBody().write(out);
            exchange.close();
        });
        server.start();
        url = "http://127.0.0.1:" + server.getAddress().getPort();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private String run(int expectedCode, String... args) {
        CommandLine cmd = Tmq.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cmd.setOut(new PrintWriter(out, true));
        cmd.setErr(new PrintWriter(err, true));
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--url", url, "--token", "t0ken-value-xyz"));
        assertEquals(expectedCode, cmd.execute(all.toArray(String[]::new)), () -> out + " / " + err);
        return out.toString();
    }

    @Test
    void set_changes_only_the_named_overrides_of_the_group_and_keeps_the_others() throws Exception {
        run(0, "settings", "set", "--tenant", "demo", "--topic", "orders", "--group", "billing", "--max-deliveries", "2",
                "--dead-letter", "false");
        assertEquals(2, calls.size(), calls::toString);
        assertEquals("GET tenant=demo&topic=orders&consumerGroup=billing", calls.get(0));
        assertTrue(calls.get(1).startsWith("PUT tenant=demo&topic=orders&consumerGroup=billing "), calls.get(1));
        JsonNode sent = Json.parse(calls.get(1).substring(calls.get(1).indexOf('{')));
        assertEquals(2, sent.get("maxDeliveries").asInt());
        assertEquals(120, sent.get("maxVisibilitySeconds").asInt(), "the group's other override stays");
        assertTrue(sent.get("defaultVisibilitySeconds").isNull(), "the topic's override is not copied into the group");
        assertEquals(false, sent.get("deadLetterEnabled").asBoolean());
    }

    @Test
    void clear_without_a_setting_deletes_and_with_one_writes_the_rest_back() throws Exception {
        run(0, "settings", "clear", "--tenant", "demo", "--topic", "orders");
        assertEquals(List.of("DELETE tenant=demo&topic=orders"), calls);
        calls.clear();
        run(0, "settings", "clear", "--tenant", "demo", "--topic", "orders", "--group", "billing", "--setting", "maxDeliveries");
        JsonNode sent = Json.parse(calls.get(1).substring(calls.get(1).indexOf('{')));
        assertTrue(sent.get("maxDeliveries").isNull());
        assertEquals(120, sent.get("maxVisibilitySeconds").asInt());
        run(2, "settings", "clear", "--tenant", "demo", "--topic", "orders", "--setting", "maxDelivery");
    }

    @Test
    void get_prints_each_effective_value_with_its_source() {
        String out = run(0, "settings", "get", "--tenant", "demo", "--topic", "orders", "--group", "billing");
        assertTrue(out.matches("(?s).*maxDeliveries\\s+1\\s+group.*"), out);
        assertTrue(out.matches("(?s).*defaultVisibilitySeconds\\s+60\\s+topic.*"), out);
        assertTrue(out.matches("(?s).*deadLetterEnabled\\s+true\\s+global.*"), out);
        run(2, "settings", "set", "--tenant", "demo", "--topic", "orders");
    }
}
