package dev.tenantmq.api.dto;

/**
 * Body of lease-fetch; every field is optional.
 *
 * @param maxMessages 1..1000, default 10
 * @param waitSeconds long-poll wait in seconds, 0..30, default 0
 * @param visibilitySeconds how long delivered messages stay invisible, in seconds, 1..43200, default 30
 */
public record FetchRequest(Integer maxMessages, Integer waitSeconds, Integer visibilitySeconds) {}
