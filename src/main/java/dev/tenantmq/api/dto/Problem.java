package dev.tenantmq.api.dto;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/**
 * RFC 9457 problem details, sent as {@code application/problem+json}. {@code errors} lists the
 * broken rules of an answer about request fields, each naming the field: every 400, a 413, and
 * a 403 for a tenant not served; answers about no field (401, a permission's 403, 404...) have
 * none (docs/api.md, "Errors").
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Problem(String type, String title, int status, String detail, List<FieldError> errors) {
    /** One broken rule. */
    public record FieldError(String field, String message) {}
}
