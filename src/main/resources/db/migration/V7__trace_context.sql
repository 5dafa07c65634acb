-- W3C Trace Context of the publish request a message came with (docs/api.md, "Trace context"):
-- returned with every delivery, so the consumer continues the publisher's trace. Columns of their
-- own rather than keys of metadata: metadata is the caller's (it counts against
-- mq.publish.max-metadata-bytes, and a caller may use these names for something else), while
-- the trace context is the infrastructure's, which the recommendation asks to pass on unchanged.
--
-- Both NULL for a message published without a valid traceparent: a NULL column costs a bit of
-- the row's null bitmap, so messages without trace context pay nothing for the feature.
-- Nullable columns added last are an instant change on MySQL 8.0+ and MariaDB 10.3+ (no copy
-- of the table).
ALTER TABLE queue_messages
  -- version-00 traceparent: 00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>, lowercase
  ADD COLUMN traceparent CHAR(55)     CHARACTER SET ascii COLLATE ascii_bin NULL,
  -- the vendor list as sent (printable ASCII by the recommendation), at most 512 characters
  ADD COLUMN tracestate  VARCHAR(512) CHARACTER SET ascii COLLATE ascii_bin NULL;
