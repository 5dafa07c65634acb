package dev.tenantmq.api;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.deser.DeserializationProblemHandler;
import com.fasterxml.jackson.databind.deser.ValueInstantiator;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import java.io.IOException;

/**
 * Keeps what a body gave where another JSON type belongs, so that a 400 says it (docs/api.md,
 * "Errors": "names the type it must have and what was given"). Jackson's own refusals of a
 * wrong token name only its kind ("from Integer value", "from Boolean value"), and the parser
 * no longer holds the value once the body is closed; here the parser is still on the value, so
 * its text is taken as the client wrote it. {@link JsonErrorWords#wrongType} words the rest.
 */
public final class WrongTypeReporter extends DeserializationProblemHandler {

    /** A value of the wrong JSON type, with what was given in words ("the number 1", "the value true"). */
    public static final class WrongTypeException extends MismatchedInputException {
        private final String given;

        WrongTypeException(JsonParser p, String message, JavaType targetType, String given) {
            super(p, message, targetType);
            this.given = given;
        }

        /** The value given, in words; null when the token was no value. */
        public String given() {
            return given;
        }
    }

    /** A token of another type than the field's (an integer for a list, true for an integer...). */
    @Override
    public Object handleUnexpectedToken(DeserializationContext ctxt, JavaType targetType, JsonToken t, JsonParser p,
                                        String failureMsg) throws IOException {
        String message = failureMsg != null ? failureMsg : "a " + t + " token is not of the field's type";
        throw new WrongTypeException(p, message, targetType, JsonErrorWords.given(t, p));
    }

    /** A scalar where an object belongs (a message given as 1 or "x"): the record has no creator taking it. */
    @Override
    public Object handleMissingInstantiator(DeserializationContext ctxt, Class<?> instClass,
                                            ValueInstantiator valueInsts, JsonParser p, String msg) throws IOException {
        throw new WrongTypeException(p, msg, ctxt.constructType(instClass), JsonErrorWords.given(p.currentToken(), p));
    }
}
