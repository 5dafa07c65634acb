-- Delayed delivery (docs/api.md, "Delayed delivery"): a message published with
-- deliverAfterSeconds or deliverAt is not delivered before its deliver_at (database clock,
-- UTC, like visible_at). NULL, the value of every message published without a delay, is "due
-- at once": a message without a delay costs nothing more to store, scan or deliver.
--
-- Ordering is kept: the first message of a partition that is not yet due holds back the later
-- ones, as a nacked message whose delay has not passed does. The fetch's walk reads deliver_at
-- on the rows it scans anyway; nothing reads it by itself, so it needs no index.
ALTER TABLE queue_messages
  ADD COLUMN deliver_at DATETIME(6) NULL DEFAULT NULL AFTER created_at;

-- The latest deliver_at of any message published to the partition, NULL while none had a
-- delay. Publish moves it (in the statement that moves head_offset) only for a request that
-- carries a delay. It is the gate of the ready-partitions query: only while it is in the
-- future does that query look at the first message above a group's committed offset to see
-- whether it is due (ConsumerSql.partitionHasWork), so partitions that never had a delay, or
-- whose delays have all passed, pay nothing for the feature.
ALTER TABLE queue_partition_heads
  ADD COLUMN delayed_until DATETIME(6) NULL DEFAULT NULL AFTER head_offset;
