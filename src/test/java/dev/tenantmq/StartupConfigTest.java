package dev.tenantmq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tenantmq.config.MqConfig;
import dev.tenantmq.config.ProcessIdentity;
import io.smallrye.config.ConfigValidationException;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import io.smallrye.config.common.MapBackedConfigSource;
import io.smallrye.config.validator.BeanValidationConfigValidator;
import jakarta.validation.Validation;
import jakarta.validation.Validator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * MQ_TENANTS is parsed once at start-up; an empty or invalid list stops the process with a clear
 * message, and so does a setting out of its bounds. The configuration is built as Quarkus builds
 * it, with the Bean Validation constraints of {@link MqConfig} checked.
 */
class StartupConfigTest {
    private static final Validator VALIDATOR = Validation.buildDefaultValidatorFactory().getValidator();

    private static MqConfig config(Map<String, String> values) {
        Map<String, String> all = new HashMap<>(values);
        SmallRyeConfig config = new SmallRyeConfigBuilder()
                .withMapping(MqConfig.class)
                .withValidator((BeanValidationConfigValidator) () -> VALIDATOR)
                .withConverter(java.time.Duration.class, 100, new io.quarkus.runtime.configuration.DurationConverter())
                .withSources(new MapBackedConfigSource("test", all) {})
                .build();
        return config.getConfigMapping(MqConfig.class);
    }

    private static ProcessIdentity identity(Map<String, String> values) throws Exception {
        var ctor = ProcessIdentity.class.getDeclaredConstructor(MqConfig.class);
        ctor.setAccessible(true);
        try {
            return ctor.newInstance(config(values));
        } catch (java.lang.reflect.InvocationTargetException e) {
            throw (Exception) e.getCause();
        }
    }

    /**
     * Why start-up refused {@code values}: the broken constraints, one per line, each starting with
     * the setting's name (as Quarkus lists them after "Configuration validation failed:"), or
     * {@link ProcessIdentity}'s message.
     */
    private static String refusal(Map<String, String> values) {
        RuntimeException e = assertThrows(RuntimeException.class, () -> identity(values));
        if (e instanceof ConfigValidationException invalid) {
            StringBuilder all = new StringBuilder();
            for (int i = 0; i < invalid.getProblemCount(); i++) {
                all.append(i == 0 ? "" : "\n").append(invalid.getProblem(i).getMessage());
            }
            return all.toString();
        }
        assertTrue(e instanceof IllegalStateException, e.toString());
        return e.getMessage();
    }

    @Test
    void missing_tenants_refuse_start_with_a_clear_message() {
        Exception e = assertThrows(IllegalStateException.class, () -> identity(Map.of()));
        assertTrue(e.getMessage().startsWith("MQ_TENANTS"), e.getMessage());
    }

    @Test
    void invalid_tenant_names_refuse_start_naming_the_value() {
        Exception e = assertThrows(IllegalStateException.class, () -> identity(Map.of("mq.tenants", "good,bad name")));
        assertTrue(e.getMessage().contains("'bad name'"), e.getMessage());
    }

    @Test
    void a_tick_not_shorter_than_the_heartbeat_timeout_refuses_start() {
        String message = refusal(Map.of("mq.tenants", "a", "mq.tick-interval", "10s", "mq.heartbeat-timeout", "10s"));
        assertTrue(message.startsWith("mq.tick-interval"), message);
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource({
        "mq.admin.token, short, mq.admin.token must be at least 16 characters (MQ_ADMIN_TOKEN)",
        "mq.max-deliveries, 0, mq.max-deliveries must be at least 1",
        "mq.retention.batch-size, 0, mq.retention.batch-size must be between 1 and 10000",
        "mq.retention.batch-size, 10001, mq.retention.batch-size must be between 1 and 10000",
        "mq.retention.max-age, -1s, mq.retention.max-age must not be negative",
        "mq.tick-interval, 500ms, mq.tick-interval must be at least 1s",
        "mq.retention.interval, 900ms, mq.retention.interval must be at least 1s",
        "mq.publish.dedup-window, -1s, mq.publish.dedup-window must not be negative",
        "mq.retention.max-age, 3651d, mq.retention.max-age must be at most 3650d",
        "mq.publish.dedup-window, 3651d, mq.publish.dedup-window must be at most 3650d",
        "mq.publish.dedup-window, PT87601H, mq.publish.dedup-window must be at most 3650d",
        "mq.publish.max-metadata-bytes, 63, mq.publish.max-metadata-bytes must be between 64 and 61440",
        "mq.publish.max-metadata-bytes, 61441, mq.publish.max-metadata-bytes must be between 64 and 61440",
        "mq.auth.max-token-lifetime, 30s, mq.auth.max-token-lifetime must be between 1m and 365d",
        "mq.auth.max-token-lifetime, 366d, mq.auth.max-token-lifetime must be between 1m and 365d"})
    void out_of_range_settings_refuse_start_naming_the_setting(String key, String value, String named) {
        String message = refusal(Map.of("mq.tenants", "a", key, value));
        assertTrue(message.startsWith(named), message);
    }

    @Test
    void a_default_byte_budget_above_the_ceiling_refuses_start() {
        String message = refusal(Map.of("mq.tenants", "a", "mq.fetch.max-bytes", "1048576",
                "mq.fetch.default-max-bytes", "1048577"));
        assertTrue(message.startsWith("mq.fetch.default-max-bytes (1048577) must be at most mq.fetch.max-bytes"), message);
        assertTrue(refusal(Map.of("mq.tenants", "a", "mq.fetch.max-bytes", "1023")).startsWith("mq.fetch.max-bytes"));
    }

    @Test
    void a_nack_backoff_base_above_its_cap_refuses_start_naming_both() throws Exception {
        String message = refusal(Map.of("mq.tenants", "a", "mq.nack.backoff-base", "10m"));
        assertTrue(message.startsWith("mq.nack.backoff-base (PT10M) must be at most mq.nack.backoff-cap (PT5M)"), message);
        identity(Map.of("mq.tenants", "a", "mq.nack.backoff-base", "5m")); // equal to the default cap: starts
        identity(Map.of("mq.tenants", "a", "mq.nack.backoff-base", "0s", "mq.nack.backoff-cap", "0s"));
    }

    @Test
    void a_receipt_key_shorter_than_32_bytes_refuses_start_without_printing_it() throws Exception {
        var ctor = dev.tenantmq.domain.ReceiptSigning.class.getDeclaredConstructor(MqConfig.class);
        ctor.setAccessible(true);
        var e = assertThrows(java.lang.reflect.InvocationTargetException.class,
                () -> ctor.newInstance(config(Map.of("mq.tenants", "a", "mq.receipt.key", "short-s3cr3t"))));
        String message = e.getCause().getMessage();
        assertTrue(message.startsWith("mq.receipt.key must be at least 32 bytes"), message);
        assertTrue(!message.contains("short-s3cr3t"), message);
        ctor.newInstance(config(Map.of("mq.tenants", "a", "mq.receipt.key", "x".repeat(32),
                "mq.receipt.previous-keys", "y".repeat(32) + "," + "z".repeat(40))));
    }

    @Test
    void every_broken_bound_is_named_at_once_and_a_secret_is_never_printed() {
        String message = refusal(Map.of("mq.tenants", "a", "mq.max-deliveries", "0", "mq.admin.token", "s3cr3t",
                "mq.retention.batch-size", "0"));
        assertTrue(message.contains("mq.max-deliveries"), message);
        assertTrue(message.contains("mq.admin.token"), message);
        assertTrue(message.contains("mq.retention.batch-size"), message);
        assertTrue(!message.contains("s3cr3t"), message);
    }

    @Test
    void settings_at_their_bounds_start() throws Exception {
        identity(Map.of("mq.tenants", "a", "mq.max-deliveries", "1", "mq.retention.batch-size", "10000",
                "mq.retention.max-age", "0s", "mq.tick-interval", "1s", "mq.retention.interval", "1s",
                "mq.publish.dedup-window", "0s", "mq.publish.max-metadata-bytes", "64",
                "mq.admin.token", "x".repeat(16)));
    }

    /**
     * A retention max-age or dedup window has the same upper bound globally as in a topic's
     * override (docs/settings.md): a longer one would leave the DATETIME range in the SQL and turn
     * the rule off.
     */
    @Test
    void the_longest_retention_age_and_dedup_window_start_and_are_those_of_a_topic_override() throws Exception {
        Map<String, String> longest = Map.of("mq.tenants", "a", "mq.retention.max-age", "3650d",
                "mq.publish.dedup-window", "3650d");
        identity(longest);
        long overrideBound = dev.tenantmq.model.SettingOverrides.MAX_AGE_SECONDS;
        assertEquals(overrideBound, config(longest).retention().maxAge().toSeconds());
        assertEquals(overrideBound, config(longest).publish().dedupWindow().toSeconds());
    }

    @Test
    void the_maximum_token_lifetime_is_24_hours_unless_set() throws Exception {
        assertEquals(java.time.Duration.ofHours(24), config(Map.of("mq.tenants", "a")).auth().maxTokenLifetime());
        assertEquals(java.time.Duration.ofHours(1), config(Map.of("mq.tenants", "a", "mq.auth.max-token-lifetime", "1h"))
                .auth().maxTokenLifetime());
    }

    @Test
    void retention_max_age_takes_days() throws Exception {
        assertEquals(java.time.Duration.ofDays(7), config(Map.of("mq.tenants", "a")).retention().maxAge());
        assertEquals(java.time.Duration.ofDays(2), config(Map.of("mq.tenants", "a", "mq.retention.max-age", "2d"))
                .retention().maxAge());
    }

    @Test
    void tenants_are_trimmed_and_served_in_order() throws Exception {
        ProcessIdentity id = identity(Map.of("mq.tenants", "a, b ,c", "mq.subscriber-name", "pod-1"));
        assertEquals(List.of("a", "b", "c"), id.tenantNames());
        assertEquals("pod-1", id.subscriberName().value());
    }
}
