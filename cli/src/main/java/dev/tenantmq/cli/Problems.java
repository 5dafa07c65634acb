package dev.tenantmq.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;

/**
 * Writes an error answer of the service to stderr the way its problem document states it
 * (RFC 9457): "tmq: &lt;title&gt; (HTTP &lt;status&gt;): &lt;detail&gt;", then one line per field
 * error ("  &lt;field&gt;: &lt;message&gt;"). A body that is not a problem is shown cut to 300
 * characters.
 */
final class Problems {
    private Problems() {}

    /** Prints the error and answers its exit code ({@link ExitCodes#forStatus}). */
    static int print(ApiError e, TmqClient client, PrintWriter err) {
        JsonNode p = e.problem();
        StringBuilder line = new StringBuilder("tmq: ");
        if (p != null && p.hasNonNull("title")) {
            line.append(p.get("title").asText()).append(" (HTTP ").append(e.status()).append(')');
            if (p.hasNonNull("detail") && !p.get("detail").asText().equals(p.get("title").asText())) {
                line.append(": ").append(p.get("detail").asText());
            }
        } else {
            String body = e.body() == null ? "" : e.body().strip();
            line.append("HTTP ").append(e.status());
            if (!body.isEmpty()) {
                line.append(": ").append(body.length() > 300 ? body.substring(0, 300) + "..." : body);
            }
        }
        err.println(line);
        if (p != null && p.has("errors") && p.get("errors").isArray()) {
            for (JsonNode fe : p.get("errors")) {
                err.println("  " + Json.text(fe, "field") + ": " + Json.text(fe, "message"));
            }
        }
        if (e.status() == 401 && client != null) {
            // The same way out whether the token is missing or wrong: where the CLI takes it from.
            err.println(client.hasToken()
                    ? "tmq: the admin token was refused: set TMQ_ADMIN_TOKEN or pass --token with the service's admin token"
                    : "tmq: no admin token given: set TMQ_ADMIN_TOKEN or pass --token");
        }
        err.flush();
        return ExitCodes.forStatus(e.status());
    }
}
