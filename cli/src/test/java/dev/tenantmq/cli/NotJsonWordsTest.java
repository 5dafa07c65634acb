package dev.tenantmq.cli;

import static dev.tenantmq.cli.InProcessTmq.withInput;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tenantmq.cli.InProcessTmq.Run;
import java.io.InputStream;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Text that is not JSON, from the user (a payload) or from the service (an answer a proxy
 * replaced), is told in plain words with its line and column, never in the JSON library's own
 * words, class names or settings (docs/operations.md, "CLI").
 */
class NotJsonWordsTest {
    /** Words of the JSON library that no message of tmq may carry. */
    private static final List<String> LIBRARY_WORDS = List.of("Jackson", "jackson", "StreamRead", "JsonRead", "Source:",
            "REDACTED", "Exception", "end-of-input", "code 4", "getMax");

    private JsonStub stub;
    private String answer = "{}";
    private final List<String> requests = new CopyOnWriteArrayList<>();
    private InputStream stdin;

    @BeforeEach
    void startStub() throws Exception {
        stdin = System.in;
        stub = JsonStub.start("/", exchange -> {
            requests.add(exchange.getRequestURI().getRawPath());
            return answer;
        });
    }

    @AfterEach
    void stopStub() {
        stub.close();
        System.setIn(stdin);
    }

    @Test
    void an_array_that_is_not_closed_names_where_it_was_opened() {
        assertPayloadRefused("[1,2", "it ends before the array opened at line 1, column 1 is closed");
    }

    @Test
    void an_object_cut_after_a_colon_names_where_it_was_opened() {
        assertPayloadRefused("{\"a\":", "it ends before the object opened at line 1, column 1 is closed");
    }

    @Test
    void nesting_deeper_than_the_limit_names_the_limit_and_where() {
        Run r = assertPayloadRefused("[".repeat(1200) + "]".repeat(1200), "nested deeper than 1000 levels (line 1, column ");
        assertTrue(r.err().matches("(?s).*\\(line 1, column \\d+\\).*"), r::toString);
    }

    @Test
    void a_bare_word_is_not_a_json_value() {
        assertPayloadRefused("not json", "'not' is not a JSON value");
        assertPayloadRefused("not json", "(line 1, column 1)");
    }

    @Test
    void a_leading_zero_is_named_with_line_and_column() {
        assertPayloadRefused("{\"a\":01}", "numbers may not have leading zeros (line 1, column 7)");
        assertPayloadRefused("\n\n  {\"a\":01}", "numbers may not have leading zeros (line 3, column 9)");
    }

    @Test
    void a_repeated_field_is_named() {
        assertPayloadRefused("{\"a\":1,\"a\":2}", "the field \"a\" appears twice (line 1, column ");
    }

    @Test
    void text_after_the_value_is_named_where_it_starts() {
        assertPayloadRefused("{\"a\":1} x", "text follows the JSON value (line 1, column 9)");
        assertPayloadRefused("1 2", "text follows the JSON value (line 1, column 3)");
    }

    @Test
    void an_answer_of_the_service_that_is_not_json_is_named_as_such() {
        answer = "<html><body>502 Bad Gateway</body></html>";
        Run r = withInput(null, "topics", "--url", stub.url(), "--tenant", "demo");
        assertEquals(ExitCodes.UNEXPECTED, r.code(), r::toString);
        assertTrue(r.err().startsWith("tmq: the service's answer to GET /admin/topics is not JSON: "
                + "'<' cannot start a JSON value (line 1, column 1)"), r::toString);
        assertTrue(r.err().contains("502 Bad Gateway"), () -> "the answer's start is shown: " + r);
        assertNoLibraryWords(r);
    }

    @Test
    void a_publish_answer_that_is_not_json_is_named_as_such() {
        answer = "";
        Run r = withInput("1", "publish", "--url", stub.url(), "--tenant", "demo", "--topic", "orders", "--partition-key", "k");
        assertEquals(ExitCodes.UNEXPECTED, r.code(), r::toString);
        assertTrue(r.err().startsWith("tmq: the service's answer to POST /tenants/demo/topics/orders/messages is not JSON: it is empty"),
                r::toString);
        assertNoLibraryWords(r);
    }

    /** Publishes {@code payload}; asserts exit 2 with the hint, {@code words}, no request and no library words. */
    private Run assertPayloadRefused(String payload, String words) {
        requests.clear();
        Run r = withInput(payload, "publish", "--url", stub.url(), "--tenant", "demo", "--topic", "orders", "--partition-key", "k");
        assertEquals(ExitCodes.USAGE, r.code(), r::toString);
        assertTrue(r.err().startsWith("tmq: the payload is not one JSON value (use --string to send text): "), r::toString);
        assertTrue(r.err().contains(words), () -> "expected \"" + words + "\" in: " + r);
        assertNoLibraryWords(r);
        assertEquals(List.of(), requests, "nothing is sent");
        return r;
    }

    private static void assertNoLibraryWords(Run r) {
        for (String w : LIBRARY_WORDS) {
            assertFalse(r.err().contains(w), () -> "\"" + w + "\" in: " + r);
        }
    }
}
