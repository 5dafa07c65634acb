# Sourced by scripts/schemathesis.sh, scripts/ops-check.sh and scripts/ui-test.sh: free ports,
# process cleanup, and an embedded MariaDB (scripts/schemathesis/EmbeddedMariaDb.java, on the
# classpath of the build in target/) for the packaged jar they start.
# Needs OUT (a directory for logs); sets pids (processes killed on exit) and DB_URL (JDBC URL).

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

pids=()
# Stops the processes in the reverse order of their start, each before the next: the service
# (started last) releases its leases in the database on shutdown, so the database (started first)
# must outlive it. One that has not ended after 30 s is killed.
cleanup() {
  local i pid
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
    pid=${pids[i]}
    kill "$pid" 2>/dev/null || continue
    for _ in $(seq 1 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
}
trap cleanup EXIT

# Starts the embedded MariaDB in the background and waits (up to 120 s) for its JDBC URL.
start_embedded_mariadb() {
  ./mvnw -B -o -q dependency:build-classpath -Dmdep.outputFile="$OUT/classpath.txt" >/dev/null 2>&1 \
    || ./mvnw -B -q dependency:build-classpath -Dmdep.outputFile="$OUT/classpath.txt" >/dev/null
  touch "$OUT/mariadb.out"
  java -cp "target/classes:$(cat "$OUT/classpath.txt")" scripts/schemathesis/EmbeddedMariaDb.java \
    >"$OUT/mariadb.out" 2>"$OUT/mariadb.log" &
  pids+=($!)
  for _ in $(seq 1 120); do grep -q '^jdbc:' "$OUT/mariadb.out" && break; sleep 1; done
  DB_URL=$(grep -m1 '^jdbc:' "$OUT/mariadb.out") \
    || { echo "embedded MariaDB did not start" >&2; cat "$OUT/mariadb.log" >&2; exit 1; }
}
