"""The generated Python client against the packaged service (docs/api.md, "Clients"): publish
(a null payload and exact numbers included), long-poll fetch (with a byte budget too), ack, extend, nack into the
dead-letter topic and the admin requeue, all through ``tenant_mq_client``.

Until the service leases a new consumer group's partitions within its first fetch, that fetch
may only register interest and answer [] (docs/api.md, "Fetch and order"): ``fetch_at_least`` fetches with
``wait_seconds`` > 0 and repeats until the messages come.
"""
import concurrent.futures
import time
import uuid

from tenant_mq_client import (ConsumeApi, ExtendRequest, FetchRequest, MessageState, NackRequest,
                              OutgoingMessage, PublishApi, PublishRequest, ReceiptsRequest, ReceiptStatus,
                              SettingOverrides, SettingSource)

from conftest import MAX_DELIVERIES

BIG_INT = 123456789012345678901234567890  # beyond 64 bits: Python ints are exact


def unique(prefix):
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def publish(client, tenant, topic, *messages):
    return PublishApi(client).publish(tenant, topic, PublishRequest(messages=list(messages)))


def fetch_at_least(client, tenant, topic, group, count, visibility_seconds=30, within_s=30):
    got = []
    deadline = time.monotonic() + within_s
    while len(got) < count:
        assert time.monotonic() < deadline, f"only {len(got)} of {count} messages of {topic} within {within_s} s"
        got += ConsumeApi(client).fetch(tenant, topic, group, FetchRequest(
            max_messages=100, wait_seconds=2, visibility_seconds=visibility_seconds)).messages
    return got


def settle(client, tenant, topic, group, message, op="ack"):
    api = ConsumeApi(client)
    if op == "ack":
        return api.ack(tenant, topic, group, ReceiptsRequest(receipts=[message.receipt])).results[0].status
    return api.nack(tenant, topic, group, NackRequest(receipts=[message.receipt], delay_seconds=0,
                                                      reason=op)).results[0].status


def let_time_pass(seconds, why):
    """Wall-clock time the service's behaviour depends on (a visibility timeout): ``why`` names it."""
    time.sleep(seconds)


def state_of(admin, tenant, topic, key, message_id, group):
    groups = admin.admin_inspect_message(tenant, topic, key, message_id).consumer_groups
    return next(g.state for g in groups if g.consumer_group == group)


def test_a_null_payload_and_big_numbers_are_published_and_fetched_unchanged(client, tenant):
    topic = unique("exact")
    published = publish(client, tenant, topic,
                        OutgoingMessage(partition_key="k", id="null-payload", payload=None),
                        OutgoingMessage(partition_key="k", id="big", payload={"n": BIG_INT, "s": "x"},
                                        metadata={"source": "python-it"}))
    assert [m.id for m in published.messages] == ["null-payload", "big"]
    assert not published.messages[0].duplicate

    got = fetch_at_least(client, tenant, topic, "g", 2)
    assert got[0].payload is None
    assert got[1].payload == {"n": BIG_INT, "s": "x"}
    assert got[1].metadata == {"source": "python-it", "queue_name": tenant}

    assert settle(client, tenant, topic, "g", got[0]) == ReceiptStatus.ACKED
    assert settle(client, tenant, topic, "g", got[1]) == ReceiptStatus.ACKED
    assert settle(client, tenant, topic, "g", got[1]) == ReceiptStatus.ALREADY_ACKED
    again = publish(client, tenant, topic, OutgoingMessage(partition_key="k", id="big", payload=1))
    assert again.messages[0].duplicate


def test_a_fetch_with_a_byte_budget_returns_no_more_payload_bytes_than_it_except_a_larger_first_message_alone(
        client, tenant):
    topic = unique("bytes")
    kilobyte = "x" * 998  # 1000 bytes of JSON text with its quotes
    publish(client, tenant, topic, *[OutgoingMessage(partition_key="k", id=i, payload=kilobyte) for i in "abc"])
    got = []
    deadline = time.monotonic() + 30
    while not got:
        assert time.monotonic() < deadline, "no message within 30 s"
        got = ConsumeApi(client).fetch(tenant, topic, "g", FetchRequest(
            max_messages=100, max_bytes=2500, wait_seconds=2)).messages
    assert [m.id for m in got] == ["a", "b"], "2000 of 2500 bytes; 3000 would not fit"
    for m in got:
        assert settle(client, tenant, topic, "g", m) == ReceiptStatus.ACKED
    alone = ConsumeApi(client).fetch(tenant, topic, "g", FetchRequest(max_messages=100, max_bytes=10, wait_seconds=2)).messages
    assert [m.id for m in alone] == ["c"], "larger than the budget: delivered alone"
    assert settle(client, tenant, topic, "g", alone[0]) == ReceiptStatus.ACKED


def test_a_long_poll_returns_a_message_published_while_it_waits(client, tenant):
    topic = unique("long-poll")
    publish(client, tenant, topic, OutgoingMessage(partition_key="k", id="first", payload=1))
    assert settle(client, tenant, topic, "g", fetch_at_least(client, tenant, topic, "g", 1)[0]) == ReceiptStatus.ACKED

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        poll = pool.submit(ConsumeApi(client).fetch, tenant, topic, "g", FetchRequest(wait_seconds=25),
                           _request_timeout=40)
        publish(client, tenant, topic, OutgoingMessage(partition_key="k", id="second", payload=2))
        woken = poll.result(timeout=40).messages
    assert [m.id for m in woken] == ["second"]
    assert settle(client, tenant, topic, "g", woken[0]) == ReceiptStatus.ACKED


def test_an_extended_message_stays_invisible_past_its_first_visibility_timeout(client, tenant):
    topic = unique("extend")
    publish(client, tenant, topic, OutgoingMessage(partition_key="k", id="slow", payload=1))
    m = fetch_at_least(client, tenant, topic, "g", 1, visibility_seconds=5)[0]
    extended = ConsumeApi(client).extend(tenant, topic, "g", ExtendRequest(receipts=[m.receipt], visibility_seconds=60))
    assert extended.results[0].status == ReceiptStatus.EXTENDED
    let_time_pass(7, "the fetch's visibility timeout (5 s) and two scheduler ticks (1 s)")
    assert ConsumeApi(client).fetch(tenant, topic, "g", FetchRequest(wait_seconds=1)).messages == []
    assert settle(client, tenant, topic, "g", m) == ReceiptStatus.ACKED


def test_nacks_dead_letter_the_message_with_the_reason_and_an_admin_requeue_delivers_it_again(client, admin, tenant):
    topic = unique("nack")
    publish(client, tenant, topic, OutgoingMessage(partition_key="order-1", id="bad", payload={"amount": "twelve"}))
    for attempt in range(1, MAX_DELIVERIES + 1):
        m = fetch_at_least(client, tenant, topic, "billing", 1)[0]
        assert m.delivery_attempt == attempt
        assert settle(client, tenant, topic, "billing", m, op="amount does not parse") == ReceiptStatus.NACKED

    dead = fetch_at_least(client, tenant, topic + ".dlq", "ops", 1)[0]
    assert dead.id == "bad"
    assert dead.payload == {"amount": "twelve"}
    assert dead.metadata["dead_letter_reason"] == "amount does not parse"
    assert dead.metadata["original_topic"] == topic
    assert dead.metadata["consumer_group"] == "billing"
    assert dead.metadata["delivery_attempts"] == str(MAX_DELIVERIES)
    assert state_of(admin, tenant, topic, "order-1", "bad", "billing") == MessageState.DEAD

    requeued = admin.admin_requeue(tenant, topic + ".dlq", "order-1", "bad")
    assert requeued.consumer_groups == ["billing"]
    again = fetch_at_least(client, tenant, topic, "billing", 1)[0]
    assert (again.id, again.delivery_attempt) == ("bad", 1)
    assert settle(client, tenant, topic, "billing", again) == ReceiptStatus.ACKED
    assert state_of(admin, tenant, topic, "order-1", "bad", "billing") == MessageState.ACKED


def test_a_fetch_acks_the_last_batch_and_takes_the_next_in_one_call(client, tenant):
    topic = unique("fetch-ack")
    publish(client, tenant, topic, *[OutgoingMessage(partition_key="k", id=f"m{i}", payload=i) for i in range(4)])
    api = ConsumeApi(client)
    first = []
    deadline = time.monotonic() + 30
    while not first:
        assert time.monotonic() < deadline, "no first batch within 30 s"
        first = api.fetch(tenant, topic, "g", FetchRequest(max_messages=2, wait_seconds=2)).messages
    assert [m.id for m in first] == ["m0", "m1"]

    answer = api.fetch(tenant, topic, "g", FetchRequest(max_messages=2, wait_seconds=0,
                                                        ack=[m.receipt for m in first] + ["not-a-receipt"]))

    # The acks settle first, so the partition's next messages come in the same answer.
    assert [r.status for r in answer.ack_results] == [ReceiptStatus.ACKED, ReceiptStatus.ACKED, ReceiptStatus.INVALID]
    assert [m.id for m in answer.messages] == ["m2", "m3"]
    again = api.fetch(tenant, topic, "g", FetchRequest(wait_seconds=0, ack=[m.receipt for m in first]))
    assert [r.status for r in again.ack_results] == [ReceiptStatus.ALREADY_ACKED] * 2


def test_a_groups_max_deliveries_of_one_dead_letters_on_the_first_nack_and_clearing_restores_the_global(
        client, admin, tenant):
    topic = unique("settings")
    settings = admin.admin_put_settings(tenant, topic, SettingOverrides(max_deliveries=1), consumer_group="billing")
    assert settings.effective.max_deliveries.value == 1
    assert settings.effective.max_deliveries.source == SettingSource.GROUP
    assert admin.admin_get_settings(tenant, topic).effective.max_deliveries.source == SettingSource.GLOBAL
    publish(client, tenant, topic, OutgoingMessage(partition_key="order-1", id="bad", payload=1))
    message = fetch_at_least(client, tenant, topic, "billing", 1)[0]
    assert settle(client, tenant, topic, "billing", message, op="fails") == ReceiptStatus.NACKED
    assert state_of(admin, tenant, topic, "order-1", "bad", "billing") == MessageState.DEAD

    cleared = admin.admin_clear_settings(tenant, topic, consumer_group="billing")
    assert cleared.effective.max_deliveries.value == MAX_DELIVERIES
    assert cleared.effective.max_deliveries.source == SettingSource.GLOBAL
def test_the_traceparent_of_a_publish_comes_back_with_its_message_and_none_without_one(client, tenant):
    topic = unique("traced")
    traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
    PublishApi(client).publish(tenant, topic, PublishRequest(messages=[OutgoingMessage(
        partition_key="k", id="traced", payload=1)]), traceparent=traceparent, tracestate="congo=t61rcWkgMzE")
    publish(client, tenant, topic, OutgoingMessage(partition_key="k", id="untraced", payload=2))
    PublishApi(client).publish(tenant, topic, PublishRequest(messages=[OutgoingMessage(
        partition_key="k", id="invalid", payload=3)]), traceparent="00-not-a-traceparent")
    got = {m.id: m for m in fetch_at_least(client, tenant, topic, "tracing", 3)}
    assert (got["traced"].traceparent, got["traced"].tracestate) == (traceparent, "congo=t61rcWkgMzE")
    assert (got["untraced"].traceparent, got["untraced"].tracestate) == (None, None)
    assert got["invalid"].traceparent is None, "an invalid traceparent is ignored, not an error"


def test_a_dry_run_shows_the_move_and_a_reset_to_the_earliest_delivers_the_topic_again_in_order(client, admin, tenant):
    topic = unique("replay")
    published = publish(client, tenant, topic, OutgoingMessage(partition_key="k", id="a", payload=1),
                        OutgoingMessage(partition_key="k", id="b", payload=2))
    first = published.messages[0].offset
    for m in fetch_at_least(client, tenant, topic, "billing", 2):
        assert settle(client, tenant, topic, "billing", m) == ReceiptStatus.ACKED

    preview = admin.admin_reset_offsets(tenant, topic, "billing", "earliest", dry_run=True)
    assert preview.dry_run is True
    assert preview.partitions[0].partition_key == "k"
    assert preview.partitions[0].to_offset == first - 1
    assert preview.partitions[0].next_offset == first

    done = admin.admin_reset_offsets(tenant, topic, "billing", "earliest", partition_key="k")
    assert done.dry_run is False
    assert [m.id for m in fetch_at_least(client, tenant, topic, "billing", 2)] == ["a", "b"]


def test_a_delayed_message_carries_deliver_at_and_holds_its_partition_until_due(client, admin, tenant):
    topic = unique("delayed")
    publish(client, tenant, topic,
            OutgoingMessage(partition_key="k", id="later", payload=1, deliver_after_seconds=3),
            OutgoingMessage(partition_key="k", id="after", payload=2))
    inspected = admin.admin_inspect_message(tenant, topic, "k", "later")
    assert (inspected.deliver_at - inspected.created_at).total_seconds() == 3
    assert admin.admin_inspect_message(tenant, topic, "k", "after").deliver_at is None
    got = fetch_at_least(client, tenant, topic, "g", 2)
    assert [m.id for m in got] == ["later", "after"], "in offset order: the delay held the partition"
