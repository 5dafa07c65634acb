package dev.tenantmq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tenantmq.model.AckTarget;
import dev.tenantmq.model.DeliveryState;
import dev.tenantmq.model.GroupScope;
import dev.tenantmq.model.TraceContext;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Every statement record of the store ({@code store.Statement}: a statement's SQL and its named
 * binds) binds one value per placeholder, in placeholder order, each named for the column its
 * placeholder stands for. A bind is named by column ({@code tenant}, {@code consumer_group},
 * {@code message_offset} ...) wherever the SQL compares a column with the placeholder, writes it
 * ({@code SET col = ?}, {@code VALUES}) or lists it ({@code col IN (?, ?)}); elsewhere (LIMIT,
 * INTERVAL, a flag) by its role, which this test does not check. So two binds in the wrong order,
 * say a group scope's (tenant, consumer_group, topic) where {@code queue_offsets} is keyed
 * (tenant, topic, ..., consumer_group), fail here instead of silently matching no row.
 *
 * <p>The records are found among the nested classes of the store classes that hold SQL
 * ({@link StoreStatements#STORES}) and built with sample values (two-element IN lists, as
 * {@link StoreStatements#expandTemplate} fills templates; a second sample with empty lists and
 * optionals where a record has them). Every statement constant of those classes has a record,
 * which is checked too: a statement added without one fails here.
 */
class StatementBindsTest {
    private static final Pattern COMPARED = Pattern.compile(
            "(?:\\w+\\.)?`?(\\w+)`?\\s*(?:=|<>|!=|<=|>=|<|>)\\s*$");
    private static final Pattern LISTED = Pattern.compile(
            "(?i)(?:\\w+\\.)?`?(\\w+)`?\\s+(?:NOT\\s+)?IN\\s*\\((?:\\s*\\?\\s*,)*\\s*$");
    private static final Pattern INSERT = Pattern.compile(
            "(?is)INSERT\\s+INTO\\s+\\w+\\s*\\(([^)]*)\\)\\s*VALUES\\s*\\((.*?)\\)\\s*(?:ON\\s+DUPLICATE|$)");

    @Test
    void every_statement_binds_one_value_per_placeholder_named_for_its_column() throws Exception {
        Map<String, Object> records = statementRecords();
        assertTrue(records.size() >= 25, "found the statement records: " + records.keySet());
        List<String> wrong = new ArrayList<>();
        for (Map.Entry<String, Object> e : records.entrySet()) {
            wrong.addAll(check(e.getKey(), sql(e.getValue()), bindNames(e.getValue())));
        }
        assertEquals(List.of(), wrong);
    }

    @Test
    void every_statement_of_the_store_has_a_statement_record() throws Exception {
        Set<String> bound = new TreeSet<>();
        for (Object record : statementRecords().values()) {
            bound.add(sql(record));
        }
        List<String> unbound = new ArrayList<>();
        Map<String, String> all = StoreStatements.all();
        all.forEach((name, sql) -> {
            if (!bound.contains(StoreStatements.expandTemplate(sql)) && !isFormattedInto(name, sql, all)) {
                unbound.add(name);
            }
        });
        assertEquals(List.of(), unbound, "statements without a record of their binds");
    }

    /**
     * Whether {@code template} is only formatted into other statement constants of its class (the
     * admin listings' one-tenant and all-tenants forms): those are checked instead.
     */
    private static boolean isFormattedInto(String name, String template, Map<String, String> all) {
        if (!template.contains("%s")) {
            return false;
        }
        String owner = name.substring(0, name.indexOf('.') + 1);
        StringBuilder regex = new StringBuilder();
        for (String part : template.split("%s", -1)) {
            regex.append(regex.length() == 0 ? "" : ".+?").append(Pattern.quote(part));
        }
        Pattern instance = Pattern.compile(regex.toString(), Pattern.DOTALL);
        return all.entrySet().stream().anyMatch(e -> !e.getKey().equals(name) && e.getKey().startsWith(owner)
                && !e.getValue().contains("%s") && instance.matcher(e.getValue()).matches());
    }

    @Test
    void swapped_binds_and_a_missing_bind_are_caught() {
        String sql = "UPDATE queue_offsets SET committed_offset = ? "
                + "WHERE tenant = ? AND topic = ? AND partition_key IN (?, ?) AND consumer_group = ?";
        assertEquals(List.of(), check("right", sql,
                List.of("committed_offset", "tenant", "topic", "partition_key", "partition_key", "consumer_group")));
        assertFalse(check("swapped", sql,
                List.of("committed_offset", "tenant", "consumer_group", "partition_key", "partition_key", "topic"))
                .isEmpty(), "group and topic swapped");
        assertFalse(check("short", sql, List.of("committed_offset", "tenant", "topic", "partition_key",
                "partition_key")).isEmpty(), "one bind missing");
        String insert = "INSERT INTO queue_offsets (tenant, topic, partition_key, consumer_group, committed_offset) "
                + "VALUES (?, ?, ?, ?, 0)";
        assertEquals(List.of(), check("insert", insert, List.of("tenant", "topic", "partition_key", "consumer_group")));
        assertFalse(check("insert swapped", insert, List.of("tenant", "consumer_group", "partition_key", "topic"))
                .isEmpty(), "VALUES in the wrong order");
    }

    /** What is wrong with binding {@code names} to {@code sql}: the count, then each named column. */
    private static List<String> check(String name, String sql, List<String> names) {
        List<String> columns = placeholderColumns(sql);
        if (columns.size() != names.size()) {
            return List.of(name + " binds " + names.size() + " values to " + columns.size() + " placeholders: " + names);
        }
        List<String> wrong = new ArrayList<>();
        for (int i = 0; i < columns.size(); i++) {
            if (columns.get(i) != null && !columns.get(i).equalsIgnoreCase(names.get(i))) {
                wrong.add(name + ": placeholder " + (i + 1) + " stands for " + columns.get(i) + " but binds "
                        + names.get(i) + " (binds " + names + ")");
            }
        }
        return wrong;
    }

    /**
     * The column each placeholder of {@code sql} stands for, in order; null where it stands for
     * none (LIMIT, INTERVAL, a flag).
     */
    static List<String> placeholderColumns(String sql) {
        List<String> values = insertValueColumns(sql);
        List<String> out = new ArrayList<>();
        int valueIndex = 0;
        for (int i = sql.indexOf('?'); i >= 0; i = sql.indexOf('?', i + 1)) {
            String before = sql.substring(0, i);
            Matcher compared = COMPARED.matcher(before);
            Matcher listed = LISTED.matcher(before);
            if (values != null && isInValues(sql, i)) {
                out.add(values.get(valueIndex++));
            } else if (compared.find()) {
                out.add(compared.group(1));
            } else if (listed.find()) {
                out.add(listed.group(1));
            } else {
                out.add(null);
            }
        }
        return out;
    }

    /** For an INSERT ... VALUES, the column of each placeholder in the VALUES list, in order; else null. */
    private static List<String> insertValueColumns(String sql) {
        Matcher m = INSERT.matcher(sql);
        if (!m.find()) {
            return null;
        }
        String[] columns = m.group(1).split(",");
        List<String> values = topLevel(m.group(2));
        if (columns.length != values.size()) {
            throw new AssertionError("VALUES does not match its column list: " + sql);
        }
        List<String> out = new ArrayList<>();
        for (int i = 0; i < columns.length; i++) {
            if (values.get(i).trim().equals("?")) {
                out.add(columns[i].trim().replace("`", ""));
            } else {
                values.get(i).chars().filter(ch -> ch == '?').forEach(q -> out.add(null)); // an expression around placeholders
            }
        }
        return out;
    }

    private static boolean isInValues(String sql, int index) {
        Matcher m = INSERT.matcher(sql);
        return m.find() && index >= m.start(2) && index < m.end(2);
    }

    /** Splits a list at its top-level commas (not those inside parentheses). */
    private static List<String> topLevel(String list) {
        List<String> out = new ArrayList<>();
        int depth = 0;
        int start = 0;
        for (int i = 0; i < list.length(); i++) {
            char ch = list.charAt(i);
            depth += ch == '(' ? 1 : ch == ')' ? -1 : 0;
            if (ch == ',' && depth == 0) {
                out.add(list.substring(start, i));
                start = i + 1;
            }
        }
        out.add(list.substring(start));
        return out;
    }

    /** A sample of every statement record nested in the store classes, by {@code Class.Record} name. */
    private static Map<String, Object> statementRecords() throws Exception {
        Class<?> statement = Class.forName("dev.tenantmq.store.Statement");
        Map<String, Object> out = new LinkedHashMap<>();
        for (Class<?> store : StoreStatements.STORES) {
            for (Class<?> nested : store.getDeclaredClasses()) {
                if (nested.isRecord() && statement.isAssignableFrom(nested)) {
                    out.put(store.getSimpleName() + "." + nested.getSimpleName(), sample(nested, false));
                    if (hasEmptiable(nested)) {
                        out.put(store.getSimpleName() + "." + nested.getSimpleName() + "(empty)", sample(nested, true));
                    }
                }
            }
        }
        return out;
    }

    private static boolean hasEmptiable(Class<?> record) {
        for (RecordComponent c : record.getRecordComponents()) {
            if (c.getType() == List.class || c.getType() == Collection.class || c.getType() == Optional.class) {
                return true;
            }
        }
        return false;
    }

    /**
     * A sample of {@code record}; with {@code empty}, its lists and optionals are empty (a
     * statement may take another form then: retention's without groups, the admin listings of all tenants).
     */
    private static Object sample(Class<?> record, boolean empty) throws Exception {
        RecordComponent[] components = record.getRecordComponents();
        Class<?>[] types = new Class<?>[components.length];
        Object[] args = new Object[components.length];
        for (int i = 0; i < components.length; i++) {
            types[i] = components[i].getType();
            String what = record.getSimpleName() + "." + components[i].getName();
            args[i] = empty && (types[i] == List.class || types[i] == Collection.class) ? List.of()
                    : empty && types[i] == Optional.class ? Optional.empty()
                    : recordList(components[i]) != null ? List.of(sample(recordList(components[i]), false),
                            sample(recordList(components[i]), false))
                    : integerValues(components[i]) ? new LinkedHashMap<>(Map.of("a", 1, "b", 2)) // per key, e.g. a LIMIT
                    : sampleValue(types[i], what);
        }
        Constructor<?> constructor = record.getDeclaredConstructor(types);
        constructor.setAccessible(true);
        return constructor.newInstance(args);
    }

    /** The element type of a list component whose elements are records (publish's messages), else null. */
    private static Class<?> recordList(RecordComponent component) {
        if (component.getType() == List.class
                && component.getGenericType() instanceof java.lang.reflect.ParameterizedType p
                && p.getActualTypeArguments()[0] instanceof Class<?> element && element.isRecord()) {
            return element;
        }
        return null;
    }

    /** Whether the component is a map with Integer values (a LIMIT per partition key). */
    private static boolean integerValues(RecordComponent component) {
        return component.getType() == Map.class
                && component.getGenericType() instanceof java.lang.reflect.ParameterizedType p
                && p.getActualTypeArguments()[1] == Integer.class;
    }

    private static Object sampleValue(Class<?> type, String what) {
        if (type == GroupScope.class) {
            return new GroupScope("tenant-a", "group-a", "topic-a");
        } else if (type == String.class) {
            return "s";
        } else if (type == long.class || type == Long.class) {
            return 7L;
        } else if (type == int.class || type == Integer.class) {
            return 3;
        } else if (type == boolean.class || type == Boolean.class) {
            return true;
        } else if (type == List.class || type == Collection.class) {
            return List.of("a", "b"); // as StoreStatements.expandTemplate fills IN lists
        } else if (type == java.util.Map.class) {
            return new java.util.LinkedHashMap<>(java.util.Map.of("a", 1L, "b", 2L)); // keys of an IN list, as above
        } else if (type == Optional.class) {
            return Optional.of("s");
        } else if (type == DeliveryState.class) {
            return DeliveryState.INFLIGHT;
        } else if (type == AckTarget.class) {
            return new AckTarget("k", 5, 2, 9);
        } else if (type == dev.tenantmq.model.SettingOverrides.class) {
            return new dev.tenantmq.model.SettingOverrides(3, 30, 60, 7L, 8L, 9L, 10L, true);
        } else if (type == TraceContext.class) {
            return new TraceContext("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "congo=t61rcWkgMzE");
        } else if (type == dev.tenantmq.model.DeliveryDelay.class) {
            return dev.tenantmq.model.DeliveryDelay.afterSeconds(5);
        }
        throw new AssertionError("no sample value for " + what + " of type " + type.getName());
    }

    private static String sql(Object record) throws Exception {
        Method sql = record.getClass().getMethod("sql");
        sql.setAccessible(true);
        return (String) sql.invoke(record);
    }

    private static List<String> bindNames(Object record) throws Exception {
        Method binds = record.getClass().getMethod("binds");
        binds.setAccessible(true);
        List<String> names = new ArrayList<>();
        for (Object bind : (List<?>) binds.invoke(record)) {
            Method name = bind.getClass().getMethod("name");
            name.setAccessible(true);
            names.add((String) name.invoke(bind));
        }
        return names;
    }
}
