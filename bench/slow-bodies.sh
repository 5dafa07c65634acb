#!/usr/bin/env bash
# Another tenant's publish latency quiet and under 100 slow request bodies (docs/security.md,
# "Slow clients"): starts an embedded MariaDB and the packaged jar on free ports, runs
# bench/slow-bodies.py against it, prints its JSON and stops both. Needs target/quarkus-app
# (./mvnw -B package -DskipTests). Extra arguments go to bench/slow-bodies.py (--slow, --publishes).
set -euo pipefail
cd "$(dirname "$0")/.."

JAR=${SLOW_BODIES_JAR:-target/quarkus-app/quarkus-run.jar}  # another build (e.g. before a change) with SLOW_BODIES_JAR
OUT=target/slow-bodies
[ -f "$JAR" ] || { echo "slow-bodies.sh: $JAR is missing; run ./mvnw -B package -DskipTests first" >&2; exit 2; }
rm -rf "$OUT" && mkdir -p "$OUT"

. scripts/embedded-db.sh
start_embedded_mariadb

PORT=$(free_port)
MANAGEMENT_PORT=$(free_port)
READY="http://127.0.0.1:$MANAGEMENT_PORT/q/health/ready"
QUARKUS_HTTP_HOST=127.0.0.1 QUARKUS_HTTP_PORT="$PORT" QUARKUS_DATASOURCE_JDBC_URL="$DB_URL" \
  QUARKUS_MANAGEMENT_HOST=127.0.0.1 QUARKUS_MANAGEMENT_PORT="$MANAGEMENT_PORT" \
  QUARKUS_DATASOURCE_USERNAME=root QUARKUS_DATASOURCE_PASSWORD= \
  MQ_TENANTS=acc-a,acc-b MQ_SUBSCRIBER_NAME=slow-bodies \
  java -jar "$JAR" >"$OUT/service.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 240); do python3 -c "import urllib.request; urllib.request.urlopen('$READY')" 2>/dev/null && break; sleep 0.5; done
python3 bench/slow-bodies.py --url "http://127.0.0.1:$PORT" --tenants acc-a,acc-b "$@" | tee "$OUT/result.json"
echo "ERROR lines in the service log: $(grep -c ' ERROR ' "$OUT/service.log" || true)"
