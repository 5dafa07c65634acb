package dev.tenantmq.api;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.BeanProperty;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.PropertyName;
import com.fasterxml.jackson.databind.deser.ContextualDeserializer;
import com.fasterxml.jackson.databind.exc.InvalidNullException;
import java.io.IOException;

/**
 * For optional request fields whose absence means "use the default" and where an explicit JSON
 * {@code null} is a client mistake (openapi.yaml declares them non-nullable): an absent field
 * stays Java null, an explicit {@code null} fails with {@link InvalidNullException}, which
 * {@link ProblemMapper} answers with 400 naming the field. Jackson's own
 * {@code @JsonSetter(nulls = Nulls.FAIL)} cannot be used, because on a record it fails for an
 * absent field too. Any other value is read by the type's usual deserializer, so the coercion
 * rules of {@link JsonConfig} still apply; a field of any JSON value ({@link JsonNode}) is read by
 * {@link WrittenTree}, which keeps its numbers as the client wrote them.
 */
public final class NullRejecting extends JsonDeserializer<Object> implements ContextualDeserializer {
    private final JsonDeserializer<?> delegate;
    private final PropertyName name;
    private final JavaType type;

    /** Used by Jackson before {@link #createContextual} gives the instance of one property. */
    public NullRejecting() {
        this(null, null, null);
    }

    private NullRejecting(JsonDeserializer<?> delegate, PropertyName name, JavaType type) {
        this.delegate = delegate;
        this.name = name;
        this.type = type;
    }

    @Override
    public JsonDeserializer<?> createContextual(DeserializationContext ctx, BeanProperty property)
            throws JsonMappingException {
        JavaType t = property.getType();
        // A field of any JSON value keeps its numbers as written, for the validator's words.
        JsonDeserializer<?> delegate = t.getRawClass() == JsonNode.class ? new WrittenTree()
                : ctx.findContextualValueDeserializer(t, property);
        return new NullRejecting(delegate, property.getFullName(), t);
    }

    @Override
    public Object deserialize(JsonParser p, DeserializationContext ctx) throws IOException {
        return delegate.deserialize(p, ctx);
    }

    /** An explicit {@code null}: rejected. */
    @Override
    public Object getNullValue(DeserializationContext ctx) throws JsonMappingException {
        throw InvalidNullException.from(ctx, name, type);
    }

    /** An absent field: Java null, so the documented default applies. */
    @Override
    public Object getAbsentValue(DeserializationContext ctx) {
        return null;
    }
}
