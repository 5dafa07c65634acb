package dev.tenantmq.store;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Transactions that lock several lease rows one by one (release, idle release) take them in the
 * order in which fetch and ack lock them with one statement: the primary key's index order, where
 * {@code partition_key} is utf8mb4_bin, so UTF-8 byte order (code point order). Any other order
 * lets two such transactions each hold a row the other waits for (docs/architecture.md, "Ordering
 * with concurrent publishers" states the same rule for partition heads).
 */
class LeaseLockOrderTest {

    private static LeaseStore.Lease lease(String key) {
        return new LeaseStore.Lease(key, "s", 1, false);
    }

    @Test
    void leases_are_locked_in_the_index_order_of_their_partition_keys_not_in_the_order_given() {
        List<LeaseStore.Lease> given = List.of(lease("p-9"), lease("p-10"), lease("B"), lease("a"), lease("p-1"));
        assertEquals(List.of("B", "a", "p-1", "p-10", "p-9"),
                LeaseStore.inLockOrder(given).stream().map(LeaseStore.Lease::partitionKey).toList());
    }

    @Test
    void keys_beyond_the_basic_plane_sort_by_code_point_as_utf8mb4_bin_does_not_by_utf16_unit() {
        // U+FF5E (one UTF-16 unit 0xFF5E) sorts before U+1F600 (surrogates 0xD83D 0xDE00) by code
        // point and in utf8mb4_bin, but after it by String.compareTo.
        String bmp = "\uFF5E";
        String emoji = "\uD83D\uDE00";
        assertEquals(List.of(bmp, emoji),
                LeaseStore.inLockOrder(List.of(lease(emoji), lease(bmp))).stream().map(LeaseStore.Lease::partitionKey).toList());
    }
}
