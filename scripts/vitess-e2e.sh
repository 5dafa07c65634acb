#!/usr/bin/env bash
# End-to-end run on a real vtgate: a Vitess keyspace with two shards (-80, 80-) and the
# repository's VSchema, the schema applied through vtgate, the API suite and MultiProcessIT
# with QUARKUS_DATASOURCE_JDBC_URL pointing at vtgate, a replay of the real event history through
# the packaged jar, and a look into each shard's database for where each tenant's rows landed
# (docs/vitess.md, "End to end on a real vtgate").
#
# The replay crosses shards: its tenants are the file's two repositories, git-scm and
# quarkus-quickstarts (both on -80 under the xxhash vindex), and git-scm-fork, a fork that
# replays git-scm's history as a tenant of its own (on 80-). The run checks that before it
# starts anything long. Where the replay landed is read from rows retention does not delete:
# published messages (still stored, plus the identities retention moved to queue_dedup_ids) and
# the committed offsets (queue_offsets), one per partition the replay consumed.
#
# Usage: scripts/vitess-e2e.sh run [--fast]   the whole run; exits non-zero on any failure.
#                                             --fast: the API suite and a 5,000-event replay,
#                                             without MultiProcessIT (what .ci/run runs)
#        scripts/vitess-e2e.sh build          build vttestserver, vtcombo and mysqlctl (cached)
#        scripts/vitess-e2e.sh start          start the cluster and apply the schema, print the
#                                             vtgate JDBC URL and leave it running
#        scripts/vitess-e2e.sh stop           stop what start started
#
# Vitess: vttestserver, the vtcombo it runs (vtgate, vtctld and one vttablet per shard and
# tablet type in one process) and the mysqlctl it starts mysqld with, built from the Go module
# vitess.io/vitess@$MQ_VITESS_VERSION (the version scripts/vtexplain.sh builds) in a copy of the
# module, as vtexplain.sh does, with `nice -n 10`; kept in $MQ_VITESS_CACHE/vttest, never in
# this repository. vttestserver runs ONE mysqld for all shards: each shard is a database of its
# own in it (vt_tenant_mq_-80, vt_tenant_mq_80-), which is what "asking each shard directly"
# reads below.
#
# mysqld: MySQL 9.7.4 of the Debian sid chroot that scripts/mysql-sid.sh caches. It runs from
# the host through the chroot's own dynamic loader (wrappers in $MQ_VITESS_CACHE/vttest/mysql97),
# as user nobody, on its own port and data directory: the coordinator's mysql-sid server (port
# 3307) is never touched. Vitess v0.24.4 accepts 9.x (it has a mysql90.cnf), but its
# vttestserver config (config/mycnf/test-suite.cnf) sets innodb_log_file_size, which MySQL 9.7
# no longer has ("unknown variable 'innodb_log_file_size=5M'"): the cached copy of that file
# uses innodb_redo_log_capacity instead. Why not MariaDB 10.11: docs/vitess.md, "Which mysqld".
#
# Vitess refuses to run as root ("running this as root makes no sense"), so the cluster runs
# as `nobody`.
#
# Environment:
#   MQ_VITESS_VERSION  Vitess module version (default v0.24.4)
#   MQ_VITESS_CACHE    build cache (default /var/cache/tenant-mq/vitess-$MQ_VITESS_VERSION)
#   MQ_MYSQL_CHROOT    the MySQL 9.7 chroot (default /var/cache/tenant-mq/mysql-sid)
#   MQ_VITESS_PORT     base port: vtcombo web +0, grpc +1, mysqld +2, vtgate (MySQL protocol) +3
#                      (default 15300)
#   MQ_E2E_EVENTS_FILE the event history (default ../shared/data/git-history-events.jsonl.gz)
#   MQ_E2E_EVENTS      events to replay, an equal share for each replay tenant (default 20000;
#                      5000 with --fast)
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD

VERSION=${MQ_VITESS_VERSION:-v0.24.4}
CACHE=${MQ_VITESS_CACHE:-/var/cache/tenant-mq/vitess-$VERSION}
VTROOT_DIR=$CACHE/vttest
CHROOT=${MQ_MYSQL_CHROOT:-/var/cache/tenant-mq/mysql-sid}
BASE_PORT=${MQ_VITESS_PORT:-15300}
MYSQLD_PORT=$((BASE_PORT + 2))
VTGATE_PORT=$((BASE_PORT + 3))
KEYSPACE=tenant_mq
SHARDS=(-80 80-)
STATE=/tmp/tenant-mq-vitess-$BASE_PORT   # the running cluster's directory (start/stop)
JDBC_URL="jdbc:mysql://127.0.0.1:$VTGATE_PORT/$KEYSPACE"
EVENTS_FILE=${MQ_E2E_EVENTS_FILE:-../shared/data/git-history-events.jsonl.gz}
# Tenants whose shard the run reports: the replay's and the test profile's. A replay tenant is
# tenant=source: it replays the history of the file's tenant `source`. xxhash (the VSchema's
# tenant_hash) puts git-scm and quarkus-quickstarts on -80 and git-scm-fork on 80-;
# check_replay_tenants asks vtgate.
REPLAY_SOURCES=(git-scm=git-scm quarkus-quickstarts=quarkus-quickstarts git-scm-fork=git-scm)
REPLAY_TENANTS=("${REPLAY_SOURCES[@]%%=*}")
TEST_TENANTS=(it-00 it-01 it-02 it-03 it-04 it-05 it-06 it-07 it-08 it-09 it-10 it-11 it-12 it-13 it-14 it-15 mp-tenant)

log() { echo "vitess-e2e: $*" >&2; }
die() { log "FAILED: $*"; exit 1; }
now() { date +%s; }

# ---- build ---------------------------------------------------------------------------------
build() {
  local lock
  mkdir -p "$CACHE"
  exec 8>"$CACHE/vttest.lock"
  flock -w 1800 8 || die "could not lock $CACHE/vttest.lock"
  if [[ -x $VTROOT_DIR/bin/vttestserver && -x $VTROOT_DIR/bin/vtcombo.bin && -x $VTROOT_DIR/bin/mysqlctl ]]; then
    flock -u 8
    return 0
  fi
  command -v go >/dev/null || die "needs Go (apt-get install golang-go)"
  log "building vttestserver, vtcombo and mysqlctl from vitess.io/vitess@$VERSION (once per machine)..."
  local src work t0
  t0=$(now)
  src=$(cd / && go mod download -json "vitess.io/vitess@$VERSION" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
  [[ -d $src ]] || die "go mod download gave no source directory"
  work=$(mktemp -d)
  cp -r "$src/." "$work/"
  chmod -R u+w "$work"
  rm -rf "$VTROOT_DIR.tmp"
  mkdir -p "$VTROOT_DIR.tmp/bin" "$VTROOT_DIR.tmp/config/mycnf"
  (cd "$work" && nice -n 10 go build -trimpath -o "$VTROOT_DIR.tmp/bin/" ./go/cmd/vttestserver ./go/cmd/vtcombo ./go/cmd/mysqlctl)
  mv "$VTROOT_DIR.tmp/bin/vtcombo" "$VTROOT_DIR.tmp/bin/vtcombo.bin"
  # vttestserver reads $VTROOT/config/init_db.sql and $VTROOT/config/mycnf/test-suite.cnf.
  cp "$work/config/init_db.sql" "$VTROOT_DIR.tmp/config/"
  # MySQL 9.7 has no innodb_log_file_size (removed after its 8.0.30 deprecation); mysqld
  # --initialize aborts on it. innodb_redo_log_capacity is its replacement (2 files of 5M).
  sed 's/^innodb_log_file_size = 5M$/innodb_redo_log_capacity = 10M/' \
    "$work/config/mycnf/test-suite.cnf" > "$VTROOT_DIR.tmp/config/mycnf/test-suite.cnf"
  rm -rf "$work"
  # vttestserver starts $VTROOT/bin/vtcombo with fixed test settings, among them a pool of 4
  # connections and a transaction cap of 4 per tablet (go/vt/vttest/vtprocess.go). A wrapper
  # puts vttablet's production defaults back (later flags win): the suite and the
  # multi-process test hold more than 4 transactions per shard at once.
  cat > "$VTROOT_DIR.tmp/bin/vtcombo" <<'EOF'
#!/bin/sh
exec "$(dirname "$0")/vtcombo.bin" "$@" --queryserver-config-pool-size=16 --queryserver-config-transaction-cap=20
EOF
  chmod 755 "$VTROOT_DIR.tmp/bin/vtcombo"
  rm -rf "$VTROOT_DIR"
  mv "$VTROOT_DIR.tmp" "$VTROOT_DIR"
  chmod -R a+rX "$CACHE"
  log "built in $(( $(now) - t0 )) s: $VTROOT_DIR/bin"
  flock -u 8
}

# ---- mysqld: MySQL 9.7 from the sid chroot, run from the host -----------------------------
MYSQL_ROOT=$VTROOT_DIR/mysql97
mysql_wrappers() {
  if [[ ! -x $CHROOT/usr/sbin/mysqld ]]; then
    # The chroot is built by scripts/mysql-sid.sh (start builds it, stop leaves it). Only when
    # it is missing, so there is no mysql-sid server to disturb; on its own port.
    log "no MySQL 9.7 chroot at $CHROOT: building it with scripts/mysql-sid.sh"
    MQ_MYSQL_PORT=$((BASE_PORT + 9)) scripts/mysql-sid.sh start >/dev/null
    MQ_MYSQL_PORT=$((BASE_PORT + 9)) scripts/mysql-sid.sh stop
  fi
  local loader=$CHROOT/lib64/ld-linux-x86-64.so.2
  local libs=$CHROOT/usr/lib/x86_64-linux-gnu:$CHROOT/lib/x86_64-linux-gnu
  mkdir -p "$MYSQL_ROOT/bin"
  # The sid binaries need a newer glibc than the host's: run them with the chroot's loader and
  # libraries. The client's auth plugins (vtgate offers mysql_native_password) are in the chroot.
  # Each wrapper is written beside and renamed over the old one: a run on another
  # MQ_VITESS_PORT may be executing it right now, and must never see it half written.
  printf '#!/bin/sh\nexec %s --library-path %s %s "$@"\n' "$loader" "$libs" "$CHROOT/usr/sbin/mysqld" > "$MYSQL_ROOT/bin/.mysqld.$$"
  local b
  for b in mysql mysqladmin; do
    printf '#!/bin/sh\nLIBMYSQL_PLUGIN_DIR=%s exec %s --library-path %s %s "$@"\n' \
      "$CHROOT/usr/lib/mysql/plugin" "$loader" "$libs" "$CHROOT/usr/bin/$b" > "$MYSQL_ROOT/bin/.$b.$$"
  done
  for b in mysqld mysql mysqladmin; do
    chmod 755 "$MYSQL_ROOT/bin/.$b.$$"
    mv -f "$MYSQL_ROOT/bin/.$b.$$" "$MYSQL_ROOT/bin/$b"
  done
  "$MYSQL_ROOT/bin/mysqld" --version >&2
}

vtgate_sql() { "$MYSQL_ROOT/bin/mysql" --no-defaults -h127.0.0.1 -P"$VTGATE_PORT" -uroot -N -B "$KEYSPACE" "$@"; }
# The shard's own database in the one mysqld vttestserver runs (not through vtgate).
shard_sql() {
  local shard=$1; shift
  "$MYSQL_ROOT/bin/mysql" --no-defaults --socket="$STATE/data/vt_0000000001/mysql.sock" -uvt_dba -N -B "vt_${KEYSPACE}_$shard" "$@"
}

# ---- cluster ---------------------------------------------------------------------------------
start_cluster() {
  [[ ! -e $STATE/vttestserver.pid ]] || { stop_cluster; }
  rm -rf "$STATE"
  mkdir -p "$STATE/data" "$STATE/schema/$KEYSPACE"
  # vttestserver reads the keyspace's VSchema from <schema-dir>/<keyspace>/vschema.json: the
  # keyspace object itself, without the keyspace-name wrapper of deploy/vitess/vschema.json.
  # It also shards app_orders, the application's own table of TransactionalPublishTest, by the same
  # tenant vindex: a domain table beside the queue in the tenant's keyspace (docs/transactional-publish.md).
  python3 -c 'import json,sys; ks = json.load(open(sys.argv[1]))[sys.argv[2]]
ks["tables"]["app_orders"] = {"column_vindexes": [{"column": "tenant", "name": "tenant_hash"}]}
json.dump(ks, open(sys.argv[3], "w"), indent=1)' \
    deploy/vitess/vschema.json "$KEYSPACE" "$STATE/schema/$KEYSPACE/vschema.json"
  cat > "$STATE/extra.cnf" <<EOF
plugin_dir = $CHROOT/usr/lib/mysql/plugin
lc_messages_dir = $CHROOT/usr/share/mysql
EOF
  chown -R nobody "$STATE"
  chmod 755 "$STATE"
  log "starting vttestserver: keyspace $KEYSPACE, shards ${SHARDS[*]}, vtgate on 127.0.0.1:$VTGATE_PORT"
  local t0; t0=$(now)
  (cd "$STATE" && exec setsid runuser -u nobody -- env VTROOT="$VTROOT_DIR" VT_MYSQL_ROOT="$MYSQL_ROOT" \
      VT_MYSQL_BASEDIR="$CHROOT/usr" VTDATAROOT="$STATE" \
      "$VTROOT_DIR/bin/vttestserver" --port "$BASE_PORT" --keyspaces "$KEYSPACE" --num-shards 2 \
      --replica-count 0 --rdonly-count 0 --schema-dir "$STATE/schema" --data-dir "$STATE/data" \
      --extra-my-cnf "$STATE/extra.cnf" --mysql-bind-host 127.0.0.1 --vtcombo-bind-host 127.0.0.1 \
      >"$STATE/vttestserver.log" 2>&1) &
  echo $! > "$STATE/vttestserver.pid"
  local i
  for i in $(seq 180); do
    grep -q '"Local cluster started.' "$STATE/vttestserver.log" && break
    kill -0 "$(cat "$STATE/vttestserver.pid")" 2>/dev/null || { grep -v '^ ' "$STATE/vttestserver.log" | tail -c 3000 >&2; stop_cluster; die "vttestserver exited"; }
    sleep 1
  done
  grep -q '"Local cluster started.' "$STATE/vttestserver.log" || { stop_cluster; die "vttestserver not up after 180 s (log: $STATE/vttestserver.log)"; }
  cp "$STATE/data/vt_0000000001/mysql.pid" "$STATE/mysqld.pid"
  local shards
  shards=$(vtgate_sql -e "SHOW VITESS_SHARDS" | tr '\n' ' ')
  [[ $shards == "$KEYSPACE/-80 $KEYSPACE/80- " ]] || die "unexpected shards: $shards"
  log "cluster up in $(( $(now) - t0 )) s; shards: $shards; mysqld: $(shard_sql -80 -e 'SELECT VERSION()')"
}

stop_cluster() {
  [[ -e $STATE/vttestserver.pid ]] || return 0
  local pid i mysqld_pid
  pid=$(cat "$STATE/vttestserver.pid")
  mysqld_pid=$(cat "$STATE/mysqld.pid" 2>/dev/null || cat "$STATE/data/vt_0000000001/mysql.pid" 2>/dev/null || true)
  # vttestserver stops vtcombo and mysqld (mysqlctl shutdown) on SIGTERM and deletes its data.
  # setsid made it the leader of a process group that holds all of them.
  kill -TERM -- "-$pid" 2>/dev/null || true
  for i in $(seq 60); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
  # mysqld must be gone before the next start binds its port.
  for i in $(seq 60); do
    [[ -n $mysqld_pid ]] && kill -0 "$mysqld_pid" 2>/dev/null || break
    (( i == 30 )) && kill -KILL "$mysqld_pid" 2>/dev/null
    sleep 1
  done
  kill -KILL -- "-$pid" 2>/dev/null || true
  rm -f "$STATE/vttestserver.pid"
}

# ---- schema: the Flyway migrations as DDL through vtgate -------------------------------------
apply_schema() {
  local f stmt t0; t0=$(now)
  for f in $(ls src/main/resources/db/migration/V*.sql | sort -V); do
    # One statement at a time, line comments out: the mysql client cuts statements at a ';'
    # inside a '--' comment (V1's comments have some), and vtgate answers the comment-only rest
    # with ERROR 1065 "Query was empty". After each DDL, vtgate's schema tracker must catch up
    # before the next statement names a new column (V3 adds delivery_seq, then updates it).
    while IFS= read -r -d '' stmt; do
      vtgate_sql -e "$stmt" || die "applying $(basename "$f") through vtgate: $stmt"
      if [[ $stmt =~ ^[[:space:]]*(CREATE|ALTER|DROP) ]]; then wait_for_schema_tracker; fi
    done < <(python3 -c 'import re,sys
sql = re.sub(r"(?m)^\s*--.*$", "", open(sys.argv[1]).read())
for s in re.split(r";\s*$", sql, flags=re.M):
    if s.strip():
        sys.stdout.write(s.strip() + "\0")' "$f")
    log "applied $(basename "$f") through vtgate"
  done
  # Flyway's history: the keyspace's schema is at the newest migration's version now. The
  # applications started below get QUARKUS_FLYWAY_BASELINE_ON_MIGRATE with that version
  # (docs/vitess.md, "Findings"): the first one records the baseline, the others validate
  # against it.
  log "schema applied in $(( $(now) - t0 )) s"
}

# vtgate plans against the schema its tracker learned from the tablets, and learns a DDL's
# result a moment later: until then a statement naming a new column fails with ERROR 1054
# "column 'd.delivery_count' not found" (that is what breaks Flyway through vtgate, at V3).
# Waits until vtgate accepts every column that the shard's information_schema lists.
wait_for_schema_tracker() {
  local probes i missing
  probes=$(shard_sql -80 -e "SELECT table_name, GROUP_CONCAT(CONCAT('\`', column_name, '\`') ORDER BY ordinal_position)
      FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name LIKE 'queue\_%' GROUP BY table_name")
  for i in $(seq 120); do
    missing=0
    while IFS=$'\t' read -r table cols; do
      [[ -n $table ]] || continue
      vtgate_sql -e "SELECT $cols FROM \`$table\` WHERE 1 = 0" >/dev/null 2>&1 || missing=1
    done <<< "$probes"
    (( missing == 0 )) && return 0
    sleep 0.5
  done
  die "vtgate's schema tracker did not learn the new columns within 60 s"
}

# ---- the Java suite ----------------------------------------------------------------------------
# The API integration suite: every @QuarkusTest class (the HTTP API and the store behind it, each
# a real Quarkus app on the database under test), less those tagged database-agnostic (run_suite:
# their rule is decided in the HTTP layer; docs/testing.md, "What CI runs").
api_suite() {
  grep -rl --include='*Test.java' -E '^@QuarkusTest$' src/test/java | sed 's|.*/||; s|\.java$||' | sort | paste -sd, -
}

report_counts() {
  python3 - "$@" <<'EOF'
import glob, sys, xml.etree.ElementTree as ET
total = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
for d in sys.argv[1:]:
    for f in glob.glob(d + "/TEST-*.xml"):
        r = ET.parse(f).getroot()
        for k in total:
            total[k] += int(r.get(k, 0))
print("tests {tests}, failures {failures}, errors {errors}, skipped {skipped}".format(**total))
EOF
}

run_suite() {
  local fast=$1 classes its t0
  classes=$(api_suite)
  [[ -n $classes ]] || die "found no @QuarkusTest classes"
  its=MultiProcessIT
  [[ $fast == 1 ]] && its=NONE
  log "API suite ($classes, less those tagged database-agnostic) and IT $its with QUARKUS_DATASOURCE_JDBC_URL=$JDBC_URL"
  t0=$(now)
  local rc=0
  rm -rf target/surefire-reports target/failsafe-reports
  # Test failures do not stop the build, so MultiProcessIT runs even when an API test fails;
  # the counts below decide. The failsafe run needs the jar this build packages; the fast mode
  # runs no IT, so it stops at the test phase (the replay packages the jar when it is missing).
  local goal=verify
  [[ $fast == 1 ]] && goal=test
  QUARKUS_DATASOURCE_JDBC_URL=$JDBC_URL QUARKUS_DATASOURCE_USERNAME=root QUARKUS_DATASOURCE_PASSWORD= \
    ./mvnw -B "$goal" -Dtest="$classes" -Dit.test="$its" -Dmaven.test.failure.ignore=true \
      -DexcludedGroups=database-agnostic \
      -Dsurefire.failIfNoSpecifiedTests=false -Dfailsafe.failIfNoSpecifiedTests=false || rc=$?
  local api_counts it_counts
  api_counts=$(report_counts target/surefire-reports)
  it_counts=$(report_counts target/failsafe-reports)
  SUITE_COUNTS="API suite: $api_counts; $its: $it_counts"
  log "suite finished in $(( $(now) - t0 )) s: $SUITE_COUNTS"
  (( rc == 0 )) || die "the build failed on vtgate (exit $rc)"
  # Each part judged on its own counts: a pattern over the joined line would let the fast mode's
  # empty IT part ("NONE: ... failures 0, errors 0") pass a failing API suite.
  if [[ $api_counts == *"failures 0, errors 0"* && ( $its == NONE || $it_counts == *"failures 0, errors 0"* ) ]]; then
    return 0
  fi
  grep -l -E '<(failure|error)' target/surefire-reports/TEST-*.xml target/failsafe-reports/TEST-*.xml 2>/dev/null | sed 's/^/  failed: /' >&2 || true
  SUITE_FAILED=1
}

# ---- replay through the packaged jar -----------------------------------------------------------
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

run_replay() {
  local events=$1 port mport pid t0 i
  # The fast mode's suite stops at the test phase: a jar older than the sources is packaged again.
  if [[ ! -f target/quarkus-app/quarkus-run.jar \
        || -n $(find src/main pom.xml -newer target/quarkus-app/quarkus-run.jar -print -quit) ]]; then
    ./mvnw -B -q package -DskipTests
  fi
  [[ -f $EVENTS_FILE ]] || die "$EVENTS_FILE is missing (MQ_E2E_EVENTS_FILE)"
  # The file holds git-scm's history first (137,899 events) and quarkus-quickstarts' after it
  # (16,715, from line 82,409 on), so a plain --limit would replay one tenant only: each replay
  # tenant gets an equal share of the events, the first ones of its source tenant, in file
  # order. replay-input.tsv: per replay tenant, its events and partitions (topic, key).
  python3 - "$EVENTS_FILE" "$events" "$STATE/replay-events.jsonl.gz" "$STATE/replay-input.tsv" "${REPLAY_SOURCES[@]}" <<'PY' || die "could not prepare the replay input"
import gzip, json, sys
src, n, out, summary = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
pairs = [a.split("=", 1) for a in sys.argv[5:]]
quota = {t: n // len(pairs) + (1 if i < n % len(pairs) else 0) for i, (t, _) in enumerate(pairs)}
taken = {t: 0 for t, _ in pairs}
parts = {t: set() for t, _ in pairs}
kept = []
with gzip.open(src, "rt", encoding="utf-8") as f:
    for line in f:
        e = json.loads(line)
        for t, source in pairs:
            if e["tenant"] == source and taken[t] < quota[t]:
                taken[t] += 1
                parts[t].add((e["topic"], e["partitionKey"]))
                kept.append(json.dumps(dict(e, tenant=t), ensure_ascii=False) + "\n")
        if all(taken[t] == quota[t] for t in taken):
            break
short = [t for t in taken if taken[t] < quota[t]]
if short:
    sys.exit("replay input: the file has too few events for %s" % short)
with gzip.open(out, "wt", encoding="utf-8") as f:
    f.writelines(kept)
with open(summary, "w") as f:
    for t in taken:
        f.write("%s\t%d\t%d\n" % (t, taken[t], len(parts[t])))
print("replay input: %d events, per tenant %s" % (len(kept), taken), file=sys.stderr)
PY
  port=$(free_port); mport=$(free_port)
  log "starting target/quarkus-app/quarkus-run.jar on vtgate (tenants ${REPLAY_TENANTS[*]}), port $port"
  # The dedup window is the default, set here because shard_report counts on it: retention
  # moves the identity of every message it deletes within the window to queue_dedup_ids.
  MQ_TENANTS=$(IFS=,; echo "${REPLAY_TENANTS[*]}") MQ_SUBSCRIBER_NAME=vitess-e2e MQ_ADMIN_TOKEN=vitess-e2e-admin-token-0123 \
    MQ_PUBLISH_DEDUP_WINDOW=24h \
    QUARKUS_DATASOURCE_JDBC_URL=$JDBC_URL QUARKUS_DATASOURCE_USERNAME=root QUARKUS_DATASOURCE_PASSWORD= \
    QUARKUS_HTTP_PORT=$port QUARKUS_MANAGEMENT_PORT=$mport QUARKUS_MANAGEMENT_HOST=127.0.0.1 \
    java -jar target/quarkus-app/quarkus-run.jar > "$STATE/replay-service.log" 2>&1 &
  pid=$!
  for i in $(seq 120); do
    curl -fs "http://127.0.0.1:$mport/q/health/ready" >/dev/null 2>&1 && break
    kill -0 $pid 2>/dev/null || { tail -50 "$STATE/replay-service.log" >&2; die "the service exited"; }
    sleep 1
  done
  curl -fs "http://127.0.0.1:$mport/q/health/ready" >/dev/null || { kill $pid; die "the service is not ready after 120 s"; }
  t0=$(now)
  local rc=0
  python3 bench/replay.py --url "http://127.0.0.1:$port" --file "$STATE/replay-events.jsonl.gz" | tee "$STATE/replay.txt" || rc=$?
  REPLAY_SECONDS=$(( $(now) - t0 ))
  kill -TERM $pid; wait $pid || true
  (( rc == 0 )) || die "replay of $events events failed (exit $rc; service log $STATE/replay-service.log)"
}

# ---- where the tenants landed ---------------------------------------------------------------
# The shard vtgate's vindex (tenant_hash: xxhash of tenant) names for a tenant.
vindex_shard() { vtgate_sql -e "SELECT shard FROM tenant_hash WHERE id = '$1'"; }

# The replay must write to every shard: fails before the long part of the run when the replay
# tenants all hash to fewer shards than the keyspace has.
check_replay_tenants() {
  local t shard placed=() missing=()
  for t in "${REPLAY_TENANTS[@]}"; do placed+=("$t:$(vindex_shard "$t")"); done
  for shard in "${SHARDS[@]}"; do
    [[ " ${placed[*]} " == *":$shard "* ]] || missing+=("$shard")
  done
  (( ${#missing[@]} == 0 )) || die "the replay tenants (${placed[*]}) put nothing on shard ${missing[*]}: the replay would not cross shards; choose REPLAY_SOURCES tenants that hash to every shard"
  log "replay tenants by vindex shard: ${placed[*]}"
}

# Reads each shard's database directly. Retention deletes consumed messages while the replay
# runs, so placement is counted from rows that stay: published messages are the stored ones plus
# the identities retention moved to queue_dedup_ids (the dedup window is 24 h), and every
# partition the replay consumed keeps its committed offset in queue_offsets. A replay tenant
# must have exactly its input's events and partitions on its vindex shard and nothing elsewhere.
shard_report() {
  local t shard e p expected out published stored offsets where cols failed=0 replay_shards=()
  local -A want_events=() want_parts=()
  while IFS=$'\t' read -r t e p; do want_events[$t]=$e; want_parts[$t]=$p; done < "$STATE/replay-input.tsv"
  echo "each shard: published messages (stored + deleted by retention) / still stored / committed offsets"
  printf '%-22s %-7s %-22s %-22s %s\n' tenant vindex "${SHARDS[@]}" landed
  REPLAY_PLACEMENT=""
  for t in "${REPLAY_TENANTS[@]}" "${TEST_TENANTS[@]}"; do
    expected=$(vindex_shard "$t")
    where=() cols=()
    for shard in "${SHARDS[@]}"; do
      out=$(shard_sql "$shard" -e "SELECT
          (SELECT COUNT(*) FROM queue_messages WHERE tenant = '$t') + (SELECT COUNT(*) FROM queue_dedup_ids WHERE tenant = '$t'),
          (SELECT COUNT(*) FROM queue_messages WHERE tenant = '$t'),
          (SELECT COUNT(*) FROM queue_offsets WHERE tenant = '$t')")
      read -r published stored offsets <<< "$out"
      [[ -n $offsets ]] || die "could not count tenant $t on shard $shard"
      cols+=("$published/$stored/$offsets")
      (( published + offsets > 0 )) && where+=("$shard")
      if [[ -n ${want_events[$t]:-} && $shard == "$expected" ]]; then
        # At least its input: the API suite's ReplayTest publishes to a tenant of the same name
        # (git-scm) on the same cluster before the replay, so exact counts hold only without it.
        if (( published < ${want_events[$t]} || offsets < ${want_parts[$t]} )); then
          log "replay tenant $t on $shard: $published messages published and $offsets committed offsets, fewer than its input's ${want_events[$t]} events in ${want_parts[$t]} partitions"
          failed=1
        fi
        REPLAY_PLACEMENT+="$t $shard: $published messages, $offsets partitions; "
      fi
    done
    printf '%-22s %-7s %-22s %-22s %s\n' "$t" "$expected" "${cols[@]}" "${where[*]:-(no rows)}"
    if (( ${#where[@]} == 0 )); then
      [[ -z ${want_events[$t]:-} ]] || { log "replay tenant $t has no rows on any shard"; failed=1; }
      continue
    fi
    if (( ${#where[@]} != 1 )) || [[ ${where[0]} != "$expected" ]]; then
      log "tenant $t is on ${where[*]}, its vindex says $expected"; failed=1
    fi
    [[ -z ${want_events[$t]:-} ]] || replay_shards+=("${where[0]}")
  done
  for shard in "${SHARDS[@]}"; do
    [[ " ${replay_shards[*]} " == *" $shard "* ]] || { log "no replay tenant landed on $shard"; failed=1; }
  done
  (( failed == 0 )) || die "shard placement"
}

run() {
  local fast=0 events=${MQ_E2E_EVENTS:-20000} t_all; t_all=$(now)
  if [[ ${1:-} == --fast ]]; then fast=1; events=${MQ_E2E_EVENTS:-5000}; fi
  command -v python3 >/dev/null || die "needs python3"
  command -v java >/dev/null || die "needs java"
  command -v curl >/dev/null || die "needs curl"
  build
  mysql_wrappers
  start_cluster
  trap stop_cluster EXIT
  apply_schema
  check_replay_tenants
  # The newest migration's version: a fixed number here would make Flyway apply every later
  # migration again on top of the schema apply_schema created ("Table ... already exists").
  QUARKUS_FLYWAY_BASELINE_VERSION=$(ls src/main/resources/db/migration/V*.sql | sed -E 's#.*/V([0-9]+)__.*#\1#' | sort -n | tail -1)
  export QUARKUS_FLYWAY_BASELINE_ON_MIGRATE=true QUARKUS_FLYWAY_BASELINE_VERSION
  SUITE_FAILED=0
  run_suite "$fast"
  run_replay "$events"
  echo "=== where the tenants landed (each shard's database, read directly)"
  shard_report
  (( SUITE_FAILED == 0 )) || die "tests failed on vtgate: $SUITE_COUNTS"
  echo "=== vitess-e2e: PASSED in $(( $(now) - t_all )) s (mode: $([[ $fast == 1 ]] && echo fast || echo full))"
  echo "mysqld: $(shard_sql -80 -e 'SELECT VERSION()') under Vitess $VERSION (vttestserver), shards ${SHARDS[*]}"
  echo "suite: $SUITE_COUNTS"
  echo "replay: $events events in $REPLAY_SECONDS s: $(grep -iE 'missing|duplicate|order' "$STATE/replay.txt" | tr '\n' ' ')"
  echo "replay placement: ${REPLAY_PLACEMENT%; }"
}

case ${1:-} in
  run) shift; run "$@" ;;
  build) build; echo "$VTROOT_DIR/bin" ;;
  start)
    build; mysql_wrappers; start_cluster; apply_schema
    echo "$JDBC_URL" ;;
  stop) stop_cluster ;;
  *) sed -n '2,/^set -euo/p' "$0" | sed '$d' >&2; exit 2 ;;
esac
