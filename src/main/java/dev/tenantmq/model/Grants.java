package dev.tenantmq.model;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The permissions one caller holds, read from the {@value #CLAIM} claim of its bearer JWT
 * (docs/security.md, "Permissions"). The claim is a JSON object from tenant to a list of grants:
 *
 * <pre>
 * "tmq": {"acc-a": ["publish:=orders", "consume:orders.*&#47;billing-*"], "acc-b": ["consume"], "*": ["admin"]}
 * </pre>
 *
 * A key is a tenant name, or {@code *} for every tenant ({@code *} is no valid tenant name, so
 * the two never clash). A grant is {@code publish}, {@code consume} or {@code admin}; a
 * {@code publish} or {@code consume} grant may be narrowed to topics after the first colon, and
 * a {@code consume} grant further to consumer groups after a slash:
 *
 * <pre>
 * grant  = "admin" | "publish" [":" topics] | "consume" [":" topics ["/" groups]]
 * topics = "=" name      exactly this topic
 *        | prefix "*"    the topics that start with prefix ("*" alone: every topic)
 *        | prefix        the same as prefix "*" (the first grammar's form, kept for today's tokens)
 * groups = name          exactly this consumer group ("=" name says the same)
 *        | prefix "*"    the groups that start with prefix ("*" alone: every group)
 * </pre>
 *
 * So {@code consume:orders.} allows {@code orders.eu} and {@code orders.dlq}, {@code consume:=orders}
 * allows {@code orders} and not {@code orders-internal}, and <code>consume:orders.*&#47;billing-*</code>
 * allows the groups {@code billing-*} of those topics only. {@code =}, {@code *} and {@code /} are
 * outside the name alphabet (SPEC section 3), so no grant that matched a topic before reads
 * differently now. A grant that does not read as one of these (an unknown permission, an
 * {@code admin} with a scope, an empty prefix, a group on {@code publish}, a name outside the
 * alphabet, a value that is no string) grants nothing: a malformed claim can only ever narrow
 * what a token allows. Pure: no I/O, no clock.
 */
public final class Grants {
    /** Name of the JWT claim that carries the grants. */
    public static final String CLAIM = "tmq";
    /** The claim key that stands for every tenant. */
    public static final String ANY_TENANT = "*";
    /** The grammar of one grant, for problem details (docs/security.md, "Permissions"). */
    public static final String FORMS = "publish, consume, admin, publish:<topics>, consume:<topics>"
            + " or consume:<topics>/<groups>, where <topics> is =<topic> (exact), <prefix>* or <prefix>,"
            + " and <groups> is <group> (exact) or <prefix>*";

    /**
     * Which names a grant covers: every name, one name exactly, or the names that start with a prefix.
     *
     * @param text the exact name or the prefix; empty with {@code prefix} for every name
     * @param prefix whether {@code text} is a prefix rather than an exact name
     */
    public record NamePattern(String text, boolean prefix) {
        /** Every name. */
        public static final NamePattern ANY = new NamePattern("", true);

        /** Whether {@code name} is covered; a null name (none given) only by {@link #ANY}. */
        public boolean matches(String name) {
            if (prefix && text.isEmpty()) {
                return true;
            }
            return name != null && (prefix ? name.startsWith(text) : name.equals(text));
        }

        /** The pattern as the claim writes it: {@code *}, {@code orders.*}, {@code =orders}. */
        @Override
        public String toString() {
            return prefix ? text + "*" : "=" + text;
        }
    }

    /**
     * One parsed grant.
     *
     * @param tenant a tenant name, or {@link #ANY_TENANT}
     * @param topics the topics it covers ({@link NamePattern#ANY} for admin)
     * @param groups the consumer groups it covers (only consume grants narrow them)
     */
    public record Grant(String tenant, Permission permission, NamePattern topics, NamePattern groups) {
        boolean coversTenant(String t) {
            return tenant.equals(ANY_TENANT) || tenant.equals(t);
        }
    }

    private static final Grants UNRESTRICTED_ADMIN = new Grants(
            List.of(new Grant(ANY_TENANT, Permission.ADMIN, NamePattern.ANY, NamePattern.ANY)), List.of());
    private static final Grants ALL_DATA = new Grants(List.of(
            new Grant(ANY_TENANT, Permission.PUBLISH, NamePattern.ANY, NamePattern.ANY),
            new Grant(ANY_TENANT, Permission.CONSUME, NamePattern.ANY, NamePattern.ANY)), List.of());

    private final List<Grant> grants;
    private final List<String> ignored;

    private Grants(List<Grant> grants, List<String> ignored) {
        this.grants = List.copyOf(grants);
        this.ignored = List.copyOf(ignored);
    }

    /** What the static admin token ({@code mq.admin.token}) holds: admin on every tenant, nothing on the data plane. */
    public static Grants unrestrictedAdmin() {
        return UNRESTRICTED_ADMIN;
    }

    /** What every caller holds on the data plane with {@code mq.auth.mode=none}: publish and consume everywhere. */
    public static Grants unauthenticatedDataPlane() {
        return ALL_DATA;
    }

    /**
     * Reads the claim's value as the JWT library hands it over, converted to plain Java: a
     * {@code Map} from tenant to a {@code Collection} of grant strings. Anything else (no claim,
     * a claim of another shape) grants nothing; entries that do not parse are listed by
     * {@link #ignored()} and grant nothing.
     */
    public static Grants parse(Object claim) {
        List<Grant> out = new ArrayList<>();
        List<String> ignored = new ArrayList<>();
        if (!(claim instanceof Map<?, ?> map)) {
            if (claim != null) {
                ignored.add(CLAIM + " is not a JSON object");
            }
            return new Grants(out, ignored);
        }
        for (Map.Entry<?, ?> e : map.entrySet()) {
            String tenant = String.valueOf(e.getKey());
            if (!tenant.equals(ANY_TENANT) && Identifiers.nameProblem(tenant) != null) {
                ignored.add(CLAIM + " key '" + tenant + "' is neither a tenant name nor *");
                continue;
            }
            if (!(e.getValue() instanceof Collection<?> values)) {
                ignored.add(CLAIM + "['" + tenant + "'] is not a list of strings");
                continue;
            }
            for (Object v : values) {
                Optional<Grant> g = v instanceof String s ? grant(tenant, s) : Optional.empty();
                if (g.isPresent()) {
                    out.add(g.get());
                } else {
                    ignored.add(CLAIM + "['" + tenant + "'] entry '" + v + "' is not one of " + FORMS);
                }
            }
        }
        return new Grants(out, ignored);
    }

    private static Optional<Grant> grant(String tenant, String text) {
        int colon = text.indexOf(':');
        Optional<Permission> p = Permission.ofClaimName(colon < 0 ? text : text.substring(0, colon));
        if (p.isEmpty()) {
            return Optional.empty();
        }
        if (colon < 0) {
            return Optional.of(new Grant(tenant, p.get(), NamePattern.ANY, NamePattern.ANY));
        }
        if (p.get() == Permission.ADMIN) {
            return Optional.empty();
        }
        String scope = text.substring(colon + 1);
        int slash = scope.indexOf('/');
        if (slash >= 0 && p.get() != Permission.CONSUME) {
            return Optional.empty(); // only consuming names a consumer group
        }
        Optional<NamePattern> topics = topics(slash < 0 ? scope : scope.substring(0, slash));
        Optional<NamePattern> groups = slash < 0 ? Optional.of(NamePattern.ANY) : groups(scope.substring(slash + 1));
        if (topics.isEmpty() || groups.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new Grant(tenant, p.get(), topics.get(), groups.get()));
    }

    /** {@code =name}, {@code prefix*}, {@code *}, or a bare prefix (the first grammar's form). */
    private static Optional<NamePattern> topics(String text) {
        if (text.startsWith("=")) {
            return exact(text.substring(1));
        }
        return text.endsWith("*") ? prefix(text.substring(0, text.length() - 1)) : nonEmptyPrefix(text);
    }

    /** {@code name} or {@code =name} (exact), {@code prefix*}, or {@code *}. */
    private static Optional<NamePattern> groups(String text) {
        if (text.endsWith("*")) {
            return prefix(text.substring(0, text.length() - 1));
        }
        return exact(text.startsWith("=") ? text.substring(1) : text);
    }

    private static Optional<NamePattern> exact(String name) {
        return Identifiers.nameProblem(name) == null ? Optional.of(new NamePattern(name, false)) : Optional.empty();
    }

    private static Optional<NamePattern> prefix(String prefix) {
        return prefix.isEmpty() ? Optional.of(NamePattern.ANY) : nonEmptyPrefix(prefix);
    }

    private static Optional<NamePattern> nonEmptyPrefix(String prefix) {
        // A prefix of a name is itself a valid name (same alphabet, same first character).
        return Identifiers.nameProblem(prefix) == null ? Optional.of(new NamePattern(prefix, true)) : Optional.empty();
    }

    /**
     * True when the caller may use {@code permission} on {@code topic} of {@code tenant}, whatever
     * the consumer group: a grant of that permission for the tenant or {@code *} whose topics
     * cover the topic and that names no consumer groups. For {@link Permission#ADMIN} the topic
     * is ignored (admin grants have no scope).
     */
    public boolean allows(Permission permission, String tenant, String topic) {
        return allows(permission, tenant, topic, null);
    }

    /**
     * True when the caller may use {@code permission} on consumer group {@code group} of
     * {@code topic} of {@code tenant}: a grant of that permission for the tenant or {@code *}
     * whose topics cover the topic and whose groups cover the group. A null group is covered
     * only by grants that name no groups.
     */
    public boolean allows(Permission permission, String tenant, String topic, String group) {
        for (Grant g : grants) {
            if (g.permission() == permission && g.coversTenant(tenant)
                    && (permission == Permission.ADMIN || g.topics().matches(topic)) && g.groups().matches(group)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The caller's grants of {@code permission} on {@code tenant} whose topics cover {@code topic}
     * but whose groups do not cover {@code group}, as the claim writes them: what a problem
     * detail names when only the group pattern refused a call.
     */
    public List<String> groupNarrowed(Permission permission, String tenant, String topic, String group) {
        List<String> out = new ArrayList<>();
        for (Grant g : grants) {
            if (g.permission() == permission && g.coversTenant(tenant) && g.topics().matches(topic)
                    && !g.groups().matches(group)) {
                out.add(permission.claimName() + ":" + g.topics() + "/" + g.groups());
            }
        }
        return out;
    }

    /** True when the caller is an admin of every tenant: only such an admin may list with {@code allTenants=true}. */
    public boolean isUnrestrictedAdmin() {
        return grants.stream().anyMatch(g -> g.permission() == Permission.ADMIN && g.tenant().equals(ANY_TENANT));
    }

    /** True when the caller is an admin of at least one tenant: without that, the admin API answers 403. */
    public boolean isAnyAdmin() {
        return grants.stream().anyMatch(g -> g.permission() == Permission.ADMIN);
    }

    /** The tenants the caller administers, or empty for an unrestricted admin (every tenant). */
    public Optional<Set<String>> adminTenants() {
        if (isUnrestrictedAdmin()) {
            return Optional.empty();
        }
        Set<String> out = new LinkedHashSet<>();
        grants.stream().filter(g -> g.permission() == Permission.ADMIN).forEach(g -> out.add(g.tenant()));
        return Optional.of(out);
    }

    /** The parsed grants, in claim order. */
    public List<Grant> grants() {
        return grants;
    }

    /** Why entries of the claim were ignored (they grant nothing); for problem details, never for logs of tokens. */
    public List<String> ignored() {
        return ignored;
    }
}
