package dev.tenantmq.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tenantmq.Api;
import dev.tenantmq.TestIds;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The store's connections run out of autocommit, so a transaction needs no START (docs/
 * architecture.md, "Transactions without START"), and nothing of that leaks: another borrower of
 * the pool gets autocommit, as JDBC promises, and a read on such a connection leaves no
 * transaction open behind it.
 */
@QuarkusTest
class PoolAutocommitTest {
    /** More than the pool holds idle after a few requests, so every idle connection is handed out. */
    private static final int BORROWED = 12;

    @Inject
    AgroalDataSource dataSource;

    @Inject
    Db db;

    private final String tenant = TestIds.tenant();
    private final String topic = TestIds.topic();

    @Test
    void a_store_transaction_starts_with_its_first_statement() {
        boolean[] autocommit = new boolean[1];
        db.inTransaction(Db.Isolation.READ_COMMITTED, c -> {
            autocommit[0] = PoolAutocommit.driverConnection(c).getAutoCommit();
            return null;
        });
        assertFalse(autocommit[0], "out of autocommit inside the store's transaction");
    }

    @Test
    void every_other_borrower_of_the_pool_gets_autocommit() throws SQLException {
        Api.publishOk(tenant, topic, List.of(Api.msg("k", "m1", 1))); // store transactions on pooled connections
        db.inTransaction(Db.Isolation.READ_COMMITTED, c -> null);

        List<Connection> borrowed = new ArrayList<>();
        try {
            for (int i = 0; i < BORROWED; i++) {
                borrowed.add(dataSource.getConnection());
            }
            for (Connection c : borrowed) {
                assertTrue(c.getAutoCommit(), "a borrower outside the store gets autocommit");
            }
        } finally {
            for (Connection c : borrowed) {
                c.close();
            }
        }
    }

    @Test
    void through_vtgate_a_read_runs_in_autocommit() throws SQLException {
        boolean[] vtgate = new boolean[1];
        boolean[] autocommit = new boolean[1];
        db.inTransaction(Db.Isolation.READ_COMMITTED, c -> null);
        db.read(c -> {
            vtgate[0] = Db.isVtgate(c);
            autocommit[0] = PoolAutocommit.driverConnection(c).getAutoCommit();
            return null;
        });
        assumeTrue(vtgate[0], "runs against vtgate only (docs/vitess.md, \"End to end on a real vtgate\")");
        assertTrue(autocommit[0], "vtgate would open the read's transaction on every shard it reaches");
    }

    @Test
    void a_read_on_a_connection_out_of_autocommit_leaves_no_transaction_open() throws SQLException {
        Api.publishOk(tenant, topic, List.of(Api.msg("k", "m1", 1)));
        long[] thread = new long[1];
        boolean[] implicit = new boolean[1];
        // The same thread borrows again at once: the pool hands it the connection it just returned.
        db.inTransaction(Db.Isolation.READ_COMMITTED, c -> null);
        long heads = db.read(c -> {
            implicit[0] = !PoolAutocommit.driverConnection(c).getAutoCommit();
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT CONNECTION_ID(), COUNT(*) FROM queue_partition_heads WHERE tenant = ? AND topic = ?")) {
                ps.setString(1, tenant);
                ps.setString(2, topic);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    thread[0] = rs.getLong(1);
                    return rs.getLong(2);
                }
            }
        });
        assumeTrue(implicit[0], "the read got a connection the store had taken out of autocommit (not on vtgate,"
                + " where reads run in autocommit)");
        assertEquals(1, heads);
        // A read of the view that MySQL 9.7 refuses tells nothing (dev.tenantmq.ServerViews): read again.
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30))
                .ignoreExceptionsMatching(e -> e instanceof SQLException s && dev.tenantmq.ServerViews.textNotReadable(s))
                .untilAsserted(() -> {
                    try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(
                            "SELECT COUNT(*) FROM information_schema.innodb_trx WHERE trx_mysql_thread_id = ?")) {
                        ps.setLong(1, thread[0]);
                        try (ResultSet rs = ps.executeQuery()) {
                            rs.next();
                            assertEquals(0, rs.getLong(1), "no transaction of the read's connection is open");
                        }
                    }
                });
    }
}
