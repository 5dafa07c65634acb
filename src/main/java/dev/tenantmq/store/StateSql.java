package dev.tenantmq.store;

import dev.tenantmq.model.DeliveryState;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Renders the delivery states into the store's SQL constants at class init, so that no
 * statement types a state literal by hand and a renamed {@link DeliveryState} cannot drift from
 * the SQL. A statement names a state as {@code {INFLIGHT}} (rendered {@code 'INFLIGHT'}) and a
 * list as {@code {UNFINISHED}} or {@code {FINISHED}} (rendered {@code 'INFLIGHT', 'RETRY',
 * 'PENDING'}, for {@code state IN (...)}). Any other {@code {NAME}} fails the class init.
 */
final class StateSql {
    private static final Pattern TOKEN = Pattern.compile("\\{([A-Z_]+)}");
    private static final Map<String, List<DeliveryState>> LISTS = Map.of(
            "UNFINISHED", DeliveryState.UNFINISHED,
            "FINISHED", DeliveryState.FINISHED);

    private StateSql() {}

    /** {@code sql} with every {@code {STATE}} and {@code {LIST}} token replaced by its SQL literals. */
    static String render(String sql) {
        Matcher m = TOKEN.matcher(sql);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String name = m.group(1);
            List<DeliveryState> states = LISTS.containsKey(name) ? LISTS.get(name) : List.of(DeliveryState.valueOf(name));
            m.appendReplacement(out, Matcher.quoteReplacement(literals(states)));
        }
        return m.appendTail(out).toString();
    }

    /** {@code 'A', 'B'}: the stored names as SQL string literals. */
    static String literals(List<DeliveryState> states) {
        return states.stream().map(s -> "'" + s.name() + "'").collect(Collectors.joining(", "));
    }
}
