package dev.tenantmq.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code tmq group reset}: replay, Kafka's {@code kafka-consumer-groups --reset-offsets}
 * (docs/operations.md, "Replay: resetting a group's offsets"); {@code tmq group delete} is
 * {@link DeleteCommands.GroupDelete}.
 */
final class GroupCommands {
    private GroupCommands() {}

    /** {@code tmq group}: the consumer-group commands. */
    @Command(name = "group", mixinStandardHelpOptions = true, description = "Consumer groups: reset, delete.",
            subcommands = {Reset.class, DeleteCommands.GroupDelete.class})
    static final class Group implements Runnable {
        @picocli.CommandLine.Spec
        picocli.CommandLine.Model.CommandSpec spec;

        @Override
        public void run() {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "a subcommand is required (reset, delete)");
        }
    }

    /** Exactly one target, as in kafka-consumer-groups. */
    static final class Target {
        @Option(names = "--to-earliest", required = true, description = "The earliest stored message goes next.")
        boolean earliest;

        @Option(names = "--to-latest", required = true, description = "Skip everything stored; only later messages go.")
        boolean latest;

        @Option(names = "--to-offset", required = true, paramLabel = "N",
                description = "Offset N is the next message delivered (the committed offset becomes N-1).")
        Long offset;

        @Option(names = "--to-datetime", required = true, paramLabel = "TIME",
                description = "The first message published at or after TIME (RFC 3339, e.g. 2026-12-01T09:00:00Z) goes next.")
        String datetime;

        Map<String, String> query() {
            if (earliest) {
                return TmqClient.query("to", "earliest");
            }
            if (latest) {
                return TmqClient.query("to", "latest");
            }
            if (offset != null) {
                return TmqClient.query("to", "offset", "toOffset", String.valueOf(offset));
            }
            return TmqClient.query("to", "datetime", "toDatetime", datetime);
        }
    }

    @Command(name = "reset", mixinStandardHelpOptions = true,
            description = {"Move a consumer group's committed offsets on one topic (POST /admin/consumer-groups/reset-offsets).",
                "Run it with --dry-run first: that prints, per partition, the offset before and after and changes nothing.",
                "Without --dry-run the group's deliveries in flight are fenced (their receipts answer STALE) and the next fetch"
                        + " starts at the new position. Messages retention deleted cannot be replayed: EARLIEST shows how far"
                        + " back a partition can go."})
    static final class Reset extends BaseCommand {
        @Option(names = "--tenant", required = true, paramLabel = "TENANT", description = "The group's tenant.")
        String tenant;

        @Option(names = "--topic", required = true, paramLabel = "TOPIC", description = "The topic.")
        String topic;

        @Option(names = "--group", required = true, paramLabel = "GROUP", description = "The consumer group.")
        String group;

        @Option(names = "--partition-key", paramLabel = "KEY", description = "Only this partition (default: all of the group's).")
        String partitionKey;

        @ArgGroup(exclusive = true, multiplicity = "1")
        Target target;

        @Option(names = "--dry-run", description = "Print what would move; change nothing.")
        boolean dryRun;

        @Option(names = "--json", description = "Print the service's JSON answer.")
        boolean json;

        @Override
        int run(TmqClient client) throws Exception {
            Map<String, String> query = TmqClient.query("tenant", tenant, "topic", topic, "consumerGroup", group,
                    "partitionKey", partitionKey);
            query.putAll(target.query());
            if (dryRun) {
                query.put("dryRun", "true");
            }
            String body = client.post("/admin/consumer-groups/reset-offsets", query, null);
            if (json) {
                out().println(body);
                out().flush();
                return ExitCodes.OK;
            }
            JsonNode r = Json.parse(body);
            Table rows = new Table("PARTITION", "FROM", "TO", "NEXT", "EARLIEST", "EARLIEST_AT", "LATEST", "NOTE");
            for (JsonNode p : r.path("partitions")) {
                rows.row(Json.text(p, "partitionKey"), Json.text(p, "fromOffset"), Json.text(p, "toOffset"),
                        Json.text(p, "nextOffset"), Json.text(p, "earliestOffset"), Json.text(p, "earliestCreatedAt"),
                        Json.text(p, "latestOffset"), p.path("beforeEarliest").asBoolean()
                                ? "target before the earliest stored message: starts at EARLIEST" : "");
            }
            rows.print(out());
            out().println((r.path("dryRun").asBoolean() ? "dry run: nothing changed; " : "reset ")
                    + Json.text(r, "tenant") + "/" + Json.text(r, "topic") + " group " + Json.text(r, "consumerGroup")
                    + " to " + Json.text(r, "to") + " in " + r.path("partitions").size() + " partition(s)");
            out().flush();
            return ExitCodes.OK;
        }
    }
}
