package dev.tenantmq.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * Per-topic and per-group settings (docs/settings.md, "Per-topic and per-group settings"):
 * {@code get} shows each effective value with its source, {@code set} changes some overrides and
 * keeps the others, {@code clear} removes some or all. Every instance applies a change within one
 * scheduler tick.
 */
@Command(name = "settings", mixinStandardHelpOptions = true,
        description = "Per-topic and per-group settings: get (effective values and sources), set, clear.",
        subcommands = {SettingsCommand.Get.class, SettingsCommand.Set.class, SettingsCommand.Clear.class})
final class SettingsCommand implements Runnable {
    @Spec
    CommandSpec spec;

    /** The override fields of the API, in the order the tables show them. */
    static final List<String> FIELDS = List.of("maxDeliveries", "defaultVisibilitySeconds", "maxVisibilitySeconds",
            "nackBackoffBaseMillis", "nackBackoffCapMillis", "retentionMaxAgeSeconds", "dedupWindowSeconds",
            "deadLetterEnabled");

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "a subcommand is required: get, set or clear");
    }

    /** The target options and --json, shared by the three commands. */
    abstract static class Target extends BaseCommand {
        @Option(names = "--tenant", required = true, paramLabel = "TENANT", description = "The tenant.")
        String tenant;

        @Option(names = "--topic", required = true, paramLabel = "TOPIC", description = "The topic.")
        String topic;

        @Option(names = "--group", paramLabel = "GROUP",
                description = "A consumer group on the topic; without it, the topic's own settings.")
        String group;

        @Option(names = "--json", description = "Print the service's JSON answer.")
        boolean json;

        Map<String, String> query() {
            return TmqClient.query("tenant", tenant, "topic", topic, "consumerGroup", group);
        }

        /** The overrides of this level (the group's with --group, else the topic's) from a settings answer. */
        ObjectNode overrides(JsonNode settings) {
            JsonNode o = settings.path(group == null ? "topicOverrides" : "groupOverrides");
            ObjectNode out = Json.MAPPER.createObjectNode();
            for (String f : FIELDS) {
                out.set(f, o.path(f).isMissingNode() ? Json.MAPPER.nullNode() : o.get(f));
            }
            return out;
        }

        /** Prints a settings answer: raw with --json, else one row per setting with its source. */
        int print(String body) throws Exception {
            if (json) {
                out().println(body);
                out().flush();
                return ExitCodes.OK;
            }
            JsonNode s = Json.parse(body);
            Table t = new Table("SETTING", "VALUE", "SOURCE");
            for (String f : FIELDS) {
                JsonNode e = s.path("effective").path(f);
                t.row(f, Json.text(e, "value"), Json.text(e, "source"));
            }
            t.print(out());
            return ExitCodes.OK;
        }
    }

    @Command(name = "get", mixinStandardHelpOptions = true,
            description = "Show the effective settings with their sources: group, topic or global (GET /admin/settings).")
    static final class Get extends Target {
        @Override
        int run(TmqClient client) throws Exception {
            return print(client.get("/admin/settings", query()));
        }
    }

    @Command(name = "set", mixinStandardHelpOptions = true,
            description = {"Change some overrides of the topic, or of the group with --group; the others stay (PUT /admin/settings).",
                "Reads the overrides, changes the given ones and writes them back: run one set at a time per topic or group."})
    static final class Set extends Target {
        @Option(names = "--max-deliveries", paramLabel = "N", description = "Failed attempts before dead-lettering (>= 1).")
        Integer maxDeliveries;

        @Option(names = "--default-visibility", paramLabel = "SECONDS", description = "Visibility of a fetch that names none (1..43200).")
        Integer defaultVisibility;

        @Option(names = "--max-visibility", paramLabel = "SECONDS", description = "Largest visibility a fetch or extend may ask (1..43200).")
        Integer maxVisibility;

        @Option(names = "--backoff-base", paramLabel = "MILLIS", description = "Nack backoff after the first failure (0..43200000).")
        Long backoffBase;

        @Option(names = "--backoff-cap", paramLabel = "MILLIS", description = "Longest nack backoff (0..43200000).")
        Long backoffCap;

        @Option(names = "--retention-max-age", paramLabel = "SECONDS", description = "Retention age of the topic's messages (>= 0; topics only).")
        Long retentionMaxAge;

        @Option(names = "--dedup-window", paramLabel = "SECONDS", description = "Dedup window of deleted messages (>= 0; topics only).")
        Long dedupWindow;

        @Option(names = "--dead-letter", paramLabel = "true|false", arity = "1",
                description = "false: retry failed messages without limit, never dead-letter.")
        Boolean deadLetter;

        @Override
        int run(TmqClient client) throws Exception {
            Map<String, Object> given = new LinkedHashMap<>();
            given.put("maxDeliveries", maxDeliveries);
            given.put("defaultVisibilitySeconds", defaultVisibility);
            given.put("maxVisibilitySeconds", maxVisibility);
            given.put("nackBackoffBaseMillis", backoffBase);
            given.put("nackBackoffCapMillis", backoffCap);
            given.put("retentionMaxAgeSeconds", retentionMaxAge);
            given.put("dedupWindowSeconds", dedupWindow);
            given.put("deadLetterEnabled", deadLetter);
            given.values().removeIf(v -> v == null);
            if (given.isEmpty()) {
                throw new ParameterException(spec.commandLine(), "name at least one setting to change");
            }
            ObjectNode body = overrides(Json.parse(client.get("/admin/settings", query())));
            given.forEach((k, v) -> body.set(k, Json.MAPPER.valueToTree(v)));
            return print(client.put("/admin/settings", query(), Json.write(body)));
        }
    }

    @Command(name = "clear", mixinStandardHelpOptions = true,
            description = {"Clear overrides of the topic, or of the group with --group (DELETE /admin/settings):",
                "all of them, or only those named with --setting (then the others stay, PUT /admin/settings)."})
    static final class Clear extends Target {
        @Option(names = "--setting", paramLabel = "NAME", split = ",",
                description = "Only these settings, e.g. maxDeliveries,deadLetterEnabled.")
        List<String> settings;

        @Override
        int run(TmqClient client) throws Exception {
            if (settings == null || settings.isEmpty()) {
                return print(client.delete("/admin/settings", query()));
            }
            for (String s : settings) {
                if (!FIELDS.contains(s)) {
                    throw new ParameterException(spec.commandLine(), "--setting " + s + " is not one of " + FIELDS);
                }
            }
            ObjectNode body = overrides(Json.parse(client.get("/admin/settings", query())));
            settings.forEach(s -> body.putNull(s));
            return print(client.put("/admin/settings", query(), Json.write(body)));
        }
    }
}
