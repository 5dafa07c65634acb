package dev.tenantmq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Proves from information_schema that the Flyway schema is the RFC's ("Schema"): five tables,
 * plus the identities of deleted messages that duplicate detection keeps ({@code queue_dedup_ids},
 * issue "Idempotency that outlives consumption") and the partition heads ({@code queue_partition_heads},
 * docs/architecture.md "Publish: the partition head lock"), primary keys in the RFC's column order leading
 * with tenant, no secondary index leading with anything else except queue_messages.idx_offset,
 * and the collation of every key column.
 */
@QuarkusTest
class SchemaRulesTest {
    private static final Map<String, List<String>> RFC_PRIMARY_KEYS = Map.of( // and queue_dedup_ids, queue_partition_heads
            "queue_messages", List.of("tenant", "topic", "partition_key", "offset"),
            "queue_delivery_state", List.of("tenant", "consumer_group", "topic", "partition_key", "message_offset"),
            "queue_offsets", List.of("tenant", "topic", "partition_key", "consumer_group"),
            "queue_partition_leases", List.of("tenant", "consumer_group", "topic", "partition_key"),
            "queue_subscriber_heartbeats", List.of("tenant", "consumer_group", "topic", "subscriber_name"),
            "queue_dedup_ids", List.of("tenant", "topic", "partition_key", "id"),
            "queue_partition_heads", List.of("tenant", "topic", "partition_key"),
            // the per-topic and per-group settings (docs/settings.md); consumer_group '' is the topic's row
            "queue_settings", List.of("tenant", "topic", "consumer_group"));
    private static final Set<String> ASCII_IDENTIFIERS =
            Set.of("tenant", "topic", "consumer_group", "subscriber_name", "leased_by", "original_topic");
    private static final Set<String> UNICODE_KEYS = Set.of("partition_key", "id");

    @Inject
    AgroalDataSource dataSource;

    @Test
    void schema_has_exactly_the_five_rfc_tables_the_dedup_identities_and_the_partition_heads() throws Exception {
        List<String> tables = strings("""
                SELECT table_name FROM information_schema.tables
                WHERE table_schema = DATABASE() AND table_name LIKE 'queue%' ORDER BY table_name""");
        assertEquals(RFC_PRIMARY_KEYS.keySet().stream().sorted().toList(), tables);
    }

    @Test
    void every_primary_key_has_the_rfc_column_order_leading_with_tenant() throws Exception {
        for (Map.Entry<String, List<String>> e : RFC_PRIMARY_KEYS.entrySet()) {
            assertEquals(e.getValue(), indexColumns(e.getKey()).get("PRIMARY"), "primary key of " + e.getKey());
        }
    }

    @Test
    void no_secondary_index_leads_with_anything_but_tenant_except_idx_offset() throws Exception {
        for (String table : RFC_PRIMARY_KEYS.keySet()) {
            for (Map.Entry<String, List<String>> index : indexColumns(table).entrySet()) {
                String name = index.getKey();
                if (table.equals("queue_messages") && name.equals("idx_offset")) {
                    assertEquals(List.of("offset"), index.getValue(), "idx_offset");
                    continue;
                }
                assertEquals("tenant", index.getValue().get(0), table + "." + name + " must lead with tenant");
            }
        }
        Map<String, List<String>> messageIndexes = indexColumns("queue_messages");
        assertEquals(Set.of("PRIMARY", "uq_message_id", "idx_offset"), messageIndexes.keySet());
        assertEquals(List.of("tenant", "topic", "partition_key", "id"), messageIndexes.get("uq_message_id"));
        Map<String, List<String>> dedupIndexes = indexColumns("queue_dedup_ids");
        assertEquals(Set.of("PRIMARY", "idx_dedup_created"), dedupIndexes.keySet());
        assertEquals(List.of("tenant", "created_at"), dedupIndexes.get("idx_dedup_created"),
                "retention finds expired identities of a tenant by publish time");
        for (String table : RFC_PRIMARY_KEYS.keySet()) {
            if (!table.equals("queue_messages") && !table.equals("queue_dedup_ids")) {
                assertEquals(Set.of("PRIMARY"), indexColumns(table).keySet(), "extra index on " + table);
            }
        }
    }

    @Test
    void identifier_columns_are_ascii_bin_and_caller_keys_utf8mb4_bin() throws Exception {
        int checked = 0;
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement("""
                SELECT table_name, column_name, character_set_name, collation_name FROM information_schema.columns
                WHERE table_schema = DATABASE() AND table_name LIKE 'queue%'""");
             ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                String where = rs.getString(1) + "." + rs.getString(2);
                String column = rs.getString(2);
                if (ASCII_IDENTIFIERS.contains(column)) {
                    assertEquals("ascii", rs.getString(3), where);
                    assertEquals("ascii_bin", rs.getString(4), where);
                    checked++;
                } else if (UNICODE_KEYS.contains(column)) {
                    assertEquals("utf8mb4", rs.getString(3), where);
                    assertEquals("utf8mb4_bin", rs.getString(4), where);
                    checked++;
                } else if (rs.getString(4) != null) {
                    assertTrue(rs.getString(4).endsWith("_bin"), where + " must compare bytes: " + rs.getString(4));
                }
            }
        }
        assertTrue(checked >= 20, "expected every key column to be checked, got " + checked);
    }

    @Test
    void every_table_defaults_to_utf8mb4_bin() throws Exception {
        List<String> collations = strings("""
                SELECT table_collation FROM information_schema.tables
                WHERE table_schema = DATABASE() AND table_name LIKE 'queue%'""");
        assertEquals(RFC_PRIMARY_KEYS.size(), collations.size());
        collations.forEach(c -> assertEquals("utf8mb4_bin", c));
    }

    private Map<String, List<String>> indexColumns(String table) throws Exception {
        Map<String, List<String>> indexes = new LinkedHashMap<>();
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement("""
                SELECT index_name, column_name FROM information_schema.statistics
                WHERE table_schema = DATABASE() AND table_name = ? ORDER BY index_name, seq_in_index""")) {
            ps.setString(1, table);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    indexes.computeIfAbsent(rs.getString(1), k -> new ArrayList<>()).add(rs.getString(2));
                }
            }
        }
        return indexes;
    }

    private List<String> strings(String sql) throws Exception {
        List<String> out = new ArrayList<>();
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql);
             ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }
}
