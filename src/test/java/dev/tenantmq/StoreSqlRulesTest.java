package dev.tenantmq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tenantmq.store.AdminStore;
import dev.tenantmq.store.ConsumerStore;
import dev.tenantmq.store.LeaseStore;
import dev.tenantmq.store.MessageStore;
import dev.tenantmq.store.RetentionStore;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Every runtime statement's WHERE clause leads with {@code tenant} (the Vitess shard key), so
 * each routes to one shard. The only exceptions are the admin API's explicit all-tenants
 * listings (RFC "Operational tooling"), named {@code *_ALL_TENANTS}.
 */
class StoreSqlRulesTest {
    private static final List<Class<?>> STORES = List.of(MessageStore.class, ConsumerStore.class, LeaseStore.class,
            AdminStore.class, RetentionStore.class);
    private static final Pattern WHERE = Pattern.compile("\\bWHERE\\s+(\\S+)");
    private static final Pattern TENANT_FIRST = Pattern.compile("\\(?(\\w+\\.)?tenant");

    @Test
    void every_where_clause_leads_with_tenant() throws Exception {
        List<String> broken = new ArrayList<>();
        int statements = 0;
        for (Class<?> store : STORES) {
            for (Field f : store.getDeclaredFields()) {
                if (f.getType() != String.class || !Modifier.isStatic(f.getModifiers())
                        || !Modifier.isFinal(f.getModifiers())) {
                    continue;
                }
                f.setAccessible(true);
                String sql = (String) f.get(null);
                Matcher m = WHERE.matcher(sql);
                boolean any = false;
                while (m.find()) {
                    String first = m.group(1);
                    if (first.equals("%s")) {
                        continue; // a template: its formatted constants are checked
                    }
                    any = true;
                    boolean fleetWide = f.getName().endsWith("_ALL_TENANTS") && first.equals("TRUE");
                    if (!fleetWide && !TENANT_FIRST.matcher(first).lookingAt()) {
                        broken.add(store.getSimpleName() + "." + f.getName() + ": WHERE " + first);
                    }
                }
                statements += any ? 1 : 0;
            }
        }
        assertTrue(statements > 40, "found the store's statements (" + statements + ")");
        assertEquals(List.of(), broken);
    }
}
