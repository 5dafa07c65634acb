-- Per-topic and per-consumer-group settings (docs/settings.md, "Per-topic and per-group settings"):
-- overrides of the global mq.* settings. One row per (tenant, topic) with consumer_group = ''
-- (the topic's overrides), and optionally one per (tenant, topic, consumer_group) (that group's).
-- Every setting column is nullable: NULL inherits (a group row from its topic row, a topic row from
-- the global setting). The primary key leads with tenant, so every statement stays on one shard on
-- Vitess; each process reads its tenants' rows once per scheduler tick into memory, so publish,
-- fetch and ack read none of it.
CREATE TABLE queue_settings (
  tenant                     VARCHAR(255) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  topic                      VARCHAR(255) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  -- '' for the topic's own overrides (a consumer group name is never empty)
  consumer_group             VARCHAR(255) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  max_deliveries             INT NULL,
  default_visibility_seconds INT NULL,
  max_visibility_seconds     INT NULL,
  nack_backoff_base_millis   BIGINT NULL,
  nack_backoff_cap_millis    BIGINT NULL,
  -- topic rows only: retention and duplicate detection are properties of the topic's messages
  retention_max_age_seconds  BIGINT NULL,
  dedup_window_seconds       BIGINT NULL,
  dead_letter_enabled        BOOLEAN NULL,
  updated_at                 DATETIME(6) NOT NULL,
  PRIMARY KEY (tenant, topic, consumer_group)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
