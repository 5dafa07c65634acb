package dev.tenantmq.api.dto;

import java.util.List;

/**
 * Body of the committed notice (docs/transactional-publish.md, "Waking consumers"): the partition
 * keys that an application's transaction published to and committed, 1..{@code mq.publish.max-batch-size}.
 */
public record CommittedRequest(List<String> partitionKeys) {}
