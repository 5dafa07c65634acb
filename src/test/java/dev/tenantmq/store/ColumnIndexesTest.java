package dev.tenantmq.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A row mapper reads columns by label, and the driver is asked for each label's index once per
 * result set, not once per row (docs/architecture.md, "Rows into responses").
 */
@QuarkusTest
class ColumnIndexesTest {
    @Inject
    AgroalDataSource dataSource;

    @Test
    void each_label_is_looked_up_once_per_result_set_whatever_the_rows() throws Exception {
        List<String> lookedUp = new ArrayList<>();
        List<String> read = new ArrayList<>();
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement(
                     "SELECT 'a' AS k, 1 AS n UNION ALL SELECT 'b', 2 UNION ALL SELECT 'c', 3")) {
            try (ResultSet driver = ps.executeQuery()) {
                ResultSet rs = countingFindColumn(driver, lookedUp);
                ColumnIndexes column = new ColumnIndexes();
                while (rs.next()) {
                    read.add(rs.getString(column.of(rs, "k")) + rs.getLong(column.of(rs, "n")));
                }
                assertThrows(SQLException.class, () -> column.of(rs, "no_such_column"));
            }
        }
        assertEquals(List.of("a1", "b2", "c3"), read);
        assertEquals(List.of("k", "n", "no_such_column"), lookedUp, "one look-up per label for three rows");
    }

    /** {@code rs} with every call passed through, and the labels it is asked to find noted. */
    private static ResultSet countingFindColumn(ResultSet rs, List<String> labels) {
        return (ResultSet) Proxy.newProxyInstance(ResultSet.class.getClassLoader(), new Class<?>[] {ResultSet.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("findColumn")) {
                        labels.add((String) args[0]);
                    }
                    try {
                        return method.invoke(rs, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }
}
