package dev.tenantmq.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The tmq claim's rules (docs/security.md, "Permissions"): tenants, permissions, topic prefixes, admins. */
class GrantsTest {

    @Test
    void a_grant_allows_its_permission_on_its_tenant_only() {
        Grants g = Grants.parse(Map.of("acc-a", List.of("publish")));
        assertTrue(g.allows(Permission.PUBLISH, "acc-a", "orders"));
        assertFalse(g.allows(Permission.CONSUME, "acc-a", "orders"), "publish does not grant consume");
        assertFalse(g.allows(Permission.ADMIN, "acc-a", null), "publish does not grant admin");
        assertFalse(g.allows(Permission.PUBLISH, "acc-b", "orders"), "another tenant");
        assertFalse(g.allows(Permission.PUBLISH, "acc-a-2", "orders"), "tenants match exactly, not by prefix");
    }

    @Test
    void each_permission_is_granted_by_its_own_name() {
        for (Permission p : Permission.values()) {
            Grants g = Grants.parse(Map.of("t", List.of(p.claimName())));
            for (Permission q : Permission.values()) {
                assertEquals(p == q, g.allows(q, "t", "x"), p + " grants " + q);
            }
        }
    }

    @Test
    void a_topic_prefix_narrows_publish_and_consume() {
        Grants g = Grants.parse(Map.of("acc-a", List.of("consume:orders.", "publish:orders.eu")));
        assertTrue(g.allows(Permission.CONSUME, "acc-a", "orders.eu"));
        assertTrue(g.allows(Permission.CONSUME, "acc-a", "orders.dlq"));
        assertFalse(g.allows(Permission.CONSUME, "acc-a", "orders"), "orders does not start with 'orders.'");
        assertFalse(g.allows(Permission.CONSUME, "acc-a", "billing"));
        assertFalse(g.allows(Permission.CONSUME, "acc-a", null), "no topic, no prefix match");
        assertTrue(g.allows(Permission.PUBLISH, "acc-a", "orders.eu.1"));
        assertFalse(g.allows(Permission.PUBLISH, "acc-a", "orders.us"));
    }

    @Test
    void an_exact_topic_covers_that_topic_only_while_a_bare_prefix_keeps_its_meaning() {
        Grants g = Grants.parse(Map.of("acc-a", List.of("consume:=orders", "publish:orders")));
        assertTrue(g.allows(Permission.CONSUME, "acc-a", "orders"));
        assertFalse(g.allows(Permission.CONSUME, "acc-a", "orders-internal"), "=orders is exact");
        assertFalse(g.allows(Permission.CONSUME, "acc-a", "order"));
        assertTrue(g.allows(Permission.PUBLISH, "acc-a", "orders"));
        assertTrue(g.allows(Permission.PUBLISH, "acc-a", "orders-internal"), "a bare topic is a prefix, as before");
    }

    @Test
    void a_star_suffix_is_a_prefix_and_a_star_alone_is_every_topic() {
        Grants g = Grants.parse(Map.of("acc-a", List.of("consume:orders.*", "publish:*")));
        assertTrue(g.allows(Permission.CONSUME, "acc-a", "orders.eu"));
        assertFalse(g.allows(Permission.CONSUME, "acc-a", "orders"));
        assertTrue(g.allows(Permission.PUBLISH, "acc-a", "anything"));
        assertEquals(Grants.parse(Map.of("t", List.of("consume:orders."))).grants(),
                Grants.parse(Map.of("t", List.of("consume:orders.*"))).grants(), "orders. and orders.* are one grant");
    }

    @Test
    void a_group_pattern_narrows_a_consume_grant_to_its_consumer_groups() {
        Grants g = Grants.parse(Map.of("acc-a", List.of("consume:orders.*/billing-*", "consume:=audit/reader")));
        assertTrue(g.allows(Permission.CONSUME, "acc-a", "orders.eu", "billing-1"));
        assertTrue(g.allows(Permission.CONSUME, "acc-a", "orders.eu", "billing-"));
        assertFalse(g.allows(Permission.CONSUME, "acc-a", "orders.eu", "audit"), "another group");
        assertFalse(g.allows(Permission.CONSUME, "acc-a", "orders.eu"), "no group named: a group pattern does not cover it");
        assertFalse(g.allows(Permission.CONSUME, "acc-a", "billing", "billing-1"), "another topic");
        assertTrue(g.allows(Permission.CONSUME, "acc-a", "audit", "reader"));
        assertFalse(g.allows(Permission.CONSUME, "acc-a", "audit", "reader-2"), "a group without * is exact");
        assertTrue(Grants.parse(Map.of("acc-a", List.of("consume:audit/=reader"))).allows(Permission.CONSUME, "acc-a", "audit", "reader"));
        assertEquals(List.of("consume:orders.*/billing-*"), g.groupNarrowed(Permission.CONSUME, "acc-a", "orders.eu", "audit"));
        Grants every = Grants.parse(Map.of("acc-a", List.of("consume:*/*")));
        assertTrue(every.allows(Permission.CONSUME, "acc-a", "x", "y"));
        assertTrue(every.allows(Permission.CONSUME, "acc-a", "x"), "*/* names no group in particular");
        assertTrue(Grants.parse(Map.of("acc-a", List.of("consume:orders."))).allows(Permission.CONSUME, "acc-a", "orders.eu", "g"),
                "a grant without a group pattern covers every group");
    }

    @Test
    void forms_outside_the_grammar_grant_nothing() {
        List<String> bad = List.of("publish:orders/billing", "consume:=", "consume:=orders*", "consume:orders/",
                "consume:orders/a/b", "consume:orders*x", "consume:/billing", "consume:-orders", "consume:orders/bil*ing",
                "admin:*", "consume:==orders");
        Grants g = Grants.parse(Map.of("acc-a", bad));
        assertEquals(List.of(), g.grants());
        assertEquals(bad.size(), g.ignored().size(), g.ignored().toString());
        assertTrue(g.ignored().get(0).contains("consume:<topics>/<groups>"), g.ignored().get(0));
    }

    @Test
    void the_star_key_stands_for_every_tenant() {
        Grants g = Grants.parse(Map.of("*", List.of("consume")));
        assertTrue(g.allows(Permission.CONSUME, "acc-a", "t"));
        assertTrue(g.allows(Permission.CONSUME, "zz", "t"));
        assertFalse(g.allows(Permission.PUBLISH, "acc-a", "t"));
    }

    @Test
    void only_a_star_admin_is_unrestricted() {
        Grants star = Grants.parse(Map.of("*", List.of("admin")));
        assertTrue(star.isUnrestrictedAdmin());
        assertTrue(star.isAnyAdmin());
        assertEquals(Optional.empty(), star.adminTenants());
        assertTrue(star.allows(Permission.ADMIN, "any", null));

        Grants some = Grants.parse(Map.of("acc-a", List.of("admin"), "acc-b", List.of("admin", "publish")));
        assertFalse(some.isUnrestrictedAdmin());
        assertTrue(some.isAnyAdmin());
        assertEquals(Optional.of(Set.of("acc-a", "acc-b")), some.adminTenants());
        assertFalse(some.allows(Permission.ADMIN, "acc-c", null));

        Grants none = Grants.parse(Map.of("*", List.of("publish", "consume")));
        assertFalse(none.isAnyAdmin());
        assertFalse(none.isUnrestrictedAdmin());
    }

    @Test
    void malformed_entries_grant_nothing_and_are_reported() {
        Grants g = Grants.parse(Map.of(
                "acc-a", List.of("Publish", "admin:orders", "consume:", "read", 7),
                "bad tenant", List.of("publish"),
                "acc-b", "publish"));
        for (Permission p : Permission.values()) {
            for (String t : List.of("acc-a", "acc-b", "bad tenant")) {
                assertFalse(g.allows(p, t, "orders"), p + " on " + t);
            }
        }
        assertEquals(List.of(), g.grants());
        assertEquals(7, g.ignored().size(), g.ignored().toString());
    }

    @Test
    void no_claim_or_a_claim_of_another_shape_grants_nothing() {
        assertEquals(List.of(), Grants.parse(null).grants());
        assertEquals(List.of(), Grants.parse(List.of("acc-a:publish")).grants());
        assertEquals(1, Grants.parse("acc-a").ignored().size());
    }

    @Test
    void the_static_admin_token_is_an_unrestricted_admin_without_data_plane_rights() {
        Grants g = Grants.unrestrictedAdmin();
        assertTrue(g.isUnrestrictedAdmin());
        assertFalse(g.allows(Permission.PUBLISH, "acc-a", "t"));
        assertFalse(g.allows(Permission.CONSUME, "acc-a", "t"));
    }

    @Test
    void mode_none_lets_the_data_plane_through_but_grants_no_admin() {
        Grants g = Grants.unauthenticatedDataPlane();
        assertTrue(g.allows(Permission.PUBLISH, "x", "t"));
        assertTrue(g.allows(Permission.CONSUME, "y", "t"));
        assertFalse(g.isAnyAdmin());
    }
}
