package dev.tenantmq.store;

import static dev.tenantmq.model.DeliveryState.ACKED;
import static dev.tenantmq.model.DeliveryState.DEAD;
import static dev.tenantmq.model.DeliveryState.INFLIGHT;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tenantmq.model.CommitWalk.Row;
import dev.tenantmq.model.GroupScope;
import dev.tenantmq.store.ConsumerSql.Advance;
import dev.tenantmq.store.ConsumerSql.Cursor;
import dev.tenantmq.store.ConsumerSql.PruneDeliveries;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** What the committed-offset job writes for the rows it read (SPEC section 4), without a database. */
class CommittedOffsetsPlanTest {
    private static final GroupScope S = new GroupScope("tenant-a", "group-a", "topic-a");

    private static Cursor at(String key, long committed) {
        return new Cursor(key, committed, committed, 0, 1, 1, "2026-01-01 00:00:00.000000", false, false, 0, false, false, committed);
    }

    @Test
    void the_committed_offset_moves_over_the_finished_prefix_by_compare_and_set_and_prunes_acked_rows() {
        CommittedOffsets.Plan plan = CommittedOffsets.plan(S, List.of(at("p", 10)), Map.of(),
                Map.of("p", List.of(new Row(11, ACKED), new Row(12, DEAD), new Row(13, INFLIGHT))),
                Map.of("p", 2), Map.of(), Set.of());

        assertEquals(12, plan.advances().get("p").committed());
        assertEquals(List.of(new Advance("p", 12, 10)), plan.moves());
        assertEquals(List.of(new PruneDeliveries(S, "p", 12)), plan.prunes());
    }

    @Test
    void nothing_finished_writes_nothing() {
        CommittedOffsets.Plan plan = CommittedOffsets.plan(S, List.of(at("p", 10)), Map.of(),
                Map.of("p", List.of(new Row(11, INFLIGHT))), Map.of(), Map.of(), Set.of());

        assertEquals(10, plan.advances().get("p").committed());
        assertEquals(List.of(), plan.moves());
        assertEquals(List.of(), plan.prunes());
    }

    @Test
    void batch_acks_move_the_offset_without_rows_and_leave_nothing_to_prune() {
        CommittedOffsets.Plan plan = CommittedOffsets.plan(S, List.of(at("p", 10)), Map.of(),
                Map.of("p", List.of(new Row(11, null), new Row(12, null), new Row(13, null))), Map.of(),
                Map.of("p", Set.of(11L, 12L)), Set.of());

        assertEquals(Set.of(11L, 12L), plan.advances().get("p").batchAcks());
        assertEquals(List.of(new Advance("p", 12, 10)), plan.moves());
        assertEquals(List.of(), plan.prunes());
    }

    @Test
    void a_row_ack_prunes_even_when_the_offset_stays() {
        // A requeued message acknowledged below the committed offset: its row goes.
        CommittedOffsets.Plan plan = CommittedOffsets.plan(S, List.of(at("p", 10), at("q", 4)), Map.of(),
                Map.of("p", List.of(new Row(11, INFLIGHT))), Map.of(), Map.of(), Set.of("p"));

        assertEquals(List.of(), plan.moves());
        assertEquals(List.of(new PruneDeliveries(S, "p", 10)), plan.prunes());
    }
}
