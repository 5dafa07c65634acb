package dev.tenantmq.api.dto;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The range of an integer field of a request body, for the one refusal the field's own rule
 * never sees (docs/api.md, "Limits"): a JSON number has no size, so
 * {@code 99999999999999999999} is valid JSON that no {@code int} or {@code long} holds, and the
 * parser refuses it before the request is validated. {@code ProblemMapper} then answers with
 * this range, in the words of the range rules: {@code "must be between 0 and 30 (got
 * 99999999999999999999)"}.
 *
 * <p>The range itself is checked where it always is ({@code model.ConsumeLimits},
 * {@code model.SettingOverrides}); these values only word the refusal of a number too large for
 * the Java type, so they name the same constants, and {@code RequestNumbersTest} proves field by
 * field that both refusals name the same bounds.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.RECORD_COMPONENT, ElementType.FIELD, ElementType.PARAMETER, ElementType.METHOD})
public @interface IntegerRange {
    /** The smallest value allowed. */
    long min();

    /** The largest value allowed, unless {@link #maxSetting()} names the setting that holds it. */
    long max();

    /**
     * The {@code mq.*} setting holding the largest value allowed, when the deployment sets it
     * (e.g. {@code mq.fetch.max-messages}); empty when {@link #max()} is fixed.
     */
    String maxSetting() default "";

    /** The unit the range rule names after the bounds ({@code "milliseconds"}); empty for none. */
    String unit() default "";
}
