package dev.tenantmq;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * How {@link GeneralLog#stopUnitsOf} cuts one connection's logged statements into units of work:
 * the statement budgets count them, so a wrong cut would hide statements or add others'.
 */
class GeneralLogUnitsTest {
    private static List<List<String>> cut(String... statements) {
        GeneralLog.Units units = new GeneralLog.Units();
        for (String s : statements) {
            units.add(s);
        }
        units.close();
        return units.done;
    }

    @Test
    void an_explicit_transaction_is_one_unit_and_auto_commit_statements_one_each() {
        assertEquals(List.of(List.of("SELECT 1"), List.of("START TRANSACTION", "UPDATE t", "COMMIT"), List.of("SELECT 2")),
                cut("SELECT 1", "START TRANSACTION", "UPDATE t", "COMMIT", "SELECT 2"));
    }

    @Test
    void out_of_autocommit_a_unit_runs_to_its_commit_and_the_switch_belongs_to_none() {
        assertEquals(List.of(List.of("SELECT l", "UPDATE t", "COMMIT"), List.of("SELECT r", "COMMIT")),
                cut("SET autocommit=0", "SELECT l", "UPDATE t", "COMMIT", "SELECT r", "COMMIT"));
    }

    @Test
    void a_commit_without_a_start_shows_a_connection_switched_before_the_log_began() {
        assertEquals(List.of(List.of("SELECT l", "UPDATE t", "COMMIT"), List.of("SELECT r", "ROLLBACK")),
                cut("SELECT l", "UPDATE t", "COMMIT", "SELECT r", "ROLLBACK"));
    }

    @Test
    void a_switch_back_to_autocommit_makes_statements_single_units_again() {
        assertEquals(List.of(List.of("UPDATE t", "COMMIT"), List.of("SELECT 1"), List.of("SELECT 2")),
                cut("SET autocommit=0", "UPDATE t", "COMMIT", "SET autocommit=1", "SELECT 1", "SELECT 2"));
    }

    @Test
    void statements_of_a_connection_never_seen_to_commit_are_single_units() {
        assertEquals(List.of(List.of("SELECT 1"), List.of("SELECT 2")), cut("SELECT 1", "SELECT 2"));
    }

    @Test
    void the_logs_own_switch_on_the_connection_that_runs_the_next_unit_belongs_to_none() {
        assertEquals(List.of(List.of("SELECT l", "UPDATE t", "COMMIT")),
                cut("SET GLOBAL general_log = 'ON'", "SELECT l", "UPDATE t", "COMMIT"));
    }

    @Test
    void session_sets_right_after_a_unit_are_its_pool_reset() {
        assertEquals(List.of(List.of("START TRANSACTION", "UPDATE t", "COMMIT",
                        "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED"), List.of("SELECT 1")),
                cut("START TRANSACTION", "UPDATE t", "COMMIT", "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED",
                        "SELECT 1"));
    }
}
