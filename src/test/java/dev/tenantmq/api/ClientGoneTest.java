package dev.tenantmq.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tenantmq.LogCapture;
import io.vertx.core.http.HttpClosedException;
import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.sql.SQLException;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A request whose client went away (it closed the connection, or gave up waiting while this
 * process was paused) is not a server error: one INFO line without a stack trace, not an ERROR.
 */
class ClientGoneTest {
    @Test
    void closed_connections_and_peer_resets_are_a_client_that_went_away() {
        assertTrue(ClientGone.isClientGone(new HttpClosedException("Connection was closed")));
        assertTrue(ClientGone.isClientGone(new ClosedChannelException()));
        assertTrue(ClientGone.isClientGone(new RuntimeException("write failed", new ClosedChannelException())));
        assertTrue(ClientGone.isClientGone(new IOException("Connection reset by peer")));
    }

    @Test
    void other_errors_are_not() {
        assertFalse(ClientGone.isClientGone(new IllegalStateException("Connection was closed")));
        assertFalse(ClientGone.isClientGone(new SQLException("closed", "08003")));
        assertFalse(ClientGone.isClientGone(new IOException("No space left on device")));
    }

    @Test
    void a_client_that_went_away_is_logged_as_one_info_line_and_a_failure_still_as_an_error() {
        ProblemMapper mapper = new ProblemMapper();
        List<java.util.logging.LogRecord> records = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.logging.Handler withStacks = new java.util.logging.Handler() {
            @Override
            public void publish(java.util.logging.LogRecord r) {
                if (ProblemMapper.class.getName().equals(r.getLoggerName())) {
                    records.add(r);
                }
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        java.util.logging.Logger.getLogger("").addHandler(withStacks);
        try (LogCapture log = LogCapture.start()) {
            mapper.unexpected(new HttpClosedException("Connection was closed"));
            List<String> lines = mine(log);
            assertEquals(List.of(ProblemMapper.class.getName()
                    + " INFO client went away before its answer: HttpClosedException: Connection was closed"), lines);
            assertEquals(1, records.size());
            assertEquals(null, records.get(0).getThrown(), "no stack trace");

            assertEquals(500, mapper.unexpected(new IllegalStateException("bug")).getStatus());
            assertTrue(mine(log).stream().anyMatch(l -> l.contains(" ERROR unexpected error")), String.valueOf(mine(log)));
        } finally {
            java.util.logging.Logger.getLogger("").removeHandler(withStacks);
        }
    }

    private static List<String> mine(LogCapture log) {
        return log.lines().stream().filter(l -> l.startsWith(ProblemMapper.class.getName())).toList();
    }
}
