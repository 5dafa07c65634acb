#!/usr/bin/env bash
# Browser test of the admin web UI (docs/operations.md, "Admin web UI").
#
# Needs target/quarkus-app/quarkus-run.jar (./mvnw -B verify or package). It
#  1. installs Debian's chromium (apt) and Playwright for Python $PW_VERSION (PyPI) into a venv
#     in /var/cache/tenant-mq (or target/ when that is not writable), once. Playwright drives the
#     system Chromium (executable_path); it never downloads a browser;
#  2. starts the embedded MariaDB (scripts/schemathesis/EmbeddedMariaDb.java) and the packaged
#     jar on free loopback ports, tenants ui-demo and ui-other, an admin token and
#     mq.max-deliveries=1 (one nack dead-letters);
#  3. runs scripts/ui-test/ui_test.py: log in, pick a tenant, publish through the UI, dead-letter
#     (data-plane fetch + nack), inspect and requeue through the UI, delete with the confirmation,
#     a wrong token. Screenshots land in target/ui-screenshots/*.png.
set -euo pipefail
cd "$(dirname "$0")/.."

PW_VERSION=1.58.0
ADMIN_TOKEN=ui-test-admin-token-0123456789
JAR=target/quarkus-app/quarkus-run.jar
OUT=target/ui-test
SHOTS=target/ui-screenshots
[ -f "$JAR" ] || { echo "ui-test.sh: $JAR is missing; run ./mvnw -B verify (or package) first" >&2; exit 2; }
rm -rf "$OUT" "$SHOTS" && mkdir -p "$OUT" "$SHOTS"
started=$(date +%s)

# ---- 1. Chromium (Debian) and Playwright (PyPI, pinned).
command -v curl >/dev/null || { apt-get update -q && apt-get install -y -q curl; }
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
if [ ! -x "$CHROMIUM" ]; then
  apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium
fi
"$CHROMIUM" --version
cache=/var/cache/tenant-mq
{ mkdir -p "$cache" && [ -w "$cache" ]; } 2>/dev/null || cache="$PWD/target"
venv="$cache/ui-test-playwright-$PW_VERSION"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import playwright' 2>/dev/null; then
  rm -rf "$venv.tmp"
  if ! python3 -m venv "$venv.tmp" >/dev/null 2>&1; then
    rm -rf "$venv.tmp"
    apt-get update -q && apt-get install -y -q python3-venv
    python3 -m venv "$venv.tmp"
  fi
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 "$venv.tmp/bin/pip" install -q "playwright==$PW_VERSION"
  rm -rf "$venv" && mv "$venv.tmp" "$venv"
  sed -i "1s|$venv.tmp|$venv|" "$venv"/bin/* 2>/dev/null || true
fi
echo "chromium and playwright ready after $(( $(date +%s) - started )) s"

# ---- 2. database and service.
. scripts/embedded-db.sh
start_embedded_mariadb

PORT=$(free_port)
MANAGEMENT_PORT=$(free_port)
BASE="http://127.0.0.1:$PORT"
READY="http://127.0.0.1:$MANAGEMENT_PORT/q/health/ready"
QUARKUS_HTTP_HOST=127.0.0.1 QUARKUS_HTTP_PORT="$PORT" QUARKUS_DATASOURCE_JDBC_URL="$DB_URL" \
  QUARKUS_MANAGEMENT_HOST=127.0.0.1 QUARKUS_MANAGEMENT_PORT="$MANAGEMENT_PORT" \
  QUARKUS_DATASOURCE_USERNAME=root QUARKUS_DATASOURCE_PASSWORD= \
  MQ_TENANTS=ui-demo,ui-other MQ_SUBSCRIBER_NAME=ui-test-subscriber MQ_ADMIN_TOKEN="$ADMIN_TOKEN" MQ_MAX_DELIVERIES=1 \
  java -jar "$JAR" >"$OUT/service.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 120); do curl -sf "$READY" >/dev/null && break; sleep 0.5; done
curl -sf "$READY" >/dev/null || { echo "service not ready" >&2; tail -50 "$OUT/service.log" >&2; exit 1; }
echo "service ready on $BASE after $(( $(date +%s) - started )) s"

# ---- 3. the browser test.
set +e
CHROMIUM="$CHROMIUM" nice -n 10 "$venv/bin/python" scripts/ui-test/ui_test.py "$BASE" "$ADMIN_TOKEN" "$SHOTS" 2>&1 \
  | tee "$OUT/run.log"
status=${PIPESTATUS[0]}
set -e
if grep -q "ERROR" "$OUT/service.log"; then echo "--- service log errors:"; grep -n "ERROR" "$OUT/service.log" | head -20; fi
ls -1 "$SHOTS"
echo "ui-test wall time: $(( $(date +%s) - started )) s (exit $status)"
exit "$status"
