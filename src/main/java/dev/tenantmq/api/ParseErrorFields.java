package dev.tenantmq.api;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.io.JsonEOFException;
import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.DeserializationConfig;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.deser.BeanDeserializerModifier;
import com.fasterxml.jackson.databind.deser.std.DelegatingDeserializer;
import dev.tenantmq.api.dto.PublishRequest;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.List;

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
                throw notUtf8Name(p, e); // databinding's own: its path names the field already
            } catch (JsonProcessingException e) {
                String field = object.getCurrentName();
                if (p.currentToken() == JsonToken.FIELD_NAME && p.getParsingContext() == object && field != null) {
                    throw JsonMappingException.wrapWithPath(e, handledType(), field);
                }
                throw notUtf8Name(p, e);
            }
        }
    }

    /**
     * A field name holding a byte that is not UTF-8 (docs/api.md, "Errors": such bytes "get 400
     * naming the field they are in"), told as one in a string value is. The parser decodes a name
     * once its closing quote is read; a lead byte that announces more bytes than the name has left
     * ({@code "caf\xe9x"}) is reported as "Unexpected end-of-input in field name", as if the body
     * ended there, which would name {@code body} and say nothing of UTF-8. A body that does end
     * inside a name leaves the parser no input; this one leaves it the rest of the body, so the
     * end is replaced by a UTF-8 error at the same place, keeping the path: the object the name is
     * in ({@code messages[0]}, {@code messages[0].payload}, or the body at the top).
     *
     * @param p the parser that failed, still open
     * @return {@code e}, or the UTF-8 error in its place
     */
    static JsonProcessingException notUtf8Name(JsonParser p, JsonProcessingException e) throws IOException {
        JsonEOFException end = null;
        for (Throwable t = e; t != null && end == null; t = t.getCause() == t ? null : t.getCause()) {
            end = t instanceof JsonEOFException x ? x : null;
        }
        if (end == null || end.getTokenBeingDecoded() != JsonToken.FIELD_NAME || atEnd(p)) {
            return e;
        }
        JsonParseException notUtf8 = new JsonParseException(p, "Invalid UTF-8 in a field name", end.getLocation());
        if (!(e instanceof JsonMappingException mapping)) {
            return notUtf8;
        }
        JsonMappingException named = new JsonMappingException(p, notUtf8.getOriginalMessage(), notUtf8);
        List<JsonMappingException.Reference> path = mapping.getPath();
        for (int i = path.size() - 1; i >= 0; i--) {
            named.prependPath(path.get(i));
        }
        return named;
    }

    /** Whether the parser has read all of its input: nothing it read is left unparsed, and its stream (if any) is done. */
    private static boolean atEnd(JsonParser p) throws IOException {
        if (p.releaseBuffered(OutputStream.nullOutputStream()) > 0) {
            return false;
        }
        return !(p.getInputSource() instanceof InputStream in) || in.read() < 0;
    }
}
