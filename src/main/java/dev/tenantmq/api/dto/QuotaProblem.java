package dev.tenantmq.api.dto;

/**
 * RFC 9457 problem details of a 429 (docs/security.md, "Quotas"): a publish over one of its tenant's quotas.
 * Besides the standard members it names the tenant, the quota (the setting's name,
 * {@code publish-rate} or {@code max-unacked-per-topic}) and its limit, as RFC 9457 section
 * 3.2 extension members. The {@code Retry-After} header says when to retry.
 */
public record QuotaProblem(String type, String title, int status, String detail, String tenant, String quota,
                           long limit) {}
