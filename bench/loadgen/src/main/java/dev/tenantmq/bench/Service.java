package dev.tenantmq.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** The packaged service (target/quarkus-app/quarkus-run.jar), started and stopped by the benchmark. */
final class Service implements AutoCloseable {
    final Process process;
    final long pid;
    final String base;
    /** Base URL of the management interface: health and metrics are served there. */
    final String management;
    final long spawnedNanos;

    private Service(Process process, String base, String management, long spawnedNanos) {
        this.process = process;
        this.pid = process.pid();
        this.base = base;
        this.management = management;
        this.spawnedNanos = spawnedNanos;
    }

    /** The admin token of the benchmark's service (loopback only): {@link Mq#deleteTopic} sends it. */
    static final String ADMIN_TOKEN = "bench-admin-" + java.util.UUID.randomUUID();

    /** Starts the jar with {@code java} (the service's JDK 17), the datasource and MQ_TENANTS in its environment. */
    static Service start(Bench.Config cfg, String name, List<String> jvmArgs, Path log) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(cfg.serviceJava);
        cmd.addAll(jvmArgs);
        cmd.add("-jar");
        cmd.add(cfg.serviceJar);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
        Map<String, String> env = pb.environment();
        env.put("QUARKUS_DATASOURCE_JDBC_URL", cfg.jdbcServer + "/" + cfg.dbName);
        env.put("QUARKUS_DATASOURCE_USERNAME", cfg.dbUser);
        env.put("QUARKUS_DATASOURCE_PASSWORD", cfg.dbPassword);
        env.put("MQ_TENANTS", Bench.TENANTS);
        env.put("MQ_ADMIN_TOKEN", ADMIN_TOKEN); // the warm-up deletes its topic through the admin API
        env.put("MQ_SUBSCRIBER_NAME", name);
        env.put("QUARKUS_HTTP_HOST", "127.0.0.1");
        env.put("QUARKUS_HTTP_PORT", Integer.toString(cfg.httpPort));
        env.put("QUARKUS_MANAGEMENT_HOST", "127.0.0.1");
        env.put("QUARKUS_MANAGEMENT_PORT", Integer.toString(cfg.managementPort));
        long t0 = System.nanoTime();
        Process p = pb.start();
        return new Service(p, "http://127.0.0.1:" + cfg.httpPort, "http://127.0.0.1:" + cfg.managementPort, t0);
    }

    /** Polls /q/health/ready (management port) every 20 ms; returns seconds from spawn to the first 200. */
    double awaitReady(Duration timeout) throws Exception {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
        long deadline = System.nanoTime() + timeout.toNanos();
        try (http) {
            while (System.nanoTime() < deadline) {
                if (!process.isAlive()) {
                    throw new IllegalStateException("service exited with " + process.exitValue() + " before it was ready");
                }
                try {
                    HttpResponse<Void> r = http.send(HttpRequest.newBuilder(URI.create(management + "/q/health/ready"))
                            .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.discarding());
                    if (r.statusCode() == 200) {
                        return (System.nanoTime() - spawnedNanos) / 1e9;
                    }
                } catch (IOException notYet) {
                    // not listening yet
                }
                Thread.sleep(20);
            }
        }
        throw new IllegalStateException("service not ready within " + timeout);
    }

    /**
     * One client for every metrics read, on HTTP/1.1 as {@link Mq}'s: a new default client per
     * read (HTTP/2, so each request offered the h2c upgrade) once hung a full run for 15 minutes
     * in {@code HttpClient.send} on an open, silent connection, its 30 s request time-out never
     * firing (JDK 25.0.3, the 100,000-partition tick of the scale row, 2026-12-04).
     */
    private final HttpClient metricsHttp = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();

    /**
     * The Prometheus text of /q/metrics (management port). Each attempt is bounded by the
     * caller's own wait, not only by the client's request time-out, and a stuck attempt is
     * cancelled and tried again, up to three times.
     */
    String metrics() throws IOException, InterruptedException {
        HttpRequest req = HttpRequest.newBuilder(URI.create(management + "/q/metrics")).timeout(Duration.ofSeconds(30)).build();
        IOException last = null;
        for (int attempt = 1; attempt <= 3; attempt++) {
            CompletableFuture<HttpResponse<String>> f = metricsHttp.sendAsync(req, HttpResponse.BodyHandlers.ofString());
            try {
                HttpResponse<String> r = f.get(35, TimeUnit.SECONDS);
                if (r.statusCode() != 200) {
                    throw new IOException("GET /q/metrics -> " + r.statusCode());
                }
                return r.body();
            } catch (TimeoutException | ExecutionException e) {
                f.cancel(true);
                last = new IOException("GET /q/metrics, attempt " + attempt + ": " + e, e);
            }
        }
        throw last;
    }

    long rssKb() {
        return Proc.statusKb(pid, "VmRSS");
    }

    int threads() {
        return (int) Proc.statusKb(pid, "Threads");
    }

    double cpuSeconds() {
        return Proc.cpuSeconds(pid);
    }

    /** CPU seconds of each of the service's JIT compiler threads alive now ({@link Proc#jitCpuByThread}). */
    Map<String, Double> jitCpuByThread() {
        return Proc.jitCpuByThread(pid);
    }

    @Override
    public void close() throws InterruptedException {
        metricsHttp.shutdownNow();
        if (process.isAlive()) {
            process.destroy(); // SIGTERM: Quarkus shuts down gracefully
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    /** Reads /proc for a process's memory, threads and CPU time (Linux). */
    static final class Proc {
        private Proc() {}

        /** A field of /proc/pid/status (kB for memory fields, a count for Threads); -1 if unknown. */
        static long statusKb(long pid, String field) {
            try {
                for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
                    if (line.startsWith(field + ":")) {
                        return Long.parseLong(line.substring(field.length() + 1).trim().split("\\s+")[0]);
                    }
                }
            } catch (IOException | RuntimeException e) {
                return -1;
            }
            return -1;
        }

        /**
         * utime + stime, in seconds, of each of a JVM's JIT compiler threads alive now, by thread
         * id (HotSpot names them "C1 CompilerThreadN" and "C2 CompilerThreadN"; the kernel keeps
         * 15 characters of a thread's name); empty if unknown. HotSpot may stop a compiler thread
         * and start another with its compile queue, and a stopped thread's time is gone from
         * /proc: {@link #jitCpuSince} adds each thread's own growth, so what two readings say is
         * at least what the compilers spent between them.
         */
        static Map<String, Double> jitCpuByThread(long pid) {
            Map<String, Double> byThread = new java.util.HashMap<>();
            if (pid <= 0) {
                return byThread;
            }
            try (java.util.stream.Stream<Path> tasks = Files.list(Path.of("/proc/" + pid + "/task"))) {
                for (Path task : (Iterable<Path>) tasks::iterator) {
                    try {
                        String stat = Files.readString(task.resolve("stat"));
                        String comm = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
                        if (comm.startsWith("C1 CompilerThre") || comm.startsWith("C2 CompilerThre")) {
                            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                            // utime, stime; USER_HZ is 100 on Linux
                            byThread.put(task.getFileName().toString(), (Long.parseLong(f[11]) + Long.parseLong(f[12])) / 100.0);
                        }
                    } catch (IOException | RuntimeException e) {
                        // the thread ended while the list was read (its time is gone with it), or an odd line
                    }
                }
            } catch (IOException | RuntimeException e) {
                return byThread;
            }
            return byThread;
        }

        /**
         * The compiler threads' CPU seconds since {@code before} ({@link #jitCpuByThread}): each
         * thread's growth, a thread new since then in full; NaN when neither reading found one.
         */
        static double jitCpuSince(Map<String, Double> before, Map<String, Double> now) {
            if (before.isEmpty() && now.isEmpty()) {
                return Double.NaN;
            }
            double spent = 0;
            for (Map.Entry<String, Double> t : now.entrySet()) {
                spent += Math.max(0, t.getValue() - before.getOrDefault(t.getKey(), 0.0));
            }
            return spent;
        }

        /** utime + stime of a process (and its reaped children) in seconds; NaN if unknown. */
        static double cpuSeconds(long pid) {
            if (pid <= 0) {
                return Double.NaN;
            }
            try {
                String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
                String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                // fields after the command: state(0) ... utime(11) stime(12) cutime(13) cstime(14)
                long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]) + Long.parseLong(f[13]) + Long.parseLong(f[14]);
                return ticks / 100.0; // USER_HZ is 100 on Linux
            } catch (IOException | RuntimeException e) {
                return Double.NaN;
            }
        }
    }
}
