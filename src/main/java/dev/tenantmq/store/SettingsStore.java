package dev.tenantmq.store;

import dev.tenantmq.model.SettingOverrides;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;

/**
 * SQL of the per-topic and per-group settings ({@code queue_settings}, docs/settings.md,
 * "Per-topic and per-group settings"). Every statement leads with {@code tenant}, so on Vitess it
 * stays on the tenant's shard. A topic's own row has {@code consumer_group = ''}.
 */
@ApplicationScoped
public class SettingsStore {
    /** The consumer group of a topic's own row. */
    static final String TOPIC_ROW = "";

    /** The columns of one row's overrides, in {@link SettingOverrides} order. */
    private static final String COLUMNS = """
            max_deliveries, default_visibility_seconds, max_visibility_seconds, nack_backoff_base_millis,
            nack_backoff_cap_millis, retention_max_age_seconds, dedup_window_seconds, dead_letter_enabled""";

    /**
     * Every override row of a tenant, at most {@code ?}: what a process caches once per scheduler
     * tick. A plain consistent read in auto-commit; a primary-key range scan of one tenant. Binds:
     * {@link SelectTenant}.
     */
    static final String SELECT_TENANT = "SELECT topic, consumer_group, " + COLUMNS + """

            FROM queue_settings WHERE tenant = ? ORDER BY topic, consumer_group LIMIT ?""";

    /** Binds of {@link #SELECT_TENANT}, in placeholder order. */
    record SelectTenant(String tenant, int limit) implements Statement {
        @Override
        public String sql() {
            return SELECT_TENANT;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("tenant", tenant), Bind.of("limit", limit));
        }
    }

    /**
     * One row, locked for the change that follows in the same transaction (a row lock by primary
     * key; under READ COMMITTED no gap lock, so two first writes of one row race to the INSERT,
     * whose duplicate key makes {@link Db} retry the loser, which then finds the row). Binds:
     * {@link SelectRow}.
     */
    static final String SELECT_ROW = "SELECT " + COLUMNS + """

            FROM queue_settings WHERE tenant = ? AND topic = ? AND consumer_group = ? FOR UPDATE""";

    /** Binds of {@link #SELECT_ROW}, in placeholder order. */
    record SelectRow(String tenant, String topic, String consumerGroup) implements Statement {
        @Override
        public String sql() {
            return SELECT_ROW;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("tenant", tenant), Bind.of("topic", topic), Bind.of("consumer_group", consumerGroup));
        }
    }

    /** One row, for a read outside any change (the admin API's fresh view). Binds: {@link ReadRow}. */
    static final String READ_ROW = "SELECT " + COLUMNS + """

            FROM queue_settings WHERE tenant = ? AND topic = ? AND consumer_group = ?""";

    /** Binds of {@link #READ_ROW}, in placeholder order. */
    record ReadRow(String tenant, String topic, String consumerGroup) implements Statement {
        @Override
        public String sql() {
            return READ_ROW;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("tenant", tenant), Bind.of("topic", topic), Bind.of("consumer_group", consumerGroup));
        }
    }

    /** A new row. Binds: {@link InsertRow}. */
    static final String INSERT_ROW = "INSERT INTO queue_settings (tenant, topic, consumer_group, " + COLUMNS + """
            , updated_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, UTC_TIMESTAMP(6))""";

    /** Binds of {@link #INSERT_ROW}, in placeholder order. */
    record InsertRow(String tenant, String topic, String consumerGroup, SettingOverrides o) implements Statement {
        @Override
        public String sql() {
            return INSERT_ROW;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("tenant", tenant), Bind.of("topic", topic), Bind.of("consumer_group", consumerGroup),
                    values(o));
        }
    }

    /** Replaces the overrides of the row locked by {@link #SELECT_ROW}. Binds: {@link UpdateRow}. */
    static final String UPDATE_ROW = """
            UPDATE queue_settings SET max_deliveries = ?, default_visibility_seconds = ?, max_visibility_seconds = ?,
              nack_backoff_base_millis = ?, nack_backoff_cap_millis = ?, retention_max_age_seconds = ?,
              dedup_window_seconds = ?, dead_letter_enabled = ?, updated_at = UTC_TIMESTAMP(6)
            WHERE tenant = ? AND topic = ? AND consumer_group = ?""";

    /** Binds of {@link #UPDATE_ROW}, in placeholder order. */
    record UpdateRow(String tenant, String topic, String consumerGroup, SettingOverrides o) implements Statement {
        @Override
        public String sql() {
            return UPDATE_ROW;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(values(o), Bind.of("tenant", tenant), Bind.of("topic", topic),
                    Bind.of("consumer_group", consumerGroup));
        }
    }

    /** Removes one row: its level inherits everything again. Binds: {@link DeleteRow}. */
    static final String DELETE_ROW = """
            DELETE FROM queue_settings WHERE tenant = ? AND topic = ? AND consumer_group = ?""";

    /** Binds of {@link #DELETE_ROW}, in placeholder order. */
    record DeleteRow(String tenant, String topic, String consumerGroup) implements Statement {
        @Override
        public String sql() {
            return DELETE_ROW;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("tenant", tenant), Bind.of("topic", topic), Bind.of("consumer_group", consumerGroup));
        }
    }

    private static List<Bind> values(SettingOverrides o) {
        return List.of(Bind.of("max_deliveries", o.maxDeliveries()),
                Bind.of("default_visibility_seconds", o.defaultVisibilitySeconds()),
                Bind.of("max_visibility_seconds", o.maxVisibilitySeconds()),
                Bind.of("nack_backoff_base_millis", o.nackBackoffBaseMillis()),
                Bind.of("nack_backoff_cap_millis", o.nackBackoffCapMillis()),
                Bind.of("retention_max_age_seconds", o.retentionMaxAgeSeconds()),
                Bind.of("dedup_window_seconds", o.dedupWindowSeconds()),
                Bind.of("dead_letter_enabled", o.deadLetterEnabled()));
    }

    /**
     * One stored row: a topic's overrides ({@code consumerGroup} empty) or a group's.
     *
     * @param consumerGroup the group, or empty for the topic's own row
     */
    public record Row(String topic, Optional<String> consumerGroup, SettingOverrides overrides) {}

    /** The rows of a tenant read at once, and whether there were more than the limit. */
    public record TenantRows(List<Row> rows, boolean truncated) {}

    private final Db db;

    SettingsStore(Db db) {
        this.db = db;
    }

    /**
     * Every override row of {@code tenant}, at most {@code limit} (one statement).
     *
     * @throws dev.tenantmq.model.StoreUnavailableException when the database is unreachable
     */
    public TenantRows tenant(String tenant, int limit) {
        List<Row> rows = db.read(c -> Db.list(c, SELECT_TENANT, new SelectTenant(tenant, limit + 1), rs -> {
            String group = rs.getString("consumer_group");
            return new Row(rs.getString("topic"), group.isEmpty() ? Optional.empty() : Optional.of(group), overrides(rs));
        }));
        boolean truncated = rows.size() > limit;
        return new TenantRows(truncated ? rows.subList(0, limit) : rows, truncated);
    }

    /**
     * The overrides of one topic ({@code consumerGroup} empty) or group, read now (the admin API's
     * fresh view, not the tick's cache).
     *
     * @throws dev.tenantmq.model.StoreUnavailableException when the database is unreachable
     */
    public SettingOverrides read(String tenant, String topic, Optional<String> consumerGroup) {
        ReadRow row = new ReadRow(tenant, topic, consumerGroup.orElse(TOPIC_ROW));
        List<SettingOverrides> found = db.read(c -> Db.list(c, READ_ROW, row, SettingsStore::overrides));
        return found.isEmpty() ? SettingOverrides.NONE : found.get(0);
    }

    /**
     * Replaces the overrides of one topic or group; all-null overrides delete the row. One
     * transaction: lock the row, then insert, update or delete it.
     *
     * @throws dev.tenantmq.model.StoreUnavailableException when the database is unreachable
     */
    public void replace(String tenant, String topic, Optional<String> consumerGroup, SettingOverrides overrides) {
        String group = consumerGroup.orElse(TOPIC_ROW);
        db.inTransaction(Db.Isolation.READ_COMMITTED, c -> {
            Optional<SettingOverrides> current = first(c, new SelectRow(tenant, topic, group));
            if (overrides.isEmpty()) {
                if (current.isPresent()) {
                    UpdateCount.EXACTLY_ONE.check(Db.update(c, DELETE_ROW, new DeleteRow(tenant, topic, group)),
                            "delete of settings");
                }
            } else if (current.isPresent()) {
                UpdateCount.EXACTLY_ONE.check(Db.update(c, UPDATE_ROW, new UpdateRow(tenant, topic, group, overrides)),
                        "update of settings");
            } else {
                UpdateCount.EXACTLY_ONE.check(Db.update(c, INSERT_ROW, new InsertRow(tenant, topic, group, overrides)),
                        "insert of settings");
            }
            return null;
        });
    }

    private static Optional<SettingOverrides> first(Connection c, SelectRow select) throws SQLException {
        List<SettingOverrides> found = Db.list(c, SELECT_ROW, select, SettingsStore::overrides);
        return found.isEmpty() ? Optional.empty() : Optional.of(found.get(0));
    }

    private static SettingOverrides overrides(ResultSet rs) throws SQLException {
        return new SettingOverrides(rs.getObject("max_deliveries", Integer.class),
                rs.getObject("default_visibility_seconds", Integer.class),
                rs.getObject("max_visibility_seconds", Integer.class),
                rs.getObject("nack_backoff_base_millis", Long.class),
                rs.getObject("nack_backoff_cap_millis", Long.class),
                rs.getObject("retention_max_age_seconds", Long.class),
                rs.getObject("dedup_window_seconds", Long.class),
                rs.getObject("dead_letter_enabled", Boolean.class));
    }
}
