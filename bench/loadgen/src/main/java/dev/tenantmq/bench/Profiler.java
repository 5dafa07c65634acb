package dev.tenantmq.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;

/**
 * Optional profile of the service during consume_ack ({@code --profile}): a JFR recording started
 * and stopped with jcmd, summarized as the hottest methods (top frame) and the hottest service
 * methods (first dev.tenantmq frame) of the execution samples and of native samples (threads
 * blocked in native code, mostly socket reads waiting for the database).
 */
final class Profiler {
    private Profiler() {}

    static void jcmd(String jcmd, long pid, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(jcmd, Long.toString(pid)));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (p.waitFor() != 0) {
            throw new IllegalStateException("jcmd " + String.join(" ", args) + ": " + out);
        }
    }

    static Map<String, Object> summarize(Path jfr, int top) throws Exception {
        Map<String, Map<String, Integer>> counts = new LinkedHashMap<>();
        int exec = 0, nat = 0;
        for (RecordedEvent e : RecordingFile.readAllEvents(jfr)) {
            String type = e.getEventType().getName();
            boolean isExec = type.equals("jdk.ExecutionSample");
            if (!isExec && !type.equals("jdk.NativeMethodSample")) {
                continue;
            }
            if (e.getStackTrace() == null || e.getStackTrace().getFrames().isEmpty()) {
                continue;
            }
            List<RecordedFrame> frames = e.getStackTrace().getFrames();
            String kind = isExec ? "cpu" : "native";
            if (isExec) {
                exec++;
            } else {
                nat++;
            }
            bump(counts, kind + "_top_frames", name(frames.get(0)));
            for (RecordedFrame f : frames) {
                if (f.getMethod().getType().getName().startsWith("dev.tenantmq.")) {
                    bump(counts, kind + "_service_frames", name(f));
                    break;
                }
            }
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("execution_samples", exec);
        out.put("native_samples", nat);
        for (Map.Entry<String, Map<String, Integer>> c : counts.entrySet()) {
            int total = c.getKey().startsWith("cpu") ? exec : nat;
            List<Map<String, Object>> rows = new ArrayList<>();
            c.getValue().entrySet().stream().sorted((a, b) -> b.getValue() - a.getValue()).limit(top).forEach(x -> {
                Map<String, Object> r = new LinkedHashMap<>();
                r.put("method", x.getKey());
                r.put("samples", x.getValue());
                r.put("pct", Stats.round(100.0 * x.getValue() / Math.max(1, total)));
                rows.add(r);
            });
            out.put(c.getKey(), rows);
        }
        return out;
    }

    private static String name(RecordedFrame f) {
        return f.getMethod().getType().getName() + "." + f.getMethod().getName() + ":" + f.getLineNumber();
    }

    private static void bump(Map<String, Map<String, Integer>> counts, String k, String method) {
        counts.computeIfAbsent(k, x -> new HashMap<>()).merge(method, 1, Integer::sum);
    }
}
