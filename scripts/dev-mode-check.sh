#!/usr/bin/env bash
# The README's first command works (README, "Set-up: two commands"): starts `./mvnw quarkus:dev`
# on the embedded default database, on free ports, waits until it is ready, runs the README's
# first session (publish three messages to tenant demo, fetch them, ack them) and checks every
# answer, then stops dev mode and checks that its processes are gone. Dev mode loads the
# application in a class loader of its own, unlike the packaged jar and the tests: a setting
# that names an application class for a library to load (a JDBC driver property, say) can stop
# it from starting while everything else passes.
#
# Usage: scripts/dev-mode-check.sh [seconds to wait for ready, default 420]. Needs curl and
# python3. About a minute and a half on an idle 2-core machine once the dependencies are there.
set -euo pipefail
cd "$(dirname "$(readlink -f "$0")")/.."

command -v curl >/dev/null || { apt-get update -q && apt-get install -y -q curl; }
command -v setsid >/dev/null || { apt-get update -q && apt-get install -y -q util-linux; }

WAIT=${1:-420}
LOG=$(mktemp "${TMPDIR:-/tmp}/dev-mode-check.XXXXXX.log")
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
HTTP=$(free_port)
MANAGEMENT=$(free_port)

echo "dev-mode-check: ./mvnw quarkus:dev on port $HTTP (management $MANAGEMENT), log $LOG"
# A process group of its own, so that stopping it stops Maven, the forked dev JVM and its database.
setsid ./mvnw -B quarkus:dev -Dquarkus.http.port="$HTTP" -Dquarkus.management.port="$MANAGEMENT" \
  -Dquarkus.console.enabled=false </dev/null >"$LOG" 2>&1 &
PGID=$!
stop() {
  kill -TERM -- "-$PGID" 2>/dev/null || true
  for _ in $(seq 1 60); do
    kill -0 -- "-$PGID" 2>/dev/null || return 0
    sleep 1
  done
  kill -KILL -- "-$PGID" 2>/dev/null || true
}
trap stop EXIT
fail() { echo "dev-mode-check: FAILED: $*"; tail -n 40 "$LOG"; exit 1; }

for ((i = 0; i < WAIT; i++)); do
  grep -q "Failed to start quarkus" "$LOG" && fail "dev mode did not start"
  kill -0 "$PGID" 2>/dev/null || fail "dev mode exited"
  code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$MANAGEMENT/q/health/ready" || true)
  [[ $code == 200 ]] && break
  sleep 1
done
[[ ${code:-} == 200 ]] || fail "not ready after $WAIT s (last answer $code)"
echo "dev-mode-check: ready after about $i s"

python3 - "$HTTP" <<'EOF' || fail "the README's first session"
import json, sys, urllib.request

base = f"http://127.0.0.1:{sys.argv[1]}/tenants/demo/topics/dev-mode-check"

def post(path, body):
    req = urllib.request.Request(base + path, json.dumps(body).encode(), {"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        return r.status, json.loads(r.read())

status, published = post("/messages", {"messages": [
    {"partitionKey": "order-42", "id": "evt-1", "payload": {"amount": 12.50}},
    {"partitionKey": "order-42", "id": "evt-2", "payload": {"amount": 99.99}},
    {"partitionKey": "order-7", "id": "evt-1", "payload": "hello"}]})
assert status == 201 and [m["duplicate"] for m in published["messages"]] == [False] * 3, published
status, fetched = post("/consumer-groups/billing/fetch", {"maxMessages": 10, "waitSeconds": 5})
got = sorted((m["partitionKey"], m["id"], json.dumps(m["payload"])) for m in fetched["messages"])
assert got == [("order-42", "evt-1", '{"amount": 12.5}'), ("order-42", "evt-2", '{"amount": 99.99}'),
               ("order-7", "evt-1", '"hello"')], got
status, acked = post("/consumer-groups/billing/ack", {"receipts": [m["receipt"] for m in fetched["messages"]]})
assert [r["status"] for r in acked["results"]] == ["ACKED"] * 3, acked
print("dev-mode-check: published 3, fetched 3, acked 3")
EOF

stop
trap - EXIT
kill -0 -- "-$PGID" 2>/dev/null && fail "dev mode's processes are still running"
echo "dev-mode-check: PASSED"
