package dev.tenantmq.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The resolution and bounds of per-topic and per-group settings (docs/settings.md, "Per-topic and per-group settings"). */
class EffectiveSettingsTest {
    private static final SettingOverrides GLOBAL = new SettingOverrides(5, 30, 43_200, 1_000L, 300_000L, 604_800L,
            86_400L, true);

    private static SettingOverrides maxDeliveries(int n) {
        return new SettingOverrides(n, null, null, null, null, null, null, null);
    }

    @Test
    void the_group_beats_the_topic_which_beats_the_global_setting() {
        EffectiveSettings both = EffectiveSettings.resolve(GLOBAL, maxDeliveries(3), maxDeliveries(1));
        assertEquals(new EffectiveSettings.Value<>(1, EffectiveSettings.Source.GROUP), both.maxDeliveries());
        EffectiveSettings topic = EffectiveSettings.resolve(GLOBAL, maxDeliveries(3), SettingOverrides.NONE);
        assertEquals(new EffectiveSettings.Value<>(3, EffectiveSettings.Source.TOPIC), topic.maxDeliveries());
        EffectiveSettings none = EffectiveSettings.resolve(GLOBAL, SettingOverrides.NONE, SettingOverrides.NONE);
        assertEquals(new EffectiveSettings.Value<>(5, EffectiveSettings.Source.GLOBAL), none.maxDeliveries());
        assertEquals(EffectiveSettings.Source.GLOBAL, both.deadLetterEnabled().source());
    }

    @Test
    void a_group_never_changes_retention_or_the_dedup_window_of_its_topic() {
        SettingOverrides group = new SettingOverrides(null, null, null, null, null, 1L, 1L, null);
        EffectiveSettings s = EffectiveSettings.resolve(GLOBAL, SettingOverrides.NONE, group);
        assertEquals(Duration.ofDays(7), s.retentionMaxAge());
        assertEquals(Duration.ofDays(1), s.dedupWindow());
        assertEquals(List.of("retentionMaxAgeSeconds", "dedupWindowSeconds"),
                group.problems(true).stream().map(FieldError::field).toList());
        assertEquals(List.of(), group.problems(false));
    }

    @Test
    void the_default_visibility_is_capped_at_the_maximum_and_a_longer_fetch_is_named() {
        SettingOverrides topic = new SettingOverrides(null, 600, null, null, null, null, null, null);
        SettingOverrides group = new SettingOverrides(null, null, 120, null, null, null, null, null);
        EffectiveSettings s = EffectiveSettings.resolve(GLOBAL, topic, group);
        assertEquals(Duration.ofSeconds(120), s.defaultVisibility());
        assertEquals(120, s.defaultVisibilitySeconds().value(), "the view shows the value fetches get");
        assertEquals(EffectiveSettings.Source.GROUP, s.defaultVisibilitySeconds().source());
        assertTrue(s.visibilityAboveMaximum(Duration.ofSeconds(120)).isEmpty());
        FieldError e = s.visibilityAboveMaximum(Duration.ofSeconds(121)).orElseThrow();
        assertEquals("visibilitySeconds", e.field());
        assertTrue(e.message().contains("consumer group"), e.message());
    }

    /**
     * A nack backoff base above the cap that applies is named, set at this level or inherited
     * (global: 1 s .. 5 min); a level that sets neither is not blamed for what it inherits.
     */
    @Test
    void a_backoff_base_above_the_cap_it_gets_is_named_set_here_or_inherited() {
        EffectiveSettings global = EffectiveSettings.resolve(GLOBAL, SettingOverrides.NONE, SettingOverrides.NONE);
        assertEquals(List.of("nackBackoffBaseMillis"), fields(backoff(5_000L, 2_000L), global));
        assertEquals(List.of("nackBackoffBaseMillis"), fields(backoff(600_000L, null), global));
        assertEquals(List.of("nackBackoffCapMillis"), fields(backoff(null, 999L), global));
        assertEquals(List.of(), fields(backoff(2_000L, 2_000L), global));
        assertEquals(List.of(), fields(backoff(300_000L, null), global));

        EffectiveSettings topic = EffectiveSettings.resolve(GLOBAL, backoff(null, 2_000L), SettingOverrides.NONE);
        FieldError inherited = backoff(5_000L, null).problems(true, topic).get(0);
        assertEquals("must be at most nackBackoffCapMillis (2000 ms, the topic's; got 5000): the backoff never"
                + " exceeds its cap", inherited.message());
        assertEquals(List.of(), fields(backoff(5_000L, 8_000L), topic));
        EffectiveSettings stale = EffectiveSettings.resolve(GLOBAL, backoff(10_000L, 2_000L), SettingOverrides.NONE);
        assertEquals(List.of(), fields(maxDeliveries(3), stale), "not this level's doing");
        assertEquals(List.of("nackBackoffBaseMillis"), fields(backoff(-1L, 2_000L), topic), "the range first, once");
    }

    private static SettingOverrides backoff(Long base, Long cap) {
        return new SettingOverrides(null, null, null, base, cap, null, null, null);
    }

    private static List<String> fields(SettingOverrides o, EffectiveSettings inherited) {
        return o.problems(false, inherited).stream().map(FieldError::field).toList();
    }

    @Test
    void overrides_take_the_bounds_of_the_global_settings() {
        assertEquals(List.of("maxDeliveries"), fields(maxDeliveries(0)));
        assertEquals(List.of(), fields(maxDeliveries(SettingOverrides.MIN_MAX_DELIVERIES)));
        assertEquals(List.of("defaultVisibilitySeconds", "maxVisibilitySeconds"),
                fields(new SettingOverrides(null, 0, ConsumeLimits.MAX_VISIBILITY_SECONDS + 1, null, null, null, null, null)));
        assertEquals(List.of("defaultVisibilitySeconds"), fields(new SettingOverrides(null, 61, 60, null, null, null, null, null)));
        assertEquals(List.of("nackBackoffBaseMillis", "nackBackoffCapMillis"), fields(new SettingOverrides(null, null, null,
                -1L, SettingOverrides.MAX_BACKOFF_MILLIS + 1, null, null, null)));
        assertEquals(List.of(), fields(new SettingOverrides(null, null, null, 0L, SettingOverrides.MAX_BACKOFF_MILLIS, 0L,
                0L, false)));
        assertEquals(List.of("retentionMaxAgeSeconds", "dedupWindowSeconds"),
                fields(new SettingOverrides(null, null, null, null, null, -1L, -1L, null)));
        long longest = SettingOverrides.MAX_AGE_SECONDS;
        assertEquals(List.of("retentionMaxAgeSeconds", "dedupWindowSeconds"),
                fields(new SettingOverrides(null, null, null, null, null, longest + 1, Long.MAX_VALUE, null)));
        assertEquals(List.of(), fields(new SettingOverrides(null, null, null, null, null, longest, longest, null)));
    }

    @Test
    void the_backoff_doubles_from_the_base_up_to_the_cap() {
        NackBackoff b = new NackBackoff(Duration.ofSeconds(1), Duration.ofSeconds(5));
        assertEquals(List.of(Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(4), Duration.ofSeconds(5)),
                List.of(b.after(1), b.after(2), b.after(3), b.after(4)));
        assertEquals(Duration.ofSeconds(5), b.after(1_000));
        assertEquals(Duration.ZERO, new NackBackoff(Duration.ZERO, Duration.ZERO).after(3));
    }

    private static List<String> fields(SettingOverrides o) {
        return o.problems(false).stream().map(FieldError::field).toList();
    }
}
