#!/usr/bin/env bash
# The benchmark (bench/README.md), in one command:
#
#   bench/run.sh            full run (the issue's sizes; about an hour or more on 2 cores)
#   bench/run.sh --quick    smaller sizes, under 10 minutes
#   options: --profile      JFR recording of the service and performance_schema statement
#                           digests during the publish rows, consume_ack, the replay and the
#                           wake runs (changes the numbers a little)
#            --rows a,b     only these rows (for working on the harness)
#
# It starts its own database (MariaDB 10.11 from Debian, innodb_flush_log_at_trx_commit=1) and
# RabbitMQ (Debian's rabbitmq-server), both on 127.0.0.1 only and in bench/out/run/, builds the
# service jar and the load generator (bench/loadgen, Java 21+ for virtual threads), runs the
# rows (the load generator starts and stops the service itself, on JDK 17), stops everything it
# started, and writes bench/results/latest.json and bench/results/latest.md. Logs stay in
# bench/out/run/ (not committed).
#
# Environment: BENCH_DB_PORT (3318), BENCH_RABBIT_PORT (5673), BENCH_RABBIT_DIST_PORT (25673),
# BENCH_HTTP_PORT (18080), BENCH_MANAGEMENT_PORT (18090, health and metrics), BENCH_JAVA21_HOME (default: temurin-25 or another JDK 21+ in
# /usr/lib/jvm), BENCH_SERVICE_JAVA (default: java on PATH, the JDK 17 the service targets),
# BENCH_SKIP_BUILD=1 (reuse target/ and bench/loadgen/target/), BENCH_SERVICE_JVM_ARGS (extra
# options for the service JVM, e.g. -XX:StartFlightRecording=filename=/tmp/run.jfr,settings=profile).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

MODE_ARGS=()
PROFILE=0
while (( $# )); do
  case "$1" in
    --quick) MODE_ARGS+=(--quick) ;;
    --profile) PROFILE=1; MODE_ARGS+=(--profile) ;;
    --rows) MODE_ARGS+=(--rows "$2"); shift ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    *) echo "run.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done

DB_PORT="${BENCH_DB_PORT:-3318}"
RABBIT_PORT="${BENCH_RABBIT_PORT:-5673}"
RABBIT_DIST_PORT="${BENCH_RABBIT_DIST_PORT:-25673}"
HTTP_PORT="${BENCH_HTTP_PORT:-18080}"
MANAGEMENT_PORT="${BENCH_MANAGEMENT_PORT:-18090}"
WORK="$ROOT/bench/out/run"
RESULTS="$ROOT/bench/results"
REPLAY_FILE="$ROOT/../shared/data/git-history-events.jsonl.gz"

log() { echo "[run.sh $(date +%H:%M:%S)] $*" >&2; }
die() { log "ERROR: $*"; exit 1; }
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# ---- JDKs: the load generator needs 21+ (virtual threads); the service runs on the default (17).
java_major() { "$1/bin/java" -XshowSettings:properties -version 2>&1 | awk -F'= ' '/java.specification.version/ {print $2}'; }
J21="${BENCH_JAVA21_HOME:-}"
if [[ -z "$J21" ]]; then
  for j in /usr/lib/jvm/temurin-25-jdk-amd64 /usr/lib/jvm/*; do
    if [[ -x "$j/bin/java" ]] && (( $(java_major "$j") >= 21 )); then J21="$j"; break; fi
  done
fi
[[ -n "$J21" && -x "$J21/bin/java" ]] || die "no JDK 21+ found for the load generator; set BENCH_JAVA21_HOME"
SERVICE_JAVA="${BENCH_SERVICE_JAVA:-$(command -v java)}"
JCMD="$(dirname "$(readlink -f "$SERVICE_JAVA")")/jcmd"
[[ -f "$REPLAY_FILE" ]] || die "replay input $REPLAY_FILE not found"
for p in "$DB_PORT" "$RABBIT_PORT" "$RABBIT_DIST_PORT" "$HTTP_PORT" "$MANAGEMENT_PORT"; do
  if port_open "$p"; then die "127.0.0.1:$p is already in use (see the BENCH_*_PORT variables)"; fi
done

# ---- Packages (Debian): MariaDB server and RabbitMQ, installed once; no service is started by apt here.
need=()
command -v mariadbd >/dev/null || need+=(mariadb-server-core mariadb-client-core)
[[ -x /usr/lib/rabbitmq/bin/rabbitmq-server ]] || need+=(rabbitmq-server)
if (( ${#need[@]} )); then
  log "installing ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -q "${need[@]}" >&2 || { apt-get update -q >&2; apt-get install -y -q "${need[@]}" >&2; }
fi

# ---- Build.
if [[ "${BENCH_SKIP_BUILD:-0}" != 1 ]]; then
  log "building the service jar"
  ./mvnw -B -q package -DskipTests >&2
  log "building the load generator (JDK $(java_major "$J21"))"
  JAVA_HOME="$J21" ./mvnw -B -q -f bench/loadgen/pom.xml package >&2
fi
[[ -f target/quarkus-app/quarkus-run.jar ]] || die "target/quarkus-app/quarkus-run.jar missing"

rm -rf "$WORK"
mkdir -p "$WORK" "$RESULTS"

# ---- Clean-up of everything this script started, on any exit.
DB_PID=; RABBIT_PID=; EPMD_STARTED=0
cleanup() {
  set +e
  if [[ -n "$RABBIT_PID" ]] && kill -0 "$RABBIT_PID" 2>/dev/null; then
    log "stopping RabbitMQ (pid $RABBIT_PID)"
    kill -TERM "$RABBIT_PID"; for _ in $(seq 100); do kill -0 "$RABBIT_PID" 2>/dev/null || break; sleep 0.2; done
    kill -KILL "$RABBIT_PID" 2>/dev/null
  fi
  if (( EPMD_STARTED )); then
    # epmd was not running before: the broker started it, so stop that one (by pid).
    for p in $(pgrep -x epmd); do
      if [[ "$(cat /proc/$p/environ 2>/dev/null | tr '\0' '\n' | grep -c "^BENCH_RUN_ID=$$\$")" == 1 ]]; then kill "$p"; fi
    done
  fi
  if [[ -n "$DB_PID" ]] && kill -0 "$DB_PID" 2>/dev/null; then
    log "stopping MariaDB (pid $DB_PID)"
    kill -TERM "$DB_PID"; for _ in $(seq 300); do kill -0 "$DB_PID" 2>/dev/null || break; sleep 0.2; done
    kill -KILL "$DB_PID" 2>/dev/null
  fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---- MariaDB: own data directory, loopback only, durable commits.
log "starting MariaDB $(mariadbd --version | awk '{print $3}') on 127.0.0.1:$DB_PORT"
mkdir -p "$WORK/mariadb"
mariadb-install-db --no-defaults --user=root --datadir="$WORK/mariadb/data" --auth-root-authentication-method=socket \
  --skip-test-db >"$WORK/mariadb/install.log" 2>&1 || { tail -20 "$WORK/mariadb/install.log" >&2; die "mariadb-install-db failed"; }
DB_ARGS=(
  --no-defaults --user=root
  --datadir="$WORK/mariadb/data" --socket="$WORK/mariadb/mysqld.sock" --pid-file="$WORK/mariadb/mysqld.pid"
  --log-error="$WORK/mariadb/error.log"
  --bind-address=127.0.0.1 --port="$DB_PORT" --skip-name-resolve
  --innodb-flush-log-at-trx-commit=1      # durable: fsync at every commit (the issue's setting)
  --innodb-buffer-pool-size=2G
  --innodb-log-file-size=512M
  --max-connections=1000
  --character-set-server=utf8mb4 --collation-server=utf8mb4_general_ci
  --performance-schema=$([[ $PROFILE == 1 ]] && echo ON || echo OFF)
)
mariadbd "${DB_ARGS[@]}" </dev/null >"$WORK/mariadb/console.log" 2>&1 &
DB_PID=$!
for _ in $(seq 300); do
  mariadb --no-defaults --socket="$WORK/mariadb/mysqld.sock" -uroot -e 'SELECT 1' >/dev/null 2>&1 && break
  kill -0 "$DB_PID" 2>/dev/null || { tail -20 "$WORK/mariadb/error.log" >&2; die "mariadbd exited"; }
  sleep 0.2
done
mariadb --no-defaults --socket="$WORK/mariadb/mysqld.sock" -uroot -e "
  CREATE USER 'bench'@'127.0.0.1' IDENTIFIED BY 'bench';
  GRANT ALL PRIVILEGES ON *.* TO 'bench'@'127.0.0.1';
  CREATE DATABASE tenant_mq; CREATE DATABASE bench_raw;" || die "could not create the bench user and databases"

# ---- RabbitMQ: own node name, directories and cookie; AMQP and distribution on loopback only.
log "starting RabbitMQ on 127.0.0.1:$RABBIT_PORT"
R="$WORK/rabbitmq"
mkdir -p "$R"
cat >"$R/rabbitmq.conf" <<CONF
listeners.tcp.default = 127.0.0.1:$RABBIT_PORT
loopback_users.guest = true
CONF
echo '[].' >"$R/enabled_plugins"
port_open 4369 || EPMD_STARTED=1
(
  export HOME="$R" BENCH_RUN_ID=$$ RABBITMQ_CONFIG_FILE="$R/rabbitmq" RABBITMQ_MNESIA_BASE="$R/mnesia" \
    RABBITMQ_LOG_BASE="$R/log" RABBITMQ_NODENAME="bench$$@localhost" RABBITMQ_DIST_PORT="$RABBIT_DIST_PORT" \
    ERL_EPMD_ADDRESS=127.0.0.1 RABBITMQ_ENABLED_PLUGINS_FILE="$R/enabled_plugins" RABBITMQ_PID_FILE="$R/pid" \
    RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS="-kernel inet_dist_use_interface {127,0,0,1}"
  exec /usr/lib/rabbitmq/bin/rabbitmq-server
) </dev/null >"$R/console.log" 2>&1 &
RABBIT_LAUNCHER=$!
for _ in $(seq 300); do
  [[ -s "$R/pid" ]] && RABBIT_PID=$(cat "$R/pid")
  port_open "$RABBIT_PORT" && break
  kill -0 "$RABBIT_LAUNCHER" 2>/dev/null || { tail -20 "$R/console.log" >&2; die "rabbitmq-server exited"; }
  sleep 0.2
done
port_open "$RABBIT_PORT" || die "RabbitMQ did not listen within 60 s"
[[ -n "$RABBIT_PID" ]] || RABBIT_PID=$(cat "$R/pid")

# ---- The rows.
log "running the load generator (JDK $(java_major "$J21")); service on $("$SERVICE_JAVA" -version 2>&1 | head -1)"
set +e
"$J21/bin/java" -cp "bench/loadgen/target/loadgen.jar:bench/loadgen/target/lib/*" dev.tenantmq.bench.Bench \
  "${MODE_ARGS[@]}" \
  --jdbc "jdbc:mysql://127.0.0.1:$DB_PORT" --db-user bench --db-password bench --db-pid "$DB_PID" \
  --rabbit-port "$RABBIT_PORT" --rabbit-pid "$RABBIT_PID" \
  --service-jar "$ROOT/target/quarkus-app/quarkus-run.jar" --service-java "$SERVICE_JAVA" --jcmd "$JCMD" \
  --http-port "$HTTP_PORT" --management-port "$MANAGEMENT_PORT" --replay-file "$REPLAY_FILE" --results "$RESULTS" --work "$WORK" 2>&1 | tee "$WORK/loadgen.log"
rc=${PIPESTATUS[0]}
set -e
log "load generator exited with $rc; results in $RESULTS/latest.json and latest.md"
exit "$rc"
