package dev.tenantmq.store;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;

/**
 * The index of each column of one statement's result set by its label, asked of the driver once
 * per label ({@link ResultSet#findColumn}). A getter by label asks Connector/J every time, and
 * its look-up walks a case-insensitive {@code TreeMap}: about 5% of the service's CPU samples in
 * the benchmark's consume run, where the fetch's scan maps 11 to 14 columns of each of about 130 rows
 * (docs/architecture.md, "Rows into responses"). Row mappers still name their columns.
 *
 * <p>One instance per statement execution: the same label may have another index in another
 * statement's result set. Not thread-safe; a result set is read by one thread.
 */
final class ColumnIndexes {
    private final Map<String, Integer> indexes = new HashMap<>();

    /**
     * The 1-based index of the column labelled {@code label} in {@code rs}.
     *
     * @throws SQLException when the result set has no such column
     */
    int of(ResultSet rs, String label) throws SQLException {
        Integer index = indexes.get(label);
        if (index == null) {
            index = rs.findColumn(label);
            indexes.put(label, index);
        }
        return index;
    }
}
