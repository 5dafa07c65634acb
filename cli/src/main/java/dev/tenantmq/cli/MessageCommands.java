package dev.tenantmq.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * One message by its complete identity (tenant, topic, partitionKey, id): inspect, delete and
 * requeue (docs/operations.md, "Admin API"). The values go into the query string percent-encoded as UTF-8
 * by {@link TmqClient}, so a key such as {@code a b/c%2F+é} is typed as it is.
 */
final class MessageCommands {
    private MessageCommands() {}

    /** The identity options and --json, shared by the three commands. */
    abstract static class MessageCommand extends BaseCommand {
        @Option(names = "--tenant", required = true, paramLabel = "TENANT", description = "The message's tenant.")
        String tenant;

        @Option(names = "--topic", required = true, paramLabel = "TOPIC", description = "The topic that holds the message.")
        String topic;

        @Option(names = "--partition-key", required = true, paramLabel = "KEY",
                description = "The partition key, exactly as published (no escaping needed).")
        String partitionKey;

        @Option(names = "--id", required = true, paramLabel = "ID", description = "The message id.")
        String id;

        @Option(names = "--json", description = "Print the service's JSON answer.")
        boolean json;

        Map<String, String> identity() {
            return TmqClient.query("tenant", tenant, "topic", topic, "partitionKey", partitionKey, "id", id);
        }

        /** Prints the raw answer with --json, else the human form; answers 0. */
        int print(String body, String human) {
            out().println(json ? body : human);
            out().flush();
            return ExitCodes.OK;
        }
    }

    @Command(name = "inspect", mixinStandardHelpOptions = true,
            description = {"Show one message and each consumer group's state of it (GET /admin/messages).",
                "deliverAt is empty for a message published without a delay."})
    static final class Inspect extends MessageCommand {
        @Override
        int run(TmqClient client) throws Exception {
            String body = client.get("/admin/messages", identity());
            if (json) {
                return print(body, null);
            }
            JsonNode m = Json.parse(body);
            Table fields = new Table("FIELD", "VALUE");
            // deliverAt (docs/api.md, "Delayed delivery") is empty for a message published without a
            // delay: a row always, as --json always has the field and the group table keeps its
            // empty ATTEMPT and VISIBLE_AT cells.
            for (String f : List.of("tenant", "topic", "partitionKey", "id", "offset", "createdAt", "deliverAt")) {
                fields.row(f, Json.text(m, f));
            }
            fields.row("metadata", Json.write(m.path("metadata")));
            fields.row("payload", Json.write(m.get("payload")));
            fields.print(out());
            out().println();
            Table groups = new Table("GROUP", "COMMITTED", "STATE", "ATTEMPT", "VISIBLE_AT");
            for (JsonNode g : m.path("consumerGroups")) {
                groups.row(Json.text(g, "consumerGroup"), Json.text(g, "committedOffset"), Json.text(g, "state"),
                        Json.text(g, "deliveryAttempt"), Json.text(g, "visibleAt"));
            }
            groups.print(out());
            return ExitCodes.OK;
        }
    }

    @Command(name = "delete", mixinStandardHelpOptions = true,
            description = "Delete one message with its delivery state in every group (DELETE /admin/messages).")
    static final class Delete extends MessageCommand {
        @Override
        int run(TmqClient client) throws Exception {
            String body = client.delete("/admin/messages", identity());
            JsonNode d = Json.parse(body);
            return print(body, "deleted " + Json.text(d, "tenant") + "/" + Json.text(d, "topic")
                    + " partitionKey=" + Json.quote(Json.text(d, "partitionKey")) + " id=" + Json.quote(Json.text(d, "id"))
                    + " offset=" + Json.text(d, "offset"));
        }
    }

    @Command(name = "requeue", mixinStandardHelpOptions = true,
            description = {"Send one dead letter back to the groups that dead-lettered it (POST /admin/messages/requeue).",
                "--topic is the dead-letter topic, e.g. orders.dlq. 409 (exit 4) when it is not a dead letter whose original still exists."})
    static final class Requeue extends MessageCommand {
        @Override
        int run(TmqClient client) throws Exception {
            String body = client.post("/admin/messages/requeue", identity(), null);
            JsonNode r = Json.parse(body);
            return print(body, "requeued " + Json.text(r, "tenant") + "/" + Json.text(r, "originalTopic")
                    + " partitionKey=" + Json.quote(Json.text(r, "partitionKey")) + " id=" + Json.quote(Json.text(r, "id"))
                    + " offset=" + Json.text(r, "originalOffset") + " for groups " + groups(r));
        }
    }

    /** The consumerGroups array of a requeue answer as "a,b". */
    static String groups(JsonNode requeued) {
        List<String> names = new ArrayList<>();
        requeued.path("consumerGroups").forEach(g -> names.add(g.asText()));
        return String.join(",", names);
    }
}
