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
 * "tmq": {"acc-a": ["publish", "consume:orders."], "acc-b": ["consume"], "*": ["admin"]}
 * </pre>
 *
 * A key is a tenant name, or {@code *} for every tenant ({@code *} is no valid tenant name, so
 * the two never clash). A grant is {@code publish}, {@code consume} or {@code admin}, and a
 * {@code publish} or {@code consume} grant may be narrowed to the topics that start with a prefix
 * after the first colon ({@code consume:orders.} allows {@code orders.eu} and {@code orders.dlq},
 * not {@code billing}). A grant that does not read as one of these (an unknown permission, an
 * {@code admin} with a prefix, an empty prefix, a value that is no string) grants nothing: a
 * malformed claim can only ever narrow what a token allows. Pure: no I/O, no clock.
 */
public final class Grants {
    /** Name of the JWT claim that carries the grants. */
    public static final String CLAIM = "tmq";
    /** The claim key that stands for every tenant. */
    public static final String ANY_TENANT = "*";

    /** One parsed grant: a tenant (or {@link #ANY_TENANT}), a permission and a topic prefix ("" = every topic). */
    public record Grant(String tenant, Permission permission, String topicPrefix) {}

    private static final Grants UNRESTRICTED_ADMIN = new Grants(List.of(new Grant(ANY_TENANT, Permission.ADMIN, "")), List.of());
    private static final Grants ALL_DATA = new Grants(List.of(new Grant(ANY_TENANT, Permission.PUBLISH, ""),
            new Grant(ANY_TENANT, Permission.CONSUME, "")), List.of());

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
                    ignored.add(CLAIM + "['" + tenant + "'] entry '" + v + "' is not publish, consume, admin,"
                            + " publish:<topic prefix> or consume:<topic prefix>");
                }
            }
        }
        return new Grants(out, ignored);
    }

    private static Optional<Grant> grant(String tenant, String text) {
        int colon = text.indexOf(':');
        String name = colon < 0 ? text : text.substring(0, colon);
        String prefix = colon < 0 ? "" : text.substring(colon + 1);
        Optional<Permission> p = Permission.ofClaimName(name);
        if (p.isEmpty() || (colon >= 0 && (prefix.isEmpty() || p.get() == Permission.ADMIN))) {
            return Optional.empty();
        }
        return Optional.of(new Grant(tenant, p.get(), prefix));
    }

    /**
     * True when the caller may use {@code permission} on {@code topic} of {@code tenant}: a grant
     * of that permission for the tenant or {@code *}, whose prefix (if any) starts the topic.
     * For {@link Permission#ADMIN} the topic is ignored (admin grants have no prefix).
     */
    public boolean allows(Permission permission, String tenant, String topic) {
        for (Grant g : grants) {
            if (g.permission() == permission && (g.tenant().equals(ANY_TENANT) || g.tenant().equals(tenant))
                    && (g.topicPrefix().isEmpty() || (topic != null && topic.startsWith(g.topicPrefix())))) {
                return true;
            }
        }
        return false;
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
