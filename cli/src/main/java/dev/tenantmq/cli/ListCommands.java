package dev.tenantmq.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The four admin listings (docs/operations.md, "Admin API"): topics, offsets, leases and subscribers of one
 * tenant ({@code --tenant}) or of all ({@code --all-tenants}, the explicit fleet-wide read that
 * scatters on Vitess). Each prints an aligned table, or with {@code --json} the service's JSON
 * exactly as it answered.
 */
final class ListCommands {
    private ListCommands() {}

    /** Exactly one of --tenant or --all-tenants, as the admin API demands. */
    static final class Scope {
        @Option(names = "--tenant", required = true, paramLabel = "TENANT", description = "List this tenant only.")
        String tenant;

        @Option(names = "--all-tenants", required = true, description = "List every tenant (scatters to every shard on Vitess).")
        boolean allTenants;
    }

    /** Scope, limit and --json; subclasses name the path, the filters and the columns. */
    abstract static class ListCommand extends BaseCommand {
        @ArgGroup(exclusive = true, multiplicity = "1")
        Scope scope;

        @Option(names = "--limit", paramLabel = "N", description = "Most rows (1..10000; the service's default is 1000).")
        Integer limit;

        @Option(names = "--json", description = "Print the service's JSON answer instead of a table.")
        boolean json;

        @Override
        int run(TmqClient client) throws Exception {
            Map<String, String> query = TmqClient.query(
                    "tenant", scope.tenant,
                    "allTenants", scope.allTenants ? "true" : null,
                    "limit", limit == null ? null : limit.toString());
            filters(query);
            String body = client.get(path(), query);
            JsonNode answer = Json.parse(body);
            if (json) {
                out().println(body);
                out().flush();
            } else {
                Table table = table();
                for (JsonNode row : answer.path(field())) {
                    add(table, row);
                }
                table.print(out());
            }
            if (answer.path("truncated").asBoolean(false)) {
                note("more rows exist than shown (" + answer.path(field()).size() + "); raise --limit (at most 10000) or filter");
            }
            return ExitCodes.OK;
        }

        /** The admin path. */
        abstract String path();

        /** The array field of the answer. */
        abstract String field();

        /** Adds this listing's optional filters to the query. */
        void filters(Map<String, String> query) {}

        /** An empty table with this listing's columns. */
        abstract Table table();

        /** One row of the answer as a table row. */
        abstract void add(Table table, JsonNode row);
    }

    @Command(name = "topics", mixinStandardHelpOptions = true,
            description = "Topics with partition and message counts (GET /admin/topics).")
    static final class Topics extends ListCommand {
        @Override
        String path() {
            return "/admin/topics";
        }

        @Override
        String field() {
            return "topics";
        }

        @Override
        Table table() {
            return new Table("TENANT", "TOPIC", "PARTITIONS", "MESSAGES");
        }

        @Override
        void add(Table t, JsonNode r) {
            t.row(Json.text(r, "tenant"), Json.text(r, "topic"), Json.text(r, "partitions"), Json.text(r, "messages"));
        }
    }

    @Command(name = "offsets", mixinStandardHelpOptions = true,
            description = "Committed offset and lag per partition and consumer group (GET /admin/offsets).")
    static final class Offsets extends ListCommand {
        @Option(names = "--topic", paramLabel = "TOPIC", description = "Only this topic (a dead-letter topic included).")
        String topic;

        @Option(names = "--group", paramLabel = "GROUP", description = "Only this consumer group.")
        String group;

        @Override
        String path() {
            return "/admin/offsets";
        }

        @Override
        String field() {
            return "offsets";
        }

        @Override
        void filters(Map<String, String> query) {
            if (topic != null) {
                query.put("topic", topic);
            }
            if (group != null) {
                query.put("consumerGroup", group);
            }
        }

        @Override
        Table table() {
            return new Table("TENANT", "TOPIC", "PARTITION_KEY", "GROUP", "COMMITTED", "LATEST", "LAG");
        }

        @Override
        void add(Table t, JsonNode r) {
            t.row(Json.text(r, "tenant"), Json.text(r, "topic"), Json.text(r, "partitionKey"), Json.text(r, "consumerGroup"),
                    Json.text(r, "committedOffset"), Json.text(r, "latestOffset"), Json.text(r, "lag"));
        }
    }

    @Command(name = "leases", mixinStandardHelpOptions = true,
            description = "Partition leases with holder, epoch and expiry (GET /admin/leases).")
    static final class Leases extends ListCommand {
        /** The lease states the admin API filters on. */
        enum State { active, stale }

        @Option(names = "--state", paramLabel = "STATE",
                description = "active (unexpired, live holder) or stale (the rest). Default: both.")
        State state;

        @Override
        String path() {
            return "/admin/leases";
        }

        @Override
        String field() {
            return "leases";
        }

        @Override
        void filters(Map<String, String> query) {
            if (state != null) {
                query.put("state", state.name());
            }
        }

        @Override
        Table table() {
            return new Table("TENANT", "GROUP", "TOPIC", "PARTITION_KEY", "HOLDER", "EPOCH", "ACTIVE", "EXPIRES_AT");
        }

        @Override
        void add(Table t, JsonNode r) {
            t.row(Json.text(r, "tenant"), Json.text(r, "consumerGroup"), Json.text(r, "topic"), Json.text(r, "partitionKey"),
                    Json.text(r, "leasedBy"), Json.text(r, "epoch"), Json.text(r, "active"), Json.text(r, "expiresAt"));
        }
    }

    @Command(name = "subscribers", mixinStandardHelpOptions = true,
            description = "Subscriber heartbeats (GET /admin/subscribers).")
    static final class Subscribers extends ListCommand {
        @Override
        String path() {
            return "/admin/subscribers";
        }

        @Override
        String field() {
            return "subscribers";
        }

        @Override
        Table table() {
            return new Table("TENANT", "GROUP", "TOPIC", "SUBSCRIBER", "LIVE", "LAST_SEEN", "STARTED");
        }

        @Override
        void add(Table t, JsonNode r) {
            t.row(Json.text(r, "tenant"), Json.text(r, "consumerGroup"), Json.text(r, "topic"), Json.text(r, "subscriberName"),
                    Json.text(r, "live"), Json.text(r, "lastSeenAt"), Json.text(r, "startedAt"));
        }
    }
}
