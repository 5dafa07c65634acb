package dev.tenantmq.it;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One real service process: the packaged jar ({@code target/quarkus-app/quarkus-run.jar}) on
 * its own API port and its own management port (health, metrics) with its own
 * {@code MQ_SUBSCRIBER_NAME}, sharing the test database. Logs go to
 * {@code target/it-logs/<name>.log}.
 */
public final class ServiceProcess implements AutoCloseable {
    /** Scheduler timing for the multi-process tests, short so that failover is quick to see. */
    public static final Duration TICK = Duration.ofSeconds(1);
    public static final Duration LEASE = Duration.ofSeconds(6);
    public static final Duration HEARTBEAT_TIMEOUT = Duration.ofSeconds(3);
    /**
     * {@code MQ_RECEIPT_KEY} of every process: one shared key, as a deployment of several
     * instances has (docs/security.md, "Receipt signing"), so a receipt one process issued acks
     * on any other.
     */
    public static final String RECEIPT_KEY = "base64:" + java.util.Base64.getEncoder().encodeToString(
            "multi-process-it-shared-receipt-key!".getBytes(java.nio.charset.StandardCharsets.UTF_8));
    /** The keys of {@link #RECEIPT_KEY}, to read receipts in a test. */
    public static final dev.tenantmq.domain.ReceiptKeys RECEIPT_KEYS = dev.tenantmq.domain.ReceiptKeys.of(
            java.util.Optional.of(RECEIPT_KEY), java.util.List.of());

    /**
     * A start-up bound, not a speed: at load average 40 one JVM took longer than 90 s. A process
     * not ready by then is stopped ({@link #close}) and the start fails.
     */
    static final Duration STARTUP_LIMIT = Duration.ofMinutes(3);
    /** How long {@link #close} waits for the process to end after SIGTERM before it sends SIGKILL. */
    static final Duration GRACE = Duration.ofSeconds(15);
    /** How long a process may take to disappear after SIGKILL (the kernel's part only). */
    private static final Duration AFTER_KILL = Duration.ofSeconds(30);

    private final String name;
    private final int port;
    private final int managementPort;
    private final Process process;
    private final Duration grace;
    /**
     * The last resort: a JVM shutdown hook that kills the process (and anything it started) when
     * the test JVM ends with the process still running, so that no path out of a test (a failed
     * start-up, an exception before the process reached the test's clean-up, a test JVM ended
     * by SIGTERM or a time-out) leaves a service JVM behind. A SIGKILL of the test JVM runs no hook.
     */
    private final Thread reaper;
    private volatile boolean killed;

    private ServiceProcess(String name, int port, int managementPort, Process process, Duration grace) {
        this.name = name;
        this.port = port;
        this.managementPort = managementPort;
        this.process = process;
        this.grace = grace;
        this.reaper = new Thread(() -> {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
        }, "reap-" + name);
        try {
            Runtime.getRuntime().addShutdownHook(reaper);
        } catch (IllegalStateException shuttingDown) {
            process.destroyForcibly();
            throw shuttingDown;
        }
    }

    /**
     * Starts {@code command} as a process that is stopped by {@link #close} (SIGTERM, then SIGKILL
     * after {@code grace}) and, failing that, by a shutdown hook of this JVM. It is not waited for:
     * {@link #awaitReady} does that.
     */
    static ServiceProcess spawn(String name, ProcessBuilder command, int port, int managementPort, Duration grace)
            throws IOException {
        return new ServiceProcess(name, port, managementPort, command.start(), grace);
    }

    /**
     * Waits until {@code /q/health/ready} (management port) answers 200. When the wait gives up
     * ({@code limit} passed, the process exited, or anything else went wrong), the process is
     * stopped first ({@link #close}), so a failed start-up leaves nothing running, and then the
     * failure goes on.
     */
    void awaitReady(Duration limit) {
        try {
            await().atMost(limit).pollInterval(Duration.ofMillis(250)).until(() -> {
                if (!process.isAlive()) {
                    throw new IllegalStateException(name + " exited with " + process.exitValue() + "; see target/it-logs/" + name + ".log");
                }
                return ready();
            });
        } catch (RuntimeException | Error e) {
            try {
                close();
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
                e.addSuppressed(interrupted);
            } catch (RuntimeException stopFailed) {
                e.addSuppressed(stopFailed);
            }
            throw e;
        }
    }

    /**
     * Starts a process and waits until {@code /q/health/ready} (management port) answers 200; a
     * process that does not get there within {@link #STARTUP_LIMIT} is stopped before the start fails.
     */
    public static ServiceProcess start(String name, Database db, String tenants) throws IOException {
        return start(name, db, tenants, Map.of());
    }

    /**
     * {@link #start(String, Database, String)} with more environment variables, which override the
     * ones set here (for example {@code MQ_RETENTION_ENABLED}).
     */
    public static ServiceProcess start(String name, Database db, String tenants, Map<String, String> moreEnv)
            throws IOException {
        Path jar = Path.of("target", "quarkus-app", "quarkus-run.jar");
        if (!Files.exists(jar)) {
            throw new IllegalStateException("run the package phase first: " + jar + " is missing");
        }
        int port = freePort();
        int managementPort = freePort();
        Path logs = Files.createDirectories(Path.of("target", "it-logs"));
        ProcessBuilder pb = new ProcessBuilder(javaBinary(), "-Xmx192m", "-XX:+UseSerialGC", "-jar", jar.toString())
                .redirectErrorStream(true)
                .redirectOutput(logs.resolve(name + ".log").toFile());
        Map<String, String> env = pb.environment();
        env.put("MQ_TENANTS", tenants);
        env.put("MQ_SUBSCRIBER_NAME", name);
        env.put("MQ_TICK_INTERVAL", TICK.toMillis() + "ms");
        env.put("MQ_LEASE_DURATION", LEASE.toMillis() + "ms");
        env.put("MQ_HEARTBEAT_TIMEOUT", HEARTBEAT_TIMEOUT.toMillis() + "ms");
        env.put("MQ_FETCH_RECHECK_INTERVAL", "200ms");
        env.put("MQ_RECEIPT_KEY", RECEIPT_KEY);
        env.put("QUARKUS_HTTP_PORT", Integer.toString(port));
        env.put("QUARKUS_MANAGEMENT_PORT", Integer.toString(managementPort));
        env.put("QUARKUS_MANAGEMENT_HOST", "127.0.0.1");
        env.put("QUARKUS_DATASOURCE_JDBC_URL", db.url());
        env.put("QUARKUS_DATASOURCE_USERNAME", db.user());
        env.put("QUARKUS_DATASOURCE_PASSWORD", db.password());
        env.put("QUARKUS_DATASOURCE_JDBC_MAX_SIZE", "8");
        // Five JVMs and the database share 2 cores with other builds: the default 5 s wait for a
        // pooled connection can run out at start-up (Flyway) or under load, and the consumers
        // now fail on any 503. These tests are about leases and fencing, not pool sizing.
        env.put("QUARKUS_DATASOURCE_JDBC_ACQUISITION_TIMEOUT", "30S");
        env.putAll(moreEnv);
        ServiceProcess p = spawn(name, pb, port, managementPort, GRACE);
        p.awaitReady(STARTUP_LIMIT);
        return p;
    }

    /** Base URL, e.g. {@code http://localhost:41234}. */
    public String baseUrl() {
        return "http://localhost:" + port;
    }

    /** Base URL of the management interface (health, metrics), e.g. {@code http://localhost:41235}. */
    public String managementUrl() {
        return "http://localhost:" + managementPort;
    }

    /** The subscriber name. */
    public String name() {
        return name;
    }

    /** Operating-system process id. */
    public long pid() {
        return process.pid();
    }

    /** {@code kill -9}: the process dies without releasing anything. */
    public void kill9() throws InterruptedException {
        killed = true; // set first: a consumer that sees its requests fail then knows why
        process.destroyForcibly();
        process.waitFor();
    }

    /** Whether the test killed this process, which explains its requests failing from then on. */
    public boolean killed() {
        return killed;
    }

    /** {@code kill -STOP}: the process freezes (no ticks, no heartbeats) until {@link #resume}. */
    public void freeze() throws IOException, InterruptedException {
        signal("STOP");
    }

    /** {@code kill -CONT}. */
    public void resume() throws IOException, InterruptedException {
        signal("CONT");
    }

    private void signal(String sig) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + sig, Long.toString(pid())).inheritIO().start();
        if (kill.waitFor() != 0) {
            throw new IllegalStateException("kill -" + sig + " " + pid() + " failed");
        }
    }

    private boolean ready() {
        try {
            HttpURLConnection c = (HttpURLConnection) URI.create(managementUrl() + "/q/health/ready").toURL().openConnection();
            c.setConnectTimeout(1000);
            c.setReadTimeout(2000);
            return c.getResponseCode() == 200;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Stops the process: SIGTERM (a graceful shut-down, which releases its leases), and SIGKILL
     * when it has not ended within the grace period. Returns once it is gone; the JVM's shutdown
     * hook for it is then removed. Interrupted, it sends SIGKILL before it gives up waiting.
     *
     * @throws IllegalStateException when the process is still there after SIGKILL
     */
    @Override
    public void close() throws InterruptedException {
        try {
            if (process.isAlive()) {
                process.destroy();
                if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                    process.destroyForcibly();
                    if (!process.waitFor(AFTER_KILL.toMillis(), TimeUnit.MILLISECONDS)) {
                        throw new IllegalStateException(this + " still runs " + AFTER_KILL.toSeconds() + " s after SIGKILL");
                    }
                }
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            throw e;
        } finally {
            if (!process.isAlive()) {
                try {
                    Runtime.getRuntime().removeShutdownHook(reaper);
                } catch (IllegalStateException shuttingDown) {
                    // The JVM is shutting down already; the hook has nothing left to do.
                }
            }
        }
    }

    /** Whether the operating-system process is still running. */
    boolean isAlive() {
        return process.isAlive();
    }

    static String javaBinary() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    @Override
    public String toString() {
        return name + "@" + port + " (pid " + pid() + ")";
    }

}
