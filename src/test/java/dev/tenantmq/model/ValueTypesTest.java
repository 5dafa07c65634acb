package dev.tenantmq.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * The identifier value types and the validation exceptions (SPEC section 3): each type checks
 * its rule on construction and names its own field; the edges of the key rule.
 */
class ValueTypesTest {

    @Test
    void each_name_type_accepts_a_valid_name_and_refuses_a_bad_one_naming_its_field() {
        assertNameType("tenant", Tenant::new, Tenant::toString);
        assertNameType("topic", Topic::new, Topic::toString);
        assertNameType("consumerGroup", ConsumerGroup::new, ConsumerGroup::toString);
        assertNameType("subscriberName", SubscriberName::new, SubscriberName::toString);
    }

    @Test
    void each_key_type_accepts_any_well_formed_key_and_refuses_a_bad_one_naming_its_field() {
        assertKeyType("partitionKey", PartitionKey::new, PartitionKey::toString);
        assertKeyType("id", MessageId::new, MessageId::toString);
    }

    private static <T> void assertNameType(String field, Function<String, T> make, Function<T, String> show) {
        assertEquals("Orders.v1:eu-west_1", show.apply(make.apply("Orders.v1:eu-west_1")));
        InvalidRequestException e = assertThrows(InvalidRequestException.class, () -> make.apply("bad name"));
        assertEquals(List.of(new FieldError(field, Identifiers.nameProblem("bad name"))), e.errors());
        assertEquals(field + ": " + Identifiers.nameProblem("bad name"), e.getMessage());
    }

    private static <T> void assertKeyType(String field, Function<String, T> make, Function<T, String> show) {
        assertEquals("k/\uD83D\uDE00 x", show.apply(make.apply("k/\uD83D\uDE00 x")));
        InvalidRequestException e = assertThrows(InvalidRequestException.class, () -> make.apply("k "));
        assertEquals(List.of(new FieldError(field, Identifiers.keyProblem("k "))), e.errors());
    }

    @Test
    void an_optional_key_may_be_absent_but_not_sent_empty_and_is_otherwise_a_key() {
        assertNull(Identifiers.optionalKeyProblem(null));
        assertNull(Identifiers.optionalKeyProblem("evt-1"));
        assertEquals("must be 1-255 Unicode code points, or left out for a generated id (got an empty string)",
                Identifiers.optionalKeyProblem(""));
        assertEquals(Identifiers.keyProblem("k "), Identifiers.optionalKeyProblem("k "));
    }

    @Test
    void a_key_with_a_high_surrogate_not_followed_by_a_low_one_is_refused() {
        assertNotNull(Identifiers.keyProblem("\uD83Da"));
        assertNotNull(Identifiers.keyProblem("a\uD83D"));
        assertNotNull(Identifiers.keyProblem("\uDE00"));
        assertNotNull(Identifiers.keyProblem("\u0000"));
        assertNotNull(Identifiers.keyProblem(" "), "a lone space is a trailing space");
        assertNull(Identifiers.keyProblem("\uD83D\uDE00"));
    }

    @Test
    void the_name_length_limit_counts_characters_after_the_alphabet_check() {
        assertTrue(Identifiers.nameProblem("x".repeat(256)).contains("at most 255"));
        assertTrue(Identifiers.nameProblem("a b").contains("[A-Za-z0-9._:-]"));
        assertTrue(Identifiers.keyProblem("\uD83D\uDE00".repeat(256)).contains("got 256"));
    }

    @Test
    void each_broken_rule_is_named_in_the_problem() {
        assertTrue(Identifiers.nameProblem("").startsWith("is required"));
        assertTrue(Identifiers.keyProblem("").startsWith("is required"));
        assertTrue(Identifiers.keyProblem(null).startsWith("is required"));
        assertEquals("must be well-formed Unicode (lone surrogate at index 1)", Identifiers.keyProblem("a\uD83Db"));
        assertEquals("must be well-formed Unicode (lone surrogate at index 2)", Identifiers.keyProblem("ab\uDE00"));
        assertEquals("must not contain U+0000", Identifiers.keyProblem("a\u0000"));
        assertTrue(Identifiers.keyProblem("k ").contains("must not end with a space"));
    }

    @Test
    void well_formed_means_no_lone_surrogate() {
        assertTrue(Identifiers.isWellFormed(""));
        assertTrue(Identifiers.isWellFormed("a\uD83D\uDE00b"));
        assertFalse(Identifiers.isWellFormed("a\uD83D"));
        assertFalse(Identifiers.isWellFormed("\uD83Db"));
        assertFalse(Identifiers.isWellFormed("a\uDE00"));
        assertFalse(Identifiers.isWellFormed("\uD83D\uDE00\uDE00"), "a low surrogate after a complete pair");
    }

    @Test
    void an_invalid_request_keeps_its_rules_in_order_and_cannot_be_changed() {
        List<FieldError> rules = new ArrayList<>(List.of(new FieldError("a", "x"), new FieldError("b", "y")));
        InvalidRequestException e = new InvalidRequestException(rules);
        rules.clear();

        assertEquals(List.of(new FieldError("a", "x"), new FieldError("b", "y")), e.errors());
        assertEquals("a: x", e.getMessage());
        assertThrows(UnsupportedOperationException.class, () -> e.errors().clear());
        assertEquals("invalid request", new InvalidRequestException(List.of()).getMessage());
    }
}
