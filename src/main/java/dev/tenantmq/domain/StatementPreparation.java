package dev.tenantmq.domain;

import dev.tenantmq.config.MqConfig;
import dev.tenantmq.store.Db;
import io.quarkus.runtime.Startup;
import jakarta.inject.Singleton;

/**
 * At start-up, tells the store after how many runs a statement text is prepared on the database
 * server ({@code mq.server-prepare-after-runs}; docs/architecture.md, "Server-side prepared
 * statements"). The store reads no configuration itself.
 */
@Startup
@Singleton
public class StatementPreparation {
    StatementPreparation(MqConfig config, Db db) {
        db.prepareOnServerAfter(config.serverPrepareAfterRuns());
    }
}
