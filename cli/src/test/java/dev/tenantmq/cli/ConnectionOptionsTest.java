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

/**
 * The connection options, {@code --url} and {@code --token}, work before the command as well as
 * after it, also before and between the words of a two-word command ({@code settings get}), and
 * every help lists them (docs/operations.md, "CLI").
 */
class ConnectionOptionsTest {
    private JsonStub stub;
    private final List<String> calls = new CopyOnWriteArrayList<>();

    @BeforeEach
    void startStub() throws Exception {
        stub = JsonStub.start("/", exchange -> {
            calls.add(exchange.getRequestURI().getRawPath() + " " + exchange.getRequestHeaders().getFirst("Authorization"));
            return "{\"topics\":[{\"tenant\":\"demo\",\"topic\":\"orders\",\"partitions\":1,\"messages\":2}],\"truncated\":false}";
        });
    }

    @AfterEach
    void stopStub() {
        stub.close();
    }

    @Test
    void url_and_token_before_the_command_are_used() {
        Run r = run("--url", stub.url(), "--token", "t0ken-before", "topics", "--tenant", "demo");
        assertEquals(0, r.code(), r::toString);
        assertEquals(List.of("/admin/topics Bearer t0ken-before"), calls);
        assertTrue(r.out().contains("orders"), r::toString);
    }

    @Test
    void url_and_token_after_the_command_are_used_as_before() {
        Run r = run("topics", "--tenant", "demo", "--url", stub.url(), "--token", "t0ken-after");
        assertEquals(0, r.code(), r::toString);
        assertEquals(List.of("/admin/topics Bearer t0ken-after"), calls);
    }

    @Test
    void url_and_token_work_before_between_and_after_the_words_of_a_two_word_command() {
        assertEquals(0, run("--url", stub.url(), "settings", "--token", "t1", "get", "--tenant", "demo", "--topic", "orders").code());
        assertEquals(0, run("settings", "--url", stub.url(), "get", "--tenant", "demo", "--topic", "orders", "--token", "t2").code());
        assertEquals(List.of("/admin/settings Bearer t1", "/admin/settings Bearer t2"), calls);
    }

    @Test
    void the_top_help_and_each_commands_help_list_the_connection_options() {
        for (List<String> command : List.of(List.<String>of(), List.of("topics"), List.of("settings", "get"), List.of("publish"))) {
            String[] args = java.util.stream.Stream.concat(command.stream(), java.util.stream.Stream.of("--help")).toArray(String[]::new);
            Run help = run(args);
            assertEquals(0, help.code(), help::toString);
            assertTrue(help.out().contains("--url=URL"), () -> String.join(" ", command) + ": " + help);
            assertTrue(help.out().contains("--token=TOKEN"), () -> String.join(" ", command) + ": " + help);
        }
        Run top = run("--help");
        assertTrue(top.out().contains("--url and --token go before or after the command"), top::toString);
        assertFalse(calls.stream().findAny().isPresent(), "help calls nothing");
    }

    @Test
    void a_malformed_url_is_told_in_the_options_words_not_java_nets() {
        for (String bad : List.of("not a url", "localhost:8080", "http://", "ftp://127.0.0.1:8080", "http://[::1")) {
            Run r = run("--url", bad, "topics", "--tenant", "demo");
            assertEquals(ExitCodes.USAGE, r.code(), () -> bad + ": " + r);
            assertTrue(r.err().contains("--url must be an http(s) URL such as http://127.0.0.1:8080, not " + bad), () -> bad + ": " + r);
            assertFalse(r.err().contains("index"), () -> bad + ": " + r);
        }
        assertEquals(List.of(), calls, "nothing was called");
    }

    @Test
    void a_connection_option_given_before_and_after_the_command_is_refused_as_a_repeat_on_one_side_is() {
        for (List<String> args : List.of(
                List.of("--url", stub.url(), "topics", "--tenant", "demo", "--url", "http://127.0.0.1:2"),
                List.of("--url", stub.url(), "--url", "http://127.0.0.1:2", "topics", "--tenant", "demo"),
                List.of("topics", "--tenant", "demo", "--url", stub.url(), "--url", "http://127.0.0.1:2"))) {
            Run r = run(args.toArray(String[]::new));
            assertEquals(ExitCodes.USAGE, r.code(), () -> args + ": " + r);
            assertTrue(r.err().contains("option '--url' (URL) should be specified only once"), () -> args + ": " + r);
        }
        Run token = run("--token", "a", "topics", "--token", "b", "--tenant", "demo", "--url", stub.url());
        assertEquals(ExitCodes.USAGE, token.code(), token::toString);
        assertTrue(token.err().contains("option '--token' (TOKEN) should be specified only once"), token::toString);
        assertFalse(token.err().contains("Bearer"), token::toString);
        assertEquals(List.of(), calls, "nothing was called");
    }

    @Test
    void a_url_with_a_query_a_fragment_a_bad_port_or_no_text_is_refused_before_any_call() {
        record Case(String url, String words) {}
        for (Case c : List.of(
                new Case(stub.url() + "?x=1", "--url is the service's base URL, without '?' or '#'"),
                new Case(stub.url() + "#frag", "--url is the service's base URL, without '?' or '#'"),
                new Case(stub.url() + "?", "--url is the service's base URL, without '?' or '#'"),
                new Case("http://127.0.0.1:99999", "--url has port 99999: a port is 1..65535"),
                new Case("", "--url must be an http(s) URL such as http://127.0.0.1:8080, not an empty value"))) {
            Run r = run("topics", "--tenant", "demo", "--url", c.url());
            assertEquals(ExitCodes.USAGE, r.code(), () -> c + ": " + r);
            assertTrue(r.err().contains(c.words()), () -> c + ": " + r);
        }
        assertEquals(List.of(), calls, "nothing was called: the stub's answer to '/' would have been read as the listing");
    }
}
