package dev.tenantmq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tenantmq.config.MqConfig;
import dev.tenantmq.config.ProcessIdentity;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import io.smallrye.config.common.MapBackedConfigSource;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** MQ_TENANTS is parsed once at start-up; an empty or invalid list stops the process with a clear message. */
class StartupConfigTest {
    private static MqConfig config(Map<String, String> values) {
        Map<String, String> all = new HashMap<>(values);
        SmallRyeConfig config = new SmallRyeConfigBuilder()
                .withMapping(MqConfig.class)
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
        Exception e = assertThrows(IllegalStateException.class, () -> identity(Map.of("mq.tenants", "a",
                "mq.tick-interval", "10s", "mq.heartbeat-timeout", "10s")));
        assertTrue(e.getMessage().startsWith("mq.tick-interval"), e.getMessage());
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource({
        "mq.admin.token, short, MQ_ADMIN_TOKEN",
        "mq.max-deliveries, 0, mq.max-deliveries",
        "mq.retention.batch-size, 0, mq.retention.batch-size",
        "mq.retention.max-age, -1s, mq.retention.max-age",
        "mq.tick-interval, 500ms, mq.tick-interval",
        "mq.retention.interval, 900ms, mq.retention.interval",
        "mq.publish.dedup-window, -1s, mq.publish.dedup-window"})
    void out_of_range_settings_refuse_start_naming_the_setting(String key, String value, String named) {
        Exception e = assertThrows(IllegalStateException.class, () -> identity(Map.of("mq.tenants", "a", key, value)));
        assertTrue(e.getMessage().startsWith(named), e.getMessage());
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
