package dev.tenantmq.cli;

import java.io.ByteArrayInputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import picocli.CommandLine;

/**
 * Runs tmq's command line in this JVM, as the unit tests do, and captures its exit code, stdout
 * and stderr. {@link Cli} runs the packaged jar as a process instead, for the integration tests.
 */
final class InProcessTmq {
    private InProcessTmq() {}

    /** What one run of tmq did. */
    record Run(int code, String out, String err) {}

    /** Runs {@code tmq args}; standard input is left as it is. */
    static Run run(String... args) {
        return withInput(null, args);
    }

    /** Runs {@code tmq args} with {@code stdin} (UTF-8) as standard input, or as it is when null. */
    static Run withInput(String stdin, String... args) {
        if (stdin != null) {
            System.setIn(new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)));
        }
        CommandLine cmd = Tmq.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cmd.setOut(new PrintWriter(out, true));
        cmd.setErr(new PrintWriter(err, true));
        int code = cmd.execute(args);
        return new Run(code, out.toString(), err.toString());
    }
}
