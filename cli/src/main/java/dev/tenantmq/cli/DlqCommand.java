package dev.tenantmq.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * Dead letters of a topic ({@code <topic><suffix>}, docs/api.md, "Failures: nack,
 * retries and dead letters"): list them, or requeue
 * them all to the groups that dead-lettered them, with a dry run. How they are read is
 * {@link DeadLetters}.
 */
@Command(name = "dlq", mixinStandardHelpOptions = true,
        description = "Dead letters of a topic: list, or requeue all (with --dry-run).",
        subcommands = {DlqCommand.ListDeadLetters.class, DlqCommand.RequeueAll.class})
final class DlqCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "a subcommand is required: list or requeue-all");
    }

    /** The options of both subcommands. */
    abstract static class DlqBase extends BaseCommand {
        @Option(names = "--tenant", required = true, paramLabel = "TENANT", description = "Tenant (served by the instance).")
        String tenant;

        @Option(names = "--topic", required = true, paramLabel = "TOPIC",
                description = "The original topic, e.g. orders; its dead letters are in orders.dlq.")
        String topic;

        @Option(names = "--group", paramLabel = "GROUP", description = "Only dead letters this consumer group gave up on.")
        String group;

        @Option(names = "--dlq-suffix", paramLabel = "SUFFIX", defaultValue = ".dlq",
                description = "The service's mq.dlq-suffix (default ${DEFAULT-VALUE}).")
        String suffix;

        /**
         * The topic the dead letters are in. An empty suffix would name the original topic itself,
         * whose ordinary messages would then be listed (and offered for requeue) as dead letters.
         */
        String dlqTopic() {
            if (suffix.isEmpty()) {
                throw new ParameterException(spec.commandLine(), "--dlq-suffix must not be empty: dead letters are in the topic"
                        + " named TOPIC + SUFFIX (the service's mq.dlq-suffix, .dlq by default)");
            }
            return topic + suffix;
        }

        List<DeadLetters.DeadLetter> read(TmqClient client) throws Exception {
            return DeadLetters.read(client, tenant, dlqTopic()).stream()
                    .filter(d -> group == null || d.groups().contains(group))
                    .toList();
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true,
            description = {"List the dead letters of --topic in offset order (read with GET /admin/messages/browse; nothing is consumed)."})
    static final class ListDeadLetters extends DlqBase {
        @Option(names = "--json", description = "Print {\"topic\":..., \"deadLetters\":[...]} (messages as /admin/messages/browse returns them).")
        boolean json;

        @Override
        int run(TmqClient client) throws Exception {
            List<DeadLetters.DeadLetter> letters = read(client);
            if (json) {
                ObjectNode answer = Json.MAPPER.createObjectNode().put("topic", dlqTopic());
                ArrayNode array = answer.putArray("deadLetters");
                letters.forEach(d -> array.add(d.message()));
                out().println(Json.write(answer));
            } else {
                Table table = new Table("PARTITION_KEY", "ID", "OFFSET", "GROUPS", "ATTEMPTS", "REASON", "CREATED_AT");
                for (DeadLetters.DeadLetter d : letters) {
                    JsonNode md = d.message().path("metadata");
                    table.row(d.partitionKey(), d.id(), d.offset(), String.join(",", d.groups()),
                            Json.text(md, "delivery_attempts"), Json.text(md, "dead_letter_reason"), Json.text(d.message(), "createdAt"));
                }
                table.print(out());
            }
            out().flush();
            return ExitCodes.OK;
        }
    }

    @Command(name = "requeue-all", mixinStandardHelpOptions = true,
            description = {"Requeue every dead letter of --topic (with --group: those that group gave up on) to the groups that dead-lettered it.",
                "A dead letter of several groups goes back to all of them. Failures are reported and the rest go on;",
                "the exit code is that of the worst failure."})
    static final class RequeueAll extends DlqBase {
        @Option(names = "--dry-run", description = "Only list what would be requeued; change nothing.")
        boolean dryRun;

        @Override
        int run(TmqClient client) throws Exception {
            List<DeadLetters.DeadLetter> letters = read(client);
            int code = ExitCodes.OK;
            int done = 0;
            Table table = new Table("PARTITION_KEY", "ID", "ORIGINAL_OFFSET", "GROUPS", "RESULT");
            for (DeadLetters.DeadLetter d : letters) {
                if (dryRun) {
                    table.row(d.partitionKey(), d.id(), d.originalOffset(), String.join(",", d.groups()), "would requeue");
                    continue;
                }
                try {
                    JsonNode r = Json.parse(client.post("/admin/messages/requeue",
                            TmqClient.query("tenant", tenant, "topic", dlqTopic(), "partitionKey", d.partitionKey(), "id", d.id()), null));
                    table.row(d.partitionKey(), d.id(), r.path("originalOffset").asText(), MessageCommands.groups(r), "requeued");
                    done++;
                } catch (ApiError e) {
                    table.row(d.partitionKey(), d.id(), d.originalOffset(), String.join(",", d.groups()), "failed: HTTP " + e.status());
                    code = ExitCodes.worse(code, Problems.print(e, client, err()));
                }
            }
            table.print(out());
            note(dryRun
                    ? "dry run: " + letters.size() + " dead letter(s) of " + dlqTopic() + " would be requeued; nothing changed"
                    : "requeued " + done + " of " + letters.size() + " dead letter(s) of " + dlqTopic());
            return code;
        }
    }
}
