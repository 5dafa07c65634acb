package dev.tenantmq.model;

/**
 * One (tenant, consumer_group, topic): the unit of leases, heartbeats and scheduler ticks
 * (SPEC section 5). Values are validated identifiers. A domain idea that the store, the
 * scheduler and the services all key by, so it lives on the ground floor.
 */
public record GroupScope(String tenant, String consumerGroup, String topic) {}
