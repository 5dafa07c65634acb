#!/usr/bin/env python3
"""Another tenant's publish latency, quiet and under a slow-body attack (docs/security.md, "Slow clients").

Measures p50/p99 of sequential single-message publishes of tenant B against a running service,
first quiet, then while SLOW connections of tenant A each declare Content-Length: 100000 and send
one body byte every 2 s (from --attacker-address, so a per-client bound counts them apart from
B). Prints one JSON object; the bar of docs/security.md is B's p99 under attack within 2x of quiet.

    bench/slow-bodies.py --url http://127.0.0.1:8080 --tenants acc-a,acc-b
"""
import argparse
import http.client
import json
import socket
import statistics
import threading
import time
import urllib.parse


def publish_latencies(url, tenant, n, timeout=60.0):
    """Milliseconds of n sequential publishes of one message each, on one kept-alive connection."""
    u = urllib.parse.urlparse(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=timeout)
    out = []
    for i in range(n):
        body = json.dumps({"messages": [{"partitionKey": "k%d" % (i % 8), "payload": {"n": i}}]})
        t0 = time.perf_counter()
        try:
            conn.request("POST", "/tenants/%s/topics/latency/messages" % tenant, body,
                         {"Content-Type": "application/json"})
            r = conn.getresponse()
            r.read()
            if r.status != 201:
                raise RuntimeError("publish answered %d" % r.status)
        except (OSError, http.client.HTTPException):
            conn.close()
            conn = http.client.HTTPConnection(u.hostname, u.port, timeout=timeout)
            out.append(timeout * 1000)  # a timeout counts as the whole wait
            continue
        out.append((time.perf_counter() - t0) * 1000)
    conn.close()
    return out


def pct(values, p):
    s = sorted(values)
    return round(s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))], 2)


def summary(values):
    return {"n": len(values), "p50_ms": pct(values, 50), "p99_ms": pct(values, 99),
            "max_ms": round(max(values), 2), "mean_ms": round(statistics.mean(values), 2)}


class Attack:
    """SLOW connections that each declare 100,000 body bytes and send one every `interval` s."""

    def __init__(self, url, tenant, count, source, interval):
        u = urllib.parse.urlparse(url)
        self.socks, self.stop, self.interval = [], threading.Event(), interval
        self.closed_by_server = 0
        for _ in range(count):
            s = socket.socket()
            s.bind((source, 0))
            s.connect((u.hostname, u.port))
            s.sendall(("POST /tenants/%s/topics/x/messages HTTP/1.1\r\nHost: x\r\n"
                       "Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n{" % tenant).encode())
            self.socks.append(s)
        self.thread = threading.Thread(target=self.trickle, daemon=True)
        self.thread.start()

    def trickle(self):
        while not self.stop.wait(self.interval):
            for s in list(self.socks):
                try:
                    s.sendall(b" ")
                except OSError:
                    self.socks.remove(s)
                    self.closed_by_server += 1

    def close(self):
        self.stop.set()
        self.thread.join()
        for s in self.socks:
            s.close()


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--url", required=True)
    p.add_argument("--tenants", default="acc-a,acc-b", help="attacker,victim")
    p.add_argument("--slow", type=int, default=100)
    p.add_argument("--publishes", type=int, default=300)
    p.add_argument("--attacker-address", default="127.0.0.2")
    p.add_argument("--interval", type=float, default=2.0)
    p.add_argument("--timeout", type=float, default=60.0, help="seconds a publish may take; longer counts as this")
    a = p.parse_args()
    attacker, victim = a.tenants.split(",")
    publish_latencies(a.url, victim, 50)  # warm-up
    quiet = publish_latencies(a.url, victim, a.publishes)
    attack = Attack(a.url, attacker, a.slow, a.attacker_address, a.interval)
    time.sleep(1)  # every slow body has reached the service
    t0 = time.perf_counter()
    under = publish_latencies(a.url, victim, a.publishes, a.timeout)
    measured_s = time.perf_counter() - t0
    closed = attack.closed_by_server
    attack.close()
    result = {"slow_connections": a.slow, "quiet": summary(quiet), "under_attack": summary(under),
              "under_attack_seconds": round(measured_s, 1),
              "slow_closed_by_server_while_measuring": closed,
              "timed_out": sum(1 for v in under if v >= a.timeout * 1000),
              "p99_ratio": round(pct(under, 99) / max(pct(quiet, 99), 0.001), 2)}
    result["within_2x"] = result["p99_ratio"] <= 2.0
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
