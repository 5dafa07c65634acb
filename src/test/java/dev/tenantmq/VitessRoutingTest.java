package dev.tenantmq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Vitess plans every store statement as one single-shard query (RFC "Schema": the shard key
 * is {@code tenant}), except the admin API's {@code *_ALL_TENANTS} listings, which scatter by
 * design (RFC "Operational tooling").
 *
 * <p>It runs vtexplain, Vitess's offline planner, over the Flyway migrations and
 * {@code deploy/vitess/vschema.json} (4 shards, {@code tenant} hashed with xxhash) with
 * {@code --normalize}, so literals become bind variables as vtgate makes them from the JDBC
 * driver's statements. A join of two tables on one shard is one query only when the planner
 * can prove that both sides have the same tenant. {@code VTEXPLAIN} names the command
 * ({@code scripts/vtexplain.sh}, which builds vtexplain once per machine); without it the test
 * is skipped. {@code .ci/run} sets it.
 */
class VitessRoutingTest {
    private static final int SHARDS = 4;
    private static final String TENANT = "acme";
    private static final Pattern PLACEHOLDER = Pattern.compile("\\?");
    private static final Pattern NUMERIC_CONTEXT = Pattern.compile("(?i)(LIMIT|INTERVAL)\\s*$");

    @Test
    void every_store_statement_routes_to_one_shard_and_only_fleet_listings_scatter() throws Exception {
        String command = System.getenv("VTEXPLAIN");
        assumeTrue(command != null && !command.isBlank(),
                "VTEXPLAIN is unset: set it to scripts/vtexplain.sh to check the SQL against Vitess's planner");

        Map<String, String> statements = StoreStatements.all();
        List<String> names = statements.keySet().stream()
                .filter(n -> !statements.get(n).contains("WHERE %s")) // listing templates: their formatted constants count
                .toList();
        List<String> sql = names.stream().map(n -> bindLiterals(expandTemplate(statements.get(n)))).toList();
        List<String> wrong = new ArrayList<>();
        List<JsonNode> entries = explainAll(command, names, sql, wrong);
        assertEquals(sql.size(), entries.size(), "vtexplain explained every statement");
        int single = 0;
        for (int i = 0; i < sql.size(); i++) {
            JsonNode entry = entries.get(i);
            if (entry == null) {
                continue;
            }
            TreeSet<String> shards = new TreeSet<>();
            entry.path("TabletActions").fieldNames().forEachRemaining(shards::add);
            int queries = 0;
            for (JsonNode plan : entry.path("Plans")) {
                queries += plan.path("ShardQueries").asInt();
            }
            String name = names.get(i);
            if (name.endsWith("_ALL_TENANTS")) {
                if (shards.size() != SHARDS) {
                    wrong.add(name + " is a fleet-wide listing but reached " + shards);
                }
            } else if (shards.size() != 1 || queries != 1) {
                wrong.add(name + " ran " + queries + " shard queries on " + shards + ": "
                        + variants(entry) + "\n    " + entry.path("SQL").asText().replaceAll("\\s+", " "));
            } else {
                single++;
            }
        }
        assertEquals(List.of(), wrong, "statements that are not one single-shard query");
        assertTrue(single > 40, "checked the store's statements (" + single + " single-shard)");
    }

    /**
     * One vtexplain entry per statement. vtexplain stops at the first statement it cannot plan or
     * run; then each is explained alone, so that every such statement is added to {@code wrong}
     * (its entry is null) and the others are still checked.
     */
    private static List<JsonNode> explainAll(String command, List<String> names, List<String> sql, List<String> wrong)
            throws IOException, InterruptedException {
        List<JsonNode> entries = new ArrayList<>();
        Explained batch = vtexplain(command, sql);
        if (batch.exitCode() == 0) {
            new ObjectMapper().readTree(batch.stdout()).forEach(entries::add);
            return entries;
        }
        for (int i = 0; i < sql.size(); i++) {
            Explained one = vtexplain(command, List.of(sql.get(i)));
            if (one.exitCode() == 0) {
                entries.add(new ObjectMapper().readTree(one.stdout()).get(0));
            } else {
                entries.add(null);
                wrong.add(names.get(i) + " cannot be planned or run (often a join or subquery that lost its "
                        + "tenant condition): " + one.reason());
            }
        }
        return entries;
    }

    /**
     * Fills a template's {@code %s} as the store does: IN lists of two values, or of two
     * {@code (?, ?)} rows after a row constructor.
     */
    private static String expandTemplate(String sql) {
        StringBuilder out = new StringBuilder();
        Matcher m = Pattern.compile("%s").matcher(sql);
        while (m.find()) {
            String before = sql.substring(0, m.start());
            String list = before.matches("(?s).*\\)\\s+IN\\s+\\($") ? "(?, ?), (?, ?)" : "?, ?";
            m.appendReplacement(out, Matcher.quoteReplacement(list));
        }
        return m.appendTail(out).toString();
    }

    /**
     * Replaces each {@code ?} with a literal: one tenant name for strings (so every value that
     * could be a tenant is the same tenant), a number where SQL needs one.
     */
    private static String bindLiterals(String sql) {
        StringBuilder out = new StringBuilder();
        Matcher m = PLACEHOLDER.matcher(sql);
        while (m.find()) {
            boolean numeric = NUMERIC_CONTEXT.matcher(sql.substring(0, m.start())).find();
            m.appendReplacement(out, numeric ? "10" : "'" + TENANT + "'");
        }
        return m.appendTail(out).toString();
    }

    private static String variants(JsonNode entry) {
        List<String> found = new ArrayList<>();
        for (JsonNode plan : entry.path("Plans")) {
            collectVariants(plan.path("Instructions"), found);
        }
        return String.join(", ", found);
    }

    private static void collectVariants(JsonNode node, List<String> found) {
        if (node.has("OperatorType")) {
            found.add(node.path("OperatorType").asText()
                    + (node.has("Variant") ? "/" + node.path("Variant").asText() : ""));
        }
        for (Iterator<JsonNode> it = node.path("Inputs").elements(); it.hasNext();) {
            collectVariants(it.next(), found);
        }
    }

    /**
     * What vtexplain printed: on stdout a JSON array, one entry per statement, when it exits 0;
     * otherwise an "ERROR: ... '<statement>': <reason>" line on stdout or an "Error: ..." one on
     * stderr (which otherwise holds its log, hundreds of lines with some at ERROR level).
     */
    private record Explained(int exitCode, String stdout, String stderr) {
        String reason() {
            for (String out : List.of(stdout, stderr)) {
                Matcher m = Pattern.compile("(?s)(?:^|\n)(?:ERROR|Error): (.*?)(?:\nUsage:|$)").matcher(out);
                if (m.find()) {
                    String error = m.group(1).strip();
                    int end = error.lastIndexOf("': ");
                    return end < 0 ? error : error.substring(end + 3).strip();
                }
            }
            return "exit code " + exitCode + ", no error message";
        }
    }

    /** Runs vtexplain once over the given statements. */
    private static Explained vtexplain(String command, List<String> sql) throws IOException, InterruptedException {
        String schema;
        try (Stream<Path> files = Files.list(Path.of("src/main/resources/db/migration"))) {
            schema = files.filter(p -> p.getFileName().toString().matches("V\\d+__.*\\.sql"))
                    .sorted((a, b) -> Integer.compare(version(a), version(b)))
                    .map(VitessRoutingTest::read)
                    .collect(Collectors.joining("\n"));
        }
        String vschema = Files.readString(Path.of("deploy/vitess/vschema.json"));
        List<String> argv = new ArrayList<>(List.of(command.split(" ")));
        argv.addAll(List.of("--shards", String.valueOf(SHARDS), "--normalize", "--output-mode", "json",
                "--schema", schema, "--vschema", vschema, "--sql", String.join(";\n", sql)));
        Path stdout = Files.createTempFile("vtexplain", ".json");
        Path stderr = Files.createTempFile("vtexplain", ".log");
        try {
            Process p = new ProcessBuilder(argv).redirectOutput(stdout.toFile()).redirectError(stderr.toFile()).start();
            assertTrue(p.waitFor(10, TimeUnit.MINUTES), "vtexplain finished");
            return new Explained(p.exitValue(), Files.readString(stdout), Files.readString(stderr));
        } finally {
            Files.deleteIfExists(stdout);
            Files.deleteIfExists(stderr);
        }
    }

    private static int version(Path migration) {
        String name = migration.getFileName().toString();
        return Integer.parseInt(name.substring(1, name.indexOf("__")));
    }

    private static String read(Path p) {
        try {
            return Files.readString(p, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }
}
