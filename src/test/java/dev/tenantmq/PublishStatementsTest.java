package dev.tenantmq;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;

/**
 * Publish locks and inserts with a constant number of statements per request, however many
 * partitions a batch touches (issue "Throughput"): the statements are counted as the database
 * received them ({@link GeneralLog}), by the test's own topic.
 */
@QuarkusTest
class PublishStatementsTest {
    private static final int BATCH = 100;

    @Inject
    AgroalDataSource dataSource;

    @Test
    void a_batch_over_many_existing_partitions_costs_the_statements_of_a_batch_over_one() throws Exception {
        String tenant = TestIds.tenant();
        String topic = TestIds.topic();
        Api.publishOk(tenant, topic, batch("first", i -> "k" + i)); // every partition exists from here on

        List<String> onePartition = statementsOf(topic, () -> Api.publishOk(tenant, topic, batch("one", i -> "k0")));
        List<String> manyPartitions = statementsOf(topic, () -> Api.publishOk(tenant, topic, batch("many", i -> "k" + i)));

        assertEquals(onePartition.size(), manyPartitions.size(),
                "statements for 100 messages in 1 partition " + brief(onePartition) + " vs in 100 partitions " + brief(manyPartitions));
        assertEquals(3, manyPartitions.size(),
                "lock the heads and look up the ids, insert, move the heads: " + brief(manyPartitions));
    }

    @Test
    void a_batch_over_many_new_partitions_costs_the_statements_of_a_batch_over_one_new_partition() throws Exception {
        String tenant = TestIds.tenant();
        String topic = TestIds.topic();

        List<String> onePartition = statementsOf(topic, () -> Api.publishOk(tenant, topic, batch("one", i -> "new-0")));
        List<String> manyPartitions = statementsOf(topic,
                () -> Api.publishOk(tenant, topic, batch("many", i -> "new-" + (i + 1))));

        assertEquals(onePartition.size(), manyPartitions.size(),
                "statements for a new partition " + brief(onePartition) + " vs 100 new partitions " + brief(manyPartitions));
        // New partitions' heads are created by one more statement, under READ COMMITTED: no second pass.
        assertEquals(4, manyPartitions.size(),
                "lock the heads and look up the ids, create the heads, insert, move the heads: " + brief(manyPartitions));
    }

    private static List<Map<String, Object>> batch(String idPrefix, IntFunction<String> partitionKey) {
        List<Map<String, Object>> messages = new ArrayList<>();
        for (int i = 0; i < BATCH; i++) {
            messages.add(Api.msg(partitionKey.apply(i), idPrefix + "-" + i, Map.of("n", i)));
        }
        return messages;
    }

    /** The start of each statement, one per line: enough to tell them apart in a failure. */
    private static String brief(List<String> statements) {
        return statements.size() + " statements:\n  " + String.join("\n  ", statements.stream()
                .map(sql -> sql.replaceAll("\\s+", " "))
                .map(line -> line.substring(0, Math.min(70, line.length())))
                .toList());
    }

    private List<String> statementsOf(String topic, Runnable request) throws Exception {
        try (GeneralLog log = GeneralLog.start(dataSource)) {
            request.run();
            return log.stop(topic);
        }
    }
}
