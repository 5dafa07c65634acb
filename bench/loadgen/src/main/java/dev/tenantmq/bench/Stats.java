package dev.tenantmq.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Medians, percentiles and rounding, so every figure of the report is computed the same way. */
final class Stats {
    private Stats() {}

    static double median(List<Double> xs) {
        double[] a = xs.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        if (a.length == 0) {
            return Double.NaN;
        }
        return a.length % 2 == 1 ? a[a.length / 2] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2;
    }

    /** {median, min, max, runs} of repeated runs of one figure. */
    static Map<String, Object> figure(List<Double> runs) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("median", round(median(runs)));
        m.put("min", round(runs.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN)));
        m.put("max", round(runs.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN)));
        List<Double> r = new ArrayList<>();
        runs.forEach(x -> r.add(round(x)));
        m.put("runs", r);
        return m;
    }

    static double round(double x) {
        if (Double.isNaN(x) || Double.isInfinite(x)) {
            return x;
        }
        double mag = Math.abs(x);
        double scale = mag >= 100 ? 1 : mag >= 1 ? 100 : 10000;
        return Math.round(x * scale) / scale;
    }

    /** Thread-safe recorder of latencies in nanoseconds. */
    static final class Latencies {
        private long[] values = new long[1024];
        private int n;

        synchronized void add(long nanos) {
            if (n == values.length) {
                values = Arrays.copyOf(values, n * 2);
            }
            values[n++] = nanos;
        }

        synchronized int count() {
            return n;
        }

        /** The p-th percentile (0..100, nearest rank) in milliseconds; NaN when empty. */
        synchronized double percentileMs(double p) {
            if (n == 0) {
                return Double.NaN;
            }
            long[] a = Arrays.copyOf(values, n);
            Arrays.sort(a);
            int rank = (int) Math.ceil(p / 100.0 * n);
            return a[Math.max(0, Math.min(n - 1, rank - 1))] / 1e6;
        }
    }
}
