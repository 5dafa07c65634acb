package dev.tenantmq.cli;

/** The service could not be reached, or did not answer in time (exit code {@link ExitCodes#SERVER}). */
public final class Unreachable extends RuntimeException {
    Unreachable(String message, Throwable cause) {
        super(message, cause);
    }
}
