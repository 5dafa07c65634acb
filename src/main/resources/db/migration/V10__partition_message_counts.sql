-- How many messages each partition stores (docs/architecture.md, "Lag from the partition
-- heads"): the lag gauge counts the smaller side of a committed offset, the stored messages above
-- it or those at or below it subtracted from this count, so a deep backlog is not read on every
-- refresh.
--
-- Every writer of queue_messages keeps it in the transaction that writes the messages, under the
-- head's lock, which it takes first: publish and dead letters add what they insert in the
-- statement that moves head_offset, retention and the admin delete subtract what they delete. A
-- topic's deletion does not count: it removes the head rows after the messages. A process or an
-- application (tenant-mq-jdbc) of an earlier version that writes after this migration does not
-- keep it: docs/operations.md, "Metrics", says how to count it again.
ALTER TABLE queue_partition_heads
  ADD COLUMN message_count BIGINT NOT NULL DEFAULT 0 AFTER head_offset;

-- The messages stored now, per partition (one range of the primary key each). Correlated on the
-- whole head key, tenant first: on Vitess the subquery merges into each shard's update.
UPDATE queue_partition_heads h
SET h.message_count = (
  SELECT COUNT(*) FROM queue_messages m
  WHERE m.tenant = h.tenant AND m.topic = h.topic AND m.partition_key = h.partition_key);
