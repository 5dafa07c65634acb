package dev.tenantmq.cli;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * What every command that calls the service shares: the connection (the options of {@link Tmq},
 * {@link Connection}, which every command inherits) and UTF-8 output.
 * {@link #run(TmqClient)} answers the exit code; errors of the service are thrown as
 * {@link ApiError} and turned into stderr text and an exit code by {@link Tmq}.
 */
abstract class BaseCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Override
    public final Integer call() throws Exception {
        TmqClient client = connection().client();
        try {
            return run(client);
        } catch (ApiError e) {
            return Problems.print(e, client, err());
        }
    }

    /** The connection options, given before or after the command: they live on the top command. */
    Connection connection() {
        if (spec.root().userObject() instanceof Tmq tmq) {
            return tmq.connection;
        }
        throw new IllegalStateException("a command of tmq runs under Tmq, not " + spec.root().userObject());
    }

    /** Does the command's work; answers its exit code. */
    abstract int run(TmqClient client) throws Exception;

    PrintWriter out() {
        return spec.commandLine().getOut();
    }

    PrintWriter err() {
        return spec.commandLine().getErr();
    }

    /** A note on stderr, prefixed with "tmq: ". */
    void note(String message) {
        err().println("tmq: " + message);
        err().flush();
    }
}
