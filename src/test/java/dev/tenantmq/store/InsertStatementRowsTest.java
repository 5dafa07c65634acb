package dev.tenantmq.store;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tenantmq.model.DeliveryDelay;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * How a publish batch is split into insert statements ({@link PublishTransaction#statementRows}),
 * and what each binds ({@link PublishTransaction#insertStatement}).
 */
class InsertStatementRowsTest {
    /** A message of exactly {@code chars} characters of values (key "k", id "i", metadata "{}"). */
    private static PublishTransaction.NewMessage message(int chars) {
        return new PublishTransaction.NewMessage("k", "i", "x".repeat(chars - 4), "{}");
    }

    @Test
    void a_batch_within_the_limit_is_one_statement() {
        assertEquals(List.of(100), PublishTransaction.statementRows(Collections.nCopies(100, message(1000)), 100_000));
    }

    @Test
    void a_statement_takes_messages_while_they_fit_the_limit_exactly() {
        assertEquals(List.of(3, 3, 1), PublishTransaction.statementRows(Collections.nCopies(7, message(100)), 300));
    }

    @Test
    void a_message_over_the_limit_is_a_statement_of_its_own() {
        assertEquals(List.of(1, 1, 1), PublishTransaction.statementRows(
                List.of(message(100), message(1000), message(100)), 150));
    }

    @Test
    void no_messages_is_no_statement() {
        assertEquals(List.of(), PublishTransaction.statementRows(List.of(), 100));
    }

    private static final String TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    @Test
    void rows_without_trace_context_or_delay_bind_six_values_each() {
        List<PublishTransaction.NewMessage> rows = List.of(message(10), message(20), message(30));

        Statement insert = PublishTransaction.insertStatement("t", "orders", rows);

        assertEquals(3 * 6, insert.binds().size(), "tenant, topic, partition_key, id, payload, metadata a row");
        assertEquals(List.of("tenant", "topic", "partition_key", "id", "payload", "metadata"),
                insert.binds().subList(0, 6).stream().map(Bind::name).toList());
        assertEquals(3, count(insert.sql(), "UTC_TIMESTAMP(6), NULL)"), "traceparent, tracestate, deliver_at NULL: "
                + insert.sql());
        assertEquals(insert.binds().size(), count(insert.sql(), "?"), "one bind per placeholder");
    }

    @Test
    void one_row_with_trace_context_makes_every_row_of_the_statement_bind_all_ten() {
        List<PublishTransaction.NewMessage> rows = new ArrayList<>(List.of(message(10), message(20)));
        rows.add(new PublishTransaction.NewMessage("k", "traced", "1", "{}", false, TRACEPARENT, "vendor=1"));

        Statement insert = PublishTransaction.insertStatement("t", "orders", rows);

        assertEquals(3 * 10, insert.binds().size());
        assertEquals(List.of(TRACEPARENT, "vendor=1"),
                insert.binds().subList(26, 28).stream().map(Bind::value).toList(), "the traced row's trace binds");
        assertEquals(0, count(insert.sql(), "UTC_TIMESTAMP(6), NULL)"));
        assertEquals(insert.binds().size(), count(insert.sql(), "?"), "one bind per placeholder");
    }

    @Test
    void a_delayed_row_binds_its_delay() {
        PublishTransaction.NewMessage delayed = new PublishTransaction.NewMessage("k", "later", "1", "{}", false, null,
                null, DeliveryDelay.afterSeconds(5));

        Statement insert = PublishTransaction.insertStatement("t", "orders", List.of(message(10), delayed));

        assertEquals(2 * 10, insert.binds().size());
        assertEquals(5_000_000L, insert.binds().get(19).value(), "the delay in microseconds, last bind of its row");
    }

    private static int count(String text, String part) {
        int n = 0;
        for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + 1)) {
            n++;
        }
        return n;
    }
}
