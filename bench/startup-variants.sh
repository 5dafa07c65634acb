#!/usr/bin/env bash
# JVM start-up of the packaged jar, for sidecars (docs/deployment.md, "JVM start-up for sidecars"): for each variant, time to ready and
# resident memory after a small workload.
#
#   bench/startup-variants.sh                 build, then 3 runs of every variant
#   bench/startup-variants.sh --runs 5 --variants plain,sidecar
#
# Per run: the time from spawning the JVM until GET /q/health/ready (management port) answers
# 200 with status UP, polled every 10 ms, and the CPU seconds the JVM used until then; then 1,000 publish calls of one message each and
# 1,000 messages fetched (up to 100 per fetch) and acked; then the process's VmRSS from
# /proc/<pid>/status. Every figure is the median of the runs (min and max beside it). The
# schema is migrated by an unmeasured first start, so every measured start finds it in place
# (a pod restart, not a first deployment).
#
# Variants (JDK 17 = `java` on PATH, JDK 25 = Temurin 25 in /usr/lib/jvm):
#   plain          JDK 17, fast-jar, no options
#   jdk25          JDK 25, fast-jar, no options (the baseline of the AOT variants)
#   aot            JDK 25, aot-jar with the JDK AOT cache (JEP 483/514) trained by the
#                  integration tests (./mvnw verify -Paot; see below)
#   sidecar        JDK 17, fast-jar, sidecar settings ($SIDECAR_OPTS, $SIDECAR_ENV)
#   sidecar-aot    JDK 25, the same AOT cache and the sidecar settings (the image's default,
#                  src/main/docker/Dockerfile.jvm)
#
# The AOT cache: `./mvnw verify -Paot` on JDK 25 (pom.xml, profile aot) packages the aot-jar
# (quarkus.package.jar.aot.enabled=true, into target/quarkus-app-aot here) and runs
# PackagedJarTrainingIT, a @QuarkusIntegrationTest: Quarkus starts the jar with
# -XX:AOTMode=record and the image's sidecar JVM settings, and when the test ends it writes
# target/quarkus-app-aot/app.aot (-XX:AOTMode=create). Both aot variants start with
# -XX:AOTCache=app.aot -XX:AOTMode=on, so an unusable cache fails the run instead of being
# ignored. (Before PackagedJarTrainingIT existed the script trained the cache itself with one
# run of its own workload under -XX:AOTCacheOutput; the integration tests now do it.)
#
# It starts its own MariaDB (Debian's mariadbd, installed if missing) on 127.0.0.1 in
# bench/out/startup/ and stops it at the end. Results: bench/results/startup-variants.json
# and .md. Environment: STARTUP_DB_PORT (3319), STARTUP_HTTP_PORT (18180),
# STARTUP_MANAGEMENT_PORT (19100), STARTUP_JAVA25_HOME, STARTUP_SKIP_BUILD=1 (reuse target/).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

RUNS=3
VARIANTS=plain,jdk25,aot,sidecar,sidecar-aot
while (( $# )); do
  case "$1" in
    --runs) RUNS=$2; shift ;;
    --variants) VARIANTS=$2; shift ;;
    -h|--help) sed -n '2,36p' "$0"; exit 0 ;;
    *) echo "startup-variants.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done

DB_PORT=${STARTUP_DB_PORT:-3319}
HTTP_PORT=${STARTUP_HTTP_PORT:-18180}
MGMT_PORT=${STARTUP_MANAGEMENT_PORT:-19100}
J17=$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")
J25=${STARTUP_JAVA25_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
WORK=$ROOT/bench/out/startup
RESULTS=$ROOT/bench/results

# The sidecar settings: a small fixed heap and metaspace, the serial collector, C1 only (the
# C2 compiler threads cost the most CPU and memory at start), small thread stacks and code
# cache, fewer Vert.x event loops and worker threads, and a smaller connection pool.
SIDECAR_OPTS=${SIDECAR_OPTS:-"-XX:+UseSerialGC -Xms24m -Xmx96m -XX:MaxMetaspaceSize=80m -XX:ReservedCodeCacheSize=24m -XX:TieredStopAtLevel=1 -XX:CICompilerCount=1 -Xss512k -XX:MaxDirectMemorySize=32m -XX:-UsePerfData -Dio.netty.allocator.numDirectArenas=1 -Dio.netty.allocator.numHeapArenas=1"}
SIDECAR_ENV=${SIDECAR_ENV:-"QUARKUS_VERTX_EVENT_LOOPS_POOL_SIZE=1 QUARKUS_THREAD_POOL_CORE_THREADS=1 QUARKUS_THREAD_POOL_MAX_THREADS=16 QUARKUS_DATASOURCE_JDBC_MAX_SIZE=8"}

log() { echo "[startup-variants $(date +%H:%M:%S)] $*" >&2; }
die() { log "ERROR: $*"; exit 1; }
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

[[ -x $J25/bin/java ]] || die "no JDK 25 at $J25 (set STARTUP_JAVA25_HOME)"
for p in "$DB_PORT" "$HTTP_PORT" "$MGMT_PORT"; do
  if port_open "$p"; then die "127.0.0.1:$p is already in use"; fi
done
command -v mariadbd >/dev/null || {
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -q mariadb-server-core mariadb-client-core >&2 || { apt-get update -q >&2; apt-get install -y -q mariadb-server-core mariadb-client-core >&2; }
}

# ---- Build: the plain fast-jar (target/quarkus-app) and the aot-jar (target/quarkus-app-aot).
if [[ ${STARTUP_SKIP_BUILD:-0} != 1 ]]; then
  log "building the fast-jar"
  ./mvnw -B -q package -DskipTests >&2
  log "building the aot-jar and training its AOT cache with the integration tests (JDK 25, -Paot)"
  JAVA_HOME=$J25 ./mvnw -B -q verify -Paot -Dquarkus.package.output-directory=quarkus-app-aot >&2
fi
[[ -f target/quarkus-app/quarkus-run.jar ]] || die "target/quarkus-app/quarkus-run.jar missing"
[[ -f target/quarkus-app-aot/quarkus-run.jar ]] || die "target/quarkus-app-aot/quarkus-run.jar missing"
[[ -f target/quarkus-app-aot/app.aot ]] || die "target/quarkus-app-aot/app.aot missing (the -Paot build trains it)"

rm -rf "$WORK"
mkdir -p "$WORK/mariadb" "$RESULTS"

DB_PID=
cleanup() {
  set +e
  if [[ -n $DB_PID ]] && kill -0 "$DB_PID" 2>/dev/null; then
    kill -TERM "$DB_PID"; for _ in $(seq 150); do kill -0 "$DB_PID" 2>/dev/null || break; sleep 0.2; done
    kill -KILL "$DB_PID" 2>/dev/null
  fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

log "starting MariaDB on 127.0.0.1:$DB_PORT"
mariadb-install-db --no-defaults --user=root --datadir="$WORK/mariadb/data" --auth-root-authentication-method=socket \
  --skip-test-db >"$WORK/mariadb/install.log" 2>&1 || { tail -20 "$WORK/mariadb/install.log" >&2; die "mariadb-install-db failed"; }
mariadbd --no-defaults --user=root --datadir="$WORK/mariadb/data" --socket="$WORK/mariadb/mysqld.sock" \
  --pid-file="$WORK/mariadb/mysqld.pid" --log-error="$WORK/mariadb/error.log" --bind-address=127.0.0.1 \
  --port="$DB_PORT" --skip-name-resolve --innodb-buffer-pool-size=256M --performance-schema=OFF \
  --character-set-server=utf8mb4 --collation-server=utf8mb4_general_ci </dev/null >"$WORK/mariadb/console.log" 2>&1 &
DB_PID=$!
for _ in $(seq 300); do
  mariadb --no-defaults --socket="$WORK/mariadb/mysqld.sock" -uroot -e 'SELECT 1' >/dev/null 2>&1 && break
  kill -0 "$DB_PID" 2>/dev/null || { tail -20 "$WORK/mariadb/error.log" >&2; die "mariadbd exited"; }
  sleep 0.2
done
mariadb --no-defaults --socket="$WORK/mariadb/mysqld.sock" -uroot -e "
  CREATE USER 'startup'@'127.0.0.1' IDENTIFIED BY 'startup';
  GRANT ALL PRIVILEGES ON *.* TO 'startup'@'127.0.0.1';
  CREATE DATABASE tenant_mq;"

export STARTUP_WORK=$WORK STARTUP_RESULTS=$RESULTS STARTUP_RUNS=$RUNS STARTUP_VARIANTS=$VARIANTS
export STARTUP_J17=$J17 STARTUP_J25=$J25 STARTUP_HTTP=$HTTP_PORT STARTUP_MGMT=$MGMT_PORT
export STARTUP_DB_URL="jdbc:mysql://127.0.0.1:$DB_PORT/tenant_mq" SIDECAR_OPTS SIDECAR_ENV
python3 - <<'PY'
import json, os, shlex, signal, statistics, subprocess, sys, time, urllib.request, http.client, datetime

W = os.environ
work, results = W["STARTUP_WORK"], W["STARTUP_RESULTS"]
runs, variants = int(W["STARTUP_RUNS"]), W["STARTUP_VARIANTS"].split(",")
j17, j25 = W["STARTUP_J17"] + "/bin/java", W["STARTUP_J25"] + "/bin/java"
http_port, mgmt_port = int(W["STARTUP_HTTP"]), int(W["STARTUP_MGMT"])
sidecar_opts = shlex.split(W["SIDECAR_OPTS"])
sidecar_env = dict(kv.split("=", 1) for kv in shlex.split(W["SIDECAR_ENV"]))
FAST, AOT = "target/quarkus-app", "target/quarkus-app-aot"
MESSAGES = 1000

def log(*a):
    print("[startup-variants %s]" % time.strftime("%H:%M:%S"), *a, file=sys.stderr, flush=True)

def env(extra):
    e = dict(os.environ)
    e.update({"MQ_TENANTS": "startup", "MQ_SUBSCRIBER_NAME": "startup",
              "QUARKUS_HTTP_PORT": str(http_port), "QUARKUS_MANAGEMENT_PORT": str(mgmt_port),
              "QUARKUS_HTTP_HOST": "127.0.0.1", "QUARKUS_MANAGEMENT_HOST": "127.0.0.1",
              "QUARKUS_DATASOURCE_JDBC_URL": W["STARTUP_DB_URL"], "QUARKUS_DATASOURCE_USERNAME": "startup",
              "QUARKUS_DATASOURCE_PASSWORD": "startup", "MQ_RETENTION_ENABLED": "false"})
    e.update(extra)
    return e

def loadavg():
    return open("/proc/loadavg").read().split()[:3]

def ready_once():
    try:
        with urllib.request.urlopen("http://127.0.0.1:%d/q/health/ready" % mgmt_port, timeout=1) as r:
            return r.status == 200 and json.load(r).get("status") == "UP"
    except Exception:
        return False

def rss_mb(pid):
    for line in open("/proc/%d/status" % pid):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024.0
    raise RuntimeError("no VmRSS")

def cpu_s(pid):
    """User + system CPU seconds of the process so far (/proc/<pid>/stat), less sensitive to load than wall time."""
    f = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")

def threads(pid):
    return len(os.listdir("/proc/%d/task" % pid))

def workload(topic):
    """1,000 publish calls of one message, then fetch (up to 100) and ack until 1,000 are acked."""
    c = http.client.HTTPConnection("127.0.0.1", http_port, timeout=60)
    def post(path, body):
        c.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
        r = c.getresponse()
        data = r.read()
        if r.status >= 300:
            raise RuntimeError("%s -> %d %s" % (path, r.status, data[:200]))
        return json.loads(data)
    base = "/tenants/startup/topics/%s" % topic
    for i in range(MESSAGES):
        post(base + "/messages", {"messages": [{"partitionKey": "k%d" % (i % 16), "id": "m%d" % i, "payload": {"n": i}}]})
    acked, deadline = 0, time.monotonic() + 120
    while acked < MESSAGES:
        if time.monotonic() > deadline:
            raise RuntimeError("only %d of %d acked" % (acked, MESSAGES))
        got = post(base + "/consumer-groups/g/fetch", {"maxMessages": 100, "waitSeconds": 5})["messages"]
        if got:
            res = post(base + "/consumer-groups/g/ack", {"receipts": [m["receipt"] for m in got]})["results"]
            acked += sum(1 for x in res if x["status"] == "ACKED")
    c.close()

def start(java, jar_dir, opts, extra_env, logname):
    cmd = [java] + opts + ["-jar", "quarkus-run.jar"]
    out = open(os.path.join(work, logname), "w")
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, cwd=jar_dir, env=env(extra_env), stdout=out, stderr=subprocess.STDOUT)
    while not ready_once():
        if p.poll() is not None:
            raise RuntimeError("%s exited with %d; see %s" % (logname, p.returncode, out.name))
        if time.monotonic() - t0 > 120:
            raise RuntimeError("%s not ready after 120 s" % logname)
        time.sleep(0.01)
    return p, time.monotonic() - t0, cmd

def stop(p, timeout=60):
    p.send_signal(signal.SIGTERM)
    try:
        p.wait(timeout)
    except subprocess.TimeoutExpired:
        p.kill(); p.wait()

VARIANTS = {
    "plain": (j17, FAST, [], {}, None),
    "jdk25": (j25, FAST, [], {}, None),
    "aot": (j25, AOT, [], {}, "app.aot"),
    "sidecar": (j17, FAST, sidecar_opts, sidecar_env, None),
    "sidecar-aot": (j25, AOT, sidecar_opts, sidecar_env, "app.aot"),
}

# Unmeasured: migrate the schema, so every measured start finds it in place. The same start
# checks that probes are quiet (docs/operations.md, "Health, metrics and the management port"): 20 calls of each probe may add no log line.
p, _, _ = start(j17, FAST, [], {}, "migrate.log")
time.sleep(1)
def log_lines():
    return open(os.path.join(work, "migrate.log")).read().splitlines()
before = log_lines()
for _ in range(20):
    for probe in ("ready", "live", "started"):
        with urllib.request.urlopen("http://127.0.0.1:%d/q/health/%s" % (mgmt_port, probe), timeout=5) as r:
            r.read()
time.sleep(0.5)
probe_lines = log_lines()[len(before):]
log("probes: 60 calls (/q/health/ready, /live, /started x 20) added %d log lines" % len(probe_lines))
stop(p)

out = {"generated": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
       "method": "time from spawning the JVM to the first GET /q/health/ready (management port) answering 200 UP, "
                 "polled every 10 ms; CPU to ready = user + system CPU seconds of the JVM at that moment (/proc/<pid>/stat: on a loaded machine it varies far less than the wall time); RSS = VmRSS from /proc after %d publish calls (1 message each) and %d messages "
                 "fetched (<=100 per fetch) and acked; median of %d runs, min and max beside it; schema already migrated"
                 % (MESSAGES, MESSAGES, runs),
       "machine": {"cpus": os.cpu_count(), "loadavg_at_start": loadavg()},
       "jdk17": subprocess.run([j17, "-version"], capture_output=True, text=True).stderr.splitlines()[0],
       "jdk25": subprocess.run([j25, "-version"], capture_output=True, text=True).stderr.splitlines()[0],
       "probe_log_lines": {"calls": 60, "new_lines": len(probe_lines), "lines": probe_lines},
       "sidecar_jvm_options": W["SIDECAR_OPTS"], "sidecar_env": W["SIDECAR_ENV"], "variants": {}}

for name in variants:
    java, jar_dir, opts, extra_env, cache = VARIANTS[name]
    run_opts = list(opts)
    if cache:
        # Trained by PackagedJarTrainingIT in the -Paot build. AOTMode=on: a cache the JVM
        # cannot use is an error, not a silent run without it.
        run_opts = opts + ["-XX:AOTCache=" + cache, "-XX:AOTMode=on"]
    samples = []
    for i in range(runs):
        la = loadavg()
        p, ready, cmd = start(java, jar_dir, run_opts, extra_env, "%s-%d.log" % (name, i + 1))
        rss_ready, cpu_ready = rss_mb(p.pid), cpu_s(p.pid)
        t = time.monotonic()
        workload("%s-%d-%d" % (name, i, int(time.time())))
        work_s = time.monotonic() - t
        rss, thr = rss_mb(p.pid), threads(p.pid)
        stop(p)
        s = {"ready_s": round(ready, 3), "cpu_to_ready_s": round(cpu_ready, 2), "rss_ready_mb": round(rss_ready, 1), "rss_after_mb": round(rss, 1),
             "threads_after": thr, "workload_s": round(work_s, 2), "loadavg_1m": float(la[0])}
        log(name, "run", i + 1, s)
        samples.append(s)
    def stat(k):
        v = [s[k] for s in samples]
        return {"median": statistics.median(v), "min": min(v), "max": max(v)}
    out["variants"][name] = {
        "command": "cd %s && %s %s" % (jar_dir, " ".join("%s=%s" % kv for kv in extra_env.items()),
                                        " ".join([java] + run_opts + ["-jar", "quarkus-run.jar"])),
        "ready_s": stat("ready_s"), "cpu_to_ready_s": stat("cpu_to_ready_s"), "rss_ready_mb": stat("rss_ready_mb"), "rss_after_mb": stat("rss_after_mb"),
        "threads_after": stat("threads_after"), "workload_s": stat("workload_s"),
        "loadavg_1m": stat("loadavg_1m"), "runs": samples}

out["machine"]["loadavg_at_end"] = loadavg()
with open(os.path.join(results, "startup-variants.json"), "w") as f:
    json.dump(out, f, indent=2)
    f.write("\n")

goal = lambda v: "yes" if v["ready_s"]["median"] <= 1.0 and v["rss_after_mb"]["median"] <= 150 else "no"
fmt = lambda d, p: ("%." + str(p) + "f (%." + str(p) + "f–%." + str(p) + "f)") % (d["median"], d["min"], d["max"])
lines = ["# JVM start-up variants (bench/startup-variants.sh)", "",
         out["method"] + ".", "",
         "Machine: %d CPUs, load average %s at the start and %s at the end (other builds ran at the same time); %s; %s." % (
             out["machine"]["cpus"], " ".join(out["machine"]["loadavg_at_start"]), " ".join(out["machine"]["loadavg_at_end"]),
             out["jdk17"], out["jdk25"]), "",
         "| variant | ready (s) | CPU to ready (s) | RSS at ready (MB) | RSS after workload (MB) | threads | workload (s) | load avg | goal (≤ 1 s, ≤ 150 MB) |",
         "|---|---|---|---|---|---|---|---|---|"]
for name, v in out["variants"].items():
    lines.append("| %s | %s | %s | %s | %s | %d | %s | %.1f | %s |" % (name, fmt(v["ready_s"], 2), fmt(v["cpu_to_ready_s"], 2), fmt(v["rss_ready_mb"], 0),
                 fmt(v["rss_after_mb"], 0), v["threads_after"]["median"], fmt(v["workload_s"], 1), v["loadavg_1m"]["median"], goal(v)))
lines += ["", "Probes: %d calls (/q/health/ready, /live and /started, 20 each) on the packaged jar added %d log lines." % (
    out["probe_log_lines"]["calls"], out["probe_log_lines"]["new_lines"])]
lines += ["", "Commands (environment: MQ_TENANTS, the datasource, ports):", ""]
for name, v in out["variants"].items():
    lines.append("- `%s`: `%s`" % (name, v["command"]))
with open(os.path.join(results, "startup-variants.md"), "w") as f:
    f.write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
