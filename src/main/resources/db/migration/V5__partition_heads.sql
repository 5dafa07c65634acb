-- The head of every partition as data (docs/architecture.md, "Publish: the partition head lock"):
-- one row per (tenant, topic, partition_key) that was ever published to, holding the newest
-- offset any message of the partition received. Publish upserts the rows of a request's
-- partitions first, in key order, and holds their row locks until commit: that lock orders
-- publishers of a partition, so per partition offsets commit in offset order. The row is never
-- moved or replaced, so a publisher that waited for it holds what it waited for, and a new
-- partition is a new row (no gap lock needed under READ COMMITTED).
--
-- head_offset only grows: a message deleted later (retention, admin delete) leaves it where it
-- was, so readers treat it as a bound ("nothing above it"), and confirm "something above the
-- committed offset" against the newest stored message.
CREATE TABLE queue_partition_heads (
  tenant        VARCHAR(255) CHARACTER SET ascii   COLLATE ascii_bin   NOT NULL,
  topic         VARCHAR(255) CHARACTER SET ascii   COLLATE ascii_bin   NOT NULL,
  partition_key VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  -- newest offset given to a message of the partition; 0 while the first publish is in flight
  head_offset   BIGINT NOT NULL,
  PRIMARY KEY (tenant, topic, partition_key)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- Every partition with stored messages, at its newest offset (a loose index scan: one look per
-- partition).
INSERT INTO queue_partition_heads (tenant, topic, partition_key, head_offset)
SELECT tenant, topic, partition_key, MAX(`offset`)
FROM queue_messages
GROUP BY tenant, topic, partition_key;
