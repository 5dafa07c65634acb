package dev.tenantmq.api.dto;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/**
 * RFC 9457 problem details, sent as {@code application/problem+json}. {@code errors} lists
 * the broken rules of a 400, each naming the field.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Problem(String type, String title, int status, String detail, List<FieldError> errors) {
    /** One broken rule. */
    public record FieldError(String field, String message) {}
}
