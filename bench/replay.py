#!/usr/bin/env python3
"""Replay a JSONL file of events through a running tenant-mq over HTTP and verify delivery.

Each input line is {"tenant", "topic", "partitionKey", "id", "payload"}, in publish order.
The replay publishes in batches, consumes every (tenant, topic) with one consumer group and
acks, then checks that every event was delivered exactly once, in file order per
(tenant, topic, partitionKey). It prints counts and throughput, and exits 0 only when
nothing is missing, duplicated or out of order.

Topics get a run suffix (--run-id, random by default) so every run starts clean.
Standard library only.
"""
import argparse
import gzip
import http.client
import json
import os
import queue
import sys
import threading
import time
import urllib.parse
import uuid
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_FILE = os.path.normpath(os.path.join(HERE, "..", "..", "shared", "data", "git-history-events.jsonl.gz"))


class Client:
    """One keep-alive HTTP connection; not shared between threads."""

    def __init__(self, base):
        u = urllib.parse.urlparse(base)
        self.host, self.port = u.hostname, u.port or 80
        self.prefix = u.path.rstrip("/")
        self.conn = None

    def post(self, path, body, timeout=60):
        data = json.dumps(body, ensure_ascii=False).encode("utf-8")
        for attempt in range(5):
            try:
                if self.conn is None:
                    self.conn = http.client.HTTPConnection(self.host, self.port, timeout=timeout)
                self.conn.request("POST", self.prefix + path, body=data,
                                  headers={"Content-Type": "application/json"})
                r = self.conn.getresponse()
                text = r.read()
                if r.status == 503 and attempt < 4:  # database briefly unavailable: retry as told
                    time.sleep(float(r.getheader("Retry-After", "1")))
                    continue
                if r.status // 100 != 2:
                    raise RuntimeError("POST %s -> %d %s" % (path, r.status, text[:500]))
                return json.loads(text)
            except (ConnectionError, http.client.HTTPException, OSError):
                self.conn = None
                if attempt == 4:
                    raise
                time.sleep(0.5)


def quote(s):
    return urllib.parse.quote(s, safe="")


def load(path, limit):
    opener = gzip.open if path.endswith(".gz") else open
    events = []
    with opener(path, "rt", encoding="utf-8") as f:
        for line in f:
            if limit and len(events) >= limit:
                break
            line = line.strip()
            if line:
                events.append(json.loads(line))
    return events


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--url", default="http://localhost:8080", help="service base URL")
    ap.add_argument("--file", default=DEFAULT_FILE, help="JSONL or JSONL.gz input (default: shared data set)")
    ap.add_argument("--limit", type=int, default=0, help="replay only the first N events (0 = all)")
    ap.add_argument("--batch", type=int, default=500, help="messages per publish call")
    ap.add_argument("--publishers", type=int, default=2, help="publisher threads (keys are split among them)")
    ap.add_argument("--max-messages", type=int, default=500, help="maxMessages per fetch")
    ap.add_argument("--visibility", type=int, default=120, help="visibilitySeconds per fetch")
    ap.add_argument("--group", default="replay", help="consumer group name")
    ap.add_argument("--run-id", default=uuid.uuid4().hex[:8], help="suffix of the topics of this run")
    ap.add_argument("--idle-timeout", type=float, default=60, help="give up after this many seconds without progress")
    args = ap.parse_args()

    events = load(args.file, args.limit)
    if not events:
        print("replay: no events in %s" % args.file, file=sys.stderr)
        return 2
    topic_of = lambda e: "%s-%s" % (e["topic"], args.run_id)
    # Expected order per (tenant, topic, partitionKey): the file order.
    expected = {}
    for i, e in enumerate(events):
        expected.setdefault((e["tenant"], topic_of(e), e["partitionKey"]), []).append(e["id"])
    streams = sorted({(e["tenant"], topic_of(e)) for e in events})
    expected_per_stream = {s: 0 for s in streams}
    for e in events:
        expected_per_stream[(e["tenant"], topic_of(e))] += 1

    print("replay: %d events, %d streams, %d partition keys, run id %s, target %s"
          % (len(events), len(streams), len(expected), args.run_id, args.url), flush=True)

    # Keys are split among publisher threads by hash, so each key is published by one thread
    # in file order, while different keys go in parallel.
    lanes = [[] for _ in range(args.publishers)]
    for e in events:
        lane = zlib.crc32(("%s\0%s" % (e["tenant"], e["partitionKey"])).encode("utf-8")) % args.publishers
        lanes[lane].append(e)

    errors = []
    published = [0]
    lock = threading.Lock()
    publish_done = threading.Event()

    def publisher(lane):
        client = Client(args.url)
        pending = {}
        def flush(stream):
            batch = pending.pop(stream, [])
            if not batch:
                return
            tenant, topic = stream
            r = client.post("/tenants/%s/topics/%s/messages" % (quote(tenant), quote(topic)), {"messages": batch})
            dups = sum(1 for m in r["messages"] if m["duplicate"])
            if dups:
                raise RuntimeError("%d duplicates on a clean run" % dups)
            with lock:
                published[0] += len(batch)
        try:
            for e in lane:
                stream = (e["tenant"], topic_of(e))
                pending.setdefault(stream, []).append(
                    {"partitionKey": e["partitionKey"], "id": e["id"], "payload": e.get("payload")})
                if len(pending[stream]) >= args.batch:
                    flush(stream)
            for stream in list(pending):
                flush(stream)
        except Exception as ex:  # reported at the end; stops the run
            errors.append("publisher: %r" % ex)

    delivered = {}   # key -> list of ids in first-delivery order
    seen = set()
    duplicates = [0]
    consumed = {s: 0 for s in streams}

    def consumer(stream):
        tenant, topic = stream
        client = Client(args.url)
        base = "/tenants/%s/topics/%s/consumer-groups/%s" % (quote(tenant), quote(topic), quote(args.group))
        last_progress = time.time()
        try:
            while consumed[stream] < expected_per_stream[stream] and not errors:
                r = client.post(base + "/fetch", {"maxMessages": args.max_messages, "waitSeconds": 1,
                                                  "visibilitySeconds": args.visibility})
                msgs = r["messages"]
                if not msgs:
                    if publish_done.is_set() and time.time() - last_progress > args.idle_timeout:
                        errors.append("consumer %s/%s: no progress for %ss" % (tenant, topic, args.idle_timeout))
                        return
                    continue
                last_progress = time.time()
                with lock:
                    for m in msgs:
                        ident = (tenant, topic, m["partitionKey"], m["id"])
                        if ident in seen:
                            duplicates[0] += 1
                            continue
                        seen.add(ident)
                        delivered.setdefault((tenant, topic, m["partitionKey"]), []).append(m["id"])
                        consumed[stream] += 1
                acks = client.post(base + "/ack", {"receipts": [m["receipt"] for m in msgs]})
                bad = [a["status"] for a in acks["results"] if a["status"] != "ACKED"]
                if bad:
                    errors.append("consumer %s/%s: ack statuses %s" % (tenant, topic, sorted(set(bad))))
                    return
        except Exception as ex:
            errors.append("consumer %s/%s: %r" % (tenant, topic, ex))

    started = time.time()
    consumers = [threading.Thread(target=consumer, args=(s,), daemon=True) for s in streams]
    for t in consumers:
        t.start()
    pubs = [threading.Thread(target=publisher, args=(lane,), daemon=True) for lane in lanes]
    for t in pubs:
        t.start()
    for t in pubs:
        t.join()
    publish_done.set()
    publish_secs = time.time() - started
    for t in consumers:
        t.join()
    total_secs = time.time() - started

    missing = 0
    out_of_order = 0
    for key, ids in expected.items():
        got = delivered.get(key, [])
        missing += len(set(ids) - set(got))
        position = {i: n for n, i in enumerate(ids)}
        last = -1
        for i in got:
            n = position.get(i, -1)
            if n != last + 1:
                out_of_order += 1
            last = max(last, n)
    unique = len(seen)
    print("replay: published %d in %.1fs (%.0f msg/s)" % (published[0], publish_secs, published[0] / max(publish_secs, 1e-9)))
    print("replay: delivered %d, duplicates %d, missing %d, out of order %d, in %.1fs (%.0f msg/s end to end)"
          % (unique, duplicates[0], missing, out_of_order, total_secs, unique / max(total_secs, 1e-9)))
    for e in errors:
        print("replay: error: " + e, file=sys.stderr)
    ok = not errors and missing == 0 and out_of_order == 0 and duplicates[0] == 0 and unique == len(events)
    print("replay: %s" % ("OK" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
