-- The size of each open delivery batch (docs/architecture.md, "Delivery batches"): how many
-- messages the batch in (committed_offset, delivered_offset] handed out for the first time,
-- written by the fetch that opens it, with the delivery number (delivery_seq) of that batch in
-- batch_seq. An ack whose receipts name that many distinct messages of the batch, in a partition
-- with no delivery row above the committed offset, acknowledges the whole batch: the committed
-- offset moves to delivered_offset without reading the messages.
--
-- The count holds only while batch_seq equals delivery_seq: a batch opened by a process that does
-- not know these columns (during a rolling update) leaves them behind, and its ack reads the
-- messages. batch_messages 0 means "unknown, read the messages" too: a batch opened before this
-- migration, or one with a message deleted since it opened (an admin delete, retention's maximum
-- age, a dead letter replacing a row of the dead-letter topic), whose receipt must then stay
-- INVALID.
ALTER TABLE queue_offsets
  ADD COLUMN batch_messages INT NOT NULL DEFAULT 0 AFTER delivered_offset,
  ADD COLUMN batch_seq BIGINT NOT NULL DEFAULT 0 AFTER batch_messages;
