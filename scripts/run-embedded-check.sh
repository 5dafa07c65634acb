#!/usr/bin/env bash
# Ctrl-C on bin/run-embedded stops it quietly, however early (README, "Without building again"):
# starts bin/run-embedded in a process group of its own and sends SIGINT to the whole group, as a
# terminal's Ctrl-C does, at several moments of its start (while the database starts, while the
# service migrates the schema, at the service's first second), then checks that it ended, that its
# processes are gone, and that the service logged no WARN or ERROR and no stack trace beyond the one
# start-up WARN about a random receipt key.
#
# Needs target/quarkus-app and target/classes (./mvnw -B package -DskipTests). Free ports; about a
# minute per moment. Usage: scripts/run-embedded-check.sh [moment ...], each "line:seconds" (SIGINT
# that long after the first log line containing "line") or "seconds" (after the start).
set -euo pipefail
cd "$(dirname "$(readlink -f "$0")")/.."

OUT=$(mktemp -d "${TMPDIR:-/tmp}/run-embedded-check.XXXXXX")
moments=("$@")
if [ ${#moments[@]} -eq 0 ]; then
  moments=("2" "embedded MariaDB at:0" "Migrating schema:0" "started in:0" "started in:1")
fi

failed=0
for i in "${!moments[@]}"; do
  moment=${moments[i]}
  log="$OUT/run-$i.log"
  python3 - "$log" "$moment" <<'EOF'
import os, signal, socket, subprocess, sys, time

log, moment = sys.argv[1], sys.argv[2]
line, _, delay = moment.rpartition(":")

def port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return str(p)

env = dict(os.environ, QUARKUS_HTTP_PORT=port(), QUARKUS_MANAGEMENT_PORT=port())
with open(log, "w") as out:
    # SIGINT as a terminal leaves it (a caller started in the background may have it ignored).
    p = subprocess.Popen(["bin/run-embedded"], stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                         env=env, start_new_session=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    started = time.time()
    while line and line not in open(log).read():
        if p.poll() is not None or time.time() - started > 600:
            print("run-embedded-check: never logged '%s'" % line, file=sys.stderr)
            break
        time.sleep(0.05)
    time.sleep(float(delay))
    os.killpg(p.pid, signal.SIGINT)
    try:
        rc = p.wait(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        rc = "did not end within 120 s"
    out.write("run-embedded-check: exit %s\n" % rc)
    try:
        os.killpg(p.pid, 0)
        out.write("run-embedded-check: processes of the group are still running\n")
        os.killpg(p.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
EOF
  problems=$(grep -E ' (WARN|ERROR) |Exception|^\s+at |did not end|still running|never logged' "$log" \
    | grep -v 'WARN  \[dev.tenantmq.domain.ReceiptSigning\] (main) mq.receipt.key' || true)
  if ! grep -q 'run-embedded-check: exit 130' "$log"; then
    problems+=$'\n'"$(grep 'run-embedded-check: exit' "$log" || echo 'no exit status')"
  fi
  if [ -n "$problems" ]; then
    echo "FAIL Ctrl-C at '$moment' ($log):"
    echo "$problems" | head -20
    failed=1
  else
    echo "ok   Ctrl-C at '$moment': $(grep -cE 'stopped in|released the leases' "$log" || true) shutdown lines, exit 130"
  fi
done
if [ "$failed" -eq 0 ]; then
  rm -rf "$OUT"
fi
exit "$failed"
