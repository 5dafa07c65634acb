package dev.tenantmq.it;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ServiceProcess} leaves no JVM behind when a start-up fails: a child that never becomes
 * ready is gone once the wait for it gives up, even one that holds its SIGTERM off. The child is
 * a trivial Java program, not the service, so this runs with the unit tests.
 */
class ServiceProcessTest {
    /**
     * Never answers on any port. On SIGTERM its shutdown hook notes the signal and then blocks, so
     * only SIGKILL ends it: the escalation of {@link ServiceProcess#close}.
     */
    private static final String NEVER_READY = """
            import java.nio.file.Files;
            import java.nio.file.Path;

            public class NeverReady {
                public static void main(String[] args) throws Exception {
                    Path dir = Path.of(args[0]);
                    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                        try {
                            Files.writeString(dir.resolve("term"), "SIGTERM");
                            Thread.sleep(Long.MAX_VALUE);
                        } catch (Exception e) {
                            // ended by SIGKILL anyway
                        }
                    }));
                    Files.writeString(dir.resolve("started"), Long.toString(ProcessHandle.current().pid()));
                    Thread.sleep(Long.MAX_VALUE);
                }
            }
            """;

    @TempDir
    Path dir;

    @Test
    void a_child_that_never_becomes_ready_is_killed_when_the_start_up_wait_gives_up() throws Exception {
        Path program = Files.writeString(dir.resolve("NeverReady.java"), NEVER_READY);
        ProcessBuilder command = new ProcessBuilder(ServiceProcess.javaBinary(), "-Xmx64m", "-XX:+UseSerialGC",
                program.toString(), dir.toString())
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("child.log").toFile());
        // A grace period long enough for the child's hook to note SIGTERM on a busy machine.
        ServiceProcess p = ServiceProcess.spawn("never-ready", command, ServiceProcess.freePort(),
                ServiceProcess.freePort(), Duration.ofSeconds(5));
        ProcessHandle child = ProcessHandle.of(p.pid()).orElseThrow();
        try {
            // The child runs and holds SIGTERM off (a bound for compiling and starting it under load, not a speed).
            await("the child started").atMost(Duration.ofMinutes(2)).until(() -> Files.exists(dir.resolve("started")));
            assertTrue(child.isAlive());

            assertThrows(ConditionTimeoutException.class, () -> p.awaitReady(Duration.ofSeconds(1)));

            assertFalse(child.isAlive(), "the child is gone once the start-up wait gave up");
            assertFalse(p.isAlive());
            assertTrue(Files.exists(dir.resolve("term")), "SIGTERM first, SIGKILL after the grace period");
        } finally {
            p.close();
        }
    }
}
