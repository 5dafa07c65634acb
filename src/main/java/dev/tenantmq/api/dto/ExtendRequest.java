package dev.tenantmq.api.dto;

import dev.tenantmq.model.ConsumeLimits;
import java.util.List;

/**
 * Body of extend: the receipts of in-flight deliveries and their new visibility timeout.
 *
 * @param receipts 1..1000 receipts
 * @param visibilitySeconds new visibility timeout in seconds, counted from now, 1..43200 (required)
 */
public record ExtendRequest(List<String> receipts,
                            @IntegerRange(min = 1, max = ConsumeLimits.MAX_VISIBILITY_SECONDS) Integer visibilitySeconds) {}
