package dev.tenantmq.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code tmq}, the operator CLI of tenant-mq (docs/operations.md, "CLI"): the admin API (listings, inspect, delete,
 * requeue, dead letters) and publish and tail, with exit codes that follow the problem
 * responses ({@link ExitCodes}). Output is UTF-8 whatever the platform encoding.
 */
@Command(name = "tmq", mixinStandardHelpOptions = true, versionProvider = Tmq.Version.class,
        description = "Operate a tenant-mq service through its admin API.",
        subcommands = {
            ListCommands.Topics.class, ListCommands.Offsets.class, ListCommands.Leases.class, ListCommands.Subscribers.class,
            MessageCommands.Inspect.class, MessageCommands.Delete.class, MessageCommands.Requeue.class,
            PublishCommand.class, TailCommand.class, DlqCommand.class, SettingsCommand.class,
            DeleteCommands.Topic.class, GroupCommands.Group.class,
            CommandLine.HelpCommand.class},
        footerHeading = "%nExit codes:%n",
        footer = {
            "  0  ok",
            "  1  unexpected error",
            "  2  usage: bad options, unreadable file, payload not JSON",
            "  3  not found (404)",
            "  4  other client error (400, 409, 413, ...)",
            "  5  authentication or authorization (401, 403)",
            "  6  server error (5xx) or service unreachable",
            "--url and --token go before or after the command (tmq --url URL topics ...).",
            "Environment: TMQ_URL (default " + Connection.DEFAULT_URL + "), TMQ_ADMIN_TOKEN."})
public final class Tmq implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** --url and --token: inherited by every command, so they may come before or after it. */
    @CommandLine.Mixin
    Connection connection;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "a command is required");
    }

    /** Runs tmq and exits with its exit code (unless a signal is already shutting the JVM down). */
    public static void main(String[] args) {
        int code = execute(args);
        if (!TailCommand.SHUTTING_DOWN.get()) {
            System.exit(code);
        }
    }

    /** Runs tmq with UTF-8 stdout and stderr; answers the exit code. */
    static int execute(String[] args) {
        PrintWriter out = new PrintWriter(new OutputStreamWriter(new FileOutputStream(FileDescriptor.out), StandardCharsets.UTF_8), true);
        PrintWriter err = new PrintWriter(new OutputStreamWriter(new FileOutputStream(FileDescriptor.err), StandardCharsets.UTF_8), true);
        CommandLine cmd = commandLine();
        cmd.setOut(out);
        cmd.setErr(err);
        int code = cmd.execute(args);
        out.flush();
        err.flush();
        return code;
    }

    /** The command tree with tmq's exit codes and error handling. */
    static CommandLine commandLine() {
        CommandLine cmd = new CommandLine(new Tmq());
        // picocli's own words name Java's types ("'abc' is not a long"); every number option is a whole number.
        cmd.registerConverter(Integer.class, s -> (int) wholeNumber(s, Integer.MIN_VALUE, Integer.MAX_VALUE));
        cmd.registerConverter(Integer.TYPE, s -> (int) wholeNumber(s, Integer.MIN_VALUE, Integer.MAX_VALUE));
        cmd.registerConverter(Long.class, s -> wholeNumber(s, Long.MIN_VALUE, Long.MAX_VALUE));
        cmd.registerConverter(Long.TYPE, s -> wholeNumber(s, Long.MIN_VALUE, Long.MAX_VALUE));
        cmd.setParameterExceptionHandler((ex, args) -> {
            PrintWriter err = ex.getCommandLine().getErr();
            err.println("tmq: " + usageWords(ex));
            CommandLine.UnmatchedArgumentException.printSuggestions(ex, err);
            err.println("See '" + ex.getCommandLine().getCommandSpec().qualifiedName() + " --help'.");
            err.flush();
            return ExitCodes.USAGE;
        });
        cmd.setExecutionExceptionHandler((ex, commandLine, parseResult) -> {
            PrintWriter err = commandLine.getErr();
            if (ex instanceof ApiError api) {
                return Problems.print(api, null, err);
            }
            if (ex instanceof Unreachable u) {
                err.println("tmq: " + u.getMessage());
                err.flush();
                return ExitCodes.SERVER;
            }
            if (ex instanceof UnreadableAnswer u) {
                err.println("tmq: " + u.getMessage());
                err.flush();
                return ExitCodes.UNEXPECTED;
            }
            if (ex instanceof IllegalArgumentException iae) {
                err.println("tmq: " + iae.getMessage());
                err.flush();
                return ExitCodes.USAGE;
            }
            // A bug's exception is named for the report; a JSON library's is worded, never quoted.
            err.println("tmq: unexpected error: " + (ex instanceof InvalidJson ? "not JSON: " + ex.getMessage()
                    : ex instanceof JsonProcessingException j ? "not JSON: " + JsonErrorWords.describe(j, null) : ex));
            err.flush();
            return ExitCodes.UNEXPECTED;
        });
        return cmd;
    }

    /**
     * A number option's value: digits with an optional sign, within the option's Java type. Each
     * option's own bounds (--max at least 1, --wait 0..30) are checked by its command.
     *
     * @throws CommandLine.TypeConversionException in words picocli prefixes with the option's name
     */
    static long wholeNumber(String text, long min, long max) {
        String t = text.strip();
        if (!t.matches("[+-]?[0-9]+")) {
            throw new CommandLine.TypeConversionException("'" + text + "' is not a whole number");
        }
        java.math.BigInteger v = new java.math.BigInteger(t);
        if (v.compareTo(java.math.BigInteger.valueOf(min)) < 0 || v.compareTo(java.math.BigInteger.valueOf(max)) > 0) {
            throw new CommandLine.TypeConversionException("'" + text + "' is too " + (v.signum() < 0 ? "small (at least " + min
                    : "large (at most " + max) + ")");
        }
        return v.longValueExact();
    }

    /** "expected only one match but got (--tenant=TENANT | --all-tenants)={--tenant=demo} and ...={--tenant=x}". */
    private static final Pattern GROUP_REPEAT = Pattern.compile("^expected only one match but got \\((.+?)\\)=\\{(.*?)\\} and .*=\\{(.*?)\\}$");

    /**
     * picocli's words for a usage error, except where they show its model: an option of an
     * either-or group (--tenant or --all-tenants) given twice reads "expected only one match but
     * got (--tenant=TENANT | --all-tenants)={--tenant=demo} and ..."; it becomes "give one of
     * --tenant=TENANT, --all-tenants, once (got --tenant=demo and --tenant=x)"; and an argument
     * no option takes names the command, not its index among the raw arguments.
     */
    static String usageWords(CommandLine.ParameterException ex) {
        String m = ex.getMessage().replaceFirst("^Error: ", "");
        // "Unmatched argument at index 3: 'extra'": the index counts raw arguments and tells a user nothing.
        if (ex instanceof CommandLine.UnmatchedArgumentException u && !u.isUnknownOption() && !u.getUnmatched().isEmpty()) {
            String first = u.getUnmatched().get(0);
            String command = u.getCommandLine().getCommandSpec().qualifiedName();
            return u.getCommandLine().getSubcommands().isEmpty()
                    ? command + " takes no argument '" + first + "': its values go with options (--name VALUE)"
                    : "unknown command '" + first + "'; the commands of " + command + " are "
                            + String.join(", ", u.getCommandLine().getSubcommands().keySet());
        }
        Matcher g = GROUP_REPEAT.matcher(m);
        if (g.matches()) {
            return "give one of " + g.group(1).replace(" | ", ", ") + ", once (got " + g.group(2) + " and " + g.group(3) + ")";
        }
        return m;
    }

    /** The version from the jar's manifest (Implementation-Version). */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = Tmq.class.getPackage().getImplementationVersion();
            return new String[] {"tmq " + (v == null ? "(development build)" : v)};
        }
    }
}
