package dev.tenantmq.cli;

/**
 * The exit codes of {@code tmq} (docs/operations.md, "CLI"). A script at 3 a.m. branches on them, so each
 * class of problem response (RFC 9457, openapi.yaml's problem types) has its own code.
 */
public final class ExitCodes {
    /** The command did what it was asked. */
    public static final int OK = 0;
    /** Something the CLI did not expect: a bug, or a response it cannot read. */
    public static final int UNEXPECTED = 1;
    /** Wrong usage: unknown or missing options, an unreadable file, a payload that is not JSON. */
    public static final int USAGE = 2;
    /** 404: no such message (or route). */
    public static final int NOT_FOUND = 3;
    /** Any other 4xx: invalid request (400), conflict (409), too large (413), 405, 406, 415. */
    public static final int CLIENT_ERROR = 4;
    /** 401 (missing or wrong admin token) or 403 (admin API off, tenant not served). */
    public static final int AUTH = 5;
    /** 5xx (503 database unavailable), or the service could not be reached or timed out. */
    public static final int SERVER = 6;

    private ExitCodes() {}

    /** The exit code of an HTTP error status. */
    public static int forStatus(int status) {
        if (status == 404) {
            return NOT_FOUND;
        }
        if (status == 401 || status == 403) {
            return AUTH;
        }
        if (status >= 500) {
            return SERVER;
        }
        if (status >= 400) {
            return CLIENT_ERROR;
        }
        return UNEXPECTED;
    }

    /** The worse of two exit codes, so a batch reports its most serious failure. */
    public static int worse(int a, int b) {
        return rank(b) > rank(a) ? b : a;
    }

    private static int rank(int code) {
        return switch (code) {
            case OK -> 0;
            case NOT_FOUND -> 1;
            case CLIENT_ERROR -> 2;
            case AUTH -> 3;
            case SERVER -> 4;
            default -> 5;
        };
    }
}
