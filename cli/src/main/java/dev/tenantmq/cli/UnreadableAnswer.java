package dev.tenantmq.cli;

/**
 * A 2xx answer of the service that is not JSON, as when {@code --url} names a web server or a
 * proxy answers in the service's place (exit code {@link ExitCodes#UNEXPECTED}). The message
 * names the request, why the answer is not JSON and how it begins.
 */
public final class UnreadableAnswer extends RuntimeException {
    /** How much of the answer the message shows. */
    static final int SHOWN_CHARS = 300;

    UnreadableAnswer(String request, String body, InvalidJson why) {
        super(message(request, body, why), why);
    }

    private static String message(String request, String body, InvalidJson why) {
        String start = body == null ? "" : body.strip();
        if (start.length() > SHOWN_CHARS) {
            start = start.substring(0, SHOWN_CHARS) + "...";
        }
        // Table.cell keeps the message one line: an HTML page's newlines are shown escaped.
        return "the service's answer to " + request + " is not JSON: " + why.getMessage()
                + (start.isEmpty() ? "" : "; the answer begins: " + Table.cell(start));
    }
}
