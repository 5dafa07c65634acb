package dev.tenantmq.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads a table that tmq printed back into rows: a column starts where its header starts, in
 * code points (as {@link Table} aligns them), so cells with spaces or emoji read back exactly.
 */
final class TableOut {
    private TableOut() {}

    /** The rows of {@code text}, each as header → cell; fails when the first line has no headers. */
    static List<Map<String, String>> parse(String text) {
        String[] lines = text.split("\n");
        if (lines.length == 0 || lines[0].isBlank()) {
            throw new AssertionError("no table header in:\n" + text);
        }
        int[] header = lines[0].codePoints().toArray();
        List<String> names = new ArrayList<>();
        List<Integer> starts = new ArrayList<>();
        for (int i = 0; i < header.length; i++) {
            if (header[i] != ' ' && (i == 0 || header[i - 1] == ' ')) {
                starts.add(i);
                int j = i;
                while (j < header.length && header[j] != ' ') {
                    j++;
                }
                names.add(new String(header, i, j - i));
            }
        }
        List<Map<String, String>> rows = new ArrayList<>();
        for (int l = 1; l < lines.length; l++) {
            if (lines[l].isEmpty()) {
                break; // a second table follows (inspect)
            }
            int[] cps = lines[l].codePoints().toArray();
            Map<String, String> row = new LinkedHashMap<>();
            for (int c = 0; c < names.size(); c++) {
                int from = Math.min(starts.get(c), cps.length);
                int to = c + 1 < names.size() ? Math.min(starts.get(c + 1), cps.length) : cps.length;
                row.put(names.get(c), new String(cps, from, to - from).stripTrailing());
            }
            rows.add(row);
        }
        return rows;
    }
}
