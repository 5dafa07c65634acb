package dev.tenantmq.model;

import static dev.tenantmq.model.AckPlan.Path.BY_BATCH;
import static dev.tenantmq.model.AckPlan.Path.BY_ROW;
import static dev.tenantmq.model.AckPlan.Path.NOT_CURRENT;
import static dev.tenantmq.model.AckPlan.Path.REPEATED;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** How an ack request settles each receipt (SPEC section 4, "Ack, nack, extend"), without a database. */
class AckPlanTest {
    private static final long EPOCH = 4;
    private static final long SEQ = 9;
    /** Partition "p": the open batch (10, 15] handed out under EPOCH with delivery SEQ. */
    private static final Map<String, AckPlan.Batch> BATCHES = Map.of("p", new AckPlan.Batch(10, 15, EPOCH, SEQ));
    private static final Map<String, Long> EPOCHS = Map.of("p", EPOCH, "q", EPOCH);

    private static AckTarget batchReceipt(long offset) {
        return new AckTarget("p", offset, EPOCH, SEQ);
    }

    private static AckPlan plan(List<AckTarget> targets, Map<String, Set<Long>> batchRows) {
        return AckPlan.of(targets, EPOCHS, BATCHES, batchRows);
    }

    @Test
    void a_receipt_of_the_open_batch_without_a_row_is_acked_by_the_batch() {
        AckPlan plan = plan(List.of(batchReceipt(11), batchReceipt(12)), Map.of());

        assertEquals(List.of(BY_BATCH, BY_BATCH), plan.paths());
        assertEquals(Map.of("p", Set.of(11L, 12L)), plan.batchAcks());
        assertEquals(List.of(), plan.byRow());
    }

    @Test
    void a_receipt_of_a_lease_that_is_not_current_writes_nothing_and_is_left_to_classify() {
        AckPlan plan = AckPlan.of(List.of(new AckTarget("p", 11, EPOCH - 1, SEQ), new AckTarget("gone", 1, EPOCH, 1)),
                EPOCHS, BATCHES, Map.of());

        assertEquals(List.of(NOT_CURRENT, NOT_CURRENT), plan.paths());
        assertEquals(Map.of(), plan.batchAcks());
        assertEquals(List.of(Optional.empty(), Optional.empty()), plan.statuses(Set.of(), Map.of()));
    }

    @Test
    void a_message_of_the_batch_that_has_a_row_is_acked_by_its_row() {
        AckPlan plan = plan(List.of(batchReceipt(11), batchReceipt(12)), Map.of("p", Set.of(12L)));

        assertEquals(List.of(BY_BATCH, BY_ROW), plan.paths());
        assertEquals(List.of(1), plan.byRow());
        assertEquals(Map.of("p", Set.of(11L)), plan.batchAcks());
    }

    @Test
    void receipts_outside_the_batch_or_of_another_delivery_are_acked_by_row() {
        List<AckTarget> targets = List.of(
                batchReceipt(10), // at the committed offset: below the batch
                batchReceipt(16), // above the batch
                new AckTarget("p", 12, EPOCH, SEQ - 1), // an earlier delivery of a message in the range
                new AckTarget("q", 3, EPOCH, 2)); // a partition without an open batch

        assertEquals(List.of(BY_ROW, BY_ROW, BY_ROW, BY_ROW), plan(targets, Map.of()).paths());
    }

    @Test
    void the_same_batch_receipt_twice_in_one_request_is_already_acked_the_second_time() {
        AckPlan plan = plan(List.of(batchReceipt(11), batchReceipt(11)), Map.of());

        assertEquals(List.of(BY_BATCH, REPEATED), plan.paths());
        assertEquals(List.of(Optional.of(SettleStatus.DONE), Optional.of(SettleStatus.ALREADY_ACKED)),
                plan.statuses(Set.of(), Map.of("p", Set.of(11L))));
    }

    @Test
    void batch_acks_the_committed_offset_covers_are_done_without_rows() {
        AckPlan plan = plan(List.of(batchReceipt(11), batchReceipt(12)), Map.of());
        Map<String, Set<Long>> covered = Map.of("p", Set.of(11L, 12L));

        assertEquals(Set.of(), plan.toMaterialize(covered));
        assertEquals(List.of(), plan.uncoveredBatchAcks(covered));
        assertEquals(List.of(Optional.of(SettleStatus.DONE), Optional.of(SettleStatus.DONE)),
                plan.statuses(Set.of(), covered));
    }

    @Test
    void an_ack_out_of_order_materializes_the_batch_and_goes_to_the_row() {
        // 11 is not acked, so the committed offset cannot move over 13.
        AckPlan plan = plan(List.of(batchReceipt(13), new AckTarget("q", 3, EPOCH, 2)), Map.of());
        Map<String, Set<Long>> covered = Map.of("p", Set.of());

        assertEquals(Set.of("p"), plan.toMaterialize(covered));
        assertEquals(List.of(0), plan.uncoveredBatchAcks(covered));
        assertEquals(List.of(Optional.of(SettleStatus.DONE), Optional.empty()),
                plan.statuses(Set.of(0), covered), "the row ack after materializing decides");
        assertEquals(List.of(Optional.empty(), Optional.empty()), plan.statuses(Set.of(), covered),
                "a row ack that changed nothing leaves the receipt to classify");
    }

    @Test
    void a_row_ack_is_done_only_when_its_fenced_update_changed_the_row() {
        AckPlan plan = plan(List.of(new AckTarget("q", 3, EPOCH, 2), new AckTarget("q", 4, EPOCH, 2)), Map.of());

        assertEquals(List.of(0, 1), plan.byRow());
        assertEquals(List.of(Optional.of(SettleStatus.DONE), Optional.empty()), plan.statuses(Set.of(0), Map.of()));
    }

    @Test
    void a_partition_whose_batch_acks_are_partly_covered_is_materialized_for_the_rest() {
        AckPlan plan = plan(List.of(batchReceipt(11), batchReceipt(13)), Map.of());
        Map<String, Set<Long>> covered = Map.of("p", Set.of(11L));

        assertEquals(Set.of("p"), plan.toMaterialize(covered));
        assertEquals(List.of(1), plan.uncoveredBatchAcks(covered));
    }
}
