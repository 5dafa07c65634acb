-- Retries and dead letters (SPEC section 4, "Ack, nack, extend" and "Dead letters").
--
-- queue_delivery_state.state now takes five values:
--   INFLIGHT  delivered, awaiting ack; expiry (or a lost lease) is a failed attempt
--   RETRY     nacked: a failed attempt; delivered again at visible_at with the next attempt
--   PENDING   handed back without failing (a message before it was nacked, or an admin
--             requeue): delivered again at visible_at with the same delivery_attempt
--   ACKED     acknowledged
--   DEAD      dead-lettered for this group. Kept below the committed offset (where other
--             states are pruned) as the record that requeue hands the message back to.
-- delivery_count counts every hand-out of the message to the group. Receipts carry it as
-- the fencing token of one delivery: a message handed back keeps its delivery_attempt, so
-- the attempt alone cannot tell its old delivery from its new one.
ALTER TABLE queue_delivery_state
  ADD COLUMN delivery_count INT NOT NULL DEFAULT 1 AFTER delivery_attempt;

-- Dead-lettering adds keys to the metadata (original_topic, consumer_group naming every
-- group that dead-lettered the message, dead_letter_reason ...), so it may outgrow TEXT's 64 KiB.
ALTER TABLE queue_messages
  MODIFY metadata MEDIUMTEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL;
