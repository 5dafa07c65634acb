package dev.tenantmq;

import static dev.tenantmq.Api.ack;
import static dev.tenantmq.Api.fetchOk;
import static dev.tenantmq.Api.msg;
import static dev.tenantmq.Api.nack;
import static dev.tenantmq.Api.publishOk;
import static dev.tenantmq.Delivered.attempts;
import static dev.tenantmq.Delivered.ids;
import static dev.tenantmq.Delivered.receipts;
import static dev.tenantmq.Fetch.upTo;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Requeue of a message that several consumer groups dead-lettered (SPEC "Dead letters"): each
 * of them receives the original again (same id and offset, deliveryAttempt 1) before any later
 * message of its partition, and a group that did not dead-letter it never receives it again.
 */
@QuarkusTest
class DeadLetterRequeueTest {
    /** The test profile's mq.max-deliveries (the default). */
    private static final int MAX_DELIVERIES = 5;

    @Inject
    AgroalDataSource dataSource;

    private final String tenant = TestIds.tenant();
    private final String topic = TestIds.topic();

    @Test
    void a_message_several_groups_dead_lettered_goes_back_to_each_of_them_and_to_no_other_group() throws Exception {
        List<String> failing = List.of(TestIds.group(), TestIds.group());
        String acking = TestIds.group();
        long offset = publishOk(tenant, topic, List.of(msg("k", "m", "poison"))).offset(0);
        for (String g : failing) {
            deadLetter(g);
        }
        List<Delivered> inAcking = fetchOk(tenant, topic, acking, upTo(10));
        assertEquals(List.of("m"), ids(inAcking));
        assertEquals(List.of("ACKED"), ack(tenant, topic, acking, receipts(inAcking)));

        given().header("Authorization", "Bearer " + AdminTest.TOKEN).queryParam("tenant", tenant)
                .queryParam("topic", topic + ".dlq").queryParam("partitionKey", "k").queryParam("id", "m")
                .post("/admin/messages/requeue").then().statusCode(200)
                .body("consumerGroups", equalTo(failing.stream().sorted().toList()))
                .body("originalOffset", equalTo((int) offset));

        publishOk(tenant, topic, List.of(msg("k", "later", 2)));
        for (String g : failing) {
            List<Delivered> again = fetchOk(tenant, topic, g, upTo(10));
            assertEquals(List.of("m", "later"), ids(again), g + " receives the requeued message first");
            assertEquals(offset, again.get(0).offset(), g + ": same offset");
            assertEquals(List.of(1, 1), attempts(again),
                    g + ": attempts start over");
            assertEquals(List.of("ACKED", "ACKED"), ack(tenant, topic, g, receipts(again)));
        }
        // The acking group holds its lease and receives what is new for it, and only that.
        List<Delivered> other = fetchOk(tenant, topic, acking, upTo(10));
        assertEquals(List.of("later"), ids(other), "a group that did not dead-letter m does not receive it again");
        assertEquals(List.of("ACKED"), ack(tenant, topic, acking, receipts(other)));
        StoredCounts.assertMatchStored(dataSource, tenant);
    }

    /**
     * A requeue takes the dead letter out of the dead-letter topic as an admin delete does: a
     * group that consumes the dead-letter topic and acknowledged the dead letters after it commits
     * over them at once, instead of counting them as lag until a later ack.
     */
    @Test
    void a_requeue_of_the_first_unacked_dead_letter_commits_a_dead_letter_consumer_over_the_ones_acked_after_it() {
        String failing = TestIds.group();
        String dlqReader = TestIds.group();
        String dlq = topic + ".dlq";
        publishOk(tenant, topic, List.of(msg("k", "m1", 1), msg("k", "m2", 2), msg("k", "m3", 3)));
        for (String id : List.of("m1", "m2", "m3")) {
            deadLetter(failing, id);
        }
        List<Delivered> dead = fetchOk(tenant, dlq, dlqReader, upTo(10));
        assertEquals(List.of("m1", "m2", "m3"), ids(dead));
        assertEquals(List.of("ACKED", "ACKED"), ack(tenant, dlq, dlqReader, receipts(dead).subList(1, 3)));
        assertEquals(0, CommittedOffsets.of(dataSource, tenant, dlqReader, dlq, "k"), "m1's dead letter holds it back");

        given().header("Authorization", "Bearer " + AdminTest.TOKEN).queryParam("tenant", tenant)
                .queryParam("topic", dlq).queryParam("partitionKey", "k").queryParam("id", "m1")
                .post("/admin/messages/requeue").then().statusCode(200);

        assertEquals(dead.get(2).offset(), CommittedOffsets.of(dataSource, tenant, dlqReader, dlq, "k"),
                "the dead-letter consumer committed over m2 and m3");
        List<Delivered> again = fetchOk(tenant, topic, failing, upTo(10));
        assertEquals(List.of("m1"), ids(again), "the requeued message goes back to the group that dead-lettered it");
    }

    /** Fetches and nacks m, the head of partition k, in {@code group} until it is dead-lettered. */
    private void deadLetter(String group) {
        deadLetter(group, "m");
    }

    /** Fetches and nacks {@code id}, the head of partition k, in {@code group} until it is dead-lettered. */
    private void deadLetter(String group, String id) {
        for (int attempt = 1; attempt <= MAX_DELIVERIES; attempt++) {
            List<Delivered> got = fetchOk(tenant, topic, group, upTo(1));
            assertEquals(List.of(id), ids(got), group + " attempt " + attempt);
            assertEquals(List.of("NACKED"), nack(tenant, topic, group, receipts(got), 0, "test"));
        }
    }
}
