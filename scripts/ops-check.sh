#!/usr/bin/env bash
# Checks the operations files against the running service (docs/operations.md, "Dashboard and alerts").
#
# Needs target/quarkus-app/quarkus-run.jar (./mvnw -B verify or package). It
#  1. installs the Debian package prometheus when promtool is missing (promtool and the server);
#  2. runs `promtool check rules` and `promtool test rules` on ops/prometheus/;
#  3. starts the embedded MariaDB (scripts/schemathesis/EmbeddedMariaDb.java) and the packaged jar
#     on free loopback ports (tenant demo, mq.max-deliveries=1, gauges refreshed every second);
#  4. drives traffic (publish, fetch, ack, nack to the DLQ, one delivery left in flight) so that
#     every series exists, scrapes /q/metrics on the management port, and fails if a metric that
#     ops/grafana/tenant-mq.json or ops/prometheus/alerts.yml names is not exported;
#  5. runs the Prometheus server for OPS_PROMETHEUS_SECONDS (30) scraping the jar every 2 s, with
#     the alert rules loaded, while traffic goes on; then evaluates every panel query of the
#     dashboard and each variable's label_values through its HTTP API and prints a table (no
#     Grafana can be installed here), and fails if a query errors or a rule is unhealthy.
# Output in target/ops-check/: metrics.txt, panels.txt, rules.json, service.log, prometheus.log.
set -euo pipefail
cd "$(dirname "$0")/.."

JAR=target/quarkus-app/quarkus-run.jar
OUT=target/ops-check
PROM_SECONDS=${OPS_PROMETHEUS_SECONDS:-30}
ADMIN_TOKEN=ops-check-admin-token-0123456789
DASHBOARD=ops/grafana/tenant-mq.json
RULES=ops/prometheus/alerts.yml
[ -f "$JAR" ] || { echo "ops-check.sh: $JAR is missing; run ./mvnw -B verify (or package) first" >&2; exit 2; }
rm -rf "$OUT" && mkdir -p "$OUT"
started=$(date +%s)

# ---- 1. promtool and the Prometheus server (Debian package prometheus).
command -v curl >/dev/null || { apt-get update -q && apt-get install -y -q curl; }
if ! command -v promtool >/dev/null || ! command -v prometheus >/dev/null; then
  apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q prometheus
fi
promtool --version | head -1

# ---- 2. the rules: syntax and unit tests.
echo "=== promtool check rules $RULES"
promtool check rules "$RULES"
echo "=== promtool test rules ops/prometheus/alerts.test.yml"
promtool test rules ops/prometheus/alerts.test.yml

# ---- 3. database and service.
. scripts/embedded-db.sh
start_embedded_mariadb

PORT=$(free_port)
MANAGEMENT_PORT=$(free_port)
BASE="http://127.0.0.1:$PORT"
METRICS="http://127.0.0.1:$MANAGEMENT_PORT/q/metrics"
READY="http://127.0.0.1:$MANAGEMENT_PORT/q/health/ready"
QUARKUS_HTTP_HOST=127.0.0.1 QUARKUS_HTTP_PORT="$PORT" QUARKUS_DATASOURCE_JDBC_URL="$DB_URL" \
  QUARKUS_MANAGEMENT_HOST=127.0.0.1 QUARKUS_MANAGEMENT_PORT="$MANAGEMENT_PORT" \
  QUARKUS_DATASOURCE_USERNAME=root QUARKUS_DATASOURCE_PASSWORD= \
  MQ_TENANTS=demo MQ_SUBSCRIBER_NAME=ops-check MQ_ADMIN_TOKEN="$ADMIN_TOKEN" MQ_MAX_DELIVERIES=1 \
  MQ_TICK_INTERVAL=1s MQ_METRICS_REFRESH_INTERVAL=1s \
  java -jar "$JAR" >"$OUT/service.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 120); do curl -sf "$READY" >/dev/null && break; sleep 0.5; done
curl -sf "$READY" >/dev/null || { echo "service not ready" >&2; tail -50 "$OUT/service.log" >&2; exit 1; }
echo "service ready on $BASE (management port $MANAGEMENT_PORT) after $(( $(date +%s) - started )) s"

# ---- 4. traffic, so that every series exists.
post() { curl -sS -f -X POST "$BASE$1" -H 'Content-Type: application/json' -d "$2"; }
receipts_of() { python3 -c 'import json,sys; print(json.dumps([m["receipt"] for m in json.load(sys.stdin)["messages"]]))'; }
fetch() { post "/tenants/demo/topics/$1/consumer-groups/$2/fetch" "{\"maxMessages\":$3,\"waitSeconds\":5,\"visibilitySeconds\":${4:-30}}"; }
post /tenants/demo/topics/orders/messages '{"messages":[
  {"partitionKey":"order-42","id":"evt-1","payload":{"amount":12.50}},
  {"partitionKey":"order-42","id":"evt-2","payload":{"amount":99.99}},
  {"partitionKey":"order-7","id":"evt-3","payload":"poison"},
  {"partitionKey":"order-9","id":"evt-4","payload":"slow"}]}' >/dev/null
delivered=0
for _ in $(seq 1 10); do
  batch=$(fetch orders billing 1 300)
  r=$(echo "$batch" | receipts_of)
  [ "$r" = "[]" ] && continue
  id=$(echo "$batch" | python3 -c 'import json,sys; print(json.load(sys.stdin)["messages"][0]["id"])')
  delivered=$((delivered + 1))
  case "$id" in
    evt-3) post /tenants/demo/topics/orders/consumer-groups/billing/nack "{\"receipts\":$r,\"delaySeconds\":0,\"reason\":\"poison\"}" >/dev/null ;;
    evt-4) ;; # left in flight (300 s visibility)
    *) post /tenants/demo/topics/orders/consumer-groups/billing/ack "{\"receipts\":$r}" >/dev/null ;;
  esac
  [ "$delivered" -ge 4 ] && break
done
curl -sS -f -G -H "Authorization: Bearer $ADMIN_TOKEN" "$BASE/admin/messages" --data-urlencode tenant=demo \
  --data-urlencode topic=orders.dlq --data-urlencode partitionKey=order-7 --data-urlencode id=evt-3 >/dev/null \
  || { echo "traffic: evt-3 was not dead-lettered" >&2; exit 1; }
post /tenants/demo/topics/orders/messages '{"messages":[{"partitionKey":"order-42","id":"evt-5","payload":1}]}' >/dev/null
echo "traffic: $delivered deliveries (ack, nack to orders.dlq, one left in flight), one message left waiting"

# The queue gauges appear on the next refresh (1 s here).
for _ in $(seq 1 30); do curl -sf "$METRICS" | grep -q '^mq_group_dead_letters{.*} 1' && break; sleep 1; done
curl -sf "$METRICS" >"$OUT/metrics.txt"

echo "=== metric names of the dashboard and the rules against /q/metrics"
python3 - "$DASHBOARD" "$RULES" "$OUT/metrics.txt" <<'PY'
import json, re, sys
dashboard, rules, scrape = sys.argv[1:4]
exprs = []
d = json.load(open(dashboard))
for p in d["panels"]:
    exprs += [t["expr"] for t in p.get("targets", [])]
for v in d["templating"]["list"]:
    q = v.get("query")
    if isinstance(q, dict):
        exprs.append(q["query"])
lines = open(rules).read().splitlines()
for i, line in enumerate(lines):  # each rule's expr: one line, or a block (|) of deeper lines
    m = re.match(r"^(\s+)expr:\s*(.*)$", line)
    if not m:
        continue
    if m.group(2) != "|":
        exprs.append(m.group(2))
        continue
    block = []
    for nxt in lines[i + 1:]:
        if nxt.strip() and len(nxt) - len(nxt.lstrip()) <= len(m.group(1)):
            break
        block.append(nxt)
    exprs.append("\n".join(block))
if not any("mq_ready" in e for e in exprs):
    sys.exit("no expr found in " + rules)
names = set()
for e in exprs:
    names |= set(re.findall(r"\b((?:mq|agroal|http_server)_[a-z0-9_]+)\b", e))
exported = set(re.findall(r"(?m)^([a-zA-Z_:][a-zA-Z0-9_:]*)[{ ]", open(scrape).read()))
missing = sorted(names - exported)
for n in sorted(names):
    print(f"  {'ok     ' if n in exported else 'MISSING'} {n}")
print(f"{len(names)} metric names used, {len(missing)} not exported")
sys.exit(1 if missing else 0)
PY

# ---- 5. the Prometheus server scrapes the jar; every panel query is evaluated against it.
PROM_PORT=$(free_port)
cat >"$OUT/prometheus.yml" <<YML
global:
  scrape_interval: 2s
  evaluation_interval: 2s
rule_files:
  - $PWD/$RULES
scrape_configs:
  - job_name: tenant-mq
    metrics_path: /q/metrics
    static_configs:
      - targets: ["127.0.0.1:$MANAGEMENT_PORT"]
YML
prometheus --config.file="$OUT/prometheus.yml" --storage.tsdb.path="$OUT/tsdb" \
  --web.listen-address="127.0.0.1:$PROM_PORT" >"$OUT/prometheus.log" 2>&1 &
pids+=($!)
PROM="http://127.0.0.1:$PROM_PORT"
for _ in $(seq 1 60); do curl -sf "$PROM/-/ready" >/dev/null && break; sleep 0.5; done
curl -sf "$PROM/-/ready" >/dev/null || { echo "prometheus did not start" >&2; tail -20 "$OUT/prometheus.log" >&2; exit 1; }
echo "prometheus on $PROM scrapes the jar for $PROM_SECONDS s while traffic goes on"
deadline=$(( $(date +%s) + PROM_SECONDS ))
n=0
while [ "$(date +%s)" -lt "$deadline" ]; do
  n=$((n + 1))
  post /tenants/demo/topics/orders/messages "{\"messages\":[{\"partitionKey\":\"load-$((n % 3))\",\"id\":\"load-$n\",\"payload\":$n}]}" >/dev/null
  r=$(fetch orders reporting 10 | receipts_of)
  [ "$r" != "[]" ] && post /tenants/demo/topics/orders/consumer-groups/reporting/ack "{\"receipts\":$r}" >/dev/null
  sleep 0.5
done
echo "load: $n publishes with fetch and ack by group reporting"
curl -sf "$PROM/api/v1/rules" >"$OUT/rules.json"

python3 - "$DASHBOARD" "$PROM" "$OUT/rules.json" <<'PY' | tee "$OUT/panels.txt"
import json, sys, urllib.parse, urllib.request
dashboard, prom, rules = sys.argv[1:4]
def get(path, **params):
    url = prom + path + "?" + urllib.parse.urlencode(params, doseq=True)
    with urllib.request.urlopen(url, timeout=10) as r:
        return json.load(r)
def grafana(expr):
    # What Grafana would send with every variable at "All" and a 1-minute rate interval.
    for k, v in {"$__rate_interval": "1m", "$tenant": ".*", "$topic": ".*", "$group": ".*"}.items():
        expr = expr.replace(k, v)
    return expr
failed = 0
d = json.load(open(dashboard))
print(f"{'panel':32} {'query':44} {'series':>6}  first result")
for p in d["panels"]:
    for t in p["targets"]:
        expr = grafana(t["expr"])
        try:
            res = get("/api/v1/query", query=expr)["data"]["result"]
        except Exception as e:  # a bad query is an HTTP 400 here
            failed += 1
            print(f"{p['title'][:32]:32} {t['legendFormat'][:44]:44} {'ERROR':>6}  {e}")
            continue
        first = ""
        if res:  # the first series with a number (a rate over one request is NaN)
            shown = next((r for r in res if r["value"][1] not in ("NaN", "+Inf", "-Inf")), res[0])
            labels = ",".join(f"{k}={v}" for k, v in sorted(shown["metric"].items()) if k not in ("job",))
            first = f"{{{labels[:60]}}} = {float(shown['value'][1]):.4g}"
        print(f"{p['title'][:32]:32} {t['legendFormat'][:44]:44} {len(res):>6}  {first}")
print()
print("variables (label_values):")
for v in d["templating"]["list"]:
    q = v.get("query")
    if not isinstance(q, dict):
        continue
    inner = q["query"][len("label_values("):-1]
    selector, label = inner.rsplit(",", 1)
    values = get(f"/api/v1/label/{label.strip()}/values", **{"match[]": grafana(selector.strip())})["data"]
    print(f"  {v['name']:8} {len(values)} values: {', '.join(values[:5])}{' ...' if len(values) > 5 else ''}")
print()
print("alert rules, evaluated by this Prometheus:")
for g in json.load(open(rules))["data"]["groups"]:
    for r in g["rules"]:
        ok = r.get("health") == "ok"
        failed += 0 if ok else 1
        print(f"  {r['name']:26} health={r.get('health')} state={r.get('state')} {r.get('lastError', '')}")
sys.exit(1 if failed else 0)
PY
echo "ops-check wall time: $(( $(date +%s) - started )) s"
