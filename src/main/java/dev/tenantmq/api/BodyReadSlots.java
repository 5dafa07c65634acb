package dev.tenantmq.api;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts the request bodies being received, per client address and per tenant, and refuses one
 * more past either bound (docs/security.md, "Slow clients"). A body holds its slot from its
 * first byte read to its last (or until it is refused, times out, or its client goes away).
 * Thread-safe; entries of clients and tenants with nothing in flight are removed.
 */
final class BodyReadSlots {
    /** Why a body was refused. */
    enum Refusal {
        /** The client address has {@code perClient} bodies in flight already. */
        CLIENT,
        /** The tenant has {@code perTenant} bodies in flight already. */
        TENANT
    }

    /** A held slot; {@link #release()} gives it back, once (later calls do nothing). */
    interface Slot {
        void release();
    }

    private final int perClient;
    private final int perTenant;
    private final ConcurrentHashMap<String, AtomicInteger> clients = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, AtomicInteger> tenants = new ConcurrentHashMap<>();

    /** @param perClient most bodies of one client address at once, at least 1
     *  @param perTenant most bodies of one tenant at once, at least 1 */
    BodyReadSlots(int perClient, int perTenant) {
        this.perClient = perClient;
        this.perTenant = perTenant;
    }

    /**
     * Takes a slot for a body of {@code client} (its address) for {@code tenant} (null when the
     * path names none), or tells which bound it would exceed; a refused body holds nothing.
     */
    Result acquire(String client, String tenant) {
        if (!take(clients, client, perClient)) {
            return new Result(null, Refusal.CLIENT);
        }
        if (tenant != null && !take(tenants, tenant, perTenant)) {
            give(clients, client);
            return new Result(null, Refusal.TENANT);
        }
        AtomicBoolean released = new AtomicBoolean();
        return new Result(() -> {
            if (released.compareAndSet(false, true)) {
                give(clients, client);
                if (tenant != null) {
                    give(tenants, tenant);
                }
            }
        }, null);
    }

    /** Bodies in flight of this client address (for tests and diagnostics). */
    int ofClient(String client) {
        AtomicInteger n = clients.get(client);
        return n == null ? 0 : n.get();
    }

    /** Bodies in flight for this tenant (for tests and diagnostics). */
    int ofTenant(String tenant) {
        AtomicInteger n = tenants.get(tenant);
        return n == null ? 0 : n.get();
    }

    /** A slot, or the bound that refused it (exactly one of the two is set). */
    record Result(Slot slot, Refusal refusal) {}

    private static boolean take(ConcurrentHashMap<String, AtomicInteger> counts, String key, int bound) {
        boolean[] taken = {false};
        counts.compute(key, (k, n) -> {
            AtomicInteger c = n == null ? new AtomicInteger() : n;
            if (c.get() < bound) {
                c.incrementAndGet();
                taken[0] = true;
            }
            return c.get() == 0 ? null : c;
        });
        return taken[0];
    }

    private static void give(ConcurrentHashMap<String, AtomicInteger> counts, String key) {
        counts.computeIfPresent(key, (k, n) -> n.decrementAndGet() <= 0 ? null : n);
    }
}
