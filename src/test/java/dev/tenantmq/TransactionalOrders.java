package dev.tenantmq;

import dev.tenantmq.jdbc.CommitNotifier;
import dev.tenantmq.jdbc.TransactionalPublisher;
import dev.tenantmq.jdbc.TransactionalPublisher.Message;
import dev.tenantmq.jdbc.TransactionalPublisher.Result;
import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;
import jakarta.transaction.Transactional;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The Quarkus example of docs/transactional-publish.md as a bean of the test application: an
 * application row and a publish in one {@code @Transactional} method, the committed notice sent
 * from a synchronization after the commit.
 */
@ApplicationScoped
public class TransactionalOrders {
    private static final TransactionalPublisher PUBLISHER = TransactionalPublisher.withDefaults();

    /** The test application's JTA datasource (application.properties, {@code %test.quarkus.datasource.app}). */
    @Inject
    @io.quarkus.agroal.DataSource("app")
    AgroalDataSource dataSource;

    @Inject
    TransactionSynchronizationRegistry transactions;

    private volatile CompletableFuture<Integer> notice = new CompletableFuture<>();

    /** What the last call's after-completion step did: the notice's HTTP status, or -2 when it sent none. */
    public CompletableFuture<Integer> notice() {
        return notice;
    }

    /**
     * Inserts the order and publishes its message; throws after both when {@code fail}, so the
     * transaction rolls back.
     */
    @Transactional
    public List<Result> placeOrder(CommitNotifier notifier, String tenant, String topic, String orderId, boolean fail)
            throws SQLException {
        notice = new CompletableFuture<>();
        CompletableFuture<Integer> sent = notice;
        try (Connection c = dataSource.getConnection()) {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO app_orders (tenant, order_id) VALUES (?, ?)")) {
                ps.setString(1, tenant);
                ps.setString(2, orderId);
                ps.executeUpdate();
            }
            List<Result> published = PUBLISHER.publish(c, tenant, topic, List.of(Message.of(orderId, "created", "1")));
            transactions.registerInterposedSynchronization(new Synchronization() {
                @Override
                public void beforeCompletion() {}

                @Override
                public void afterCompletion(int status) {
                    if (status == Status.STATUS_COMMITTED) {
                        notifier.committed(tenant, topic, published).thenAccept(sent::complete);
                    } else {
                        sent.complete(-2);
                    }
                }
            });
            if (fail) {
                throw new IllegalStateException("the order is refused after the publish");
            }
            return published;
        }
    }
}
