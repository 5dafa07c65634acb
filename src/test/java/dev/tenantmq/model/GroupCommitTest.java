package dev.tenantmq.model;

import static dev.tenantmq.model.GroupCommit.Arrival.JOIN;
import static dev.tenantmq.model.GroupCommit.Arrival.OPEN;
import static dev.tenantmq.model.GroupCommit.Arrival.RUN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The rules of group commit (docs/architecture.md, "Group commit"), without threads or a database. */
class GroupCommitTest {
    private static final long MS = 1_000_000;
    private final GroupCommit rules = new GroupCommit(2 * MS, 10);

    @Test
    void a_lone_publish_runs_at_once_without_lingering() {
        assertEquals(RUN, rules.arrive(0, 1, 0));
    }

    @Test
    void a_publish_while_a_sibling_transaction_runs_opens_a_group_and_waits() {
        assertEquals(OPEN, rules.arrive(0, 1, 1));
    }

    @Test
    void a_publish_joins_the_open_group_while_it_has_room() {
        assertEquals(JOIN, rules.arrive(3, 7, 1));
        assertEquals(JOIN, rules.arrive(3, 7, 0));
    }

    @Test
    void a_publish_that_does_not_fit_the_open_group_is_never_split_it_opens_the_next() {
        assertEquals(OPEN, rules.arrive(4, 7, 1));
        assertEquals(RUN, rules.arrive(4, 7, 0));
    }

    @Test
    void a_request_as_large_as_a_group_runs_alone_at_once() {
        assertEquals(RUN, rules.arrive(0, 10, 3));
        assertEquals(RUN, rules.arrive(0, 1000, 3));
        assertEquals(RUN, rules.arrive(2, 1000, 3));
    }

    @Test
    void a_linger_of_zero_turns_grouping_off() {
        GroupCommit off = new GroupCommit(0, 10);
        assertFalse(off.enabled());
        assertEquals(RUN, off.arrive(0, 1, 5));
        assertEquals(RUN, off.arrive(3, 1, 5));
        assertTrue(rules.enabled());
    }

    @Test
    void a_waiting_group_runs_when_full() {
        assertTrue(rules.flush(10, 1, 0));
        assertFalse(rules.flush(9, 1, 0));
    }

    @Test
    void a_waiting_group_runs_when_no_sibling_transaction_runs_any_more() {
        assertTrue(rules.flush(2, 0, 0));
    }

    @Test
    void a_waiting_group_runs_when_its_linger_is_over_even_if_a_sibling_still_runs() {
        assertFalse(rules.flush(2, 1, 2 * MS - 1));
        assertTrue(rules.flush(2, 1, 2 * MS));
    }

    @Test
    void results_are_cut_back_into_one_list_per_request_in_request_order() {
        List<String> all = GroupCommit.concat(List.of(List.of("a1", "a2"), List.of("b1"), List.of("c1", "c2", "c3")));
        assertEquals(List.of("a1", "a2", "b1", "c1", "c2", "c3"), all);
        assertEquals(List.of(List.of("a1", "a2"), List.of("b1"), List.of("c1", "c2", "c3")),
                GroupCommit.split(all, List.of(2, 1, 3)));
    }

    @Test
    void sizes_that_do_not_add_up_to_the_results_are_a_bug() {
        assertThrows(IllegalArgumentException.class, () -> GroupCommit.split(List.of("a", "b"), List.of(1)));
        assertThrows(IllegalArgumentException.class, () -> GroupCommit.split(List.of("a", "b"), List.of(2, 1)));
    }

    @Test
    void nonsense_settings_are_refused() {
        assertThrows(IllegalArgumentException.class, () -> new GroupCommit(-1, 10));
        assertThrows(IllegalArgumentException.class, () -> new GroupCommit(MS, 0));
    }
}
