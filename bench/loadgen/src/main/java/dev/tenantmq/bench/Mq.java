package dev.tenantmq.bench;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** A tenant-mq HTTP client on the JDK HTTP client; safe to share between (virtual) threads. */
final class Mq implements AutoCloseable {
    private static final JsonFactory JSON = new JsonFactory();
    /** 503 answers retried after their Retry-After, over all clients (the service maps deadlocks to 503). */
    static final java.util.concurrent.atomic.AtomicLong RETRIES_503 = new java.util.concurrent.atomic.AtomicLong();
    final HttpClient http;
    private final String base;

    Mq(String base) {
        this.base = base;
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10)).build();
    }

    /** One delivered message: what the benchmark checks (order, duplicates) and the receipt to ack. */
    record Msg(String partitionKey, String id, long offset, int attempt, String receipt) {}

    static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }

    private String post(String path, String body, int expect) throws IOException, InterruptedException {
        HttpRequest req = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(120))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8)).build();
        for (int attempt = 0; ; attempt++) {
            HttpResponse<String> r = http.send(req, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            if (r.statusCode() == expect) {
                return r.body();
            }
            if (r.statusCode() == 503 && attempt < 20) { // database briefly unavailable: retry as told
                RETRIES_503.incrementAndGet();
                Thread.sleep(1000L * Long.parseLong(r.headers().firstValue("Retry-After").orElse("1")));
                continue;
            }
            throw new IOException("POST " + path + " -> " + r.statusCode() + " " + abbreviate(r.body()));
        }
    }

    static String abbreviate(String s) {
        return s.length() > 400 ? s.substring(0, 400) + "..." : s;
    }

    /**
     * Deletes a topic through the admin API (docs/operations.md, "Deleting a topic or a consumer
     * group"): repeats {@code DELETE /admin/topics} until it answers {@code done}; returns the calls made.
     */
    int deleteTopic(String tenant, String topic) throws IOException, InterruptedException {
        String path = "/admin/topics?tenant=" + enc(tenant) + "&topic=" + enc(topic);
        HttpRequest req = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(120))
                .header("Authorization", "Bearer " + Service.ADMIN_TOKEN).DELETE().build();
        int unavailable = 0;
        for (int calls = 1; calls <= MAX_DELETE_CALLS; calls++) {
            HttpResponse<String> r = http.send(req, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            if (r.statusCode() == 503 && unavailable++ < 20) { // database briefly unavailable: retry as told
                RETRIES_503.incrementAndGet();
                Thread.sleep(1000L * Long.parseLong(r.headers().firstValue("Retry-After").orElse("1")));
                continue;
            }
            if (r.statusCode() != 200) {
                throw new IOException("DELETE " + path + " -> " + r.statusCode() + " " + abbreviate(r.body()));
            }
            // The answer's first "done" is the whole deletion's (its topics' own come after it).
            int done = r.body().indexOf("\"done\":");
            if (done >= 0 && r.body().startsWith("true", done + "\"done\":".length())) {
                return calls;
            }
        }
        throw new IOException("DELETE " + path + " not done after " + MAX_DELETE_CALLS + " calls");
    }

    /** Most calls {@link #deleteTopic} makes: each deletes a chunk of rows (mq.admin.delete-chunk-size). */
    static final int MAX_DELETE_CALLS = 100_000;

    /** Publishes a prepared {@code {"messages": [...]}} body; returns the number of duplicates reported. */
    int publish(String tenant, String topic, String body) throws IOException, InterruptedException {
        String text = post("/tenants/" + enc(tenant) + "/topics/" + enc(topic) + "/messages", body, 201);
        int dups = 0;
        int from = 0;
        while ((from = text.indexOf("\"duplicate\":true", from)) >= 0) {
            dups++;
            from++;
        }
        return dups;
    }

    List<Msg> fetch(String tenant, String topic, String group, int max, int waitSeconds, int visibilitySeconds)
            throws IOException, InterruptedException {
        String text = post(groupPath(tenant, topic, group) + "/fetch",
                "{\"maxMessages\":" + max + ",\"waitSeconds\":" + waitSeconds + ",\"visibilitySeconds\":"
                        + visibilitySeconds + "}", 200);
        return parseMessages(text);
    }

    /** The messages of a fetch answer, in order. */
    private static List<Msg> parseMessages(String text) throws IOException {
        List<Msg> out = new ArrayList<>();
        try (JsonParser p = JSON.createParser(text)) {
            p.nextToken(); // {
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                p.nextToken();
                if (!field.equals("messages")) {
                    p.skipChildren();
                    continue;
                }
                while (p.nextToken() == JsonToken.START_OBJECT) {
                    String pk = null, id = null, receipt = null;
                    long offset = -1;
                    int attempt = 0;
                    while (p.nextToken() == JsonToken.FIELD_NAME) {
                        String f = p.currentName();
                        p.nextToken();
                        switch (f) {
                            case "partitionKey" -> pk = p.getText();
                            case "id" -> id = p.getText();
                            case "offset" -> offset = p.getLongValue();
                            case "deliveryAttempt" -> attempt = p.getIntValue();
                            case "receipt" -> receipt = p.getText();
                            default -> p.skipChildren();
                        }
                    }
                    out.add(new Msg(pk, id, offset, attempt, receipt));
                }
            }
        }
        return out;
    }

    /** What a fetch that carried acks answered: the messages, and how many of the acks came back ACKED. */
    record Fetched(List<Msg> msgs, int acked) {}

    /**
     * A fetch that first acks {@code toAck} (docs/api.md, "Fetch and ack in one call"); fails on
     * an ack status other than ACKED or ALREADY_ACKED, as {@link #ack} does.
     */
    Fetched fetchAcking(String tenant, String topic, String group, int max, int waitSeconds, int visibilitySeconds,
                        List<Msg> toAck) throws IOException, InterruptedException {
        StringBuilder b = new StringBuilder(200 + toAck.size() * 120).append("{\"maxMessages\":").append(max)
                .append(",\"waitSeconds\":").append(waitSeconds).append(",\"visibilitySeconds\":").append(visibilitySeconds)
                .append(",\"ack\":[");
        for (int i = 0; i < toAck.size(); i++) {
            b.append(i == 0 ? "\"" : ",\"").append(toAck.get(i).receipt()).append('"');
        }
        String text = post(groupPath(tenant, topic, group) + "/fetch", b.append("]}").toString(), 200);
        int results = text.lastIndexOf("\"ackResults\":"); // after the messages, whose payloads may hold the word
        return new Fetched(parseMessages(text), results < 0 ? 0 : settled(text, results));
    }

    /**
     * How many ack statuses from {@code from} on are ACKED or ALREADY_ACKED; fails on any other. A
     * request that {@link #post} sent again after a 503 may find its acks committed by the first
     * try (a fetch's acks commit in its first transaction, docs/api.md "Fetch and ack in one
     * call"), as the Java client's ConsumerRunner counts them.
     */
    private static int settled(String text, int from) throws IOException {
        int acked = 0;
        while ((from = text.indexOf("\"status\":\"", from)) >= 0) {
            from += 10;
            if (text.startsWith("ACKED\"", from) || text.startsWith("ALREADY_ACKED\"", from)) {
                acked++;
            } else {
                throw new IOException("ack status other than ACKED or ALREADY_ACKED: " + abbreviate(text.substring(from)));
            }
        }
        return acked;
    }

    /** Acks the receipts; returns how many came back settled ({@link #settled}), and fails on any other status. */
    int ack(String tenant, String topic, String group, List<Msg> msgs) throws IOException, InterruptedException {
        StringBuilder b = new StringBuilder(msgs.size() * 120).append("{\"receipts\":[");
        for (int i = 0; i < msgs.size(); i++) {
            b.append(i == 0 ? "\"" : ",\"").append(msgs.get(i).receipt()).append('"');
        }
        return settled(post(groupPath(tenant, topic, group) + "/ack", b.append("]}").toString(), 200), 0);
    }

    String get(String path) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30))
                .GET().build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IOException("GET " + path + " -> " + r.statusCode());
        }
        return r.body();
    }

    private static String groupPath(String tenant, String topic, String group) {
        return "/tenants/" + enc(tenant) + "/topics/" + enc(topic) + "/consumer-groups/" + enc(group);
    }

    @Override
    public void close() {
        http.shutdownNow();
    }
}
