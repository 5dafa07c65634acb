package dev.tenantmq.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tenantmq.TestIds;
import dev.tenantmq.model.StoreUnavailableException;
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
 * A connection that goes away under a transaction is unavailability (503, retry), never an
 * internal error (500), whatever the driver reports (docs/api.md, "Errors"; {@link Db#isUnavailable}).
 * The exceptions here are real: the embedded database kills the connection ({@code KILL
 * CONNECTION}) between the statements of a transaction, as a reset link or a database stop does.
 */
@QuarkusTest
class ConnectionLostTest {
    @Inject
    AgroalDataSource dataSource;

    @Inject
    Db db;

    private final String tenant = TestIds.tenant();
    private final String group = TestIds.group();
    private final String topic = TestIds.topic();

    /**
     * The fixture has the server kill a session. vtgate refuses that (VT07001), so there the
     * tests are skipped before they start: an assumption that failed inside an
     * {@code assertThrows} would be reported as the wrong exception instead.
     */
    @org.junit.jupiter.api.BeforeEach
    void killingASessionIsPossible() throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            org.junit.jupiter.api.Assumptions.assumeFalse(Db.isVtgate(c), "vtgate does not let a client KILL a session");
        }
    }

    @Test
    void every_driver_error_of_a_dropped_connection_is_classified_unavailable() throws Exception {
        List<SQLException> seen = new ArrayList<>();
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            try (PreparedStatement ps = heartbeatBatch(c)) {
                kill(c);
                // Connector/J reports S1009 "statement closed" here: its clean-up after the lost
                // link throws in place of the communications failure.
                seen.add(assertThrows(SQLException.class, ps::executeBatch));
                seen.add(assertThrows(SQLException.class, ps::executeBatch));
                seen.add(assertThrows(SQLException.class, () -> c.prepareStatement("SELECT 1")));
                seen.add(assertThrows(SQLException.class, c::commit));
            }
        }
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement("SELECT 1")) {
            kill(c);
            seen.add(assertThrows(SQLException.class, ps::executeQuery)); // communications link failure
        }
        assertTrue(seen.stream().anyMatch(e -> "S1009".equals(e.getSQLState())),
                "the fixture reproduces the statement-closed error: " + describe(seen));
        for (SQLException e : seen) {
            assertTrue(Db.isUnavailable(e), "unavailable: " + describe(List.of(e)));
        }
    }

    @Test
    void a_batch_on_a_connection_dropped_mid_transaction_is_unavailability() {
        assertThrows(StoreUnavailableException.class, () -> db.inTransaction(Db.Isolation.READ_COMMITTED, c -> {
            try (PreparedStatement ps = c.prepareStatement(LeaseStore.UPSERT_HEARTBEAT)) {
                Db.bind(ps, tenant, group, topic, "before");
                ps.executeUpdate();
            }
            kill(c);
            List<Db.Binds> rows = List.of(ps -> Db.bind(ps, tenant, group, topic, "s1"),
                    ps -> Db.bind(ps, tenant, group, topic, "s2"));
            Db.updateEach(c, LeaseStore.UPSERT_HEARTBEAT, rows);
            return null;
        }));
        assertEquals(List.of(), db.read(c -> Db.column(c, """
                SELECT subscriber_name FROM queue_subscriber_heartbeats
                WHERE tenant = ? AND consumer_group = ? AND topic = ?""", tenant, group, topic)),
                "nothing of the transaction was committed");
    }

    @Test
    void any_error_after_which_the_connection_is_closed_is_unavailability() {
        assertThrows(StoreUnavailableException.class, () -> db.read(c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT 1"); ResultSet rs = ps.executeQuery()) {
                kill(c);
                try (PreparedStatement next = c.prepareStatement("SELECT 2")) {
                    next.executeQuery();
                } catch (SQLException lost) {
                    // Dropped here, as a clean-up in a finally block would drop it: what reaches the
                    // caller is the error of the result set the driver closed with the connection
                    // (Connector/J: S1000 "Operation not allowed after ResultSet closed", no cause).
                }
                rs.next();
                return rs.getInt(1);
            }
        }));
    }

    private PreparedStatement heartbeatBatch(Connection c) throws SQLException {
        PreparedStatement ps = c.prepareStatement(LeaseStore.UPSERT_HEARTBEAT);
        for (int i = 0; i < 3; i++) {
            Db.bind(ps, tenant, group, topic, "s" + i);
            ps.addBatch();
        }
        return ps;
    }

    /** Has the server kill {@code victim}'s connection, from another connection. */
    private void kill(Connection victim) throws SQLException {
        long id;
        try (PreparedStatement ps = victim.prepareStatement("SELECT CONNECTION_ID()"); ResultSet rs = ps.executeQuery()) {
            rs.next();
            id = rs.getLong(1);
        }
        try (Connection killer = dataSource.getConnection();
             PreparedStatement ps = killer.prepareStatement("KILL CONNECTION " + id)) {
            ps.execute();
        } catch (SQLException e) {
            // A proxy that cannot kill its clients' sessions (vtgate) cannot run this fixture.
            org.junit.jupiter.api.Assumptions.abort("KILL CONNECTION refused: " + e.getMessage());
        }
    }

    private static String describe(List<SQLException> errors) {
        StringBuilder out = new StringBuilder();
        for (SQLException e : errors) {
            out.append('\n').append(e.getClass().getName()).append(" state=").append(e.getSQLState())
                    .append(" cause=").append(e.getCause()).append(": ").append(e.getMessage());
        }
        return out.toString();
    }
}
