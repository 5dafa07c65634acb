package dev.tenantmq;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * A validator for the subset of OpenAPI 3.0 schema keywords that openapi.yaml uses ($ref,
 * allOf, anyOf, not, nullable, type, enum, properties, required, additionalProperties, items,
 * minItems/maxItems, minLength/maxLength in code points, pattern, minimum/maximum, format
 * date-time), so that {@link OpenApiContractTest} can hold examples and real responses to the
 * contract. An unknown keyword fails the validation rather than being ignored, so the contract
 * cannot outgrow the check silently.
 */
final class ContractSchema {
    private static final java.util.Set<String> KNOWN = java.util.Set.of("$ref", "allOf", "anyOf", "not", "nullable", "type",
            "enum", "properties", "required", "additionalProperties", "items", "minItems", "maxItems", "minLength",
            "maxLength", "pattern", "minimum", "maximum", "format", "description", "example", "default");
    private final JsonNode document;

    ContractSchema(JsonNode document) {
        this.document = document;
    }

    /** Resolves a local {@code $ref} ("#/components/..."). */
    JsonNode resolve(JsonNode node) {
        while (node != null && node.has("$ref")) {
            JsonNode target = document;
            for (String part : node.get("$ref").asText().substring(2).split("/")) {
                target = target.get(part);
            }
            node = target;
        }
        return node;
    }

    /** The broken rules of {@code value} against {@code schema}; empty when it conforms. */
    List<String> errors(JsonNode schema, JsonNode value) {
        List<String> errors = new ArrayList<>();
        check(schema, value, "$", errors);
        return errors;
    }

    boolean accepts(JsonNode schema, JsonNode value) {
        return errors(schema, value).isEmpty();
    }

    private void check(JsonNode schema, JsonNode value, String at, List<String> errors) {
        schema = resolve(schema);
        for (Iterator<String> it = schema.fieldNames(); it.hasNext(); ) {
            String k = it.next();
            if (!KNOWN.contains(k)) {
                errors.add(at + ": unsupported schema keyword " + k);
            }
        }
        if (value.isNull()) {
            if (!nullable(schema)) {
                errors.add(at + ": null where the schema is not nullable");
            }
            return;
        }
        for (JsonNode part : schema.path("allOf")) {
            check(part, value, at, errors);
        }
        if (schema.has("anyOf")) {
            boolean any = false;
            for (JsonNode part : schema.get("anyOf")) {
                any |= errors(part, value).isEmpty();
            }
            if (!any) {
                errors.add(at + ": matches none of the schemas under anyOf: " + value);
            }
        }
        if (schema.has("not") && errors(schema.get("not"), value).isEmpty()) {
            errors.add(at + ": matches the schema under not");
        }
        String type = schema.path("type").asText(null);
        if (type != null && !hasType(value, type)) {
            errors.add(at + ": not of type " + type + ": " + value);
            return;
        }
        if (schema.has("enum")) {
            boolean found = false;
            for (JsonNode e : schema.get("enum")) {
                found |= e.equals(value);
            }
            if (!found) {
                errors.add(at + ": not one of " + schema.get("enum") + ": " + value);
            }
        }
        if (value.isTextual()) {
            String s = value.textValue();
            int length = s.codePointCount(0, s.length());
            if (schema.has("minLength") && length < schema.get("minLength").asInt()) {
                errors.add(at + ": shorter than minLength");
            }
            if (schema.has("maxLength") && length > schema.get("maxLength").asInt()) {
                errors.add(at + ": longer than maxLength");
            }
            if (schema.has("pattern") && !ecma(schema.get("pattern").asText()).matcher(s).find()) {
                errors.add(at + ": does not match " + schema.get("pattern").asText() + ": " + s);
            }
            if ("date-time".equals(schema.path("format").asText())) {
                try {
                    OffsetDateTime.parse(s);
                } catch (RuntimeException e) {
                    errors.add(at + ": not a date-time: " + s);
                }
            }
        }
        if (value.isNumber()) {
            if (schema.has("minimum") && value.decimalValue().compareTo(schema.get("minimum").decimalValue()) < 0) {
                errors.add(at + ": below minimum");
            }
            if (schema.has("maximum") && value.decimalValue().compareTo(schema.get("maximum").decimalValue()) > 0) {
                errors.add(at + ": above maximum");
            }
        }
        if (value.isArray()) {
            if (schema.has("minItems") && value.size() < schema.get("minItems").asInt()) {
                errors.add(at + ": fewer items than minItems");
            }
            if (schema.has("maxItems") && value.size() > schema.get("maxItems").asInt()) {
                errors.add(at + ": more items than maxItems");
            }
            if (schema.has("items")) {
                for (int i = 0; i < value.size(); i++) {
                    check(schema.get("items"), value.get(i), at + "[" + i + "]", errors);
                }
            }
        }
        if (value.isObject()) {
            for (JsonNode r : schema.path("required")) {
                if (!value.has(r.asText())) {
                    errors.add(at + ": missing required " + r.asText());
                }
            }
            JsonNode properties = schema.path("properties");
            for (Iterator<Map.Entry<String, JsonNode>> it = value.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> f = it.next();
                if (properties.has(f.getKey())) {
                    check(properties.get(f.getKey()), f.getValue(), at + "." + f.getKey(), errors);
                } else if (schema.has("additionalProperties")) {
                    JsonNode extra = schema.get("additionalProperties");
                    if (extra.isBoolean() && !extra.asBoolean()) {
                        errors.add(at + ": property not allowed: " + f.getKey());
                    } else if (extra.isObject()) {
                        check(extra, f.getValue(), at + "." + f.getKey(), errors);
                    }
                }
            }
        }
    }

    /**
     * OpenAPI 3.0.3: {@code nullable: true} adds null to an explicit {@code type}; a schema
     * without a type admits any value, null included.
     */
    boolean nullable(JsonNode schema) {
        schema = resolve(schema);
        if (schema.has("allOf")) {
            for (JsonNode part : schema.get("allOf")) {
                if (!nullable(part)) {
                    return false;
                }
            }
        }
        return !schema.has("type") || schema.path("nullable").asBoolean(false);
    }

    /**
     * An ECMA-262 pattern as a Java one: it may match anywhere (ours are anchored), and {@code $}
     * is the end of the input only, whereas Java's also matches before a final line terminator.
     */
    private static Pattern ecma(String pattern) {
        String java = pattern.endsWith("$") && !pattern.endsWith("\\$")
                ? pattern.substring(0, pattern.length() - 1) + "\\z" : pattern;
        return Pattern.compile(java);
    }

    private static boolean hasType(JsonNode v, String type) {
        return switch (type) {
            case "string" -> v.isTextual();
            case "integer" -> v.isIntegralNumber();
            case "number" -> v.isNumber();
            case "boolean" -> v.isBoolean();
            case "array" -> v.isArray();
            case "object" -> v.isObject();
            default -> false;
        };
    }
}
