package dev.tenantmq.cli;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tenantmq.testsupport.ServiceUnderTest;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code tmq} against the packaged service on a real database (docs/operations.md, "CLI"): every
 * command runs as its own process ({@code java -jar target/tmq.jar}, once through
 * {@code bin/tmq}), and what it prints, as a table and as JSON, and its exit code are checked
 * against what the service then holds.
 */
class TmqIT {
    /** A partition key that needs every kind of encoding: space, '/', '%', '+', '?', '#', '&', '=', é and an emoji. */
    static final String AWKWARD_KEY = "order 42/a%2Fb+c?d#e&f=g é 😀";
    /** An id that needs encoding too. */
    static final String AWKWARD_ID = "evt 1+%20/é";

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static ServiceUnderTest service;
    private static Cli tmq;
    private static Http http;
    private static String tenant;

    @BeforeAll
    static void startService() throws Exception {
        // Retention every second: a command that let it delete what it must keep (dead letters
        // a browse acked) is caught within the test.
        service = ServiceUnderTest.start("cli-it", Map.of("MQ_RETENTION_ENABLED", "true", "MQ_RETENTION_INTERVAL", "1s"));
        tenant = service.tenant;
        tmq = new Cli(Map.of("TMQ_URL", service.baseUrl(), "TMQ_ADMIN_TOKEN", ServiceUnderTest.ADMIN_TOKEN));
        http = new Http(service.baseUrl());
    }

    @AfterAll
    static void stopService() throws Exception {
        if (service != null) {
            service.close();
        }
    }

    private static String unique(String prefix) {
        return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    private static Cli.Result ok(Cli.Result r) {
        assertEquals(0, r.code(), () -> "expected exit 0: " + r);
        return r;
    }

    private static JsonNode json(Cli.Result r) throws Exception {
        return MAPPER.readTree(ok(r).out());
    }

    private static void publish(String topic, String key, String id, String payload) {
        Cli.Result r = ok(tmq.withInput(payload, "publish", "--tenant", tenant, "--topic", topic, "--partition-key", key, "--id", id));
        assertTrue(r.out().startsWith("published "), r::toString);
    }

    /**
     * Nacks what {@code group} reads until {@code count} dead letters name it. Counting the
     * dead-letter topic's messages would not do: a message another group dead-lettered already
     * adds this group to its dead letter, not a message, so the count could be reached before
     * the group had failed them all.
     */
    private static void deadLetter(String topic, String group, int count) {
        await(count + " dead letters of " + group + " in " + topic + ".dlq").atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(100)).until(() -> {
                    http.fetchAndNack(tenant, topic, group, "cli test");
                    return json(tmq.run("dlq", "list", "--tenant", tenant, "--topic", topic, "--group", group, "--json"))
                            .path("deadLetters").size() >= count;
                });
    }

    private static long storedMessages(String topic) throws Exception {
        for (JsonNode row : json(tmq.run("topics", "--tenant", tenant, "--json")).path("topics")) {
            if (row.path("topic").asText().equals(topic)) {
                return row.path("messages").asLong();
            }
        }
        return 0;
    }

    private static JsonNode inspect(String topic, String key, String id) throws Exception {
        return json(tmq.run("inspect", "--tenant", tenant, "--topic", topic, "--partition-key", key, "--id", id, "--json"));
    }

    private static String groupState(JsonNode inspected, String group) {
        for (JsonNode g : inspected.path("consumerGroups")) {
            if (g.path("consumerGroup").asText().equals(group)) {
                return g.path("state").asText();
            }
        }
        return "(no state for " + group + ")";
    }

    @Test
    void topicsListsPartitionsAndMessagesAsTableAndJsonForOneTenantAndAll() throws Exception {
        String topic = unique("topics");
        publish(topic, "k1", "a", "{\"n\": 1}");
        publish(topic, "k2", "b", "[1, 2]");

        List<Map<String, String>> rows = TableOut.parse(ok(tmq.run("topics", "--tenant", tenant)).out());
        Map<String, String> row = rows.stream().filter(r -> r.get("TOPIC").equals(topic)).findFirst()
                .orElseThrow(() -> new AssertionError("no row for " + topic + " in " + rows));
        assertEquals(Map.of("TENANT", tenant, "TOPIC", topic, "PARTITIONS", "2", "MESSAGES", "2"), row);

        JsonNode listed = json(tmq.run("topics", "--tenant", tenant, "--json"));
        assertFalse(listed.path("truncated").asBoolean());
        JsonNode jsonRow = null;
        for (JsonNode r : listed.path("topics")) {
            assertEquals(tenant, r.path("tenant").asText());
            if (r.path("topic").asText().equals(topic)) {
                jsonRow = r;
            }
        }
        assertEquals(2, jsonRow.path("partitions").asLong(), listed::toString);
        assertEquals(2, jsonRow.path("messages").asLong(), listed::toString);

        List<Map<String, String>> all = TableOut.parse(ok(tmq.run("topics", "--all-tenants", "--limit", "10000")).out());
        assertTrue(all.stream().anyMatch(r -> r.get("TENANT").equals(tenant) && r.get("TOPIC").equals(topic)), all::toString);
    }

    @Test
    void publishSendsJsonWithItsExactDigitsOrTextWithStringAndReportsADuplicate() throws Exception {
        String topic = unique("publish");
        Path file = Files.createTempFile("tmq-payload", ".json");
        Files.writeString(file, "{\"amount\": 12345678901234567890.10, \"tiny\": 1e-400}\n");
        ok(tmq.run("publish", "--tenant", tenant, "--topic", topic, "--partition-key", "k", "--id", "json", "--file", file.toString(),
                "--metadata", "source=cli"));
        Cli.Result text = ok(tmq.withInput("hello\n", "publish", "--tenant", tenant, "--topic", topic, "--partition-key", "k", "--id", "text",
                "--string", "--json"));
        JsonNode published = MAPPER.readTree(text.out()).path("messages").path(0);
        assertEquals("text", published.path("id").asText(), text::toString);
        assertFalse(published.path("duplicate").asBoolean(), text::toString);

        Cli.Result raw = ok(tmq.run("inspect", "--tenant", tenant, "--topic", topic, "--partition-key", "k", "--id", "json", "--json"));
        assertTrue(raw.out().contains("12345678901234567890.10") && raw.out().contains("1e-400"), raw::toString);
        assertEquals("cli", MAPPER.readTree(raw.out()).path("metadata").path("source").asText());
        assertEquals("hello", inspect(topic, "k", "text").path("payload").asText());
        assertTrue(inspect(topic, "k", "text").path("payload").isTextual());

        Cli.Result again = ok(tmq.withInput("{\"other\": true}", "publish", "--tenant", tenant, "--topic", topic, "--partition-key", "k", "--id", "json"));
        assertTrue(again.out().startsWith("duplicate "), again::toString);
        assertEquals(2, storedMessages(topic));
    }

    @Test
    void awkwardPartitionKeyRoundTripsThroughInspectRequeueAndDelete() throws Exception {
        String topic = unique("awkward");
        String group = unique("billing");
        publish(topic, AWKWARD_KEY, AWKWARD_ID, "{\"amount\": \"twelve\"}");

        Cli.Result table = ok(tmq.run("inspect", "--tenant", tenant, "--topic", topic, "--partition-key", AWKWARD_KEY, "--id", AWKWARD_ID));
        Map<String, String> fields = TableOut.parse(table.out()).stream()
                .collect(Collectors.toMap(r -> r.get("FIELD"), r -> r.get("VALUE")));
        assertEquals(AWKWARD_KEY, fields.get("partitionKey"));
        assertEquals(AWKWARD_ID, fields.get("id"));
        assertEquals("{\"amount\":\"twelve\"}", fields.get("payload"));

        deadLetter(topic, group, 1);
        assertEquals("DEAD", groupState(inspect(topic, AWKWARD_KEY, AWKWARD_ID), group));
        JsonNode dead = inspect(topic + ".dlq", AWKWARD_KEY, AWKWARD_ID);
        assertEquals(AWKWARD_KEY, dead.path("partitionKey").asText());
        assertEquals(group, dead.path("metadata").path("consumer_group").asText());

        Cli.Result requeued = ok(tmq.run("requeue", "--tenant", tenant, "--topic", topic + ".dlq", "--partition-key", AWKWARD_KEY, "--id", AWKWARD_ID));
        assertTrue(requeued.out().startsWith("requeued ") && requeued.out().contains("for groups " + group)
                && requeued.out().contains(Json.quote(AWKWARD_KEY)), requeued::toString);
        assertEquals("PENDING", groupState(inspect(topic, AWKWARD_KEY, AWKWARD_ID), group));
        assertEquals(3, tmq.run("inspect", "--tenant", tenant, "--topic", topic + ".dlq", "--partition-key", AWKWARD_KEY, "--id", AWKWARD_ID).code());

        JsonNode deleted = json(tmq.run("delete", "--tenant", tenant, "--topic", topic, "--partition-key", AWKWARD_KEY, "--id", AWKWARD_ID, "--json"));
        assertEquals(AWKWARD_KEY, deleted.path("partitionKey").asText());
        assertEquals(AWKWARD_ID, deleted.path("id").asText());
        Cli.Result gone = tmq.run("inspect", "--tenant", tenant, "--topic", topic, "--partition-key", AWKWARD_KEY, "--id", AWKWARD_ID);
        assertEquals(3, gone.code(), gone::toString);
    }

    @Test
    void dlqDryRunChangesNothingAndRequeueAllRequeuesOnlyTheGroupsDeadLetters() throws Exception {
        String topic = unique("dlq");
        String billing = unique("billing");
        String audit = unique("audit");
        publish(topic, "p1", "m1", "1");
        publish(topic, "p2", "m2", "2");
        deadLetter(topic, billing, 2);
        publish(topic, "p3", "m3", "3");
        // audit fails everything it reads; m1 and m2 were dead-lettered by billing already.
        deadLetter(topic, audit, 3);

        List<Map<String, String>> listed = TableOut.parse(ok(tmq.run("dlq", "list", "--tenant", tenant, "--topic", topic)).out());
        assertEquals(List.of("m1", "m2", "m3"), listed.stream().map(r -> r.get("ID")).toList(), listed::toString);
        assertEquals(billing + "," + audit, listed.get(0).get("GROUPS"));
        assertEquals(audit, listed.get(2).get("GROUPS"));
        assertEquals("cli test", listed.get(2).get("REASON"));
        JsonNode asJson = json(tmq.run("dlq", "list", "--tenant", tenant, "--topic", topic, "--json"));
        assertEquals(topic + ".dlq", asJson.path("topic").asText());
        assertEquals(3, asJson.path("deadLetters").size());
        assertEquals(topic, asJson.path("deadLetters").path(0).path("metadata").path("original_topic").asText());
        assertEquals(List.of("m1", "m2"), TableOut.parse(ok(tmq.run("dlq", "list", "--tenant", tenant, "--topic", topic, "--group", billing))
                .out()).stream().map(r -> r.get("ID")).toList());

        // Listing consumed nothing: the dead-letter topic has no consumer group at all.
        assertEquals(0, json(tmq.run("offsets", "--tenant", tenant, "--topic", topic + ".dlq", "--json")).path("offsets").size());
        // Three lists later, a retention run (every second here) that started after them has
        // deleted a consumed control message, and left every dead letter alone.
        String control = unique("control");
        publish(control, "k", "c", "0");
        await("retention deleted the consumed control message").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                .until(() -> {
                    http.fetchAndAck(tenant, control, "control");
                    return http.storedMessages(ServiceUnderTest.ADMIN_TOKEN, tenant, control) == 0;
                });
        Cli.Result dry = ok(tmq.run("dlq", "requeue-all", "--tenant", tenant, "--topic", topic, "--group", billing, "--dry-run"));
        List<Map<String, String>> wouldBe = TableOut.parse(dry.out());
        assertEquals(List.of("m1", "m2"), wouldBe.stream().map(r -> r.get("ID")).toList(), dry::toString);
        assertTrue(wouldBe.stream().allMatch(r -> r.get("RESULT").equals("would requeue")), dry::toString);
        assertEquals(inspect(topic, "p1", "m1").path("offset").asText(), wouldBe.get(0).get("ORIGINAL_OFFSET"), dry::toString);
        assertEquals(3, storedMessages(topic + ".dlq"));
        assertEquals("DEAD", groupState(inspect(topic, "p1", "m1"), billing));

        Cli.Result real = ok(tmq.run("dlq", "requeue-all", "--tenant", tenant, "--topic", topic, "--group", billing));
        List<Map<String, String>> requeued = TableOut.parse(real.out());
        assertEquals(List.of("requeued", "requeued"), requeued.stream().map(r -> r.get("RESULT")).toList(), real::toString);
        assertEquals(Set.of(billing, audit), Set.of(requeued.get(0).get("GROUPS").split(",")), real::toString);
        assertEquals(wouldBe.get(1).get("ORIGINAL_OFFSET"), requeued.get(1).get("ORIGINAL_OFFSET"), real::toString);
        assertEquals("PENDING", groupState(inspect(topic, "p1", "m1"), billing));
        assertEquals("PENDING", groupState(inspect(topic, "p2", "m2"), audit));
        assertEquals("DEAD", groupState(inspect(topic, "p3", "m3"), audit));
        assertEquals(List.of("m3"), TableOut.parse(ok(tmq.run("dlq", "list", "--tenant", tenant, "--topic", topic)).out())
                .stream().map(r -> r.get("ID")).toList());

        Cli.Result none = ok(tmq.run("dlq", "requeue-all", "--tenant", tenant, "--topic", topic, "--group", billing));
        assertEquals(List.of(), TableOut.parse(none.out()));
    }

    @Test
    void tailPrintsEachMessageAsAJsonLineAndAcksItSoTheGroupsOffsetsMove() throws Exception {
        String topic = unique("tail");
        String group = unique("tail");
        for (int i = 1; i <= 3; i++) {
            publish(topic, "k", "e" + i, "{\"i\": " + i + "}");
        }
        publish(topic, "k", "e4", "{\"i\": 4}");

        Cli.Result tail = ok(tmq.run("tail", "--tenant", tenant, "--topic", topic, "--group", group, "--max", "3", "--wait", "2"));
        List<JsonNode> lines = new ArrayList<>();
        for (String line : tail.out().split("\n")) {
            lines.add(MAPPER.readTree(line));
        }
        assertEquals(List.of("e1", "e2", "e3"), lines.stream().map(l -> l.path("id").asText()).toList(), tail::toString);
        assertEquals(2, lines.get(1).path("payload").path("i").asInt());
        assertFalse(lines.get(0).has("receipt"), "a receipt of an acked message is of no use");

        JsonNode offsets = json(tmq.run("offsets", "--tenant", tenant, "--topic", topic, "--group", group, "--json"));
        assertEquals(1, offsets.path("offsets").size(), offsets::toString);
        JsonNode row = offsets.path("offsets").path(0);
        assertEquals(lines.get(2).path("offset").asLong(), row.path("committedOffset").asLong(), offsets::toString);
        assertEquals(1, row.path("lag").asLong(), "e4 is left: --max 3 fetched no more than it printed");
        Map<String, String> tableRow = TableOut.parse(ok(tmq.run("offsets", "--tenant", tenant, "--topic", topic)).out()).stream()
                .filter(r -> r.get("GROUP").equals(group)).findFirst().orElseThrow();
        assertEquals("k", tableRow.get("PARTITION_KEY"));
        assertEquals("1", tableRow.get("LAG"));
        assertEquals(lines.get(2).path("offset").asText(), tableRow.get("COMMITTED"));

        List<Map<String, String>> leases = TableOut.parse(ok(tmq.run("leases", "--tenant", tenant, "--state", "active")).out());
        assertTrue(leases.stream().anyMatch(r -> r.get("GROUP").equals(group) && r.get("TOPIC").equals(topic)
                && r.get("HOLDER").equals(service.subscriber) && r.get("ACTIVE").equals("true")), leases::toString);
        JsonNode leasesJson = json(tmq.run("leases", "--all-tenants", "--json", "--limit", "10000"));
        assertTrue(leasesJson.path("leases").findValuesAsText("consumerGroup").contains(group), leasesJson::toString);
        List<Map<String, String>> subscribers = TableOut.parse(ok(tmq.run("subscribers", "--tenant", tenant)).out());
        assertTrue(subscribers.stream().anyMatch(r -> r.get("GROUP").equals(group) && r.get("SUBSCRIBER").equals(service.subscriber)
                && r.get("LIVE").equals("true")), subscribers::toString);
        JsonNode subscribersJson = json(tmq.run("subscribers", "--tenant", tenant, "--json"));
        assertTrue(subscribersJson.path("subscribers").findValuesAsText("consumerGroup").contains(group), subscribersJson::toString);
    }

    /** --max-bytes reaches the service: a budget smaller than each message still delivers them, one per fetch. */
    @Test
    void tailWithAByteBudgetPassesItToEachFetch() throws Exception {
        String topic = unique("bytes");
        String group = unique("bytes");
        String big = "\"" + "x".repeat(998) + "\"";
        for (int i = 1; i <= 3; i++) {
            publish(topic, "k", "b" + i, big);
        }
        Cli.Result tail = ok(tmq.run("tail", "--tenant", tenant, "--topic", topic, "--group", group, "--max", "3", "--wait", "2",
                "--max-bytes", "10"));
        assertEquals(3, tail.out().split("\n").length, tail::toString);

        Cli.Result refused = tmq.run("tail", "--tenant", tenant, "--topic", topic, "--group", group, "--max", "1", "--wait", "1",
                "--max-bytes", "0");
        assertEquals(ExitCodes.CLIENT_ERROR, refused.code(), refused::toString);
        assertTrue(refused.err().contains("Invalid request (HTTP 400)") && refused.err().contains("maxBytes: must be between 1 and"),
                refused::toString);
    }

    /** A topic with fewer messages than --max: tail ends after its idle time-out instead of waiting for ever. */
    @Test
    void tailWithMaxEndsAfterTheIdleTimeoutWhenFewerMessagesExist() throws Exception {
        String topic = unique("idle");
        String group = unique("idle");
        publish(topic, "k", "only", "1");
        Cli.Result explicit = ok(tmq.run("tail", "--tenant", tenant, "--topic", topic, "--group", group, "--max", "10",
                "--wait", "1", "--idle-timeout", "2"));
        assertEquals("only", MAPPER.readTree(explicit.out()).path("id").asText(), explicit::toString);
        assertTrue(explicit.err().contains("no message for 2 s (--idle-timeout); stopping after 1 message"), explicit::toString);

        publish(topic, "k", "second", "2");
        long started = System.nanoTime();
        // --max alone: the default idle time-out ends it (docs/operations.md, "CLI": `bin/tmq tail ... --max 3`).
        Cli.Result byDefault = ok(tmq.run("tail", "--tenant", tenant, "--topic", topic, "--group", group, "--max", "10"));
        assertEquals("second", MAPPER.readTree(byDefault.out()).path("id").asText(), byDefault::toString);
        assertTrue(byDefault.err().contains("no message for 10 s (--idle-timeout)"), byDefault::toString);
        assertTrue(System.nanoTime() - started >= TimeUnit.SECONDS.toNanos(10), "it waited its idle time-out first");
    }

    @Test
    void tailRunsUntilItIsStoppedAndAcksWhatItPrinted() throws Exception {
        String topic = unique("follow");
        String group = unique("follow");
        publish(topic, "k", "first", "1");
        Process tail = tmq.start("tail", "--tenant", tenant, "--topic", topic, "--group", group, "--wait", "1");
        List<String> lines = new CopyOnWriteArrayList<>();
        CompletableFuture<Void> reader = CompletableFuture.runAsync(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(tail.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = r.readLine(); line != null; line = r.readLine()) {
                    lines.add(line);
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        CompletableFuture<String> err = Cli.drain(tail.getErrorStream());
        try {
            await("tail prints the first message").atMost(Duration.ofSeconds(60)).until(() -> lines.size() == 1);
            publish(topic, "k", "second", "2");
            await("tail prints the second message").atMost(Duration.ofSeconds(60)).until(() -> lines.size() == 2);
            assertTrue(tail.isAlive(), "tail keeps running without --max");
            tail.destroy(); // SIGTERM, as Ctrl-C's SIGINT: the shutdown hook stops it after the poll in progress
            assertTrue(tail.waitFor(30, TimeUnit.SECONDS), "tail stops within its poll wait");
        } finally {
            tail.destroyForcibly();
        }
        reader.get(10, TimeUnit.SECONDS);
        assertEquals(143, tail.exitValue(), () -> "stopped by SIGTERM; stderr: " + err.join());
        assertEquals(List.of("first", "second"), lines.stream().map(l -> {
            try {
                return MAPPER.readTree(l).path("id").asText();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }).toList());
        JsonNode row = json(tmq.run("offsets", "--tenant", tenant, "--topic", topic, "--group", group, "--json")).path("offsets").path(0);
        assertEquals(0, row.path("lag").asLong(), row::toString);
        assertEquals(row.path("latestOffset").asLong(), row.path("committedOffset").asLong(), row::toString);
    }

    @Test
    void tailStopsWithoutAckingWhenItsOutputIsClosed() throws Exception {
        String topic = unique("pipe");
        String group = unique("pipe");
        publish(topic, "k", "seen", "1");
        Process tail = tmq.start("tail", "--tenant", tenant, "--topic", topic, "--group", group, "--wait", "1");
        CompletableFuture<String> err = Cli.drain(tail.getErrorStream());
        try {
            BufferedReader reader = new BufferedReader(new InputStreamReader(tail.getInputStream(), StandardCharsets.UTF_8));
            assertTrue(reader.readLine().contains("\"seen\""));
            reader.close(); // as `tmq tail | head -1` does
            publish(topic, "k", "unseen", "2");
            assertTrue(tail.waitFor(60, TimeUnit.SECONDS), "tail stops at its first write to a closed stdout");
        } finally {
            tail.destroyForcibly();
        }
        assertEquals(0, tail.exitValue());
        assertTrue(err.get(10, TimeUnit.SECONDS).contains("stdout is closed"), err::join);
        JsonNode row = json(tmq.run("offsets", "--tenant", tenant, "--topic", topic, "--group", group, "--json")).path("offsets").path(0);
        assertEquals(1, row.path("lag").asLong(), () -> "the message it could not print is not acked: " + row);
    }

    @Test
    void exitCodesAndStderrFollowTheProblemResponses() throws Exception {
        String topic = unique("errors");
        Cli.Result notFound = tmq.run("inspect", "--tenant", tenant, "--topic", topic, "--partition-key", "k", "--id", "nope");
        assertEquals(3, notFound.code(), notFound::toString);
        assertTrue(notFound.err().startsWith("tmq: ") && notFound.err().contains("(HTTP 404)"), notFound::toString);
        assertEquals("", notFound.out());

        Cli.Result invalid = tmq.withInput("1", "publish", "--tenant", tenant, "--topic", topic, "--partition-key", "trailing ");
        assertEquals(4, invalid.code(), invalid::toString);
        assertTrue(invalid.err().contains("Invalid request (HTTP 400)"), invalid::toString);
        assertTrue(invalid.err().contains("\n  messages[0].partitionKey: must not end with a space"), invalid::toString);

        publish(topic, "k", "live", "1");
        Cli.Result conflict = tmq.run("requeue", "--tenant", tenant, "--topic", topic, "--partition-key", "k", "--id", "live");
        assertEquals(4, conflict.code(), conflict::toString);
        assertTrue(conflict.err().contains("(HTTP 409)"), conflict::toString);

        String wrongToken = "wrong-token-" + UUID.randomUUID();
        Cli.Result unauthorized = new Cli(Map.of("TMQ_URL", service.baseUrl())).run("topics", "--tenant", tenant, "--token", wrongToken);
        assertEquals(5, unauthorized.code(), unauthorized::toString);
        assertTrue(unauthorized.err().contains("(HTTP 401)"), unauthorized::toString);
        assertFalse(unauthorized.err().contains(wrongToken) || unauthorized.out().contains(wrongToken), "the token is never printed");
        assertTrue(unauthorized.err().contains("set TMQ_ADMIN_TOKEN or pass --token"), unauthorized::toString);
        Cli.Result noToken = new Cli(Map.of("TMQ_URL", service.baseUrl())).run("topics", "--tenant", tenant);
        assertEquals(5, noToken.code(), noToken::toString);
        assertTrue(noToken.err().contains("set TMQ_ADMIN_TOKEN or pass --token"), noToken::toString);

        int closed;
        try (ServerSocket s = new ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        Cli.Result unreachable = tmq.run("topics", "--tenant", tenant, "--url", "http://127.0.0.1:" + closed);
        assertEquals(6, unreachable.code(), unreachable::toString);
        assertTrue(unreachable.err().startsWith("tmq: cannot reach http://127.0.0.1:" + closed), unreachable::toString);

        Cli.Result usage = tmq.run("topics");
        assertEquals(2, usage.code(), usage::toString);
        assertTrue(usage.err().contains("--tenant=TENANT | --all-tenants"), usage::toString);
        Cli.Result both = tmq.run("topics", "--tenant", tenant, "--all-tenants");
        assertEquals(2, both.code(), both::toString);
        Cli.Result notJson = tmq.withInput("{oops", "publish", "--tenant", tenant, "--topic", topic, "--partition-key", "k");
        assertEquals(2, notJson.code(), notJson::toString);
        assertTrue(notJson.err().contains("not one JSON value"), notJson::toString);
    }

    @Test
    void everyCommandHasHelp() {
        List<List<String>> commands = List.of(List.of(), List.of("topics"), List.of("offsets"), List.of("leases"), List.of("subscribers"),
                List.of("inspect"), List.of("delete"), List.of("requeue"), List.of("publish"), List.of("tail"), List.of("dlq"),
                List.of("dlq", "list"), List.of("dlq", "requeue-all"), List.of("topic", "delete"), List.of("group", "delete"));
        for (List<String> command : commands) {
            List<String> args = new ArrayList<>(command);
            args.add("--help");
            Cli.Result help = ok(tmq.run(args.toArray(String[]::new)));
            assertTrue(help.out().startsWith("Usage: tmq" + (command.isEmpty() ? "" : " " + String.join(" ", command))), help::toString);
            assertFalse(help.out().contains(ServiceUnderTest.ADMIN_TOKEN), "help never shows the token");
        }
    }

    @Test
    void binTmqRunsTheCliWithUnicodeArgumentsUnderTheCLocale() throws Exception {
        String topic = unique("script");
        publish(topic, AWKWARD_KEY, "s1", "true");
        Cli.Result viaScript = Cli.script(Map.of("LANG", "C", "TMQ_URL", service.baseUrl(), "TMQ_ADMIN_TOKEN", ServiceUnderTest.ADMIN_TOKEN),
                "inspect", "--tenant", tenant, "--topic", topic, "--partition-key", AWKWARD_KEY, "--id", "s1", "--json");
        assertEquals(0, viaScript.code(), viaScript::toString);
        assertEquals(AWKWARD_KEY, MAPPER.readTree(viaScript.out()).path("partitionKey").asText());
    }
}
