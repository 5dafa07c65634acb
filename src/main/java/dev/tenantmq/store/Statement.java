package dev.tenantmq.store;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;

/**
 * A statement and its binds: the SQL it runs (IN lists formatted), and one named {@link Bind}
 * per placeholder, in placeholder order. Each statement of the store has a record
 * implementing this next to its SQL; {@code StatementBindsTest} checks every such record's binds
 * against the placeholders of its SQL: the count, and the column each name stands for.
 */
interface Statement extends Jdbc.Binds {
    /** The SQL to run, with its IN lists formatted for these binds. */
    String sql();

    /** One bind per placeholder of {@link #sql()}, in placeholder order. */
    List<Bind> binds();

    /**
     * A statement built from several records (the UNION ALL of n branches, an INSERT of n VALUES
     * rows): {@code sql} as formatted for them, and their binds one after the other.
     */
    static Statement of(String sql, List<Bind> binds) {
        return new Statement() {
            @Override
            public String sql() {
                return sql;
            }

            @Override
            public List<Bind> binds() {
                return binds;
            }
        };
    }

    @Override
    default void bindTo(PreparedStatement ps) throws SQLException {
        int i = 1;
        for (Bind b : binds()) {
            ps.setObject(i++, b.value());
        }
    }
}
