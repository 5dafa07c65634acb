package dev.tenantmq;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import javax.sql.DataSource;

/** Counts rows straight in the database, for tests that check what a request stored or left behind. */
final class RowCount {
    private RowCount() {}

    /** Runs a {@code SELECT COUNT(*) ...} with string parameters and returns the count. */
    static long of(DataSource dataSource, String countSql, String... params) throws SQLException {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(countSql)) {
            for (int i = 0; i < params.length; i++) {
                ps.setString(i + 1, params[i]);
            }
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }
}
