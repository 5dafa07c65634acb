package dev.tenantmq.api.dto;

import java.util.List;

/**
 * Answer of the committed notice: the distinct partition keys whose waiting long polls this
 * process woke, sorted (docs/transactional-publish.md, "Waking consumers").
 */
public record CommittedResponse(List<String> partitionKeys) {}
