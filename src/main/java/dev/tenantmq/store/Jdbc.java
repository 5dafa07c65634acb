package dev.tenantmq.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Plain JDBC steps on a connection someone else opened, with no pool, retry or framework: the
 * part of {@link Db} that the publish protocol ({@link PublishTransaction}) needs, so that the
 * JDBC library (clients/jdbc, docs/transactional-publish.md) compiles this same file.
 */
final class Jdbc {
    private Jdbc() {}

    /**
     * The parameters of one statement, bound in its placeholder order. Every statement of the
     * store has a {@link Statement} record implementing this next to its SQL, so the order is
     * written once, by name, where the placeholders are.
     */
    @FunctionalInterface
    interface Binds {
        /** Sets every parameter of {@code ps}, in placeholder order. */
        void bindTo(PreparedStatement ps) throws SQLException;
    }

    /** Reads the current row of a result set into the caller's state, reading columns by label. */
    @FunctionalInterface
    interface RowReader {
        /** Reads the row {@code rs} is on; does not move the cursor. */
        void read(ResultSet rs) throws SQLException;
    }

    /** Runs a query with {@code binds} and hands every row to {@code reader}, in row order. */
    static void forEach(Connection c, String sql, Binds binds, RowReader reader) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            binds.bindTo(ps);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    reader.read(rs);
                }
            }
        }
    }

    /** Runs one update with {@code binds}; returns the update count. */
    static int update(Connection c, String sql, Binds binds) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            binds.bindTo(ps);
            return ps.executeUpdate();
        }
    }

    /** {@code n} comma-separated placeholders for an IN list, e.g. {@code ?, ?, ?}. */
    static String placeholders(int n) {
        return n == 0 ? "NULL" : "?" + ", ?".repeat(n - 1);
    }

    /**
     * Whether {@code c} talks to vtgate (Vitess) rather than to a mysqld: vtgate announces a
     * server version ending in {@code -Vitess} (v0.24.4: {@code 8.4.6-Vitess}). The driver keeps
     * the version from the handshake, so this costs no round trip.
     */
    static boolean isVtgate(Connection c) throws SQLException {
        return c.getMetaData().getDatabaseProductVersion().endsWith("-Vitess");
    }
}
