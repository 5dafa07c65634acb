package dev.tenantmq;

import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Fresh identities per test: a tenant drawn at random from the test profile's MQ_TENANTS
 * (it-00..it-15) and a topic and consumer group never used before, so tests share no mutable
 * fixtures, also across runs against the same external database.
 */
public final class TestIds {
    private static final List<String> TENANTS = java.util.stream.IntStream.range(0, 16)
            .mapToObj(i -> String.format("it-%02d", i)).toList();

    private TestIds() {}

    /** A served tenant, picked at random. */
    public static String tenant() {
        return TENANTS.get(ThreadLocalRandom.current().nextInt(TENANTS.size()));
    }

    /** A topic name that no other test uses. */
    public static String topic() {
        return "topic-" + UUID.randomUUID();
    }

    /** A consumer group name that no other test uses. */
    public static String group() {
        return "group-" + UUID.randomUUID();
    }
}
