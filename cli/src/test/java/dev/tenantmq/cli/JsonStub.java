package dev.tenantmq.cli;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.function.Function;

/**
 * A stub service on a free loopback port: every request under one path is answered 200 with the
 * JSON the handler returns for it (the handler may record what it saw). For unit tests of what
 * the CLI sends and how it reads answers, without a real service.
 */
final class JsonStub implements AutoCloseable {
    private final HttpServer server;

    private JsonStub(HttpServer server) {
        this.server = server;
    }

    /** Starts answering requests under {@code path} with {@code answer}'s JSON. */
    static JsonStub start(String path, Function<HttpExchange, String> answer) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext(path, exchange -> {
            // Read before answering; kept as the exchange's "requestBody" attribute for answers that check it.
            exchange.setAttribute("requestBody", new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            byte[] body = answer.apply(exchange).getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
        return new JsonStub(server);
    }

    /** Base URL, e.g. {@code http://127.0.0.1:41234}. */
    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
