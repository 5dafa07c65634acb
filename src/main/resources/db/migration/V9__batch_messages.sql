-- The size of each open delivery batch (docs/architecture.md, "An ack of a whole batch reads no
-- message"): how many messages the batch in (committed_offset, delivered_offset] handed out for
-- the first time, written by the fetch that opens it. An ack whose receipts name that many
-- distinct messages of the batch, in a partition with no delivery row above the committed
-- offset, acknowledges the whole batch: the committed offset moves to delivered_offset without
-- reading the messages.
--
-- 0 means "unknown, read the messages": a batch opened before this migration, a closed batch, or
-- a batch one of whose messages was deleted since it opened (an admin delete, retention's maximum
-- age), whose receipt must then stay INVALID.
ALTER TABLE queue_offsets
  ADD COLUMN batch_messages INT NOT NULL DEFAULT 0 AFTER delivered_offset;
