package dev.tenantmq.api.dto;

import java.util.List;

/** Body of ack: the receipts of the deliveries to acknowledge (1..1000). */
public record ReceiptsRequest(List<String> receipts) {}
