package dev.tenantmq.api;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.DeserializationConfig;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.deser.BeanDeserializerModifier;
import com.fasterxml.jackson.databind.deser.std.DelegatingDeserializer;
import dev.tenantmq.api.dto.PublishRequest;
import java.io.IOException;

/**
 * Makes a JSON syntax error inside a field's value name that field (docs/api.md, "Errors"):
 * {@code {"maxMessages": 01}} is about {@code maxMessages}, {@code "partitionKey": NaN} about
 * {@code messages[0].partitionKey}. The parser reads a field's name and the first token of its
 * value in one step, which the record's deserializer takes before it hands the value to the
 * field's own deserializer; so a number, literal or nesting the parser refuses there was
 * attributed to the enclosing object, while a string it refuses later (a raw tab) named the
 * field. Here every request body's record catches what the parser throws at that point and
 * adds the parser's current field name to the error's path.
 *
 * <p>The parser's current token tells the two apart: it is the field's name while the parser
 * reads what follows the name (its colon and value); a missing comma or a bad next field name
 * fails after a complete value, so it still names the enclosing object.
 */
final class ParseErrorFields extends BeanDeserializerModifier {
    /** The package of the request bodies; no other type read with the service's mapper is wrapped. */
    private static final String REQUEST_BODIES = PublishRequest.class.getPackageName();

    @Override
    public JsonDeserializer<?> modifyDeserializer(DeserializationConfig config, BeanDescription description,
                                                  JsonDeserializer<?> deserializer) {
        return description.getBeanClass().getPackageName().equals(REQUEST_BODIES)
                ? new Deserializer(deserializer) : deserializer;
    }

    /** A record's deserializer that names the field of a parse error in its value. */
    static final class Deserializer extends DelegatingDeserializer {
        Deserializer(JsonDeserializer<?> delegate) {
            super(delegate);
        }

        @Override
        protected JsonDeserializer<?> newDelegatingInstance(JsonDeserializer<?> delegate) {
            return new Deserializer(delegate);
        }

        @Override
        public Object deserialize(JsonParser p, DeserializationContext ctx) throws IOException {
            // The record's object: a failure deeper down is another deserializer's, named by its path.
            JsonStreamContext object = p.getParsingContext();
            try {
                return super.deserialize(p, ctx);
            } catch (JsonMappingException e) {
                throw e; // databinding's own: its path names the field already
            } catch (JsonProcessingException e) {
                String field = object.getCurrentName();
                if (p.currentToken() == JsonToken.FIELD_NAME && p.getParsingContext() == object && field != null) {
                    throw JsonMappingException.wrapWithPath(e, handledType(), field);
                }
                throw e;
            }
        }
    }
}
