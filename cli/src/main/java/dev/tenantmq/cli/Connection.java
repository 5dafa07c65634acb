package dev.tenantmq.cli;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

/**
 * Where the service is and the token it takes: {@code --url}/{@code --token}, else
 * {@code TMQ_URL}/{@code TMQ_ADMIN_TOKEN}, else http://127.0.0.1:8080 and no token. The token's
 * value is never shown, not even in {@code --help}. A mixin of the top command ({@link Tmq}) whose
 * options every command inherits, so they go before the command ({@code tmq --url U topics}) or
 * after it ({@code tmq topics --url U}) alike; either way they set this one instance, and either
 * way each may be given once.
 */
public final class Connection {
    /** The URL used when neither --url nor TMQ_URL is set: the service's default port on loopback. */
    public static final String DEFAULT_URL = "http://127.0.0.1:8080";

    /** The command this mixin is part of (tmq itself), for the usage error of a repeated option. */
    @Spec(Spec.Target.MIXEE)
    CommandSpec mixee;

    String url;
    String token;

    @Option(names = "--url", paramLabel = "URL", scope = ScopeType.INHERIT,
            description = "Base URL of the service. Default: $TMQ_URL, else " + DEFAULT_URL + ".")
    void url(String value) {
        url = once("--url", "URL", url, value);
    }

    @Option(names = "--token", paramLabel = "TOKEN", scope = ScopeType.INHERIT,
            description = "Admin bearer token (MQ_ADMIN_TOKEN of the service), sent on every call. "
                    + "Default: $TMQ_ADMIN_TOKEN (prefer it: a command line is visible to other users).")
    void token(String value) {
        token = once("--token", "TOKEN", token, value);
    }

    /**
     * The value of an option given at most once. picocli refuses a repeat on one side of the
     * command by itself; one before the command and one after it both reach this instance, and
     * would otherwise be last-wins. Both cases get picocli's words.
     */
    private String once(String option, String label, String current, String value) {
        if (value == null) {
            return current;
        }
        if (current != null) {
            throw new ParameterException(mixee.commandLine(),
                    "option '" + option + "' (" + label + ") should be specified only once");
        }
        return value;
    }

    /** The client these options (or the environment) name. */
    TmqClient client() {
        // An empty TMQ_URL is unset (as a shell's "TMQ_URL=" means); an empty --url was typed, and is refused.
        String u = url != null ? url : env("TMQ_URL");
        String t = token != null ? token : env("TMQ_ADMIN_TOKEN");
        return new TmqClient(url == null && (u == null || u.isBlank()) ? DEFAULT_URL : u.strip(), t == null ? null : t.strip());
    }

    private static String env(String name) {
        return System.getenv(name);
    }
}
