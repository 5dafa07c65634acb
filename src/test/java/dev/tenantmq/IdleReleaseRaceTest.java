package dev.tenantmq;

import static dev.tenantmq.Api.ack;
import static dev.tenantmq.Api.fetchOk;
import static dev.tenantmq.Api.msg;
import static dev.tenantmq.Api.publishOk;
import static dev.tenantmq.Delivered.receipts;
import static dev.tenantmq.Fetch.upTo;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tenantmq.model.GroupScope;
import dev.tenantmq.store.LeaseStore;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A stable group keeps its leases (SPEC section 5, step 6). The scheduler judges a partition
 * idle (or gone: retention deleted its last message) early in its tick, without locks, and
 * releases the lease at the end of it; a message published and fetched in between is in flight
 * under the lease. The idle release must then keep the lease: releasing would hand the delivery
 * back (its ack STALE) and re-lease the partition to the same process under a new epoch.
 */
@QuarkusTest
class IdleReleaseRaceTest {
    private final String tenant = TestIds.tenant();
    private final String topic = TestIds.topic();
    private final String group = TestIds.group();

    @Inject
    LeaseStore leaseStore;

    @Test
    void an_idle_release_judged_before_a_delivery_keeps_the_lease_and_the_delivery() {
        GroupScope scope = new GroupScope(tenant, group, topic);
        publishOk(tenant, topic, List.of(msg("p", "1", 1)));
        List<Delivered> got = fetchOk(tenant, topic, group, upTo(10).waitSeconds(10).visibilitySeconds(60));
        assertEquals(1, got.size());
        List<LeaseStore.Lease> held = leaseStore.leases(scope);
        assertEquals(1, held.size());
        LeaseStore.Lease lease = held.get(0);

        // The end of a tick that judged "p" idle before the message came.
        assertEquals(0, leaseStore.releaseIdle(scope, lease.leasedBy(), held), "a partition in flight is not idle");

        assertEquals(List.of("ACKED"), ack(tenant, topic, group, receipts(got)), "the delivery is still current");
        assertEquals(List.of(lease), leaseStore.leases(scope), "same holder, same epoch");
        // Once everything is committed, the idle release goes ahead.
        assertEquals(1, leaseStore.releaseIdle(scope, lease.leasedBy(), held));
    }
}
