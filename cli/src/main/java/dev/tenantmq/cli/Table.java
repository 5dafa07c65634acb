package dev.tenantmq.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * An aligned text table: upper-case headers, columns separated by two spaces, widths counted in
 * code points. Control characters in a cell (a partition key may hold a tab or a newline) are
 * shown escaped, so every row stays one line.
 */
public final class Table {
    private final String[] headers;
    private final List<String[]> rows = new ArrayList<>();

    /** A table with these column headers. */
    public Table(String... headers) {
        this.headers = headers;
    }

    /** Adds a row; null cells print as empty. */
    public Table row(Object... cells) {
        String[] row = new String[headers.length];
        for (int i = 0; i < headers.length; i++) {
            row[i] = i < cells.length && cells[i] != null ? cell(cells[i].toString()) : "";
        }
        rows.add(row);
        return this;
    }

    /** Number of rows added. */
    public int size() {
        return rows.size();
    }

    /** Prints the headers and the rows. */
    public void print(PrintWriter out) {
        int[] widths = new int[headers.length];
        for (int i = 0; i < headers.length; i++) {
            widths[i] = width(headers[i]);
            for (String[] row : rows) {
                widths[i] = Math.max(widths[i], width(row[i]));
            }
        }
        line(out, headers, widths);
        for (String[] row : rows) {
            line(out, row, widths);
        }
        out.flush();
    }

    private static void line(PrintWriter out, String[] cells, int[] widths) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < cells.length; i++) {
            sb.append(cells[i]);
            if (i < cells.length - 1) {
                sb.append(" ".repeat(widths[i] - width(cells[i]) + 2));
            }
        }
        out.println(sb.toString().stripTrailing());
    }

    private static int width(String s) {
        return s.codePointCount(0, s.length());
    }

    /** A cell's text with control characters escaped (\t, \n, \r, else \\uXXXX). */
    static String cell(String s) {
        StringBuilder sb = new StringBuilder(s.length());
        s.codePoints().forEach(cp -> {
            if (cp == '\t') {
                sb.append("\\t");
            } else if (cp == '\n') {
                sb.append("\\n");
            } else if (cp == '\r') {
                sb.append("\\r");
            } else if (Character.isISOControl(cp)) {
                sb.append(String.format("\\u%04x", cp));
            } else {
                sb.appendCodePoint(cp);
            }
        });
        return sb.toString();
    }
}
