package dev.tenantmq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Every runtime statement's WHERE clause leads with {@code tenant} (the Vitess shard key), so
 * each routes to one shard. The only exceptions are the admin API's explicit all-tenants
 * listings (RFC "Operational tooling"), named {@code *_ALL_TENANTS}.
 */
class StoreSqlRulesTest {
    private static final Pattern WHERE = Pattern.compile("\\bWHERE\\s+(\\S+)");
    private static final Pattern TENANT_FIRST = Pattern.compile("\\(?(\\w+\\.)?tenant");

    @Test
    void every_where_clause_leads_with_tenant() {
        List<String> broken = new ArrayList<>();
        int statements = 0;
        for (Map.Entry<String, String> e : StoreStatements.all().entrySet()) {
            Matcher m = WHERE.matcher(e.getValue());
            boolean any = false;
            while (m.find()) {
                String first = m.group(1);
                if (first.equals("%s")) {
                    continue; // a template: its formatted constants are checked
                }
                any = true;
                boolean fleetWide = e.getKey().endsWith("_ALL_TENANTS") && first.equals("TRUE");
                if (!fleetWide && !TENANT_FIRST.matcher(first).lookingAt()) {
                    broken.add(e.getKey() + ": WHERE " + first);
                }
            }
            statements += any ? 1 : 0;
        }
        assertTrue(statements > 40, "found the store's statements (" + statements + ")");
        assertEquals(List.of(), broken);
    }
}
