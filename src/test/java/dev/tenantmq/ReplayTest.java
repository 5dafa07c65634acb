package dev.tenantmq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import java.io.IOException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The main job on real input: the first 10,000 events of the shared git-history data set are
 * replayed through the running service with {@code bench/replay.py} (bench/README.md,
 * "Replaying real input"), which publishes in batches, consumes and acks, and verifies exactly-once,
 * in-order delivery per partition key.
 */
@QuarkusTest
class ReplayTest {
    private static final Path DATA = Path.of("..", "shared", "data", "git-history-events.jsonl.gz");

    @TestHTTPResource("/")
    URL base;

    @Test
    void first_ten_thousand_real_events_are_delivered_exactly_once_in_file_order() throws Exception {
        Assumptions.assumeTrue(Files.exists(DATA), "the shared data set is not beside the repository: " + DATA.toAbsolutePath());
        Path log = Files.createTempFile("replay", ".log");
        Process p = new ProcessBuilder("python3", "bench/replay.py", "--url", base.toString(), "--file", DATA.toString(),
                "--limit", "10000", "--idle-timeout", "60")
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        boolean finished = p.waitFor(10, TimeUnit.MINUTES);
        String output = read(log);
        System.out.println(output);
        assertTrue(finished, "replay did not finish in 10 minutes:\n" + output);
        assertEquals(0, p.exitValue(), output);
        assertTrue(output.contains("delivered 10000, duplicates 0, missing 0, out of order 0"), output);
    }

    private static String read(Path log) throws IOException {
        return Files.readString(log, StandardCharsets.UTF_8);
    }
}
