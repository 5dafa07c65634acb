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
import java.util.TreeMap;
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
 * design (RFC "Operational tooling"). Discovery, over every tenant of {@code MQ_TENANTS}, is
 * also explained with several tenants: it reaches their shards and no other.
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
    /** A tenant condition over the served tenants: the store fills {@code %s} with their placeholders. */
    private static final Pattern TENANT_LIST = Pattern.compile("(?i)\\b(?:\\w+\\.)?tenant\\s+IN\\s+\\((%s)\\)");
    /** Discovery: at runtime over every tenant of {@code MQ_TENANTS}. */
    private static final String DISCOVERY = "MessageStore.DISCOVER_PARTITIONS";
    /** Tenants to pick the several-tenant sets from: the test profile's and a few others. */
    private static final List<String> CANDIDATE_TENANTS = List.of("acme", "it-00", "it-01", "it-02", "it-03", "it-04",
            "it-05", "it-06", "it-07", "it-08", "it-09", "git-scm", "quarkus-quickstarts");

    @Test
    void every_store_statement_routes_to_one_shard_and_only_fleet_listings_scatter() throws Exception {
        String command = System.getenv("VTEXPLAIN");
        assumeTrue(command != null && !command.isBlank(),
                "VTEXPLAIN is unset: set it to scripts/vtexplain.sh to check the SQL against Vitess's planner");

        Map<String, String> statements = StoreStatements.all();
        List<String> names = statements.keySet().stream()
                .filter(n -> !statements.get(n).contains("WHERE %s")) // listing templates: their formatted constants count
                .toList();
        List<String> sql = names.stream().map(n -> bindLiterals(StoreStatements.expandTemplate(statements.get(n)))).toList();
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
     * The UNION ALL statements the store assembles at run time from branch constants, which the
     * test above plans one branch at a time: the fetch's cursor read with its first scan (docs/
     * architecture.md, "The cursors and the first scan in one read") and its scan with the deletion
     * marker ("The fetch's scan"). Each must reach one shard as one query, so that it reads one
     * snapshot there as on a single database: vtgate merges branches that name the same tenant.
     */
    @Test
    void the_fetchs_union_statements_reach_one_shard_as_one_query() throws Exception {
        String command = System.getenv("VTEXPLAIN");
        assumeTrue(command != null && !command.isBlank(),
                "VTEXPLAIN is unset: set it to scripts/vtexplain.sh to check the SQL against Vitess's planner");
        Map<String, String> st = StoreStatements.all();
        Map<String, List<String>> unions = new java.util.LinkedHashMap<>();
        unions.put("cursors and first scan", List.of(StoreStatements.expandTemplate(st.get("ConsumerSql.CURSORS_BRANCH")),
                st.get("ConsumerSql.FIRST_SCAN_PARTITION"), st.get("ConsumerSql.FIRST_SCAN_PARTITION"),
                st.get("ConsumerSql.FIRST_SCAN_DELETION_MARKER")));
        unions.put("scan", List.of(st.get("ConsumerSql.SCAN_UNDELIVERED"), st.get("ConsumerSql.SCAN_PARTITION"),
                st.get("ConsumerSql.SCAN_DELETION_MARKER")));
        // Retention's read: each branch's look-ups per partition are subqueries of their own, which
        // must run inside the one query, in its snapshot (docs/operations.md, "Retention").
        unions.put("retention rows", List.of(StoreStatements.expandTemplate(st.get("RetentionStore.SELECT_PARTITION_ROWS")),
                StoreStatements.expandTemplate(st.get("RetentionStore.SELECT_PARTITION_ROWS"))));
        unions.put("retention rows without groups", List.of(st.get("RetentionStore.SELECT_PARTITION_ROWS_WITHOUT_GROUPS"),
                st.get("RetentionStore.SELECT_PARTITION_ROWS_WITHOUT_GROUPS")));
        // The queue gauges' second step: every kind of branch, one row each, in one query.
        unions.put("queue stats counts", List.of(st.get("QueueStatsStore.FIRST_ABOVE_AGE"),
                st.get("QueueStatsStore.COUNT_IN_BATCH"), st.get("QueueStatsStore.COUNT_ABOVE"),
                st.get("QueueStatsStore.COUNT_AT_OR_BELOW")));
        List<String> names = new ArrayList<>(unions.keySet());
        List<String> sql = unions.values().stream().map(b -> bindLiterals(dev.tenantmq.store.Db.unionAll(b))).toList();
        List<String> wrong = new ArrayList<>();
        List<JsonNode> entries = explainAll(command, names, sql, wrong);
        for (int i = 0; i < sql.size(); i++) {
            JsonNode entry = entries.get(i);
            if (entry != null && (shards(entry).size() != 1 || shardQueries(entry) != 1)) {
                wrong.add(names.get(i) + " ran " + shardQueries(entry) + " shard queries on " + shards(entry) + ": "
                        + variants(entry));
            }
        }
        assertEquals(List.of(), wrong, "unions that are not one single-shard query");
    }

    /**
     * A statement scoped to the served tenants ({@code tenant IN (%s)}, discovery) is explained
     * with several tenants bound, as at runtime: it must reach exactly the shards that the vindex
     * maps those tenants to (each found by explaining a single-tenant statement), one query per
     * shard. Two sets are checked: tenants on three different shards (so a scatter to all four
     * shows), and two tenants that share a shard (one query on it).
     */
    @Test
    void statements_over_several_tenants_reach_only_those_tenants_shards() throws Exception {
        String command = System.getenv("VTEXPLAIN");
        assumeTrue(command != null && !command.isBlank(),
                "VTEXPLAIN is unset: set it to scripts/vtexplain.sh to check the SQL against Vitess's planner");

        Map<String, String> statements = StoreStatements.all();
        List<String> names = statements.keySet().stream()
                .filter(n -> n.equals(DISCOVERY) || TENANT_LIST.matcher(statements.get(n)).find())
                .toList();
        assertTrue(names.contains(DISCOVERY), DISCOVERY + " is a store statement");

        Map<String, String> shardOf = shardsOf(command, CANDIDATE_TENANTS);
        Map<String, List<String>> byShard = new TreeMap<>();
        shardOf.forEach((tenant, shard) -> byShard.computeIfAbsent(shard, k -> new ArrayList<>()).add(tenant));
        assertTrue(byShard.size() >= 3, "the candidate tenants lie on at least three shards: " + byShard);
        List<String> spread = byShard.values().stream().limit(3).map(ts -> ts.get(0)).toList();
        List<String> together = byShard.values().stream().filter(ts -> ts.size() >= 2).findFirst()
                .map(ts -> ts.subList(0, 2)).orElseThrow(() -> new AssertionError("two candidates share a shard"));

        List<String> wrong = new ArrayList<>();
        for (List<String> tenants : List.of(spread, together)) {
            TreeSet<String> expected = tenants.stream().map(shardOf::get).collect(Collectors.toCollection(TreeSet::new));
            List<String> sql = names.stream().map(n -> bindTenantList(statements.get(n), tenants)).toList();
            Explained explained = vtexplain(command, sql);
            assertEquals(0, explained.exitCode(), "vtexplain planned " + names + ": " + explained.reason());
            JsonNode entries = new ObjectMapper().readTree(explained.stdout());
            assertEquals(sql.size(), entries.size(), "vtexplain explained every statement");
            for (int i = 0; i < sql.size(); i++) {
                TreeSet<String> shards = shards(entries.get(i));
                int queries = shardQueries(entries.get(i));
                if (!shards.equals(expected) || queries != expected.size()) {
                    wrong.add(names.get(i) + " for tenants " + tenants + " (on " + expected + ") ran " + queries
                            + " shard queries on " + shards + ": " + variants(entries.get(i)));
                }
            }
        }
        assertEquals(List.of(), wrong, "statements over several tenants that reach other shards");
    }

    /** The shard the vindex maps each tenant to, from a single-tenant statement per tenant. */
    /** The application's table of the transactional-publish tests: keyed, like the queue, by tenant first. */
    private static final String APP_TABLE = "CREATE TABLE app_orders (tenant VARCHAR(255) NOT NULL,"
            + " order_id VARCHAR(255) NOT NULL, PRIMARY KEY (tenant, order_id));";

    /**
     * The JDBC library's transaction (docs/transactional-publish.md, "Vitess"): a row of an
     * application table sharded by the same tenant value, the publish protocol's statements in the
     * order {@code PublishTransaction} sends them through vtgate (the look-up a statement of its
     * own), and the commit, all reach one shard. With the application's table in another keyspace
     * the same transaction is two shard transactions, committed one after the other.
     */
    @Test
    void a_domain_write_and_a_publish_in_one_transaction_reach_one_shard() throws Exception {
        String command = System.getenv("VTEXPLAIN");
        assumeTrue(command != null && !command.isBlank(),
                "VTEXPLAIN is unset: set it to scripts/vtexplain.sh to check the SQL against Vitess's planner");
        Map<String, String> statements = StoreStatements.all();
        List<String> sql = new ArrayList<>(List.of("BEGIN", "INSERT INTO app_orders (tenant, order_id) VALUES ('acme', 'o-1')"));
        for (String name : List.of("LOCK_HEADS", "CREATE_HEADS", "SELECT_EXISTING_IDS", "INSERT_MESSAGE",
                "INSERT_PLAIN_MESSAGE", "ADVANCE_HEADS")) {
            sql.add(bindLiterals(StoreStatements.expandTemplate(statements.get("PublishSql." + name))));
        }
        sql.add("COMMIT");
        ObjectMapper json = new ObjectMapper();

        com.fasterxml.jackson.databind.node.ObjectNode same = (com.fasterxml.jackson.databind.node.ObjectNode)
                json.readTree(Files.readString(Path.of("deploy/vitess/vschema.json")));
        ((com.fasterxml.jackson.databind.node.ObjectNode) same.path("tenant_mq").path("tables")).set("app_orders",
                json.readTree("{\"column_vindexes\": [{\"column\": \"tenant\", \"name\": \"tenant_hash\"}]}"));
        Explained together = vtexplain(command, sql, APP_TABLE, same.toString());
        assertEquals(0, together.exitCode(), "vtexplain planned the transaction: " + together.reason());
        TreeSet<String> shards = new TreeSet<>();
        json.readTree(together.stdout()).forEach(e -> shards.addAll(shards(e)));
        assertEquals(1, shards.size(), "one shard for the domain row, the publish and the commit: " + shards);

        com.fasterxml.jackson.databind.node.ObjectNode other = (com.fasterxml.jackson.databind.node.ObjectNode)
                json.readTree(Files.readString(Path.of("deploy/vitess/vschema.json")));
        other.set("app", json.readTree("{\"sharded\": false, \"tables\": {\"app_orders\": {}}}"));
        sql.set(1, sql.get(1).replace("INTO app_orders", "INTO app.app_orders"));
        Explained apart = vtexplain(command, sql, APP_TABLE, other.toString());
        assertEquals(0, apart.exitCode(), "vtexplain planned the transaction: " + apart.reason());
        TreeSet<String> apartShards = new TreeSet<>();
        json.readTree(apart.stdout()).forEach(e -> apartShards.addAll(shards(e)));
        assertEquals(2, apartShards.size(), "another keyspace: two shard transactions: " + apartShards);
        assertTrue(apartShards.first().startsWith("app/"), apartShards.toString());
    }

    private static Map<String, String> shardsOf(String command, List<String> tenants)
            throws IOException, InterruptedException {
        List<String> sql = tenants.stream()
                .map(t -> "SELECT tenant FROM queue_messages WHERE tenant = '" + t + "'").toList();
        Explained explained = vtexplain(command, sql);
        assertEquals(0, explained.exitCode(), "vtexplain planned the single-tenant probes: " + explained.reason());
        JsonNode entries = new ObjectMapper().readTree(explained.stdout());
        Map<String, String> shardOf = new TreeMap<>();
        for (int i = 0; i < tenants.size(); i++) {
            TreeSet<String> shards = shards(entries.get(i));
            assertEquals(1, shards.size(), "tenant " + tenants.get(i) + " maps to one shard: " + shards);
            shardOf.put(tenants.get(i), shards.first());
        }
        return shardOf;
    }

    /**
     * Binds a tenant-list statement as the store runs it for {@code tenants}: the tenant IN list
     * holds their names, other templates get two-value lists and every other {@code ?} the first
     * tenant (or a number where SQL needs one).
     */
    private static String bindTenantList(String sql, List<String> tenants) {
        String list = tenants.stream().map(t -> "'" + t + "'").collect(Collectors.joining(", "));
        Matcher m = TENANT_LIST.matcher(sql);
        String withTenants = m.find() ? sql.substring(0, m.start(1)) + list + sql.substring(m.end(1)) : sql;
        return bindLiterals(StoreStatements.expandTemplate(withTenants), tenants.get(0));
    }

    private static TreeSet<String> shards(JsonNode entry) {
        TreeSet<String> shards = new TreeSet<>();
        entry.path("TabletActions").fieldNames().forEachRemaining(shards::add);
        return shards;
    }

    private static int shardQueries(JsonNode entry) {
        int queries = 0;
        for (JsonNode plan : entry.path("Plans")) {
            queries += plan.path("ShardQueries").asInt();
        }
        return queries;
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
     * Replaces each {@code ?} with a literal: one tenant name for strings (so every value that
     * could be a tenant is the same tenant), a number where SQL needs one.
     */
    private static String bindLiterals(String sql) {
        return bindLiterals(sql, TENANT);
    }

    private static String bindLiterals(String sql, String tenant) {
        StringBuilder out = new StringBuilder();
        Matcher m = PLACEHOLDER.matcher(sql);
        while (m.find()) {
            boolean numeric = NUMERIC_CONTEXT.matcher(sql.substring(0, m.start())).find();
            m.appendReplacement(out, numeric ? "10" : "'" + tenant + "'");
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
        return vtexplain(command, sql, "", Files.readString(Path.of("deploy/vitess/vschema.json")));
    }

    /** vtexplain over the migrations plus {@code extraSchema}, with {@code vschema}. */
    private static Explained vtexplain(String command, List<String> sql, String extraSchema, String vschema)
            throws IOException, InterruptedException {
        String schema;
        try (Stream<Path> files = Files.list(Path.of("src/main/resources/db/migration"))) {
            schema = files.filter(p -> p.getFileName().toString().matches("V\\d+__.*\\.sql"))
                    .sorted((a, b) -> Integer.compare(version(a), version(b)))
                    .map(VitessRoutingTest::read)
                    .collect(Collectors.joining("\n")) + "\n" + extraSchema;
        }
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
