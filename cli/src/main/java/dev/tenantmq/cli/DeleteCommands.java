package dev.tenantmq.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code tmq topic delete} and {@code tmq group delete} (docs/operations.md, "Deleting a topic or a
 * consumer group"): each repeats the idempotent admin DELETE until it answers {@code done: true},
 * printing a line per call, and refuses to start without {@code --yes}.
 */
final class DeleteCommands {
    private DeleteCommands() {}

    /** Most calls one command makes before it gives up (each deletes a bounded number of rows). */
    static final int MAX_CALLS = 100_000;

    /** The tables of the {@code deleted} counts, in the order they are printed. */
    private static final List<String> TABLES = List.of("messages", "deliveryStates", "offsets", "leases", "heartbeats",
            "partitionHeads", "dedupIds");

    /** What the two delete commands share: --yes, --json and the loop until done. */
    abstract static class DeleteCommand extends BaseCommand {
        @Option(names = "--yes", description = "Confirm the deletion; without it nothing is deleted (exit 2).")
        boolean yes;

        @Option(names = "--json", description = "Print each call's JSON answer, one per line.")
        boolean json;

        /** What is deleted, for the refusal without --yes and the summary. */
        abstract String what();

        abstract String path();

        abstract Map<String, String> query();

        /** The {@code deleted} objects of one answer, by topic (one entry for a group). */
        abstract Map<String, JsonNode> deleted(JsonNode answer);

        @Override
        int run(TmqClient client) throws Exception {
            if (!yes) {
                throw new CommandLine.ParameterException(spec.commandLine(), "this deletes " + what()
                        + " for good: confirm with --yes");
            }
            Map<String, long[]> totals = new LinkedHashMap<>();
            for (int call = 1; call <= MAX_CALLS; call++) {
                String body;
                try {
                    body = client.delete(path(), query());
                } catch (ApiError e) {
                    if (e.status() == 404 && call > 1) {
                        break; // a concurrent deletion of the same target finished it
                    }
                    throw e;
                }
                JsonNode answer = Json.parse(body);
                deleted(answer).forEach((name, rows) -> {
                    long[] sum = totals.computeIfAbsent(name, k -> new long[TABLES.size()]);
                    for (int i = 0; i < TABLES.size(); i++) {
                        sum[i] += rows.path(TABLES.get(i)).asLong();
                    }
                });
                if (json) {
                    out().println(Json.write(answer));
                    out().flush();
                } else if (!answer.path("done").asBoolean()) {
                    note("call " + call + ": deleted " + counts(totals) + " so far, going on");
                }
                if (answer.path("done").asBoolean()) {
                    if (!json) {
                        out().println("deleted " + what() + ": " + counts(totals));
                        out().flush();
                    }
                    return ExitCodes.OK;
                }
            }
            note("not done after " + MAX_CALLS + " calls; run the command again to go on");
            return ExitCodes.SERVER;
        }

        private static String counts(Map<String, long[]> totals) {
            StringBuilder sb = new StringBuilder();
            totals.forEach((name, sum) -> {
                if (!sb.isEmpty()) {
                    sb.append("; ");
                }
                sb.append(name).append(':');
                for (int i = 0; i < TABLES.size(); i++) {
                    if (sum[i] > 0) {
                        sb.append(' ').append(TABLES.get(i)).append('=').append(sum[i]);
                    }
                }
            });
            return sb.toString();
        }
    }

    @Command(name = "topic", mixinStandardHelpOptions = true, description = "Topics: delete.",
            subcommands = {TopicDelete.class})
    static final class Topic implements Runnable {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public void run() {
            throw new CommandLine.ParameterException(spec.commandLine(), "a subcommand is required (delete)");
        }
    }

    @Command(name = "delete", mixinStandardHelpOptions = true,
            description = {"Delete a topic: its messages, every group's state on it, its partition heads and dedup identities"
                    + " (DELETE /admin/topics, repeated until done).",
                "Its dead-letter topic stays unless --include-dead-letters. While it runs, publishes to the topic get 409."})
    static final class TopicDelete extends DeleteCommand {
        @Option(names = "--tenant", required = true, paramLabel = "TENANT", description = "The topic's tenant.")
        String tenant;

        @Option(names = "--topic", required = true, paramLabel = "TOPIC", description = "The topic to delete.")
        String topic;

        @Option(names = "--include-dead-letters", description = "Also delete its dead-letter topic (<topic>.dlq).")
        boolean includeDeadLetters;

        @Override
        String what() {
            return "topic " + tenant + "/" + topic + (includeDeadLetters ? " and its dead-letter topic" : "");
        }

        @Override
        String path() {
            return "/admin/topics";
        }

        @Override
        Map<String, String> query() {
            return TmqClient.query("tenant", tenant, "topic", topic, "includeDeadLetters",
                    String.valueOf(includeDeadLetters));
        }

        @Override
        Map<String, JsonNode> deleted(JsonNode answer) {
            Map<String, JsonNode> out = new LinkedHashMap<>();
            answer.path("topics").forEach(t -> out.put(Json.text(t, "topic"), t.path("deleted")));
            return out;
        }
    }

    @Command(name = "delete", mixinStandardHelpOptions = true,
            description = {"Delete a consumer group's offsets, delivery state, leases and heartbeats on one topic"
                    + " (DELETE /admin/consumer-groups, repeated until done).",
                "The messages stay. 409 (exit 4) while a subscriber of the group is live: stop its consumers first."})
    static final class GroupDelete extends DeleteCommand {
        @Option(names = "--tenant", required = true, paramLabel = "TENANT", description = "The group's tenant.")
        String tenant;

        @Option(names = "--topic", required = true, paramLabel = "TOPIC", description = "The topic it consumes.")
        String topic;

        @Option(names = "--group", required = true, paramLabel = "GROUP", description = "The consumer group.")
        String group;

        @Override
        String what() {
            return "consumer group " + group + " of " + tenant + "/" + topic;
        }

        @Override
        String path() {
            return "/admin/consumer-groups";
        }

        @Override
        Map<String, String> query() {
            return TmqClient.query("tenant", tenant, "topic", topic, "consumerGroup", group);
        }

        @Override
        Map<String, JsonNode> deleted(JsonNode answer) {
            return Map.of(group, answer.path("deleted"));
        }
    }
}
