package dev.tenantmq;

import dev.tenantmq.store.AdminStore;
import dev.tenantmq.store.ConsumerStore;
import dev.tenantmq.store.FetchTransaction;
import dev.tenantmq.store.LeaseStore;
import dev.tenantmq.store.MessageStore;
import dev.tenantmq.store.OffsetResetTransaction;
import dev.tenantmq.store.QueueStatsStore;
import dev.tenantmq.store.QuotaStore;
import dev.tenantmq.store.RetentionStore;
import dev.tenantmq.store.SettleTransaction;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The runtime SQL of the store layer: every {@code static final String} constant of the store
 * classes that names one of the schema's tables, by {@code Class.FIELD} name. That takes in a
 * statement however it starts (a comment, WITH ...), so none escapes the checks. Constants with
 * {@code %s} are templates that the store formats with IN lists or predicates before use.
 */
final class StoreStatements {
    static final List<Class<?>> STORES = List.of(MessageStore.class, ConsumerStore.class,
            packagePrivate("ConsumerSql"), FetchTransaction.class, SettleTransaction.class,
            packagePrivate("ConsumerStatements"), packagePrivate("DeliveryBatches"), packagePrivate("CommittedOffsets"),
            packagePrivate("DeadLetters"), LeaseStore.class, AdminStore.class, RetentionStore.class,
            packagePrivate("DedupSql"), QueueStatsStore.class, QuotaStore.class,
            dev.tenantmq.store.SettingsStore.class, packagePrivate("PublishSql"), packagePrivate("DeletionSql"),
            packagePrivate("OffsetResetSql"), OffsetResetTransaction.class);
    private static final Pattern TABLE = Pattern.compile(
            "\\bqueue_(messages|delivery_state|offsets|partition_leases|subscriber_heartbeats|dedup_ids|partition_heads|settings)\\b");

    private StoreStatements() {}

    /** Statements that live in a package-private class of the store package (ConsumerSql, DedupSql ...). */
    private static Class<?> packagePrivate(String simpleName) {
        try {
            return Class.forName("dev.tenantmq.store." + simpleName);
        } catch (ClassNotFoundException e) {
            throw new AssertionError("the store's SQL class " + simpleName + " moved", e);
        }
    }

    /** Statement constants by {@code Class.FIELD}, in declaration order. */
    static Map<String, String> all() {
        Map<String, String> out = new LinkedHashMap<>();
        for (Class<?> store : STORES) {
            for (Field f : store.getDeclaredFields()) {
                if (f.getType() != String.class || !Modifier.isStatic(f.getModifiers())
                        || !Modifier.isFinal(f.getModifiers())) {
                    continue;
                }
                f.setAccessible(true);
                String sql;
                try {
                    sql = (String) f.get(null);
                } catch (IllegalAccessException e) {
                    throw new AssertionError(e);
                }
                if (TABLE.matcher(sql).find()) {
                    out.put(store.getSimpleName() + "." + f.getName(), sql);
                }
            }
        }
        return out;
    }

    /**
     * Fills a template's {@code %s} as the store does: IN lists of two values, or of two
     * {@code (?, ?)} rows after a row constructor.
     */
    static String expandTemplate(String sql) {
        StringBuilder out = new StringBuilder();
        Matcher m = Pattern.compile("%s").matcher(sql);
        while (m.find()) {
            String before = sql.substring(0, m.start());
            String list = before.matches("(?s).*\\)\\s+IN\\s+\\($") ? "(?, ?), (?, ?)" : "?, ?";
            m.appendReplacement(out, Matcher.quoteReplacement(list));
        }
        return m.appendTail(out).toString();
    }
}
