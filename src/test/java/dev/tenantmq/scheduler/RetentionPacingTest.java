package dev.tenantmq.scheduler;

import static dev.tenantmq.Api.seedAndDrain;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tenantmq.TestIds;
import dev.tenantmq.config.MqConfig;
import dev.tenantmq.config.ProcessIdentity;
import dev.tenantmq.config.Stopping;
import dev.tenantmq.domain.FetchSignals;
import dev.tenantmq.domain.SettingsCache;
import dev.tenantmq.ops.QueueMetrics;
import dev.tenantmq.store.RetentionStore;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A periodic retention run pauses after each delete transaction, {@code mq.retention.pause-ratio}
 * (1 here, the default) times as long as its work took (docs/operations.md, "Retention"); an
 * explicit purge does not pause. The job here records its pauses instead of sleeping.
 */
@QuarkusTest
class RetentionPacingTest {
    private final String tenant = TestIds.tenant();
    private final String group = TestIds.group();

    @Inject
    RetentionStore store;
    @Inject
    ProcessIdentity identity;
    @Inject
    QueueMetrics metrics;
    @Inject
    MqConfig config;
    @Inject
    FetchSignals signals;
    @Inject
    SettingsCache settings;
    @Inject
    Stopping stopping;

    private final List<Long> pauses = Collections.synchronizedList(new ArrayList<>());

    private RetentionJob recordingJob() {
        return new RetentionJob(store, identity, metrics, config, signals, settings, stopping, pauses::add);
    }

    @Test
    void a_periodic_run_pauses_after_each_delete_transaction_and_an_explicit_purge_does_not() {
        assertEquals(1.0, config.retention().pauseRatio(), "the default");
        // Three topics with consumed messages: a delete transaction each at least (one topic's
        // deletes never share a transaction with another's).
        List<String> topics = List.of(TestIds.topic(), TestIds.topic(), TestIds.topic());
        for (String topic : topics) {
            seedAndDrain(tenant, topic, group, List.of("a", "b"));
        }
        RetentionJob job = recordingJob();

        RetentionJob.RetentionResult result = job.runOnce();

        assertTrue(result.deleted() >= 6, "the consumed messages of the three topics: " + result);
        assertTrue(pauses.size() >= 3, "a pause after each delete transaction: " + pauses);
        assertTrue(pauses.stream().allMatch(p -> p > 0 && p <= RetentionJob.MAX_PAUSE_NANOS), pauses.toString());

        pauses.clear();
        String another = TestIds.topic();
        seedAndDrain(tenant, another, group, List.of("a"));
        assertEquals(1, job.purgeTopic(tenant, another, Duration.ofDays(7), 500));
        assertEquals(List.of(), pauses, "an explicit purge does not pause");
    }
}
