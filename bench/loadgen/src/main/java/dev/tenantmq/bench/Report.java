package dev.tenantmq.bench;

import java.util.List;
import java.util.Map;

/** The Markdown table of latest.json (bench/results/latest.md), one line per figure with its target. */
final class Report {
    private Report() {}

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object o) {
        return o instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
    }

    private static String num(Object o) {
        if (!(o instanceof Number n)) {
            return o == null ? "-" : o.toString();
        }
        double d = n.doubleValue();
        return Math.abs(d) >= 100 ? String.format("%,.0f", d) : Math.abs(d) >= 10 ? String.format("%.1f", d) : String.format("%.2f", d);
    }

    private static String range(Map<String, Object> fig) {
        return fig.isEmpty() ? "" : " (" + num(fig.get("min")) + "–" + num(fig.get("max")) + ")";
    }

    private static String met(Map<String, Object> e) {
        Map<String, Object> t = map(e.get("target"));
        if (t.isEmpty()) {
            return "";
        }
        if (t.get("parts") instanceof List<?> parts) {
            // a goal of several parts: each judged on its own, with what was measured
            StringBuilder b = new StringBuilder();
            for (Object o : parts) {
                Map<String, Object> part = map(o);
                b.append(b.length() == 0 ? "" : "; ").append(verdict(part.get("met"))).append(": ")
                        .append(part.get("goal")).append(" (").append(part.get("measured")).append(")");
            }
            return b.toString();
        }
        return verdict(t.get("met")) + ": " + t.get("goal");
    }

    private static String verdict(Object met) {
        return met == null ? "no target" : Boolean.TRUE.equals(met) ? "**met**" : "**missed**";
    }

    private static String cpu(Map<String, Object> fig) {
        Map<String, Object> c = map(fig.get("cpu"));
        return c.isEmpty() ? "" : " client CPU " + num(c.get("client_cpu_s")) + " s of " + num(c.get("wall_s")) + " s";
    }

    static String markdown(Map<String, Object> r) {
        StringBuilder b = new StringBuilder();
        Map<String, Object> meta = map(r.get("meta"));
        b.append("# tenant-mq benchmark (").append(meta.get("mode")).append(" mode, ").append(meta.get("started_at")).append(")\n\n");
        b.append(meta.get("database")).append("; ").append(meta.get("rabbitmq")).append("; ").append(meta.get("cores"))
                .append(" cores; ").append(meta.get("payload_bytes")).append("-byte payloads; client ").append(meta.get("client"))
                .append(".\nFigures: median of ").append(meta.get("runs_per_figure"))
                .append(" runs (min–max). Sizes and procedures per row are under `params` in latest.json.\n\n");
        b.append("| row | tenant-mq | baseline (same run) | ratio | RabbitMQ | target |\n|---|---|---|---|---|---|\n");
        throughputLine(b, "publish_batch (msg/s)", map(r.get("publish_batch")));
        throughputLine(b, "publish_single (msg/s)", map(r.get("publish_single")));
        throughputLine(b, "consume_ack (msg/s)", map(r.get("consume_ack")));
        Map<String, Object> e2e = map(r.get("end_to_end"));
        throughputLine(b, "end_to_end, publish + consume at once (msg/s)", e2e);
        Map<String, Object> replay = map(e2e.get("replay"));
        if (!replay.isEmpty()) {
            throughputLine(b, "end_to_end, replay of real input (msg/s; baseline = its publish rate; missing/dup/out-of-order "
                    + num(replay.get("missing")) + "/" + num(replay.get("duplicates")) + "/" + num(replay.get("out_of_order")) + ")", replay);
        }
        Map<String, Object> wake = map(r.get("wake_latency_ms"));
        if (wake.containsKey("p50")) {
            b.append("| wake_latency_ms p50 / p99 | ").append(num(wake.get("p50"))).append(" / ").append(num(wake.get("p99")))
                    .append(" | - | - | ").append(num(wake.get("rabbitmq_p50"))).append(" / ").append(num(wake.get("rabbitmq_p99")))
                    .append(" | ").append(met(wake)).append(" |\n");
        } else {
            error(b, "wake_latency_ms", wake);
        }
        Map<String, Object> idle = map(r.get("idle_long_polls"));
        if (idle.containsKey("rss_growth_mb")) {
            b.append("| idle_long_polls (").append(map(idle.get("params")).get("long_polls")).append(")| RSS +")
                    .append(num(idle.get("rss_growth_mb"))).append(" MB, ").append(num(idle.get("live_threads")))
                    .append(" threads, publish p99 ").append(num(idle.get("publish_p99_ms_before"))).append(" → ")
                    .append(num(idle.get("publish_p99_ms_during"))).append(" ms | - | p99 ×").append(num(idle.get("publish_p99_ratio")))
                    .append(" | - | ").append(met(idle)).append(" |\n");
        } else {
            error(b, "idle_long_polls", idle);
        }
        Map<String, Object> scale = map(r.get("scale"));
        if (scale.containsKey("consume")) {
            for (String kind : List.of("consume", "publish")) {
                Map<String, Object> s = map(scale.get(kind));
                b.append("| scale ").append(kind).append(" at ").append(num(s.get("backlog"))).append(" backlog (msg/s; p99 ms) | ")
                        .append(num(s.get("msgs_per_s"))).append("; p99 ").append(num(s.get("p99_ms")))
                        .append(" | at ").append(num(s.get("baseline_backlog"))).append(": ").append(num(s.get("baseline_msgs_per_s")))
                        .append("; p99 ").append(num(s.get("baseline_p99_ms"))).append(" | ").append(num(s.get("ratio")))
                        .append(" | - | ").append(met(s)).append(" |\n");
            }
            for (Object o : (List<?>) scale.get("tick")) {
                Map<String, Object> t = map(o);
                b.append("| scheduler tick at ").append(num(t.get("partitions"))).append(" partitions (s) | first ")
                        .append(num(t.get("first_s"))).append(", steady ").append(num(t.get("steady_median_s"))).append(", max ")
                        .append(num(t.get("max_s"))).append(t.containsKey("incomplete") ? " (" + t.get("incomplete") + ")" : "")
                        .append(" | - | - | - | |\n");
            }
            b.append("| scheduler tick target | | | | | ").append(met(Map.of("target", scale.get("tick_target")))).append(" |\n");
        } else {
            error(b, "scale", scale);
        }
        Map<String, Object> st = map(r.get("startup"));
        if (st.containsKey("time_to_ready_s")) {
            b.append("| startup: time to ready (s); idle RSS (MB) | ").append(num(st.get("time_to_ready_s")))
                    .append(range(map(st.get("time_to_ready_s_stats")))).append("; ").append(num(st.get("idle_rss_mb")))
                    .append(range(map(st.get("idle_rss_mb_stats")))).append(" | - | - | - | (no target in the issue) |\n");
        } else {
            error(b, "startup", st);
        }
        Map<String, Object> rmq = map(map(r.get("peers")).get("rabbitmq"));
        b.append("\nRabbitMQ peer (`peers.rabbitmq`): publish ").append(num(rmq.get("publish_msgs_per_s")))
                .append(" msg/s, consume+ack ").append(num(rmq.get("consume_ack_msgs_per_s"))).append(" msg/s, wake p99 ")
                .append(num(rmq.get("wake_p99_ms"))).append(" ms.\n");
        b.append("\nClient CPU (the load generator's own process CPU during tenant-mq runs):\n\n");
        for (String row : List.of("publish_batch", "publish_single", "consume_ack", "end_to_end")) {
            Map<String, Object> fig = map(map(r.get(row)).get("tenant_mq"));
            if (!fig.isEmpty()) {
                Map<String, Object> c = map(fig.get("cpu"));
                b.append("- ").append(row).append(": client ").append(num(c.get("client_cpu_s"))).append(" s, service ")
                        .append(num(c.get("service_cpu_s"))).append(" s (its JIT compilers ")
                        .append(num(c.get("service_jit_cpu_s"))).append(" s), database ").append(num(c.get("db_cpu_s")))
                        .append(" s CPU over ").append(num(c.get("wall_s"))).append(" s wall\n");
            }
        }
        b.append("\nWork per message (tenant-mq / baseline of the same row): statements the database received, "
                + "database CPU µs, service CPU µs (the raw JDBC loops: the load generator's CPU, where they run):\n\n");
        b.append("| row | statements/msg | db CPU µs/msg | service CPU µs/msg |\n|---|---|---|---|\n");
        for (String row : List.of("publish_batch", "publish_single", "consume_ack", "end_to_end")) {
            Map<String, Object> e = map(r.get(row));
            if (e.containsKey("statements_per_msg")) {
                b.append("| ").append(row).append(" | ").append(pair(e.get("statements_per_msg"))).append(" | ")
                        .append(pair(e.get("db_cpu_us_per_msg"))).append(" | ").append(pair(e.get("service_cpu_us_per_msg")))
                        .append(" |\n");
            }
        }
        Map<String, Object> dbc = map(map(map(r.get("consume_ack")).get("tenant_mq")).get("db_per_msg"));
        if (!dbc.isEmpty()) {
            b.append("\nDatabase work per consumed message in consume_ack (SHOW GLOBAL STATUS deltas): ").append(dbc).append("\n");
        }
        return b.toString();
    }

    private static void throughputLine(StringBuilder b, String label, Map<String, Object> e) {
        if (!e.containsKey("msgs_per_s")) {
            error(b, label, e);
            return;
        }
        b.append("| ").append(label).append(" | ").append(num(e.get("msgs_per_s"))).append(range(map(e.get("tenant_mq"))))
                .append(" | ").append(num(e.get("baseline_msgs_per_s"))).append(range(map(e.get("baseline_runs"))))
                .append(" | ").append(num(e.get("ratio"))).append(" | ")
                .append(e.containsKey("rabbitmq_msgs_per_s") ? num(e.get("rabbitmq_msgs_per_s"))
                        + (e.containsKey("ratio_rabbitmq") ? " (ratio " + num(e.get("ratio_rabbitmq")) + ")" : "") : "-")
                .append(" | ").append(met(e)).append(" |\n");
    }

    /** A {@code {"tenant_mq": x, "baseline": y}} field as {@code x / y}. */
    private static String pair(Object field) {
        Map<String, Object> p = map(field);
        return num(p.get("tenant_mq")) + " / " + num(p.get("baseline"));
    }

    private static void error(StringBuilder b, String label, Map<String, Object> e) {
        b.append("| ").append(label).append(" | ").append(e.isEmpty() ? "not run" : "error: " + e.get("error"))
                .append(" | | | | |\n");
    }
}
