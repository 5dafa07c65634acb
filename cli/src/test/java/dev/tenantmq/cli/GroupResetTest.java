package dev.tenantmq.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * {@code tmq group reset} sends each target as POST /admin/consumer-groups/reset-offsets
 * (docs/operations.md, "Replay: resetting a group's offsets") and prints the answer per
 * partition, against a stub of the service.
 */
class GroupResetTest {
    private static final String ANSWER = "{\"tenant\":\"demo\",\"topic\":\"orders\",\"consumerGroup\":\"billing\","
            + "\"to\":\"offset\",\"dryRun\":true,\"partitions\":[{\"partitionKey\":\"k 1\",\"fromOffset\":9,\"toOffset\":3,"
            + "\"nextOffset\":4,\"earliestOffset\":4,\"earliestCreatedAt\":\"2026-11-30T12:00:00Z\",\"latestOffset\":9,"
            + "\"beforeEarliest\":true}]}";

    @Test
    void eachTargetBecomesItsQueryAndTheAnswerIsATablePerPartition() throws Exception {
        List<String> seen = new CopyOnWriteArrayList<>();
        try (JsonStub stub = JsonStub.start("/admin/consumer-groups/reset-offsets", exchange -> {
            seen.add(exchange.getRequestMethod() + " " + exchange.getRequestURI().getRawQuery());
            return ANSWER;
        })) {
            String base = "--url=" + stub.url();
            String out = run(base, "--tenant", "demo", "--topic", "orders", "--group", "billing", "--to-offset", "4",
                    "--partition-key", "k 1", "--dry-run");
            run(base, "--tenant", "demo", "--topic", "orders", "--group", "billing", "--to-earliest");
            run(base, "--tenant", "demo", "--topic", "orders", "--group", "billing", "--to-latest");
            run(base, "--tenant", "demo", "--topic", "orders", "--group", "billing", "--to-datetime",
                    "2026-12-01T09:00:00Z");
            assertEquals(List.of(
                    "POST tenant=demo&topic=orders&consumerGroup=billing&partitionKey=k%201&to=offset&toOffset=4&dryRun=true",
                    "POST tenant=demo&topic=orders&consumerGroup=billing&to=earliest",
                    "POST tenant=demo&topic=orders&consumerGroup=billing&to=latest",
                    "POST tenant=demo&topic=orders&consumerGroup=billing&to=datetime&toDatetime=2026-12-01T09%3A00%3A00Z"),
                    seen);
            assertTrue(out.contains("k 1") && out.contains("starts at EARLIEST"), out);
            assertTrue(out.contains("dry run: nothing changed"), out);
        }
    }

    @Test
    void twoTargetsOrNoneAreAUsageError() {
        assertEquals(ExitCodes.USAGE, code("group", "reset", "--tenant", "d", "--topic", "t", "--group", "g"));
        assertEquals(ExitCodes.USAGE, code("group", "reset", "--tenant", "d", "--topic", "t", "--group", "g",
                "--to-earliest", "--to-latest"));
    }

    private static String run(String url, String... args) {
        String[] all = new String[args.length + 3];
        all[0] = "group";
        all[1] = "reset";
        all[2] = url;
        System.arraycopy(args, 0, all, 3, args.length);
        StringWriter out = new StringWriter();
        picocli.CommandLine cmd = Tmq.commandLine();
        cmd.setOut(new PrintWriter(out, true));
        StringWriter err = new StringWriter();
        cmd.setErr(new PrintWriter(err, true));
        int code = cmd.execute(all);
        assertEquals(ExitCodes.OK, code, err.toString());
        return out.toString();
    }

    private static int code(String... args) {
        picocli.CommandLine cmd = Tmq.commandLine();
        cmd.setOut(new PrintWriter(new StringWriter(), true));
        cmd.setErr(new PrintWriter(new StringWriter(), true));
        return cmd.execute(args);
    }
}
