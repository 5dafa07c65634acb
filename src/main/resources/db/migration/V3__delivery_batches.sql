-- Delivery batches (issue "Throughput"): the happy path of consumption writes one row per
-- (consumer group, partition) per fetch and per ack, not one row per message.
--
-- A fetch that hands out messages of a partition records the batch on the partition's
-- queue_offsets row: the messages in (committed_offset, delivered_offset] that have no
-- queue_delivery_state row are in flight in that batch, with delivery_attempt 1, delivery
-- number delivery_seq, lease epoch delivery_epoch and visibility deadline visible_at. An ack of
-- a prefix of them only moves committed_offset. Everything else (a nack, an extend, an ack out
-- of order, a lease hand-over, an expiry) first writes the batch out as explicit INFLIGHT rows
-- ("materializes" it) and closes it (delivered_offset = committed_offset); the per-message rows
-- then follow the V2 rules unchanged. So queue_delivery_state holds only exceptions.
--
-- delivery_seq numbers every hand-out of the partition to the group, and every delivery row's
-- delivery_count is the number of the hand-out that last delivered it: a receipt names its
-- delivery by it (the fencing token besides the lease epoch). It starts above every existing
-- delivery_count, so no receipt issued before this migration can match a later delivery.
ALTER TABLE queue_offsets
  ADD COLUMN delivered_offset BIGINT NOT NULL DEFAULT 0 AFTER committed_offset,
  ADD COLUMN delivery_epoch BIGINT NOT NULL DEFAULT 0 AFTER delivered_offset,
  ADD COLUMN delivery_seq BIGINT NOT NULL DEFAULT 0 AFTER delivery_epoch,
  ADD COLUMN visible_at DATETIME(6) NOT NULL DEFAULT '1970-01-01 00:00:00' AFTER delivery_seq;

ALTER TABLE queue_delivery_state
  MODIFY delivery_count BIGINT NOT NULL DEFAULT 1;

UPDATE queue_offsets o
SET delivery_seq = COALESCE((
    SELECT MAX(d.delivery_count) FROM queue_delivery_state d
    WHERE d.tenant = o.tenant AND d.consumer_group = o.consumer_group AND d.topic = o.topic
      AND d.partition_key = o.partition_key), 0)
WHERE o.tenant IS NOT NULL;
