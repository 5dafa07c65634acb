package dev.tenantmq.model;

/**
 * One rule a request broke: {@code field} names the request field (a path parameter name,
 * a query parameter name, or a JSON path such as {@code messages[3].partitionKey}).
 */
public record FieldError(String field, String message) {}
