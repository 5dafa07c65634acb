-- Duplicate detection that outlives the message (issue "Idempotency that outlives
-- consumption"). A publish is a duplicate when its (tenant, topic, partition_key, id) is stored
-- in queue_messages (uq_message_id), or was published less than mq.publish.dedup-window ago
-- and has been deleted since. Retention and the admin delete move the identity of a message
-- younger than the window here, in the transaction that deletes it, so at every moment the
-- identity is in one of the two tables and publish finds it with one statement over both.
-- Retention deletes rows once they are older than the window.
CREATE TABLE queue_dedup_ids (
  tenant        VARCHAR(255) CHARACTER SET ascii   COLLATE ascii_bin   NOT NULL,
  topic         VARCHAR(255) CHARACTER SET ascii   COLLATE ascii_bin   NOT NULL,
  partition_key VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  id            VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  -- the offset the message had: a duplicate publish answers it
  `offset`      BIGINT NOT NULL,
  -- when the message was published (its queue_messages.created_at); the window counts from here
  created_at    DATETIME(6) NOT NULL,
  PRIMARY KEY (tenant, topic, partition_key, id),
  KEY idx_dedup_created (tenant, created_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
