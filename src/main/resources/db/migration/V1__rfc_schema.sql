-- Schema of the per-tenant sharding RFC ("Schema" section), exactly five tables.
-- Rules every table follows:
--   * the primary key leads with tenant (the Vitess shard key);
--   * no secondary index leads with anything but tenant, except
--     queue_messages.idx_offset, which InnoDB needs for the AUTO_INCREMENT column;
--   * operational identifiers are ascii/ascii_bin, caller keys (partition_key, id)
--     are utf8mb4/utf8mb4_bin, and the table default is utf8mb4_bin;
--   * times are DATETIME(6) in UTC, always written from UTC_TIMESTAMP(6) so that
--     lease and visibility expiry are judged by the database clock.

CREATE TABLE queue_messages (
  tenant        VARCHAR(255) CHARACTER SET ascii   COLLATE ascii_bin   NOT NULL,
  topic         VARCHAR(255) CHARACTER SET ascii   COLLATE ascii_bin   NOT NULL,
  partition_key VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  `offset`      BIGINT NOT NULL AUTO_INCREMENT,
  id            VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  -- JSON text exactly as serialized by the service. Not the JSON type: MySQL's
  -- JSON type rewrites numbers (1.2345678901234568e29) and reorders keys.
  payload       LONGTEXT     CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  -- JSON object of string values; always contains queue_name = tenant.
  metadata      TEXT         CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  created_at    DATETIME(6) NOT NULL,
  PRIMARY KEY (tenant, topic, partition_key, `offset`),
  UNIQUE KEY uq_message_id (tenant, topic, partition_key, id),
  KEY idx_offset (`offset`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- One row per (group, message) that has been delivered at least once and is
-- above the group's committed offset. Rows at or below the committed offset
-- are deleted when the offset advances, so the table holds only the window.
CREATE TABLE queue_delivery_state (
  tenant           VARCHAR(255) CHARACTER SET ascii   COLLATE ascii_bin   NOT NULL,
  consumer_group   VARCHAR(255) CHARACTER SET ascii   COLLATE ascii_bin   NOT NULL,
  topic            VARCHAR(255) CHARACTER SET ascii   COLLATE ascii_bin   NOT NULL,
  partition_key    VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  message_offset   BIGINT NOT NULL,
  -- INFLIGHT (delivered, unacknowledged), ACKED, DEAD (dead-lettered for this group)
  state            VARCHAR(16)  CHARACTER SET ascii   COLLATE ascii_bin   NOT NULL,
  delivery_attempt INT NOT NULL,
  -- epoch of the partition lease under which the current delivery was made (fencing token)
  lease_epoch      BIGINT NOT NULL,
  -- the in-flight delivery is invisible to redelivery until this time (visibility timeout)
  visible_at       DATETIME(6) NOT NULL,
  updated_at       DATETIME(6) NOT NULL,
  PRIMARY KEY (tenant, consumer_group, topic, partition_key, message_offset)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- Committed offset of a consumer group in a partition: every message at or below
-- it is acknowledged (or dead-lettered). 0 means nothing committed yet.
CREATE TABLE queue_offsets (
  tenant           VARCHAR(255) CHARACTER SET ascii   COLLATE ascii_bin   NOT NULL,
  topic            VARCHAR(255) CHARACTER SET ascii   COLLATE ascii_bin   NOT NULL,
  partition_key    VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  consumer_group   VARCHAR(255) CHARACTER SET ascii   COLLATE ascii_bin   NOT NULL,
  committed_offset BIGINT NOT NULL,
  updated_at       DATETIME(6) NOT NULL,
  PRIMARY KEY (tenant, topic, partition_key, consumer_group)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- Exclusive right of one subscriber to deliver one partition to one group.
-- epoch increases on every acquisition; a lease is free when expires_at has passed.
CREATE TABLE queue_partition_leases (
  tenant         VARCHAR(255) CHARACTER SET ascii   COLLATE ascii_bin   NOT NULL,
  consumer_group VARCHAR(255) CHARACTER SET ascii   COLLATE ascii_bin   NOT NULL,
  topic          VARCHAR(255) CHARACTER SET ascii   COLLATE ascii_bin   NOT NULL,
  partition_key  VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  leased_by      VARCHAR(255) CHARACTER SET ascii   COLLATE ascii_bin   NOT NULL,
  epoch          BIGINT NOT NULL,
  expires_at     DATETIME(6) NOT NULL,
  acquired_at    DATETIME(6) NOT NULL,
  renewed_at     DATETIME(6) NOT NULL,
  PRIMARY KEY (tenant, consumer_group, topic, partition_key)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE queue_subscriber_heartbeats (
  tenant          VARCHAR(255) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  consumer_group  VARCHAR(255) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  topic           VARCHAR(255) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  subscriber_name VARCHAR(255) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  started_at      DATETIME(6) NOT NULL,
  last_seen_at    DATETIME(6) NOT NULL,
  PRIMARY KEY (tenant, consumer_group, topic, subscriber_name)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
