package dev.tenantmq.cli;

import static dev.tenantmq.cli.InProcessTmq.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tenantmq.cli.InProcessTmq.Run;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import org.junit.jupiter.api.Test;

/**
 * A call that gets no answer says why in plain words, with exit 6 (docs/operations.md, "CLI"):
 * not the JDK client's own texts ("HTTP/1.1 header parser received no bytes").
 */
class UnreachableWordsTest {
    @Test
    void a_connection_closed_before_any_answer_is_told_as_such() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread closer = new Thread(() -> {
                while (!server.isClosed()) {
                    try (Socket s = server.accept()) {
                        s.getInputStream().read(); // take the request's first byte, then hang up
                    } catch (Exception e) {
                        return;
                    }
                }
            });
            closer.setDaemon(true);
            closer.start();
            Run r = run("topics", "--tenant", "demo", "--url", "http://127.0.0.1:" + server.getLocalPort());
            assertEquals(ExitCodes.SERVER, r.code(), r::toString);
            assertTrue(r.err().contains("the connection ended before an answer"), r::toString);
            assertFalse(r.err().contains("header parser"), r::toString);
            closer.interrupt();
        }
    }

    @Test
    void a_host_that_does_not_resolve_is_an_unknown_host_not_a_refused_connection() {
        Run r = run("topics", "--tenant", "demo", "--url", "http://no-such-host.invalid:8080");
        assertEquals(ExitCodes.SERVER, r.code(), r::toString);
        assertTrue(r.err().contains("cannot reach http://no-such-host.invalid:8080: unknown host"), r::toString);
    }
}
