package dev.tenantmq.store;

/**
 * One (tenant, consumer_group, topic): the unit of leases, heartbeats and scheduler ticks
 * (SPEC section 5). Values are validated identifiers.
 */
public record GroupScope(String tenant, String consumerGroup, String topic) {}
