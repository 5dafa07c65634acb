package dev.tenantmq.cli;

import static dev.tenantmq.cli.InProcessTmq.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tenantmq.cli.InProcessTmq.Run;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Mistakes tmq can tell without the service are told in plain words, with exit 2, before any
 * request: a payload file that does not exist, fetch options outside the service's bounds, and
 * {@code --metadata} entries that are not KEY=VALUE or repeat a key (docs/operations.md, "CLI").
 */
class InputChecksTest {
    private JsonStub stub;
    private final List<String> requests = new CopyOnWriteArrayList<>();
    private final List<String> bodies = new CopyOnWriteArrayList<>();

    /** A payload file holding the JSON value 1, for the publish cases; JUnit removes it. */
    @TempDir
    java.nio.file.Path dir;
    private java.nio.file.Path payload;

    @BeforeEach
    void startStub() throws Exception {
        payload = java.nio.file.Files.writeString(dir.resolve("payload.json"), "1");
        stub = JsonStub.start("/", exchange -> {
            requests.add(exchange.getRequestURI().getRawPath());
            bodies.add((String) exchange.getAttribute("requestBody"));
            return "{\"messages\":[]}";
        });
    }

    @AfterEach
    void stopStub() {
        stub.close();
    }

    @Test
    void a_missing_payload_file_is_named_without_a_java_exception() {
        String missing = "/nonexistent/dir/payload.json";
        Run r = run("publish", "--url", stub.url(), "--tenant", "demo", "--topic", "orders", "--partition-key", "k",
                "--file", missing);
        assertEquals(ExitCodes.USAGE, r.code(), r::toString);
        assertTrue(r.err().contains("file not found: " + missing), r::toString);
        assertFalse(r.err().contains("Exception"), r::toString);
        assertEquals(List.of(), requests);
    }

    /** With --max and --idle-timeout each run ends by itself, also where the options were let through. */
    @Test
    void fetch_options_outside_the_service_bounds_are_refused_with_the_bound() {
        Run wait = run("tail", "--url", stub.url(), "--tenant", "demo", "--topic", "orders", "--group", "g", "--max", "1", "--idle-timeout", "1", "--wait", "99");
        assertEquals(ExitCodes.USAGE, wait.code(), wait::toString);
        assertTrue(wait.err().contains("--wait must be 0..30 seconds"), wait::toString);
        assertTrue(wait.err().contains("got 99"), wait::toString);
        Run batch = run("tail", "--url", stub.url(), "--tenant", "demo", "--topic", "orders", "--group", "g", "--max", "1", "--idle-timeout", "1", "--batch", "0");
        assertEquals(ExitCodes.USAGE, batch.code(), batch::toString);
        assertTrue(batch.err().contains("--batch must be 1..1000"), batch::toString);
        Run visibility = run("tail", "--url", stub.url(), "--tenant", "demo", "--topic", "orders", "--group", "g",
                "--max", "1", "--idle-timeout", "1", "--visibility", "50000");
        assertEquals(ExitCodes.USAGE, visibility.code(), visibility::toString);
        assertTrue(visibility.err().contains("--visibility must be 1..43200"), visibility::toString);
        assertEquals(List.of(), requests, "no request was sent");
    }

    @Test
    void publish_sends_a_delay_and_refuses_both_delay_forms_before_any_request() throws Exception {
        Run both = run("publish", "--url", stub.url(), "--tenant", "demo", "--topic", "orders", "--partition-key", "k",
                "--file", payload.toString(), "--delay", "5", "--deliver-at", "2030-01-01T00:00:00Z");
        assertEquals(ExitCodes.USAGE, both.code(), both::toString);
        assertTrue(both.err().contains("--delay or --deliver-at, not both"), both::toString);
        Run negative = run("publish", "--url", stub.url(), "--tenant", "demo", "--topic", "orders", "--partition-key", "k",
                "--file", payload.toString(), "--delay", "-1");
        assertEquals(ExitCodes.USAGE, negative.code(), negative::toString);
        assertEquals(List.of(), requests, "no request was sent");
    }

    @Test
    void a_metadata_key_given_twice_is_refused_before_any_request_not_overwritten() throws Exception {
        Run twice = run("publish", "--url", stub.url(), "--tenant", "demo", "--topic", "orders", "--partition-key", "k",
                "--file", payload.toString(), "--metadata", "a=1", "--metadata", "a=2");
        assertEquals(ExitCodes.USAGE, twice.code(), twice::toString);
        assertTrue(twice.err().contains("--metadata a is given twice (a=1 and a=2)"), twice::toString);
        assertEquals(List.of(), requests, "no request was sent");
    }

    @Test
    void a_metadata_entry_without_an_equals_sign_is_told_in_plain_words() throws Exception {
        Run r = run("publish", "--url", stub.url(), "--tenant", "demo", "--topic", "orders", "--partition-key", "k",
                "--file", payload.toString(), "--metadata", "novalue");
        assertEquals(ExitCodes.USAGE, r.code(), r::toString);
        assertTrue(r.err().contains("--metadata must be KEY=VALUE, not novalue"), r::toString);
        assertFalse(r.err().contains("option option"), r::toString);
        assertEquals(List.of(), requests, "no request was sent");
    }

    @Test
    void metadata_entries_are_sent_in_order_with_everything_after_the_first_equals_sign_as_the_value() throws Exception {
        Run r = run("publish", "--url", stub.url(), "--tenant", "demo", "--topic", "orders", "--partition-key", "k",
                "--file", payload.toString(), "--json", "--metadata", "b=x=y", "--metadata", "a=", "--metadata", "c=3");
        assertEquals(0, r.code(), r::toString);
        assertEquals(1, bodies.size(), r::toString);
        assertTrue(bodies.get(0).contains("\"metadata\":{\"b\":\"x=y\",\"a\":\"\",\"c\":\"3\"}"), bodies::toString);
    }

    @Test
    void an_either_or_option_given_twice_names_the_choices_and_both_values_not_picocli_s_model() {
        Run tenant = run("topics", "--url", stub.url(), "--tenant", "demo", "--tenant", "other");
        assertEquals(ExitCodes.USAGE, tenant.code(), tenant::toString);
        assertTrue(tenant.err().contains("tmq: give one of --tenant=TENANT, --all-tenants, once (got --tenant=demo and --tenant=other)"),
                tenant::toString);
        Run target = run("group", "reset", "--url", stub.url(), "--tenant", "demo", "--topic", "orders", "--group", "g",
                "--to-offset", "1", "--to-offset", "2");
        assertEquals(ExitCodes.USAGE, target.code(), target::toString);
        assertTrue(target.err().contains("once (got --to-offset=1 and --to-offset=2)"), target::toString);
        for (Run r : List.of(tenant, target)) {
            assertFalse(r.err().contains("expected only one match"), r::toString);
            assertFalse(r.err().contains("{"), r::toString);
        }
        assertEquals(List.of(), requests, "no request was sent");
    }

    @Test
    void a_number_option_that_is_not_a_whole_number_or_too_large_is_told_without_java_type_names() {
        record Case(List<String> args, String words) {}
        List<String> tail = List.of("tail", "--url", stub.url(), "--tenant", "demo", "--topic", "orders", "--group", "g");
        for (Case c : List.of(
                new Case(List.of("--max", "abc"), "Invalid value for option '--max': 'abc' is not a whole number"),
                new Case(List.of("--max="), "Invalid value for option '--max': '' is not a whole number"),
                new Case(List.of("--max", "99999999999999999999"), "'99999999999999999999' is too large (at most 9223372036854775807)"),
                new Case(List.of("--batch", "1.5"), "Invalid value for option '--batch': '1.5' is not a whole number"),
                new Case(List.of("--wait", "3000000000"), "'3000000000' is too large (at most 2147483647)"))) {
            List<String> args = new java.util.ArrayList<>(tail);
            args.addAll(c.args());
            Run r = run(args.toArray(String[]::new));
            assertEquals(ExitCodes.USAGE, r.code(), () -> c + ": " + r);
            assertTrue(r.err().contains(c.words()), () -> c + ": " + r);
            assertFalse(r.err().matches("(?s).*is not an? (int|long)\\b.*"), () -> c + ": " + r);
        }
        Run limit = run("topics", "--url", stub.url(), "--tenant", "demo", "--limit", "x");
        assertTrue(limit.err().contains("Invalid value for option '--limit': 'x' is not a whole number"), limit::toString);
        assertEquals(List.of(), requests, "no request was sent");
    }

    @Test
    void an_empty_or_dot_name_in_a_path_is_refused_before_the_call_reaches_another_path() throws Exception {
        Run publishTenant = run("publish", "--url", stub.url(), "--tenant=", "--topic", "orders", "--partition-key", "k",
                "--file", payload.toString());
        assertEquals(ExitCodes.USAGE, publishTenant.code(), publishTenant::toString);
        assertTrue(publishTenant.err().contains("--tenant must be a name, not an empty value"), publishTenant::toString);
        Run publishTopic = run("publish", "--url", stub.url(), "--tenant", "demo", "--topic", "..", "--partition-key", "k",
                "--file", payload.toString());
        assertEquals(ExitCodes.USAGE, publishTopic.code(), publishTopic::toString);
        assertTrue(publishTopic.err().contains("--topic must be a name, not '..'"), publishTopic::toString);
        Run tailGroup = run("tail", "--url", stub.url(), "--tenant", "demo", "--topic", "orders", "--group=", "--max", "1");
        assertEquals(ExitCodes.USAGE, tailGroup.code(), tailGroup::toString);
        assertTrue(tailGroup.err().contains("--group must be a name, not an empty value"), tailGroup::toString);
        Run tailTopic = run("tail", "--url", stub.url(), "--tenant", "demo", "--topic", ".", "--group", "g", "--max", "1");
        assertTrue(tailTopic.err().contains("--topic must be a name, not '.'"), tailTopic::toString);
        assertEquals(List.of(), requests, "no request was sent");
    }

    @Test
    void an_unknown_command_or_a_stray_argument_is_named_without_its_index() {
        Run unknown = run("bogus", "--url", stub.url());
        assertEquals(ExitCodes.USAGE, unknown.code(), unknown::toString);
        assertTrue(unknown.err().contains("tmq: unknown command 'bogus'; the commands of tmq are "), unknown::toString);
        assertTrue(unknown.err().contains("topics"), unknown::toString);
        Run stray = run("topics", "--url", stub.url(), "--tenant", "demo", "extra");
        assertEquals(ExitCodes.USAGE, stray.code(), stray::toString);
        assertTrue(stray.err().contains("tmq: tmq topics takes no argument 'extra': its values go with options (--name VALUE)"),
                stray::toString);
        Run nested = run("settings", "bogus", "--url", stub.url());
        assertEquals(ExitCodes.USAGE, nested.code(), nested::toString);
        assertTrue(nested.err().contains("unknown command 'bogus'; the commands of tmq settings are "), nested::toString);
        for (Run r : List.of(unknown, stray, nested)) {
            assertFalse(r.err().contains("index"), r::toString);
        }
        Run option = run("topics", "--url", stub.url(), "--tenant", "demo", "--bogus");
        assertEquals(ExitCodes.USAGE, option.code(), option::toString);
        assertTrue(option.err().contains("Unknown option: '--bogus'"), option::toString);
        assertEquals(List.of(), requests, "no request was sent");
    }

    @Test
    void an_empty_file_name_or_dlq_suffix_is_refused_before_any_request() {
        Run file = run("publish", "--url", stub.url(), "--tenant", "demo", "--topic", "orders", "--partition-key", "k", "--file", "");
        assertEquals(ExitCodes.USAGE, file.code(), file::toString);
        assertTrue(file.err().contains("--file must name a file ('-' for stdin), not an empty value"), file::toString);
        for (String sub : List.of("list", "requeue-all")) {
            Run dlq = run("dlq", sub, "--url", stub.url(), "--tenant", "demo", "--topic", "orders", "--dlq-suffix", "");
            assertEquals(ExitCodes.USAGE, dlq.code(), () -> sub + ": " + dlq);
            assertTrue(dlq.err().contains("--dlq-suffix must not be empty"), () -> sub + ": " + dlq);
        }
        assertEquals(List.of(), requests, "no request was sent: an empty suffix would have read the topic itself as its dead letters");
    }
}
