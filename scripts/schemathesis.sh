#!/usr/bin/env bash
# Bounded contract fuzzing of the packaged service with schemathesis (docs/api.md, "API contract").
#
# Needs target/quarkus-app/quarkus-run.jar (./mvnw -B verify or package). It
#  1. installs schemathesis $ST_VERSION from PyPI into a venv in /var/cache/tenant-mq (or
#     target/ when that is not writable), once;
#  2. starts the embedded MariaDB (scripts/schemathesis/EmbeddedMariaDb.java) and the packaged
#     jar on free loopback ports, with tenant demo, an admin token and mq.max-deliveries=1;
#  3. seeds the README's messages and one dead letter (order-42/evt-3 in orders.dlq), so that
#     the examples of openapi.yaml name stored messages and the requeue operation is reached;
#  4. runs schemathesis over every operation of openapi.yaml, positive and negative data, with
#     a fixed example count per operation and a fixed seed, and exits non-zero on any finding.
# Settings: ST_MAX_EXAMPLES (default 100), ST_SEED (default 9), ST_WORKERS (default 2).
set -euo pipefail
cd "$(dirname "$0")/.."

ST_VERSION=4.32.5
MAX_EXAMPLES=${ST_MAX_EXAMPLES:-100}
SEED=${ST_SEED:-9}
WORKERS=${ST_WORKERS:-2}
ADMIN_TOKEN=schemathesis-admin-token-0123456789
JAR=target/quarkus-app/quarkus-run.jar
OUT=target/schemathesis
[ -f "$JAR" ] || { echo "schemathesis.sh: $JAR is missing; run ./mvnw -B verify (or package) first" >&2; exit 2; }
rm -rf "$OUT" && mkdir -p "$OUT"
started=$(date +%s)

command -v curl >/dev/null || { apt-get update -q && apt-get install -y -q curl; }

# ---- 1. schemathesis in a venv of its own (pinned version).
cache=/var/cache/tenant-mq
{ mkdir -p "$cache" && [ -w "$cache" ]; } 2>/dev/null || cache="$PWD/target"
venv="$cache/schemathesis-$ST_VERSION"
if [ ! -x "$venv/bin/st" ]; then
  if ! python3 -m venv "$venv.tmp" >/dev/null 2>&1; then
    rm -rf "$venv.tmp"
    apt-get update -q && apt-get install -y -q python3-venv
    python3 -m venv "$venv.tmp"
  fi
  "$venv.tmp/bin/pip" install -q "schemathesis==$ST_VERSION"
  rm -rf "$venv" && mv "$venv.tmp" "$venv"
  # A venv records its own path; recreate the scripts' shebangs for the final location.
  sed -i "1s|$venv.tmp|$venv|" "$venv"/bin/* 2>/dev/null || true
fi
"$venv/bin/st" --version

# ---- 2. database and service.
. scripts/embedded-db.sh
start_embedded_mariadb

PORT=$(free_port)
MANAGEMENT_PORT=$(free_port) # health and metrics (quarkus.management.*)
BASE="http://127.0.0.1:$PORT"
READY="http://127.0.0.1:$MANAGEMENT_PORT/q/health/ready"
QUARKUS_HTTP_HOST=127.0.0.1 QUARKUS_HTTP_PORT="$PORT" QUARKUS_DATASOURCE_JDBC_URL="$DB_URL" \
  QUARKUS_MANAGEMENT_HOST=127.0.0.1 QUARKUS_MANAGEMENT_PORT="$MANAGEMENT_PORT" \
  QUARKUS_DATASOURCE_USERNAME=root QUARKUS_DATASOURCE_PASSWORD= \
  MQ_TENANTS=demo MQ_SUBSCRIBER_NAME=schemathesis MQ_ADMIN_TOKEN="$ADMIN_TOKEN" MQ_MAX_DELIVERIES=1 \
  java -jar "$JAR" >"$OUT/service.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 120); do curl -sf "$READY" >/dev/null && break; sleep 0.5; done
curl -sf "$READY" >/dev/null || { echo "service not ready" >&2; tail -50 "$OUT/service.log" >&2; exit 1; }
echo "service ready on $BASE after $(( $(date +%s) - started )) s"

# ---- 3. seed: a dead letter (order-42/evt-3 nacked once with mq.max-deliveries=1), then the README's messages.
post() { curl -sS -f -X POST "$BASE$1" -H 'Content-Type: application/json' -d "$2"; }
post /tenants/demo/topics/orders/messages \
  '{"messages":[{"partitionKey":"order-42","id":"evt-3","payload":{"amount":"twelve"}}]}' >/dev/null
receipt=""
for _ in $(seq 1 10); do
  receipt=$(post /tenants/demo/topics/orders/consumer-groups/billing/fetch '{"maxMessages":1,"waitSeconds":5}' \
    | python3 -c 'import json,sys; m=json.load(sys.stdin)["messages"]; print(m[0]["receipt"] if m else "")')
  [ -n "$receipt" ] && break
done
[ -n "$receipt" ] || { echo "seed: evt-3 was never delivered" >&2; exit 1; }
post /tenants/demo/topics/orders/consumer-groups/billing/nack \
  "{\"receipts\":[\"$receipt\"],\"delaySeconds\":0,\"reason\":\"amount does not parse\"}" >/dev/null
curl -sS -f -G -H "Authorization: Bearer $ADMIN_TOKEN" "$BASE/admin/messages" --data-urlencode tenant=demo \
  --data-urlencode topic=orders.dlq --data-urlencode partitionKey=order-42 --data-urlencode id=evt-3 >/dev/null \
  || { echo "seed: no dead letter evt-3 in orders.dlq" >&2; exit 1; }
post /tenants/demo/topics/orders/messages '{"messages":[
  {"partitionKey":"order-42","id":"evt-1","payload":{"amount":12.50},"metadata":{"source":"web"}},
  {"partitionKey":"order-42","id":"evt-2","payload":{"amount":99.99}},
  {"partitionKey":"order-7","id":"evt-1","payload":"hello"}]}' >/dev/null
echo "seeded: dead letter demo/orders.dlq/order-42/evt-3 and the README's three messages"

# ---- 4. the run.
cat >"$OUT/schemathesis.toml" <<TOML
# Data-plane operations are fuzzed on the served tenant (any other is 403 before the body is
# stored); the admin token reaches the admin operations.
[parameters]
"path.tenant" = "demo"
TOML
set +e
SCHEMATHESIS_HOOKS=hooks PYTHONPATH=scripts/schemathesis "$venv/bin/st" --config-file "$OUT/schemathesis.toml" run openapi.yaml \
  --url "$BASE" \
  -H "Authorization: Bearer $ADMIN_TOKEN" \
  --checks not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance,response_headers_conformance,negative_data_rejection,positive_data_acceptance \
  --mode all \
  --phases examples,coverage,fuzzing \
  --max-examples "$MAX_EXAMPLES" \
  --seed "$SEED" \
  --generation-database none \
  --workers "$WORKERS" \
  --request-timeout 40 \
  --no-color \
  --output-sanitize false \
  --report ndjson,junit --report-dir "$OUT" \
  2>&1 | tee "$OUT/run.log"
status=${PIPESTATUS[0]}
set -e

# Request counts per operation, from the event stream.
"$venv/bin/python" - "$OUT" <<'PY'
import collections, glob, json, sys
counts = collections.Counter()
statuses = collections.Counter()
for path in glob.glob(sys.argv[1] + "/*.ndjson"):
    for line in open(path):
        line = line.strip()
        if not line or "ScenarioFinished" not in line:
            continue
        event = json.loads(line)
        finished = event.get("ScenarioFinished") or {}
        recorder = finished.get("recorder") or {}
        for interaction in (recorder.get("interactions") or {}).values():
            request = interaction.get("request") or {}
            response = interaction.get("response") or {}
            label = recorder.get("label") or "?"
            counts[label] += 1
            statuses[response.get("status_code", "none")] += 1
print("requests per operation:")
for label, n in sorted(counts.items()):
    print(f"  {n:6d}  {label}")
print(f"operations: {len(counts)}  requests: {sum(counts.values())}")
print("responses by status:", dict(sorted(statuses.items(), key=lambda kv: str(kv[0]))))
PY
grep -q "ERROR\|Exception" "$OUT/service.log" && { echo "--- service log errors:"; grep -n "ERROR" "$OUT/service.log" | head -20; }
echo "schemathesis wall time: $(( $(date +%s) - started )) s (exit $status)"
exit "$status"
