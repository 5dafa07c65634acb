package dev.tenantmq.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * Publishes one message (POST /tenants/{tenant}/topics/{topic}/messages). The payload is read
 * from {@code --file} or stdin as one JSON value and sent with its exact text, so numbers keep
 * their digits; with {@code --string} the text is sent as a JSON string instead (one trailing
 * newline removed, as {@code echo} adds one).
 */
@Command(name = "publish", mixinStandardHelpOptions = true,
        description = {"Publish one message; the payload comes from --file or stdin.",
            "The payload is one JSON value (default) or, with --string, the text as a JSON string."})
final class PublishCommand extends BaseCommand {
    @Option(names = "--tenant", required = true, paramLabel = "TENANT", description = "Tenant (served by the instance).")
    String tenant;

    @Option(names = "--topic", required = true, paramLabel = "TOPIC", description = "Topic to publish to.")
    String topic;

    @Option(names = "--partition-key", required = true, paramLabel = "KEY", description = "Partition key (no escaping needed).")
    String partitionKey;

    @Option(names = "--id", paramLabel = "ID",
            description = "Message id; re-publishing the same id is a duplicate. Default: the service generates a UUID.")
    String id;

    @Option(names = "--file", paramLabel = "FILE", description = "Read the payload from FILE ('-' or absent: stdin).")
    String file;

    @Option(names = "--string", description = "Send the text as a JSON string (one trailing newline removed), not parsed as JSON.")
    boolean string;

    @Option(names = "--metadata", paramLabel = "KEY=VALUE", description = "A metadata entry; repeatable, each KEY once.")
    List<String> metadata;

    @Option(names = "--json", description = "Print the service's JSON answer.")
    boolean json;

    @Option(names = "--delay", paramLabel = "SECONDS",
            description = "Deliver no earlier than SECONDS after the publish (deliverAfterSeconds; at most the"
                    + " service's retention max age). Holds back the later messages of the partition until then.")
    Long delaySeconds;

    @Option(names = "--deliver-at", paramLabel = "TIME",
            description = "Deliver no earlier than TIME, an RFC 3339 date-time with an offset, e.g."
                    + " 2026-12-02T05:00:00Z (deliverAt). Not together with --delay.")
    String deliverAt;

    /**
     * The {@code --metadata} entries in the order given. A value may contain '=' (the first one
     * splits). An entry without '=' and a key given twice are refused here, as the service refuses
     * a duplicate metadata key (docs/api.md, "Publish"): taking the last one would send a message
     * other than the one asked for.
     */
    private Map<String, String> metadataEntries() {
        Map<String, String> entries = new LinkedHashMap<>();
        for (String entry : metadata == null ? List.<String>of() : metadata) {
            int eq = entry.indexOf('=');
            if (eq < 0) {
                throw new ParameterException(spec.commandLine(), "--metadata must be KEY=VALUE, not " + entry);
            }
            String key = entry.substring(0, eq);
            String before = entries.putIfAbsent(key, entry.substring(eq + 1));
            if (before != null) {
                throw new ParameterException(spec.commandLine(), "--metadata " + key + " is given twice (" + key + "="
                        + before + " and " + entry + "): give each key once");
            }
        }
        return entries;
    }

    @Override
    int run(TmqClient client) throws Exception {
        if (delaySeconds != null && deliverAt != null) {
            throw new ParameterException(spec.commandLine(), "give --delay or --deliver-at, not both");
        }
        if (delaySeconds != null && delaySeconds < 0) {
            throw new ParameterException(spec.commandLine(), "--delay must be at least 0 seconds (got " + delaySeconds + ")");
        }
        Map<String, String> entries = metadataEntries();
        String text = readInput();
        String payloadJson;
        if (string) {
            if (text.endsWith("\r\n")) {
                text = text.substring(0, text.length() - 2);
            } else if (text.endsWith("\n")) {
                text = text.substring(0, text.length() - 1);
            }
            payloadJson = Json.quote(text);
        } else {
            if (text.isBlank()) {
                throw new ParameterException(spec.commandLine(), "the payload is empty: give one JSON value (or use --string)");
            }
            try {
                Json.parse(text);
            } catch (InvalidJson e) {
                throw new ParameterException(spec.commandLine(), "the payload is not one JSON value (use --string to send text): "
                        + e.getMessage());
            }
            payloadJson = text.strip();
        }
        ObjectNode message = Json.MAPPER.createObjectNode();
        message.put("partitionKey", partitionKey);
        if (id != null) {
            message.put("id", id);
        }
        if (!entries.isEmpty()) {
            ObjectNode md = message.putObject("metadata");
            entries.forEach(md::put);
        }
        if (delaySeconds != null) {
            message.put("deliverAfterSeconds", delaySeconds);
        }
        if (deliverAt != null) {
            message.put("deliverAt", deliverAt); // the service checks the format and the bound
        }
        String head = Json.write(message);
        // The payload's own text goes in verbatim: re-serializing it could change a number's digits.
        String body = "{\"messages\":[" + head.substring(0, head.length() - 1) + ",\"payload\":" + payloadJson + "}]}";
        String answer = client.post("/tenants/" + TmqClient.segment("--tenant", tenant) + "/topics/" + TmqClient.segment("--topic", topic) + "/messages",
                null, body);
        if (json) {
            out().println(answer);
            out().flush();
            return ExitCodes.OK;
        }
        JsonNode m = Json.parse(answer).path("messages").path(0);
        String what = tenant + "/" + topic + " partitionKey=" + Json.quote(Json.text(m, "partitionKey"))
                + " id=" + Json.quote(Json.text(m, "id")) + " offset=" + Json.text(m, "offset");
        if (m.path("duplicate").asBoolean(false)) {
            out().println("duplicate " + what + " (stored before; nothing new was stored)");
        } else {
            out().println("published " + what);
        }
        out().flush();
        return ExitCodes.OK;
    }

    private String readInput() {
        if (file != null && file.isEmpty()) {
            throw new ParameterException(spec.commandLine(), "--file must name a file ('-' for stdin), not an empty value");
        }
        byte[] bytes;
        try {
            if (file == null || file.equals("-")) {
                if (System.console() != null) {
                    note("reading the payload from stdin (end it with Ctrl-D)");
                }
                try (InputStream in = System.in) {
                    bytes = in.readAllBytes();
                }
            } else {
                bytes = Files.readAllBytes(Path.of(file));
            }
        } catch (NoSuchFileException e) {
            throw new ParameterException(spec.commandLine(), "file not found: " + file);
        } catch (AccessDeniedException e) {
            throw new ParameterException(spec.commandLine(), "permission denied: " + file);
        } catch (IOException e) {
            // The reason only ("Is a directory"), never the exception's class name.
            throw new ParameterException(spec.commandLine(), "cannot read " + (file == null ? "stdin" : file) + ": "
                    + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage()));
        }
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw new ParameterException(spec.commandLine(), "the payload is not UTF-8 text");
        }
    }
}
