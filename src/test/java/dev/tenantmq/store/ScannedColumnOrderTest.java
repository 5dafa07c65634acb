package dev.tenantmq.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tenantmq.Api;
import dev.tenantmq.Delivered;
import dev.tenantmq.Fetch;
import dev.tenantmq.TestIds;
import dev.tenantmq.model.GroupScope;
import dev.tenantmq.store.ConsumerSql.Scanned;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The fetch's scans read each row's columns left to right, each once, as JDBC advises: the driver
 * finds a column by walking the row from the last one read, and one to the left of it from the
 * row's start (docs/architecture.md, "Rows into responses"). Real statements on the test
 * database, through a connection that notes the column index of every read.
 */
@QuarkusTest
class ScannedColumnOrderTest {
    private static final int MESSAGES = 3;

    @Inject
    AgroalDataSource dataSource;

    @Test
    void a_scan_reads_every_row_left_to_right() throws Exception {
        GroupScope scope = new GroupScope(TestIds.tenant(), TestIds.group(), TestIds.topic());
        publish(scope, "k", MESSAGES);
        List<List<Integer>> rows = new ArrayList<>();
        List<Scanned> read;
        try (Connection c = dataSource.getConnection()) {
            read = ConsumerStatements.scanPartitions(noting(c, rows), scope,
                    List.of(new ConsumerSql.ScanUndelivered(Long.MAX_VALUE, scope, "k", 0, MESSAGES)))
                    .get("k");
        }
        assertEquals(List.of("m-0", "m-1", "m-2"), read.stream().map(Scanned::id).toList());
        // partition_key .. state; an undelivered message's delivery columns after it are not read
        assertEquals(Collections.nCopies(MESSAGES, columns(1, 11)), rows);
    }

    @Test
    void the_one_partition_scan_reads_every_row_left_to_right_with_its_cursor_after_the_message() throws Exception {
        GroupScope scope = new GroupScope(TestIds.tenant(), TestIds.group(), TestIds.topic());
        publish(scope, "k", MESSAGES);
        // One delivered: the group has its offsets row, and the scan starts after that message.
        List<Delivered> first = Api.fetchOk(scope.tenant(), scope.topic(), scope.consumerGroup(), Fetch.upTo(1));
        assertEquals(List.of("m-0"), first.stream().map(Delivered::id).toList());
        List<List<Integer>> rows = new ArrayList<>();
        Optional<ConsumerStatements.CursorsAndFirstScan> read;
        try (Connection c = dataSource.getConnection()) {
            read = ConsumerStatements.cursorAndScanOne(noting(c, rows),
                    new ConsumerSql.SelectCursorAndScanOne(scope, "k", Long.MAX_VALUE, MESSAGES));
        }
        assertTrue(read.isPresent(), "a cursor and the messages after the delivered one");
        assertEquals(List.of("m-1", "m-2"), read.get().scanned().get("k").stream().map(Scanned::id).toList());
        assertEquals(first.get(0).offset(), read.get().cursors().get("k").delivered());
        // The message's 15 columns come first (read up to its state), then the cursor's 12 and the
        // deletion flag: the first row reads them all, the next one its message's alone.
        List<Integer> firstRow = new ArrayList<>(columns(1, 11));
        firstRow.addAll(columns(16, 28));
        assertEquals(List.of(firstRow, columns(1, 11)), rows);
    }

    @Test
    void the_union_of_cursors_and_first_scans_reads_every_row_left_to_right() throws Exception {
        GroupScope scope = new GroupScope(TestIds.tenant(), TestIds.group(), TestIds.topic());
        publish(scope, "a", MESSAGES);
        publish(scope, "b", MESSAGES);
        // One delivered: the group leases both partitions, with their offsets rows.
        assertEquals(1, Api.fetchOk(scope.tenant(), scope.topic(), scope.consumerGroup(), Fetch.upTo(1)).size());
        List<List<Integer>> rows = new ArrayList<>();
        ConsumerStatements.CursorsAndFirstScan read;
        try (Connection c = dataSource.getConnection()) {
            read = ConsumerStatements.cursorsAndFirstScan(noting(c, rows), new ConsumerSql.SelectCursorsAndFirstScan(
                    scope, List.of("a", "b"), Long.MAX_VALUE, Map.of("a", MESSAGES, "b", MESSAGES)));
        }
        assertEquals(java.util.Set.of("a", "b"), read.cursors().keySet());
        assertEquals(2 * MESSAGES - 1, read.scanned().values().stream().mapToInt(List::size).sum(),
                "every message but the delivered one");
        // row_kind, partition_key, then a cursor's 12 columns after the 14 of the scan, or the
        // scan's up to its state
        List<Integer> cursorRow = new ArrayList<>(List.of(1, 2));
        cursorRow.addAll(columns(17, 28));
        assertEquals(2, rows.stream().filter(cursorRow::equals).count(), "cursor rows: " + rows);
        assertEquals(2 * MESSAGES - 1, rows.stream().filter(columns(1, 12)::equals).count(), "scan rows: " + rows);
        assertEquals(2 * MESSAGES + 1, rows.size(), "rows: " + rows);
    }

    private static void publish(GroupScope scope, String key, int n) {
        List<Map<String, Object>> messages = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            messages.add(Api.msg(key, "m-" + i, Map.of("i", i)));
        }
        Api.publishOk(scope.tenant(), scope.topic(), messages);
    }

    /** The column indexes {@code from} to {@code to}, both included: a row read left to right. */
    private static List<Integer> columns(int from, int to) {
        return IntStream.rangeClosed(from, to).boxed().toList();
    }

    /**
     * {@code c} with every call passed through, and the result sets of the statements prepared
     * on it, or on what it unwraps to (the store prepares on the driver's connection, as text or
     * on the server as it chooses), noting the index of every column read (by index or by label),
     * a list per row, in {@code rows}.
     */
    private static Connection noting(Connection c, List<List<Integer>> rows) {
        return preparingNoted(Connection.class, c, rows);
    }

    @SuppressWarnings("unchecked")
    private static <T> T preparingNoted(Class<T> type, T delegate, List<List<Integer>> rows) {
        return proxy(type, delegate, (method, args, result) -> {
            if (method.getName().equals("unwrap") && args[0] instanceof Class<?> wanted && wanted.isInterface()) {
                return preparingNoted((Class<Object>) wanted, result, rows);
            }
            if (result instanceof PreparedStatement ps && method.getReturnType() == PreparedStatement.class) {
                return proxy(PreparedStatement.class, ps, (m, a, r) -> r instanceof ResultSet rs ? noted(rs, rows) : r);
            }
            return result;
        });
    }

    private static ResultSet noted(ResultSet rs, List<List<Integer>> rows) {
        return proxy(ResultSet.class, rs, (method, args, result) -> {
            String name = method.getName();
            if (name.equals("next") && Boolean.TRUE.equals(result)) {
                rows.add(new ArrayList<>());
            } else if (name.startsWith("get") && args != null && args.length > 0) {
                // A read by label is the driver's read of that label's column.
                if (args[0] instanceof Integer index) {
                    rows.get(rows.size() - 1).add(index);
                } else if (args[0] instanceof String label) {
                    rows.get(rows.size() - 1).add(rs.findColumn(label));
                }
            }
            return result;
        });
    }

    /** What a pass-through proxy returns for a call, given the delegate's result. */
    @FunctionalInterface
    private interface After {
        Object apply(Method method, Object[] args, Object result) throws Exception;
    }

    private static <T> T proxy(Class<T> type, T delegate, After after) {
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (p, method, args) -> {
            Object result;
            try {
                result = method.invoke(delegate, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
            return after.apply(method, args, result);
        }));
    }
}
