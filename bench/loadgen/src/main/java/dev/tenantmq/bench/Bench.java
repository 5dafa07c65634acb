package dev.tenantmq.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The benchmark (bench/README.md): runs every row against the packaged service, the raw JDBC
 * baselines and RabbitMQ in the same run, and writes latest.json and latest.md. bench/run.sh
 * starts the database and RabbitMQ and passes them here; this class starts and stops the service.
 */
public final class Bench {
    /** Tenants the service serves: the benchmark's own, the replay file's, and one per tick measurement. */
    static final String TENANTS = "bench,git-scm,quarkus-quickstarts,tick-0,tick-1,tick-2";
    static final String TENANT = "bench";
    static final int PARTITIONS = 100;

    /** Command-line settings (bench/run.sh passes them all). */
    static final class Config {
        boolean quick;
        boolean profile;
        String jdbcServer;
        String dbName = "tenant_mq";
        String dbUser = "bench";
        String dbPassword = "bench";
        long dbPid;
        int rabbitPort;
        long rabbitPid;
        String serviceJar;
        String serviceJava = "java";
        String jcmd = "jcmd";
        int httpPort = 18080;
        /** Management interface (health, metrics) of the service. */
        int managementPort = 18090;
        Path replayFile;
        Path results;
        Path work;
        Set<String> rows = new HashSet<>();
    }

    /** Sizes of one mode; every row records the ones it used under "params". */
    record Sizes(int runs, long publishBatch, long publishSingle, long consumeBacklog, long endToEnd, int replayLimit,
                 double wakeSeconds, double idleSeconds, int idlePolls, List<Long> scaleBacklogs, long scaleMeasure,
                 List<Integer> tickPartitions, double startupIdleSeconds) {
        static Sizes quick() {
            return new Sizes(3, 10_000, 2_000, 20_000, 5_000, 5_000, 5, 5, 2_000, List.of(10_000L, 50_000L), 3_000,
                    List.of(100, 1_000, 5_000), 3);
        }

        static Sizes full() {
            return new Sizes(3, 200_000, 30_000, 500_000, 100_000, 0, 60, 30, 2_000, List.of(10_000L, 5_000_000L), 10_000,
                    List.of(100, 10_000, 100_000), 15);
        }
    }

    final Config cfg;
    final Sizes sizes;
    final Raw raw;
    final Db db;
    final Rabbit rabbit;
    final String runTag = UUID.randomUUID().toString().substring(0, 6);
    final Map<String, Object> result = new LinkedHashMap<>();
    final Map<String, Object> rabbitPeer = new LinkedHashMap<>();
    Service service;
    Mq mq;
    int failures;

    Bench(Config cfg) {
        this.cfg = cfg;
        this.sizes = cfg.quick ? Sizes.quick() : Sizes.full();
        this.raw = new Raw(cfg.jdbcServer, cfg.dbUser, cfg.dbPassword);
        this.db = new Db(cfg.jdbcServer, cfg.dbUser, cfg.dbPassword);
        this.rabbit = new Rabbit(cfg.rabbitPort);
    }

    public static void main(String[] args) throws Exception {
        Config cfg = new Config();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--quick" -> cfg.quick = true;
                case "--profile" -> cfg.profile = true;
                case "--jdbc" -> cfg.jdbcServer = args[++i];
                case "--db-user" -> cfg.dbUser = args[++i];
                case "--db-password" -> cfg.dbPassword = args[++i];
                case "--db-pid" -> cfg.dbPid = Long.parseLong(args[++i]);
                case "--rabbit-port" -> cfg.rabbitPort = Integer.parseInt(args[++i]);
                case "--rabbit-pid" -> cfg.rabbitPid = Long.parseLong(args[++i]);
                case "--service-jar" -> cfg.serviceJar = args[++i];
                case "--service-java" -> cfg.serviceJava = args[++i];
                case "--jcmd" -> cfg.jcmd = args[++i];
                case "--http-port" -> cfg.httpPort = Integer.parseInt(args[++i]);
                case "--management-port" -> cfg.managementPort = Integer.parseInt(args[++i]);
                case "--replay-file" -> cfg.replayFile = Path.of(args[++i]);
                case "--results" -> cfg.results = Path.of(args[++i]);
                case "--work" -> cfg.work = Path.of(args[++i]);
                case "--rows" -> cfg.rows.addAll(List.of(args[++i].split(",")));
                default -> throw new IllegalArgumentException("unknown argument " + a);
            }
        }
        Bench b = new Bench(cfg);
        int rc = b.runAll();
        System.exit(rc);
    }

    private boolean wanted(String row) {
        return cfg.rows.isEmpty() || cfg.rows.contains(row);
    }

    private static void log(String fmt, Object... args) {
        System.out.printf("[%s] %s%n", Instant.now().toString().substring(11, 19), String.format(fmt, args));
        System.out.flush();
    }

    int runAll() throws Exception {
        Files.createDirectories(cfg.results);
        Files.createDirectories(cfg.work);
        Instant started = Instant.now();
        Map<String, Object> meta = new LinkedHashMap<>();
        meta.put("mode", cfg.quick ? "quick" : "full");
        meta.put("started_at", started.toString());
        meta.put("cores", Runtime.getRuntime().availableProcessors());
        meta.put("database", "MariaDB " + db.version() + " (innodb_flush_log_at_trx_commit="
                + db.variable("innodb_flush_log_at_trx_commit") + ", innodb_buffer_pool_size="
                + Long.parseLong(db.variable("innodb_buffer_pool_size")) / (1 << 20) + "M)");
        meta.put("rabbitmq", "RabbitMQ " + rabbit.version() + " (durable classic queues, persistent messages, publisher confirms)");
        meta.put("payload_bytes", Payloads.PAYLOAD_BYTES.length);
        meta.put("partitions", PARTITIONS);
        meta.put("client", "Java " + Runtime.version() + ", virtual threads, JDK HttpClient (HTTP/1.1)");
        meta.put("service_java", cfg.serviceJava);
        meta.put("runs_per_figure", sizes.runs());
        meta.put("note", "Every figure is the median of the runs with min and max; ratios compare medians of the same run.");
        result.put("meta", meta);
        raw.setup();

        if (wanted("startup")) {
            row("startup", this::startup);
        }
        service = Service.start(cfg, "bench-1", serviceJvmArgs(), cfg.work.resolve("service.log"));
        service.awaitReady(Duration.ofSeconds(120));
        mq = new Mq(service.base);
        try {
            warmUp();
            if (wanted("publish_batch")) row("publish_batch", this::publishBatch);
            if (wanted("publish_single")) row("publish_single", this::publishSingle);
            if (wanted("consume_ack")) row("consume_ack", this::consumeAck);
            if (wanted("end_to_end")) row("end_to_end", this::endToEnd);
            if (wanted("wake_latency_ms")) row("wake_latency_ms", this::wakeLatency);
            if (wanted("idle_long_polls")) row("idle_long_polls", this::idleLongPolls);
            if (wanted("scale")) row("scale", this::scale);
        } finally {
            mq.close();
            service.close();
        }
        rabbitPeer.put("version", rabbit.version());
        result.put("peers", Map.of("rabbitmq", rabbitPeer));
        meta.put("finished_at", Instant.now().toString());
        meta.put("duration_s", Duration.between(started, Instant.now()).toSeconds());
        meta.put("failed_rows", failures);

        ObjectMapper om = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        Files.writeString(cfg.results.resolve("latest.json"), om.writeValueAsString(result) + "\n");
        Files.writeString(cfg.results.resolve("latest.md"), Report.markdown(result));
        log("wrote %s and latest.md", cfg.results.resolve("latest.json"));
        return failures == 0 ? 0 : 1;
    }

    interface RowBody {
        Map<String, Object> run() throws Exception;
    }

    private void row(String name, RowBody body) {
        log("row %s", name);
        try {
            result.put(name, body.run());
        } catch (Exception | AssertionError e) {
            failures++;
            log("row %s FAILED: %s", name, e);
            e.printStackTrace(System.out);
            result.put(name, Map.of("error", String.valueOf(e)));
        }
    }

    /**
     * JVM defaults: the packaged service as a user would start it. BENCH_SERVICE_JVM_ARGS
     * (space-separated) adds options for investigation, e.g. a JFR recording of the whole run.
     */
    private List<String> serviceJvmArgs() {
        String extra = System.getenv().getOrDefault("BENCH_SERVICE_JVM_ARGS", "").trim();
        return extra.isEmpty() ? List.of() : List.of(extra.split("\\s+"));
    }

    // ---------------------------------------------------------------- measurement helpers

    /** CPU seconds of the client (this JVM), the service, the database and RabbitMQ over a span. */
    final class Cpu {
        final long wall = System.nanoTime();
        final double client = clientCpu(), svc = service == null ? Double.NaN : service.cpuSeconds(),
                dbCpu = Service.Proc.cpuSeconds(cfg.dbPid), rmq = Service.Proc.cpuSeconds(cfg.rabbitPid);
        final Map<String, Double> svcJit = service == null ? Map.of() : service.jitCpuByThread();
        final long retries = Mq.RETRIES_503.get();

        Map<String, Object> since() {
            double secs = (System.nanoTime() - wall) / 1e9;
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("wall_s", Stats.round(secs));
            m.put("client_cpu_s", Stats.round(clientCpu() - client));
            m.put("client_cpu_pct_of_machine", Stats.round(100 * (clientCpu() - client) / secs / Runtime.getRuntime().availableProcessors()));
            m.put("service_cpu_s", Stats.round((service == null ? Double.NaN : service.cpuSeconds()) - svc));
            // Of the service's CPU, what its JIT compilers spent (at least): a service still
            // compiling its hot paths shares the 2 cores with them (warmUp).
            m.put("service_jit_cpu_s", Stats.round(Service.Proc.jitCpuSince(svcJit,
                    service == null ? Map.of() : service.jitCpuByThread())));
            m.put("db_cpu_s", Stats.round(Service.Proc.cpuSeconds(cfg.dbPid) - dbCpu));
            m.put("rabbitmq_cpu_s", Stats.round(Service.Proc.cpuSeconds(cfg.rabbitPid) - rmq));
            m.put("http_503_retries", Mq.RETRIES_503.get() - retries);
            return m;
        }
    }

    static double clientCpu() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime() / 1e9;
    }

    interface Run {
        double run(int i) throws Exception;
    }

    /** Runs {@code r} sizes.runs() times; {median, min, max, runs} plus CPU and (optionally) database counters. */
    Map<String, Object> repeat(String what, Run r, long msgsPerRun, boolean dbCounters) throws Exception {
        List<Double> xs = new ArrayList<>();
        Cpu cpu = new Cpu();
        Map<String, Long> before = db.status();
        for (int i = 0; i < sizes.runs(); i++) {
            double x = r.run(i);
            log("  %s run %d: %.1f", what, i + 1, x);
            xs.add(x);
        }
        Map<String, Object> m = Stats.figure(xs);
        Map<String, Object> spent = cpu.since();
        Map<String, Long> after = db.status();
        m.put("cpu", spent);
        if (dbCounters) {
            m.put("db_per_msg", Db.perMessage(before, after, msgsPerRun * sizes.runs()));
        }
        String side = what.equals("raw JDBC") ? "client_cpu_s" : what.equals("RabbitMQ") ? "rabbitmq_cpu_s" : "service_cpu_s";
        m.put("per_msg", perMessage(spent, side, before, after, msgsPerRun * sizes.runs()));
        return m;
    }

    /**
     * The work per message of a measured span: statements the database received (the
     * {@code Questions} delta of SHOW GLOBAL STATUS: every statement a client sent, SET and
     * COMMIT included, the scheduler's too), the database's CPU time and the CPU time of the
     * side that does the queueing ({@code serviceSide}: the service's process for tenant-mq, this
     * JVM for the raw JDBC loops, which run here), each over the messages of the span. From
     * /proc (utime + stime of the process) and the server's own counters.
     */
    static Map<String, Object> perMessage(Map<String, Object> cpu, String serviceSide, Map<String, Long> before,
                                          Map<String, Long> after, long msgs) {
        Map<String, Object> m = new LinkedHashMap<>();
        double n = Math.max(1, msgs);
        m.put("messages", msgs);
        m.put("statements", before.containsKey("Questions") && after.containsKey("Questions")
                ? Stats.round((after.get("Questions") - before.get("Questions")) / n) : null);
        m.put("db_cpu_us", Stats.round((double) cpu.get("db_cpu_s") * 1e6 / n));
        m.put("service_cpu_us", Stats.round((double) cpu.get(serviceSide) * 1e6 / n));
        m.put("service_side", serviceSide);
        return m;
    }

    /**
     * The three per-message fields of a throughput row, {@code {"tenant_mq": x,
     * "baseline": y}} each, from the {@code per_msg} of both sides ({@link #perMessage}); null
     * where a side was not measured that way.
     */
    static void perMessageFields(Map<String, Object> e, Map<String, Object> mine, Map<String, Object> base) {
        for (String[] f : new String[][] {{"statements_per_msg", "statements"}, {"db_cpu_us_per_msg", "db_cpu_us"},
                {"service_cpu_us_per_msg", "service_cpu_us"}}) {
            Map<String, Object> pair = new LinkedHashMap<>();
            pair.put("tenant_mq", perMsg(mine, f[1]));
            pair.put("baseline", perMsg(base, f[1]));
            e.put(f[0], pair);
        }
    }

    @SuppressWarnings("unchecked")
    private static Object perMsg(Map<String, Object> side, String field) {
        Object p = side.get("per_msg");
        return p instanceof Map<?, ?> m ? ((Map<String, Object>) m).get(field) : null;
    }

    /** A throughput entry: msgs_per_s and baseline_msgs_per_s (medians) with their stats and the ratio. */
    static Map<String, Object> throughput(Map<String, Object> mine, Map<String, Object> base, String baselineKind,
                                          double ratioMin, String target) {
        Map<String, Object> e = new LinkedHashMap<>();
        double m = (double) mine.get("median"), b = (double) base.get("median");
        e.put("msgs_per_s", m);
        e.put("baseline_msgs_per_s", b);
        e.put("baseline", baselineKind);
        e.put("ratio", Stats.round(m / b));
        e.put("target", ratioMin > 0 ? target(target, m / b >= ratioMin) : target(target, null));
        perMessageFields(e, mine, base);
        e.put("tenant_mq", mine);
        e.put("baseline_runs", base);
        return e;
    }

    /**
     * A goal made of several parts (throughput and work per message), each judged on its own:
     * {@code goal} joins the parts' texts, {@code met} is true when every part is met, false when
     * one is missed, null when a part could not be measured; {@code parts} lists each part with
     * what was measured, so a reader sees which one missed.
     *
     * @param parts triples of goal text, measured value (for the reader) and met (null: not measured)
     */
    static Map<String, Object> target(Object... parts) {
        List<Map<String, Object>> list = new ArrayList<>();
        Boolean all = Boolean.TRUE;
        for (int i = 0; i < parts.length; i += 3) {
            Map<String, Object> part = new LinkedHashMap<>();
            part.put("goal", parts[i]);
            part.put("measured", parts[i + 1]);
            Boolean met = (Boolean) parts[i + 2];
            part.put("met", met);
            list.add(part);
            all = Boolean.FALSE.equals(all) || Boolean.FALSE.equals(met) ? Boolean.FALSE : met == null ? null : all;
        }
        Map<String, Object> t = target(String.join("; ", list.stream().map(m -> (String) m.get("goal")).toList()), all);
        t.put("parts", list);
        return t;
    }

    /**
     * The work-per-message parts of a throughput target (issue targets: statements and database
     * CPU per message against the baseline of the same row): statements per message at most
     * {@code maxStatements}, commits per message at most {@code maxCommits} (null: no bound), and
     * database CPU per message at most {@code maxDbCpuRatio} times the baseline's. Each part is
     * null (not measured) when its counter is missing.
     */
    static Object[] workParts(Map<String, Object> mine, Map<String, Object> base, String per, double maxStatements,
                              Double maxCommits, double maxDbCpuRatio, double msgsPer) {
        Object statements = perMsg(mine, "statements");
        Object dbCpu = perMsg(mine, "db_cpu_us");
        Object baseCpu = perMsg(base, "db_cpu_us");
        Object commits = mine.get("db_per_msg") instanceof Map<?, ?> d ? d.get("Com_commit") : null;
        List<Object> parts = new ArrayList<>(List.of(
                "at most " + num(maxStatements * msgsPer) + " statements per " + per,
                statements == null ? "not measured" : num((double) statements * msgsPer),
                statements == null ? null : (double) statements <= maxStatements));
        if (maxCommits != null) {
            parts.addAll(List.of("at most " + num(maxCommits * msgsPer) + " commit per " + per,
                    commits == null ? "not measured" : num(((Number) commits).doubleValue() * msgsPer),
                    commits == null ? null : ((Number) commits).doubleValue() <= maxCommits));
        }
        boolean cpuKnown = dbCpu != null && baseCpu != null && (double) baseCpu > 0;
        parts.addAll(List.of("database CPU per message at most " + num(maxDbCpuRatio) + "x the baseline's",
                cpuKnown ? num((double) dbCpu / (double) baseCpu) + "x" : "not measured",
                cpuKnown ? (double) dbCpu <= maxDbCpuRatio * (double) baseCpu : null));
        return parts.toArray();
    }

    private static String num(double d) {
        return d == Math.rint(d) ? String.valueOf((long) d) : String.valueOf(Stats.round(d));
    }

    /** The goal for a figure and whether this run meets it (null: no target, informational). */
    static Map<String, Object> target(String text, Boolean met) {
        Map<String, Object> t = new LinkedHashMap<>();
        t.put("goal", text);
        t.put("met", met);
        return t;
    }

    static Map<String, Object> params(Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return m;
    }

    String topic(String row, int i) {
        return row + "-" + runTag + "-" + i;
    }

    // ---------------------------------------------------------------- tenant-mq client operations

    private static final AtomicLong PUBLISH_CALLS = new AtomicLong();

    /** Publishes {@code total} messages from {@code clients} virtual threads in batches; returns msg/s. */
    double publishMq(Mq client, String tenant, String topic, long total, int clients, int batch, Stats.Latencies lat)
            throws Exception {
        AtomicLong next = new AtomicLong();
        String idPrefix = topic + "." + PUBLISH_CALLS.incrementAndGet(); // ids unique across calls on one topic
        long started = System.nanoTime();
        try (ExecutorService ex = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> fs = new ArrayList<>();
            for (int w = 0; w < clients; w++) {
                final int worker = w;
                fs.add(ex.submit(() -> {
                    SplittableRandom rnd = new SplittableRandom(worker * 7919L + idPrefix.hashCode());
                    long first;
                    while ((first = next.getAndAdd(batch)) < total) {
                        int n = (int) Math.min(batch, total - first);
                        String body = Payloads.batch(idPrefix, first, n, rnd, PARTITIONS);
                        long t0 = System.nanoTime();
                        int dups = client.publish(tenant, topic, body);
                        if (lat != null) {
                            lat.add(System.nanoTime() - t0);
                        }
                        if (dups > 0) {
                            throw new IllegalStateException(dups + " duplicates on a fresh topic");
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : fs) {
                f.get();
            }
        }
        return total / ((System.nanoTime() - started) / 1e9);
    }

    /** Outcome of a consume loop. */
    record Consumed(double msgsPerSec, long acked, long redelivered) {}

    /**
     * {@code consumers} virtual threads fetch up to {@code max} and ack what they got, until
     * {@code total} messages are acked (or {@code stop} is set once that many are due).
     */
    Consumed consumeMq(String tenant, String topic, String group, long total, int consumers, int max,
                       Stats.Latencies fetchLat, Stats.Latencies ackLat) throws Exception {
        return consumeMq(tenant, topic, group, total, consumers, max, fetchLat, ackLat, false);
    }

    /**
     * As {@link #consumeMq(String, String, String, long, int, int, Stats.Latencies, Stats.Latencies)};
     * with {@code ackInFetch} each fetch carries the ack of the consumer's previous batch
     * (docs/api.md, "Fetch and ack in one call"), one round trip per batch, and {@code ackLat} is
     * not used: the fetch latency includes the ack.
     */
    Consumed consumeMq(String tenant, String topic, String group, long total, int consumers, int max,
                       Stats.Latencies fetchLat, Stats.Latencies ackLat, boolean ackInFetch) throws Exception {
        if (ackInFetch) {
            return consumeAckingInFetch(tenant, topic, group, total, consumers, max, fetchLat);
        }
        AtomicLong acked = new AtomicLong(), redelivered = new AtomicLong();
        AtomicLong lastProgress = new AtomicLong(System.nanoTime());
        long started = System.nanoTime();
        try (ExecutorService ex = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> fs = new ArrayList<>();
            for (int w = 0; w < consumers; w++) {
                fs.add(ex.submit(() -> {
                    while (acked.get() < total) {
                        long t0 = System.nanoTime();
                        List<Mq.Msg> msgs = mq.fetch(tenant, topic, group, max, 1, 120);
                        if (msgs.isEmpty()) {
                            if (System.nanoTime() - lastProgress.get() > 120e9) {
                                throw new IllegalStateException("consumer " + topic + "/" + group + ": no progress for 120 s, "
                                        + acked.get() + " of " + total);
                            }
                            continue;
                        }
                        long t1 = System.nanoTime();
                        if (fetchLat != null) {
                            fetchLat.add(t1 - t0);
                        }
                        for (Mq.Msg m : msgs) {
                            if (m.attempt() > 1) {
                                redelivered.incrementAndGet();
                            }
                        }
                        int n = mq.ack(tenant, topic, group, msgs);
                        if (ackLat != null) {
                            ackLat.add(System.nanoTime() - t1);
                        }
                        acked.addAndGet(n);
                        lastProgress.set(System.nanoTime());
                    }
                    return null;
                }));
            }
            for (Future<?> f : fs) {
                f.get();
            }
        }
        return new Consumed(acked.get() / ((System.nanoTime() - started) / 1e9), acked.get(), redelivered.get());
    }

    private Consumed consumeAckingInFetch(String tenant, String topic, String group, long total, int consumers, int max,
                                          Stats.Latencies fetchLat) throws Exception {
        AtomicLong acked = new AtomicLong(), redelivered = new AtomicLong();
        AtomicLong lastProgress = new AtomicLong(System.nanoTime());
        long started = System.nanoTime();
        try (ExecutorService ex = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> fs = new ArrayList<>();
            for (int w = 0; w < consumers; w++) {
                fs.add(ex.submit(() -> {
                    List<Mq.Msg> pending = List.of();
                    while (acked.get() < total) {
                        long t0 = System.nanoTime();
                        Mq.Fetched got = mq.fetchAcking(tenant, topic, group, max, 1, 120, pending);
                        acked.addAndGet(got.acked());
                        pending = got.msgs();
                        if (got.acked() > 0) {
                            lastProgress.set(System.nanoTime());
                        }
                        if (got.msgs().isEmpty()) {
                            if (System.nanoTime() - lastProgress.get() > 120e9) {
                                throw new IllegalStateException("consumer " + topic + "/" + group + ": no progress for 120 s, "
                                        + acked.get() + " of " + total);
                            }
                            continue;
                        }
                        if (fetchLat != null) {
                            fetchLat.add(System.nanoTime() - t0);
                        }
                        for (Mq.Msg m : got.msgs()) {
                            if (m.attempt() > 1) {
                                redelivered.incrementAndGet();
                            }
                        }
                    }
                    if (!pending.isEmpty()) {
                        acked.addAndGet(mq.ack(tenant, topic, group, pending)); // redeliveries beyond the total
                    }
                    return null;
                }));
            }
            for (Future<?> f : fs) {
                f.get();
            }
        }
        return new Consumed(acked.get() / ((System.nanoTime() - started) / 1e9), acked.get(), redelivered.get());
    }

    // ---------------------------------------------------------------- rows

    /**
     * Before the rows: the service's JIT compiles its hot paths (in a profile of a cold quick run
     * the C2 compiler threads used as much CPU as the request threads), so every operation runs
     * first on a throwaway topic, not measured: publish in batches and single, then fetch and ack
     * in both ways the rows do (the ack as a call of its own, and carried by the next fetch, which
     * is {@code consume_ack}'s path). Then the same in rounds of a fifth of the size, on the same
     * topic and groups, until a round in which the compiler threads used at most
     * {@value #JIT_QUIET} of its wall time, starting rounds for at most 180 s (45 s with
     * {@code --quick}): the JIT of a service measured right after the fixed warm-up still took a
     * quarter of the machine through {@code consume_ack}'s runs, in a JFR recording at 8446867.
     * Then the topic is deleted through the admin API, so retention does not delete its messages
     * inside the first rows. Each round's compiler CPU goes into {@code warm_up}, and each row's
     * into its {@code cpu.service_jit_cpu_s}. The baselines are not warmed: the raw JDBC loops are
     * small and run in this client JVM (the median of the runs absorbs their first), and RabbitMQ
     * (Erlang) has no JIT warm-up of this size.
     */
    void warmUp() throws Exception {
        long n = cfg.quick ? 20_000 : 50_000;
        String topic = "warmup-" + UUID.randomUUID();
        log("warm-up: publish %d (batches of 100, and single), then fetch+ack them, with acks on their own and in the fetch",
                n + n / 20);
        Cpu fixed = new Cpu();
        warmUpOnce(topic, n);
        List<Map<String, Object>> rounds = new ArrayList<>();
        rounds.add(jitOf(fixed.since()));
        long roundsUntil = System.nanoTime() + (cfg.quick ? 45L : 180L) * 1_000_000_000L;
        for (int round = 1; System.nanoTime() < roundsUntil; round++) {
            Cpu cpu = new Cpu();
            warmUpOnce(topic, n / 5); // the same topic and groups: each group takes the round's messages
            Map<String, Object> spent = jitOf(cpu.since());
            rounds.add(spent);
            double share = (double) spent.get("service_jit_cpu_s") / (double) spent.get("wall_s");
            log("  warm-up round %d: the service's JIT compilers used %.2f s of CPU in %.2f s", round,
                    spent.get("service_jit_cpu_s"), spent.get("wall_s"));
            if (Double.isNaN(share)) {
                log("  warm-up: the service's compiler threads cannot be read in /proc; no more rounds");
                break;
            }
            if (share <= JIT_QUIET) {
                break;
            }
        }
        // Its messages and groups go before the rows: retention would delete them inside the first rows.
        long deleting = System.nanoTime();
        try {
            int calls = mq.deleteTopic(TENANT, topic);
            log("  warm-up topic deleted in %d calls, %.1f s", calls, (System.nanoTime() - deleting) / 1e9);
        } catch (java.io.IOException e) {
            // The rows still run: retention then deletes the warm-up's messages, inside them.
            log("  warm-up topic not deleted (%s); retention will delete its messages during the rows", e.getMessage());
        }
        result.put("warm_up", params("messages", n + n / 20, "rounds", rounds, "jit_quiet_share", JIT_QUIET,
                "measure", "not measured: publish in batches of 100 and of 1, then fetch 100 + ack 100 of all of them "
                + "twice (acks on their own, and carried by the next fetch), on a throwaway topic before the rows; then "
                + "the same at a fifth of the size, on the same topic, in rounds until the service's JIT compiler threads used at most "
                + JIT_QUIET + " of a round's wall time (rounds start for at most 180 s, 45 s quick), so that JIT "
                + "compilation of the service is not measured in the rows; then the topic is deleted through the admin "
                + "API, so retention does not delete its messages inside the first rows; rounds[0] is the first "
                + "warm-up, each entry the compiler threads' CPU (service_jit_cpu_s, a lower bound) in its wall time"));
    }

    /** A warm-up round whose JIT compilers used at most this share of its wall time ends the warm-up. */
    static final double JIT_QUIET = 0.1;

    /** One warm-up: {@code n} published in batches and {@code n / 20} single, consumed by a group in each ack mode. */
    private void warmUpOnce(String topic, long n) throws Exception {
        publishMq(mq, TENANT, topic, n, 4, 100, null);
        publishMq(mq, TENANT, topic, n / 20, 32, 1, null);
        consumeMq(TENANT, topic, "warmup", n + n / 20, 4, 100, null, null);
        consumeMq(TENANT, topic, "warmup-acking-in-fetch", n + n / 20, 4, 100, null, null, true);
    }

    /** The wall time and the service's JIT compiler CPU of a span ({@link Cpu#since}). */
    private static Map<String, Object> jitOf(Map<String, Object> spent) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("wall_s", spent.get("wall_s"));
        m.put("service_jit_cpu_s", spent.get("service_jit_cpu_s"));
        return m;
    }

    /** Row 8: time to ready and idle RSS of the packaged service, fresh JVM each run. */
    Map<String, Object> startup() throws Exception {
        List<Double> ready = new ArrayList<>(), rss = new ArrayList<>(), threads = new ArrayList<>();
        for (int i = 0; i < sizes.runs(); i++) {
            try (Service s = Service.start(cfg, "bench-startup", serviceJvmArgs(), cfg.work.resolve("startup-" + i + ".log"))) {
                ready.add(s.awaitReady(Duration.ofSeconds(120)));
                Thread.sleep((long) (sizes.startupIdleSeconds() * 1000));
                rss.add(s.rssKb() / 1024.0);
                threads.add((double) s.threads());
                log("  startup run %d: ready in %.2f s, idle RSS %.0f MB", i + 1, ready.get(i), rss.get(i));
            }
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("time_to_ready_s", Stats.round(Stats.median(ready)));
        m.put("idle_rss_mb", Stats.round(Stats.median(rss)));
        m.put("time_to_ready_s_stats", Stats.figure(ready));
        m.put("idle_rss_mb_stats", Stats.figure(rss));
        m.put("idle_threads", Stats.figure(threads));
        m.put("params", params("measure", "spawn of `java -jar target/quarkus-app/quarkus-run.jar` (JVM mode, default heap) "
                + "to the first 200 of /q/health/ready, polled every 20 ms; RSS from /proc after idling",
                "idle_seconds", sizes.startupIdleSeconds(), "note", "run 1 applies the Flyway migrations to an empty schema"));
        return m;
    }

    /** Row 1: batches of 100, 4 clients; baseline multi-row inserts of 100 on 4 connections; RabbitMQ peer. */
    Map<String, Object> publishBatch() throws Exception {
        long n = sizes.publishBatch();
        Stats.Latencies lat = new Stats.Latencies();
        startProfile("publish_batch");
        Map<String, Object> mine = repeat("tenant-mq", i -> publishMq(mq, TENANT, topic("pb", i), n, 4, 100, lat), n, true);
        Map<String, Object> profile = stopProfile("publish_batch");
        mine.put("request_p99_ms", Stats.round(lat.percentileMs(99)));
        Map<String, Object> base = repeat("raw JDBC", i -> raw.insert(topic("pb", i), "pb" + i, n, 4, 100, PARTITIONS, null), n, false);
        Map<String, Object> rmq = repeat("RabbitMQ", i -> {
            String q = topic("pb", i);
            rabbit.declare(q);
            try {
                return rabbit.publish("", q, n, 4, 100);
            } finally {
                rabbit.delete(q);
            }
        }, n, false);
        rabbitPeer.put("publish_msgs_per_s", rmq.get("median"));
        rabbitPeer.put("publish", rmq);
        Map<String, Object> e = throughput(mine, base, "raw JDBC multi-row INSERT of 100 rows, autocommit, 4 connections",
                0.6, "at least 0.6 of raw JDBC");
        double ratio = (double) mine.get("median") / (double) base.get("median");
        List<Object> goal = new ArrayList<>(List.of("at least 0.6 of raw JDBC", num(Stats.round(ratio)), ratio >= 0.6));
        // per request of 100 messages: at most 3 statements and 1 commit
        goal.addAll(List.of(workParts(mine, base, "request of 100", 0.03, 0.01, 2.0, 100)));
        e.put("target", target(goal.toArray()));
        e.put("rabbitmq_msgs_per_s", rmq.get("median"));
        e.put("params", params("messages_per_run", n, "clients", 4, "batch", 100, "partitions", PARTITIONS,
                "partition_choice", "uniform random per message", "rabbitmq", "4 connections, 100 persistent messages then waitForConfirms"));
        if (profile != null) {
            e.put("profile", profile);
        }
        return e;
    }

    /** Row 2: one message per request, 32 clients; baseline autocommit single-row inserts on 32 connections. */
    Map<String, Object> publishSingle() throws Exception {
        long n = sizes.publishSingle();
        Stats.Latencies lat = new Stats.Latencies();
        startProfile("publish_single");
        Map<String, Object> mine = repeat("tenant-mq", i -> publishMq(mq, TENANT, topic("ps", i), n, 32, 1, lat), n, true);
        Map<String, Object> profile = stopProfile("publish_single");
        mine.put("request_p99_ms", Stats.round(lat.percentileMs(99)));
        Map<String, Object> base = repeat("raw JDBC", i -> raw.insert(topic("ps", i), "ps" + i, n, 32, 1, PARTITIONS, null), n, false);
        Map<String, Object> e = throughput(mine, base, "raw JDBC single-row INSERT, autocommit, 32 connections", 0.6,
                "at least 0.6 of raw JDBC");
        e.put("params", params("messages_per_run", n, "clients", 32, "batch", 1, "partitions", PARTITIONS));
        if (profile != null) {
            e.put("profile", profile);
        }
        return e;
    }

    /** Row 3: drain a backlog across 100 partitions, fetch 100 + ack 100, 4 consumers. */
    Map<String, Object> consumeAck() throws Exception {
        long n = sizes.consumeBacklog();
        int runs = sizes.runs();
        // A fresh topic with its own backlog per run: retention deletes what every group of a
        // topic has acknowledged, so a second group on a drained topic would find little left.
        List<String> topics = new ArrayList<>();
        List<Double> fills = new ArrayList<>();
        Cpu fillCpu = new Cpu();
        for (int i = 0; i < runs; i++) {
            topics.add(topic("ca", i));
            fills.add(publishMq(mq, TENANT, topics.get(i), n, 4, 500, null));
            log("  backlog %d of %d messages filled at %.0f msg/s", i + 1, n, fills.get(i));
        }
        Map<String, Object> fillInfo = fillCpu.since();
        Stats.Latencies fetchLat = new Stats.Latencies(), ackLat = new Stats.Latencies();
        AtomicLong redelivered = new AtomicLong();
        startProfile("consume_ack");
        Map<String, Object> mine = repeat("tenant-mq", i -> {
            Consumed c = consumeMq(TENANT, topics.get(i), "g", n, 4, 100, fetchLat, ackLat, true);
            redelivered.addAndGet(c.redelivered());
            return c.msgsPerSec();
        }, n, true);
        Map<String, Object> profile = stopProfile("consume_ack");
        mine.put("fetch_p99_ms", Stats.round(fetchLat.percentileMs(99)));
        mine.put("ack_p99_ms", "in fetch_p99_ms: each fetch carries the ack of the previous batch");
        mine.put("redelivered", redelivered.get());
        mine.put("backlog_fill_msgs_per_s", Stats.figure(fills));
        mine.put("backlog_fill_cpu", fillInfo);

        raw.insert("ca", "ca", n, 4, 500, PARTITIONS, null);
        Map<String, Object> base = repeat("raw JDBC", i -> raw.consume("ca", "g" + i, n, 4, 100, PARTITIONS), n, false);

        List<String> queues = new ArrayList<>();
        for (int i = 0; i < runs; i++) {
            queues.add(topic("ca", i));
        }
        String exchange = topic("ca-x", 0);
        rabbit.fanout(exchange, queues);
        rabbit.publish(exchange, "", n, 4, 500);
        Map<String, Object> rmq = repeat("RabbitMQ", i -> rabbit.consume(queues.get(i), n, 4, 100), n, false);
        for (String q : queues) {
            rabbit.delete(q);
        }
        rabbitPeer.put("consume_ack_msgs_per_s", rmq.get("median"));
        rabbitPeer.put("consume_ack", rmq);

        Map<String, Object> e = throughput(mine, base, "raw JDBC loop: SELECT next 100 after the cursor, UPDATE the offset; 4 connections",
                0.3, "at least 0.3 of the raw JDBC loop and at least 1.0 of RabbitMQ");
        double m = (double) mine.get("median"), r = (double) rmq.get("median");
        e.put("rabbitmq_msgs_per_s", r);
        e.put("ratio_rabbitmq", Stats.round(m / r));
        double rawRatio = m / (double) base.get("median");
        List<Object> goal = new ArrayList<>(List.of(
                "at least 0.3 of the raw JDBC loop", num(Stats.round(rawRatio)), rawRatio >= 0.3,
                "at least 1.0 of RabbitMQ", num(Stats.round(m / r)), m / r >= 1.0));
        goal.addAll(List.of(workParts(mine, base, "100 consumed messages", 0.04, null, 2.0, 100)));
        e.put("target", target(goal.toArray()));
        e.put("params", params("backlog", n, "partitions", PARTITIONS, "consumers", 4, "fetch_max", 100, "ack_batch", 100,
                "ack", "carried by the next fetch (FetchRequest.ack), one round trip per batch",
                "runs", "a fresh topic with its own backlog per run (RabbitMQ: one queue per run, filled by one fanout publish)",
                "rabbitmq", "4 connections, prefetch 100, ack multiple every 100"));
        if (profile != null) {
            e.put("profile", profile);
        }
        return e;
    }

    /** Row 4: publish and consume at once, and the replay of the real input. */
    Map<String, Object> endToEnd() throws Exception {
        long n = sizes.endToEnd();
        Map<String, Object> mine = repeat("tenant-mq", i -> {
            String topic = topic("e2e", i);
            long t0 = System.nanoTime();
            try (ExecutorService ex = Executors.newVirtualThreadPerTaskExecutor()) {
                Future<Double> pub = ex.submit(() -> publishMq(mq, TENANT, topic, n, 4, 100, null));
                Future<Consumed> con = ex.submit(() -> consumeMq(TENANT, topic, "g", n, 4, 100, null, null));
                pub.get();
                con.get();
            }
            return n / ((System.nanoTime() - t0) / 1e9);
        }, n, true);
        Map<String, Object> base = repeat("raw JDBC", i -> {
            String topic = "e2e-" + i;
            long t0 = System.nanoTime();
            try (ExecutorService ex = Executors.newVirtualThreadPerTaskExecutor()) {
                Future<Double> con = ex.submit(() -> raw.consume(topic, "g", n, 4, 100, PARTITIONS));
                Future<Double> pub = ex.submit(() -> raw.insert(topic, topic, n, 4, 100, PARTITIONS, null, true));
                pub.get();
                con.get();
            }
            return n / ((System.nanoTime() - t0) / 1e9);
        }, n, false);
        Map<String, Object> e = throughput(mine, base,
                "raw JDBC: 4 connections inserting 100-row batches (each connection owns 25 partitions, so rows commit in "
                        + "offset order per partition) while 4 run the SELECT-after-cursor + UPDATE-offset loop",
                0.0, "none for the mixed load (informational); the replay below has the row's target");
        e.put("params", params("messages_per_run", n, "publishers", 4, "publish_batch", 100, "consumers", 4, "fetch_max", 100,
                "partitions", PARTITIONS, "measure", "first publish to last ack"));

        List<Replay.Event> events = Replay.load(cfg.replayFile, sizes.replayLimit());
        List<Double> e2e = new ArrayList<>(), pub = new ArrayList<>();
        List<Map<String, Object>> runs = new ArrayList<>();
        boolean ok = true;
        Cpu cpu = new Cpu();
        startProfile("replay");
        Map<String, Long> before = db.status();
        for (int i = 0; i < sizes.runs(); i++) {
            Map<String, Object> r = Replay.run(mq, events, runTag + i, 2, 500, 500);
            log("  replay run %d: %s", i + 1, r);
            e2e.add((double) r.get("end_to_end_msgs_per_s"));
            pub.add((double) r.get("publish_msgs_per_s"));
            r.put("end_to_end_msgs_per_s", Stats.round((double) r.get("end_to_end_msgs_per_s")));
            r.put("publish_msgs_per_s", Stats.round((double) r.get("publish_msgs_per_s")));
            ok &= (boolean) r.get("ok");
            runs.add(r);
        }
        Map<String, Object> replayProfile = stopProfile("replay");
        Map<String, Object> mineR = Stats.figure(e2e);
        Map<String, Object> replayCpu = cpu.since();
        Map<String, Long> replayAfter = db.status();
        mineR.put("cpu", replayCpu);
        mineR.put("db_per_msg", Db.perMessage(before, replayAfter, (long) events.size() * sizes.runs()));
        mineR.put("per_msg", perMessage(replayCpu, "service_cpu_s", before, replayAfter, (long) events.size() * sizes.runs()));
        Map<String, Object> replay = throughput(mineR, Stats.figure(pub),
                "publish rate of the same replay (its publishers run while the consumers drain)",
                0.8, "end to end at least 0.8 of its publish rate");
        replay.put("correct", ok);
        replay.put("missing", runs.stream().mapToLong(r -> (long) r.get("missing")).sum());
        replay.put("duplicates", runs.stream().mapToLong(r -> (long) r.get("duplicates")).sum());
        replay.put("out_of_order", runs.stream().mapToLong(r -> (long) r.get("out_of_order")).sum());
        replay.put("runs", runs);
        if (replayProfile != null) {
            replay.put("profile", replayProfile);
        }
        replay.put("params", params("file", cfg.replayFile.getFileName().toString(),
                "events", events.size(), "limit", sizes.replayLimit() == 0 ? "whole file" : sizes.replayLimit(),
                "publishers", 2, "publish_batch", 500, "consumers", "one per (tenant, topic)", "fetch_max", 500,
                "procedure", "bench/replay.py's, in Java"));
        if (!ok) {
            replay.put("target", target("end to end at least 0.8 of its publish rate (and delivered exactly once, in order)", false));
            failures++;
        }
        e.put("replay", replay);
        return e;
    }

    /**
     * With {@code --profile}: starts a JFR recording of the service named {@code name} (into
     * {@code <work>/<name>.jfr}) and resets the database's statement digests. Otherwise nothing.
     */
    private void startProfile(String name) throws Exception {
        if (!cfg.profile) {
            return;
        }
        Profiler.jcmd(cfg.jcmd, service.pid, "JFR.start", "name=" + name, "settings=profile",
                "filename=" + cfg.work.resolve(name + ".jfr"));
        if (db.performanceSchema()) {
            db.resetDigests();
            preparedBefore = db.preparedCounters();
        }
    }

    /** The server-prepared statements' counters when the profile started ({@link Db#preparedCounters}). */
    private Map<Long, Object[]> preparedBefore = Map.of();

    /**
     * With {@code --profile}: stops the recording {@link #startProfile} started and summarizes it,
     * with the 15 costliest statement digests since and the 15 costliest server-prepared
     * statements' executions since; otherwise null.
     */
    private Map<String, Object> stopProfile(String name) throws Exception {
        if (!cfg.profile) {
            return null;
        }
        Profiler.jcmd(cfg.jcmd, service.pid, "JFR.stop", "name=" + name);
        Map<String, Object> profile = Profiler.summarize(cfg.work.resolve(name + ".jfr"), 25);
        if (db.performanceSchema()) {
            profile.put("db_top_statements", db.topDigests(cfg.dbName, 15));
            // Executions of server-prepared statements have no digest row: they are counted here.
            profile.put("db_top_prepared_statements", Db.topPrepared(preparedBefore, db.preparedCounters(), 15));
        }
        return profile;
    }

    /** Row 5: publish-to-delivery latency for waiting long polls at 100 msg/s. */
    Map<String, Object> wakeLatency() throws Exception {
        int rate = 100, parts = 10;
        String topic = topic("wake", 0);
        Map<String, Long> sent = new ConcurrentHashMap<>();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger warm = new AtomicInteger();
        Stats.Latencies[] lat = {new Stats.Latencies()};
        List<Double> p50 = new ArrayList<>(), p99 = new ArrayList<>();
        Map<String, Object> profile = null;
        Cpu cpu = new Cpu();
        try (Mq polls = new Mq(service.base); ExecutorService ex = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int w = 0; w < 4; w++) {
                ex.submit(() -> {
                    while (!stop.get()) {
                        List<Mq.Msg> msgs = polls.fetch(TENANT, topic, "w", 10, 20, 60);
                        long now = System.nanoTime();
                        for (Mq.Msg m : msgs) {
                            Long t0 = sent.remove(m.id());
                            if (t0 != null) {
                                lat[0].add(now - t0);
                            } else {
                                warm.incrementAndGet();
                            }
                        }
                        if (!msgs.isEmpty()) {
                            polls.ack(TENANT, topic, "w", msgs);
                        }
                    }
                    return null;
                });
            }
            boolean profiling = false;
            try {
                // Warm-up: one message per partition, so every partition is leased before measuring.
                for (int p = 0; p < parts; p++) {
                    mq.publish(TENANT, topic, Payloads.single(Payloads.partition(p), "warm-" + p));
                }
                long deadline = System.nanoTime() + 60_000_000_000L;
                while (warm.get() < parts && System.nanoTime() < deadline) {
                    Thread.sleep(50);
                }
                if (warm.get() < parts) {
                    throw new IllegalStateException("wake warm-up: " + warm.get() + " of " + parts + " delivered in 60 s");
                }
                startProfile("wake_latency_ms");
                profiling = true;
                for (int r = 0; r < sizes.runs(); r++) {
                    lat[0] = new Stats.Latencies();
                    paced(rate, sizes.wakeSeconds(), r, (i, id) -> {
                        sent.put(id, System.nanoTime());
                        mq.publish(TENANT, topic, Payloads.single(Payloads.partition((int) (i % parts)), id));
                    });
                    long until = System.nanoTime() + 30_000_000_000L;
                    while (!sent.isEmpty() && System.nanoTime() < until) {
                        Thread.sleep(20);
                    }
                    if (!sent.isEmpty()) {
                        throw new IllegalStateException(sent.size() + " wake messages not delivered within 30 s");
                    }
                    p50.add(lat[0].percentileMs(50));
                    p99.add(lat[0].percentileMs(99));
                    log("  wake run %d: p50 %.1f ms, p99 %.1f ms (%d samples)", r + 1, p50.get(r), p99.get(r), lat[0].count());
                }
                profiling = false;
                profile = stopProfile("wake_latency_ms");
            } finally {
                // Closing the executor waits for the long polls, so they stop here, whatever threw.
                stop.set(true);
                polls.close(); // aborts the waiting long polls
                if (profiling) { // a run failed: the recording must not go on into the next rows
                    try {
                        Profiler.jcmd(cfg.jcmd, service.pid, "JFR.stop", "name=wake_latency_ms");
                    } catch (Exception e) {
                        log("  could not stop the wake profile: %s", e);
                    }
                }
            }
        }
        Map<String, Object> cpuInfo = cpu.since();

        List<Double> r50 = new ArrayList<>(), r99 = new ArrayList<>();
        for (int r = 0; r < sizes.runs(); r++) {
            String q = topic("wake", r + 1);
            rabbit.declare(q);
            Stats.Latencies l = new Stats.Latencies();
            rabbit.wake(q, rate, sizes.wakeSeconds(), l);
            rabbit.delete(q);
            r50.add(l.percentileMs(50));
            r99.add(l.percentileMs(99));
            log("  rabbitmq wake run %d: p50 %.2f ms, p99 %.2f ms", r + 1, r50.get(r), r99.get(r));
        }
        rabbitPeer.put("wake_p50_ms", Stats.round(Stats.median(r50)));
        rabbitPeer.put("wake_p99_ms", Stats.round(Stats.median(r99)));
        rabbitPeer.put("wake_p50_ms_stats", Stats.figure(r50));
        rabbitPeer.put("wake_p99_ms_stats", Stats.figure(r99));

        Map<String, Object> e = new LinkedHashMap<>();
        double m50 = Stats.median(p50), m99 = Stats.median(p99);
        e.put("p50", Stats.round(m50));
        e.put("p99", Stats.round(m99));
        e.put("p50_stats", Stats.figure(p50));
        e.put("p99_stats", Stats.figure(p99));
        e.put("rabbitmq_p50", Stats.round(Stats.median(r50)));
        e.put("rabbitmq_p99", Stats.round(Stats.median(r99)));
        e.put("target", target("p50 at most 5 ms", Stats.round(m50), m50 <= 5, "p99 at most 20 ms", Stats.round(m99), m99 <= 20));
        e.put("cpu", cpuInfo);
        e.put("params", params("rate_msgs_per_s", rate, "seconds_per_run", sizes.wakeSeconds(), "partitions", parts,
                "long_polls", 4, "waitSeconds", 20, "fetch_max", 10,
                "measure", "from just before the publish request is sent to the fetch response that delivers it",
                "rabbitmq", "1 publisher with asynchronous confirms, 1 consumer (basicConsume, prefetch 10, manual ack)"));
        if (profile != null) {
            e.put("profile", profile);
        }
        return e;
    }

    interface Send {
        void send(long i, String id) throws Exception;
    }

    /** Sends {@code rate} requests per second for {@code seconds}, each on its own virtual thread. */
    void paced(int rate, double seconds, int run, Send send) throws Exception {
        long count = Math.round(rate * seconds);
        long period = 1_000_000_000L / rate;
        try (ExecutorService ex = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> fs = new ArrayList<>();
            long start = System.nanoTime();
            for (long i = 0; i < count; i++) {
                long wait = start + i * period - System.nanoTime();
                if (wait > 0) {
                    Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                }
                final long k = i;
                fs.add(ex.submit(() -> {
                    send.send(k, "r" + run + "-" + k + "-" + runTag);
                    return null;
                }));
            }
            for (Future<?> f : fs) {
                f.get();
            }
        }
    }

    /** Row 6: 2,000 concurrent idle long polls: memory, threads, and publish p99 meanwhile. */
    Map<String, Object> idleLongPolls() throws Exception {
        int polls = sizes.idlePolls(), groups = 20, rate = 50;
        List<Double> growth = new ArrayList<>(), threadsDuring = new ArrayList<>(), p99Before = new ArrayList<>(),
                p99During = new ArrayList<>(), ratio = new ArrayList<>();
        double threadsIdle = 0;
        Cpu cpu = new Cpu();
        for (int r = 0; r < sizes.runs(); r++) {
            String pubTopic = topic("ilp-pub", r), idleTopic = topic("ilp-idle", r);
            Stats.Latencies before = new Stats.Latencies();
            paced(rate, sizes.idleSeconds(), r, (i, id) -> {
                long t0 = System.nanoTime();
                mq.publish(TENANT, pubTopic, Payloads.single(Payloads.partition((int) (i % PARTITIONS)), id));
                before.add(System.nanoTime() - t0);
            });
            long rss0 = service.rssKb();
            threadsIdle = service.threads();
            AtomicBoolean stop = new AtomicBoolean();
            AtomicInteger sentPolls = new AtomicInteger();
            AtomicLong maxRss = new AtomicLong(rss0), maxThreads = new AtomicLong(service.threads());
            Stats.Latencies during = new Stats.Latencies();
            try (Mq pollClient = new Mq(service.base); ExecutorService ex = Executors.newVirtualThreadPerTaskExecutor()) {
                for (int p = 0; p < polls; p++) {
                    final String group = "g" + (p % groups);
                    ex.submit(() -> {
                        while (!stop.get()) {
                            sentPolls.incrementAndGet();
                            pollClient.fetch(TENANT, idleTopic, group, 1, 30, 30);
                        }
                        return null;
                    });
                }
                while (sentPolls.get() < polls) {
                    Thread.sleep(10);
                }
                Thread.sleep(2000); // let the service take in the last of them
                ex.submit(() -> {
                    while (!stop.get()) {
                        maxRss.accumulateAndGet(service.rssKb(), Math::max);
                        maxThreads.accumulateAndGet(service.threads(), Math::max);
                        Thread.sleep(200);
                    }
                    return null;
                });
                paced(rate, sizes.idleSeconds(), r, (i, id) -> {
                    long t0 = System.nanoTime();
                    mq.publish(TENANT, pubTopic, Payloads.single(Payloads.partition((int) (i % PARTITIONS)), id + "-d"));
                    during.add(System.nanoTime() - t0);
                });
                maxRss.accumulateAndGet(service.rssKb(), Math::max);
                maxThreads.accumulateAndGet(service.threads(), Math::max);
                stop.set(true);
                pollClient.close(); // aborts the waiting polls
            } catch (java.util.concurrent.CancellationException | java.util.concurrent.RejectedExecutionException ignored) {
                // polls aborted by close()
            }
            growth.add((maxRss.get() - rss0) / 1024.0);
            threadsDuring.add((double) maxThreads.get());
            p99Before.add(before.percentileMs(99));
            p99During.add(during.percentileMs(99));
            ratio.add(during.percentileMs(99) / before.percentileMs(99));
            log("  idle run %d: RSS +%.0f MB, threads %d, publish p99 %.1f -> %.1f ms", r + 1, growth.get(r),
                    maxThreads.get(), p99Before.get(r), p99During.get(r));
        }
        Map<String, Object> e = new LinkedHashMap<>();
        double g = Stats.median(growth), t = Stats.median(threadsDuring), q = Stats.median(ratio);
        e.put("rss_growth_mb", Stats.round(g));
        e.put("live_threads", Stats.round(t));
        e.put("live_threads_before", threadsIdle);
        e.put("publish_p99_ms_before", Stats.round(Stats.median(p99Before)));
        e.put("publish_p99_ms_during", Stats.round(Stats.median(p99During)));
        e.put("publish_p99_ratio", Stats.round(q));
        e.put("rss_growth_mb_stats", Stats.figure(growth));
        e.put("live_threads_stats", Stats.figure(threadsDuring));
        e.put("publish_p99_ratio_stats", Stats.figure(ratio));
        e.put("target", target("under 150 MB more memory, under 100 live threads, publish p99 not more than doubled",
                g < 150 && t < 100 && q <= 2.0));
        e.put("cpu", cpu.since());
        e.put("params", params("long_polls", polls, "consumer_groups", groups, "waitSeconds", 30,
                "publish_rate_msgs_per_s", rate, "publish_seconds", sizes.idleSeconds(),
                "measure", "service RSS and thread count (/proc, all JVM threads) at their highest while the polls wait, "
                        + "minus RSS before; publish p99 of single-message publishes before and during"));
        return e;
    }

    /** Row 7: throughput and p99 at a small and a large backlog, and the scheduler tick at growing partition counts. */
    Map<String, Object> scale() throws Exception {
        String topic = topic("sc", 0);
        List<Map<String, Object>> levels = new ArrayList<>();
        long m = sizes.scaleMeasure();
        for (long backlog : sizes.scaleBacklogs()) {
            // Each level has its own consumer group, which starts at the oldest message left, so
            // its backlog is the topic's row count. Each run publishes m and then consumes m, so
            // the backlog stays where it is (retention removes what every group has acknowledged).
            String group = "lvl-" + backlog;
            long rows = db.topicRows(cfg.dbName, TENANT, topic);
            Cpu fillCpu = new Cpu();
            double fill = backlog > rows ? publishMq(mq, TENANT, topic, backlog - rows, 4, 500, null) : Double.NaN;
            Map<String, Object> fillInfo = fillCpu.since();
            long observed = db.topicRows(cfg.dbName, TENANT, topic);
            log("  backlog %d: %d rows in the topic (%d added at %.0f msg/s)", backlog, observed, backlog - rows, fill);
            Stats.Latencies fetchLat = new Stats.Latencies(), ackLat = new Stats.Latencies(), pubLat = new Stats.Latencies();
            List<Double> pubRates = new ArrayList<>(), conRates = new ArrayList<>();
            Cpu cpu = new Cpu();
            Map<String, Long> before = db.status();
            for (int i = 0; i < sizes.runs(); i++) {
                pubRates.add(publishMq(mq, TENANT, topic, m, 4, 100, pubLat));
                conRates.add(consumeMq(TENANT, topic, group, m, 4, 100, fetchLat, ackLat).msgsPerSec());
                log("  at %d run %d: publish %.0f msg/s, consume %.0f msg/s", backlog, i + 1, pubRates.get(i), conRates.get(i));
            }
            Map<String, Object> consume = Stats.figure(conRates), publish = Stats.figure(pubRates);
            Map<String, Object> levelCpu = cpu.since();
            Map<String, Long> levelAfter = db.status();
            // Publish and consume alternate in one span here: the work per message covers both.
            Map<String, Object> levelPerMsg = perMessage(levelCpu, "service_cpu_s", before, levelAfter, m * sizes.runs());
            levelPerMsg.put("covers", "one publish and one consume of each message");
            consume.put("per_msg", levelPerMsg);
            publish.put("per_msg", levelPerMsg);
            consume.put("fetch_p99_ms", Stats.round(fetchLat.percentileMs(99)));
            consume.put("ack_p99_ms", Stats.round(ackLat.percentileMs(99)));
            publish.put("request_p99_ms", Stats.round(pubLat.percentileMs(99)));
            Map<String, Object> l = new LinkedHashMap<>();
            l.put("backlog", backlog);
            l.put("backlog_observed_rows", observed);
            l.put("consume", consume);
            l.put("publish", publish);
            l.put("cpu", levelCpu);
            l.put("db_per_msg_published_and_consumed", Db.perMessage(before, levelAfter, m * sizes.runs()));
            l.put("fill_msgs_per_s", Stats.round(fill));
            l.put("fill_cpu", fillInfo);
            levels.add(l);
        }
        Map<String, Object> e = new LinkedHashMap<>();
        Map<String, Object> small = levels.get(0), large = levels.get(levels.size() - 1);
        for (String kind : List.of("consume", "publish")) {
            @SuppressWarnings("unchecked")
            Map<String, Object> s = (Map<String, Object>) small.get(kind), g = (Map<String, Object>) large.get(kind);
            Map<String, Object> t = throughput(g, s, "the same measurement at the " + small.get("backlog") + " backlog",
                    0.8, "throughput at the large backlog within 20% of that at the small one");
            t.put("backlog", large.get("backlog"));
            t.put("baseline_backlog", small.get("backlog"));
            t.put("p99_ms", g.get(kind.equals("consume") ? "fetch_p99_ms" : "request_p99_ms"));
            t.put("baseline_p99_ms", s.get(kind.equals("consume") ? "fetch_p99_ms" : "request_p99_ms"));
            t.remove("tenant_mq");
            t.remove("baseline_runs");
            e.put(kind, t);
        }
        e.put("levels", levels);
        e.put("params", params("backlogs", sizes.scaleBacklogs(), "partitions", PARTITIONS,
                "measured_messages_per_run", m, "run", "publish " + m + " (4 clients, batches of 100) onto the topic, then "
                        + "consume " + m + " (one consumer group per level, 4 consumers, fetch 100 + ack 100), so the backlog holds",
                "p99", "consume: of fetch requests; publish: of publish requests"));

        List<Map<String, Object>> ticks = new ArrayList<>();
        boolean tickOk = true;
        int ti = 0;
        for (int parts : sizes.tickPartitions()) {
            Map<String, Object> t = tick("tick-" + ti++, parts);
            ticks.add(t);
            log("  tick at %d partitions: %s", parts, t);
        }
        Map<String, Object> last = ticks.get(ticks.size() - 1);
        Object max = last.get("max_s");
        tickOk = max instanceof Double d && d < 1.0 && !last.containsKey("incomplete");
        e.put("tick", ticks);
        e.put("tick_target", target("every observed tick at " + last.get("partitions")
                + " partitions (the first, which acquires the leases, included) under 1 s", tickOk));
        return e;
    }

    /**
     * Publishes one message to each of {@code parts} partitions of a fresh topic (own tenant, so
     * no other triple shares its scheduler task), registers interest with a fetch, and reads
     * mq.scheduler.tick.duration from /q/metrics every 100 ms, so each tick shows as one step.
     * A consumer keeps fetching one message every {@link #TICK_POLL_MILLIS} while the ticks are
     * observed, as a served group's consumers do: a group with no fetch for
     * {@code mq.dormant-after} (10 s) is dormant and leases no new partition until its next fetch
     * or the next minute (docs/architecture.md, "Dormant groups"), and the row times the ticks of
     * a group that is served, not of one whose consumers left after one fetch.
     */
    Map<String, Object> tick(String tenant, int parts) throws Exception {
        String topic = "tick-" + parts + "-" + runTag;
        AtomicLong next = new AtomicLong();
        try (ExecutorService ex = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> fs = new ArrayList<>();
            for (int w = 0; w < 4; w++) {
                fs.add(ex.submit(() -> {
                    long first;
                    while ((first = next.getAndAdd(1000)) < parts) {
                        StringBuilder b = new StringBuilder("{\"messages\":[");
                        for (long k = first; k < Math.min(parts, first + 1000); k++) {
                            b.append(k == first ? "" : ",").append("{\"partitionKey\":\"k-").append(k)
                                    .append("\",\"payload\":").append(Payloads.PAYLOAD).append('}');
                        }
                        mq.publish(tenant, topic, b.append("]}").toString());
                    }
                    return null;
                }));
            }
            for (Future<?> f : fs) {
                f.get();
            }
        }
        mq.fetch(tenant, topic, "gt", 1, 0, 300); // registers interest: the scheduler now ticks for it
        AtomicBoolean observing = new AtomicBoolean(true);
        Thread poller = Thread.ofVirtual().start(() -> {
            while (observing.get()) {
                try {
                    Thread.sleep(TICK_POLL_MILLIS);
                    mq.fetch(tenant, topic, "gt", 1, 0, 300); // delivers one message, left in flight
                } catch (InterruptedException e) {
                    return;
                } catch (Exception e) {
                    log("  tick poller: %s", e);
                }
            }
        });
        try {
            Map<String, Object> t = observeTicks(tenant, topic, parts);
            t.put("consumer", "a fetch of 1 message every " + TICK_POLL_MILLIS / 1000 + " s while the ticks are observed");
            return t;
        } finally {
            observing.set(false);
            poller.interrupt();
            poller.join();
        }
    }

    /** A tick topic's consumer fetches this often while its ticks are observed (the default tick interval). */
    static final long TICK_POLL_MILLIS = 2000;

    /** The tick steps of {@link #tick}: until every partition is leased, then {@link #STEADY_TICKS} more. */
    private Map<String, Object> observeTicks(String tenant, String topic, int parts) throws Exception {
        // Every tick until all leases are held (a large topic is leased over several ticks), then
        // STEADY_TICKS more, which renew them: the target is every tick, not only the first few.
        List<Double> each = new ArrayList<>();
        double[] prev = {0, 0};
        long deadline = System.nanoTime() + (long) ((cfg.quick ? 90 : 600) * 1e9);
        int acquiredAfter = -1;
        while (System.nanoTime() < deadline) {
            double[] now = tickMetric(tenant, topic);
            if (now[0] > prev[0]) {
                double n = now[0] - prev[0], s = now[1] - prev[1];
                for (int k = 0; k < n; k++) {
                    each.add(s / n); // one step per tick when polled often enough; averaged if two landed together
                }
                prev = now;
                if (acquiredAfter < 0 && now[2] >= parts) {
                    acquiredAfter = each.size();
                }
            }
            if (acquiredAfter >= 0 && each.size() >= acquiredAfter + STEADY_TICKS) {
                break;
            }
            Thread.sleep(100);
        }
        int wantTicks = acquiredAfter < 0 ? Integer.MAX_VALUE : acquiredAfter + STEADY_TICKS;
        Map<String, Object> t = new LinkedHashMap<>();
        t.put("partitions", parts);
        t.put("ticks_observed", each.size());
        t.put("ticks_until_all_leased", acquiredAfter < 0 ? null : acquiredAfter);
        if (!each.isEmpty()) {
            t.put("first_s", Stats.round(each.get(0)));
            List<Double> steady = each.subList(1, each.size());
            t.put("steady_median_s", steady.isEmpty() ? null : Stats.round(Stats.median(steady)));
            t.put("max_s", Stats.round(each.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN)));
            t.put("each_s", each.stream().map(Stats::round).toList());
        }
        if (each.size() < wantTicks) {
            t.put("incomplete", acquiredAfter < 0 ? "not every partition was leased within the time limit (" + each.size() + " ticks)"
                    : "saw " + each.size() + " of " + wantTicks + " ticks before the time limit");
        }
        return t;
    }

    /** Ticks observed after the last lease of a tick topic was acquired. */
    static final int STEADY_TICKS = 3;

    /** {count, sum seconds} of mq_scheduler_tick_duration_seconds, and mq_leases_held, for one (tenant, topic). */
    double[] tickMetric(String tenant, String topic) throws Exception {
        double count = 0, sum = 0, held = 0;
        String tl = "tenant=\"" + tenant + "\"", pl = "topic=\"" + topic + "\"";
        for (String line : service.metrics().split("\n")) {
            boolean tickLine = line.startsWith("mq_scheduler_tick_duration_seconds") || line.startsWith("mq_leases_held{");
            if (!tickLine || !line.contains(tl) || !line.contains(pl)) {
                continue;
            }
            double v = Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            if (line.startsWith("mq_leases_held{")) {
                held = v;
            } else if (line.startsWith("mq_scheduler_tick_duration_seconds_count")) {
                count = v;
            } else if (line.startsWith("mq_scheduler_tick_duration_seconds_sum")) {
                sum = v;
            }
        }
        return new double[] {count, sum, held};
    }
}
