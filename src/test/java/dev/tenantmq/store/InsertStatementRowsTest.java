package dev.tenantmq.store;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How a publish batch is split into insert statements ({@link PublishTransaction#statementRows}). */
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
}
