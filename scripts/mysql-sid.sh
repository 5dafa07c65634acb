#!/usr/bin/env bash
# Run a throwaway MySQL 9.7 server (Debian sid's mysql-server-core) from a
# cached debootstrap chroot, for CI (.ci/run) and local development.
#
# Usage: scripts/mysql-sid.sh start|stop|status|url|purge
#
#   start   build the chroot if it is not cached yet (~1 min, once per machine),
#           wipe and re-initialize the data directory (~5 s, so every start is a
#           clean database), start mysqld in the background, wait until it
#           accepts connections, create database `tenant_mq` and the TCP root
#           account, then print the JDBC URL on stdout (progress goes to
#           stderr, so `URL=$(scripts/mysql-sid.sh start)` works).
#           If the server is already running it only prints the URL.
#   stop    shut the server down cleanly (SIGTERM) and wait for it to exit.
#           The data and logs stay in the chroot for inspection until the
#           next start.
#   status  print whether it runs; exit 0 if running, 3 if not.
#   url     print the JDBC URL.
#   purge   stop, then delete the cached chroot (next start rebuilds it from
#           the current sid, e.g. to pick up a newer MySQL).
#
# Connection: user `root`, EMPTY password, over TCP to 127.0.0.1:$MQ_MYSQL_PORT,
#   jdbc:mysql://127.0.0.1:3307/tenant_mq
# No extra JDBC parameters are needed: the account uses caching_sha2_password
# (MySQL 9.x has no server-side mysql_native_password), and with an empty
# password there is nothing to encrypt, so neither TLS nor
# allowPublicKeyRetrieval=true is required (both sslMode=PREFERRED, the
# default, and sslMode=DISABLED work).
#
# Environment:
#   MQ_MYSQL_PORT           TCP port (default 3307)
#   MQ_MYSQL_CHROOT         cached chroot (default /var/cache/tenant-mq/mysql-sid)
#   MQ_DEBIAN_MIRROR        mirror for debootstrap (default: the machine's own
#                           Debian mirror, read from its apt sources)
#   MQ_MYSQL_START_TIMEOUT  seconds to wait for the server (default 60)
#
# Needs root (chroot, debootstrap). Uses no bind mounts at all: mysqld runs
# fine without /proc and /dev inside the chroot (debootstrap already creates
# the /dev nodes it needs), so there is nothing to unmount on stop.
# The chroot shares the host's network, so host programs reach the server on
# 127.0.0.1; it listens there only.
set -euo pipefail

PORT="${MQ_MYSQL_PORT:-3307}"
CHROOT="${MQ_MYSQL_CHROOT:-/var/cache/tenant-mq/mysql-sid}"
# The machine's configured Debian archive (deb822 or one-line format), not a hard-coded host.
host_mirror() {
    { grep -hE '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '{print $2}'
      grep -hE '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null | awk '{print $2}'
    } | grep -v -- '-security' | grep -E '/debian/?$' | head -n 1 || true
}
MIRROR="${MQ_DEBIAN_MIRROR:-$(host_mirror)}"
START_TIMEOUT="${MQ_MYSQL_START_TIMEOUT:-60}"
DB=tenant_mq

# Paths as seen from inside the chroot.
DATADIR=/var/lib/mysql
RUNDIR=/run/mysqld
SOCK="$RUNDIR/mysqld.sock"
LOGDIR=/var/log/mysql
ERRLOG="$LOGDIR/error.log"

log() { echo "mysql-sid: $*" >&2; }
die() { log "ERROR: $*"; exit 1; }

if ! [[ "$PORT" =~ ^[0-9]+$ ]] || (( PORT < 1 || PORT > 65535 )); then
  die "MQ_MYSQL_PORT must be a port number, got '$PORT'"
fi
[[ "$CHROOT" = /* ]] || die "MQ_MYSQL_CHROOT must be an absolute path, got '$CHROOT'"
CHROOT="${CHROOT%/}"

jdbc_url() { echo "jdbc:mysql://127.0.0.1:$1/$DB"; }

# Clients inside the chroot; --no-defaults so no stray my.cnf is read.
in_chroot() { chroot "$CHROOT" "$@"; }
mysql_sock() { in_chroot /usr/bin/mysql --no-defaults --socket="$SOCK" -uroot "$@"; }

# PIDs of mysqld processes whose root directory is our chroot. This is the
# source of truth for "running" (a pid file can be stale after a crash or a
# reboot, and a pid can be reused by an unrelated process).
server_pids() {
  local real p
  real="$(readlink -f "$CHROOT" 2>/dev/null)" || return 0
  for p in /proc/[0-9]*; do
    [[ "$(readlink "$p/root" 2>/dev/null)" == "$real" ]] || continue
    [[ "$(cat "$p/comm" 2>/dev/null)" == mysqld ]] || continue
    echo "${p#/proc/}"
  done
}

# Port of the running server, recorded by start (falls back to $PORT).
running_port() {
  local f="$CHROOT$RUNDIR/port"
  if [[ -s "$f" ]]; then cat "$f"; else echo "$PORT"; fi
}

# Serialize start/stop/purge, also across concurrent CI jobs and developers.
take_lock() {
  mkdir -p "$(dirname "$CHROOT")"
  exec 9>"$CHROOT.lock"
  flock -w 900 9 || die "could not lock $CHROOT.lock within 900 s"
}

# Unmount anything below $1 (debootstrap mounts /proc and /sys in its target
# while it runs and leaves them mounted if it is interrupted).
unmount_below() {
  local dir mp
  dir="$(readlink -f "$1")"
  awk -v d="$dir" '$5 == d || index($5, d "/") == 1 { print $5 }' /proc/self/mountinfo |
    sort -r | while read -r mp; do umount -l "$mp" || true; done
}

remove_tree() {
  [[ -e "$1" ]] || return 0
  unmount_below "$1"
  # --one-file-system: never descend into something still mounted.
  rm -rf --one-file-system "$1"
}

ensure_debootstrap() {
  command -v debootstrap >/dev/null && return 0
  log "installing debootstrap with apt-get"
  export DEBIAN_FRONTEND=noninteractive
  # Try the existing package lists first; refresh them only if that fails.
  if ! apt-get install -y -q debootstrap >&2; then
    apt-get update -q >&2
    apt-get install -y -q debootstrap >&2
  fi
}

BUILD_TMP=
cleanup_build() { if [[ -n "$BUILD_TMP" ]]; then remove_tree "$BUILD_TMP"; BUILD_TMP=; fi; }

# Build the chroot into a temp dir and rename it into place only when it is
# complete, so an interrupted build is never taken for a cache.
ensure_chroot() {
  if [[ -x "$CHROOT/usr/sbin/mysqld" ]]; then return 0; fi
  [[ -e "$CHROOT" ]] && die "$CHROOT exists but has no usr/sbin/mysqld; remove it (scripts/mysql-sid.sh purge)"
  [[ -n "$MIRROR" ]] || die "no Debian mirror found in /etc/apt/sources*; set MQ_DEBIAN_MIRROR"
  ensure_debootstrap
  local stale buildlog="$CHROOT.build.log"
  # Leftovers of interrupted builds (we hold the lock, so nobody else builds).
  for stale in "$CHROOT".tmp.*; do
    if [[ -e "$stale" ]]; then remove_tree "$stale"; fi
  done
  BUILD_TMP="$CHROOT.tmp.$$"
  trap cleanup_build EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  log "building chroot $CHROOT from Debian sid (about 1 minute, log: $buildlog)"
  local t0=$SECONDS
  if ! debootstrap --variant=minbase --include=mysql-server-core,mysql-client-core \
        sid "$BUILD_TMP" "$MIRROR" >"$buildlog" 2>&1; then
    tail -n 30 "$buildlog" >&2 || true
    die "debootstrap failed (full log: $buildlog)"
  fi
  chroot "$BUILD_TMP" /usr/sbin/mysqld --version >/dev/null \
    || die "mysqld does not run inside the new chroot"
  unmount_below "$BUILD_TMP"
  # The downloaded .debs are not needed once installed (saves ~85 MB).
  rm -f "$BUILD_TMP"/var/cache/apt/archives/*.deb
  mv -T "$BUILD_TMP" "$CHROOT"
  BUILD_TMP=
  trap - EXIT INT TERM
  log "chroot built in $((SECONDS - t0)) s"
}

# Kill whatever mysqld of ours is running (used when start fails half-way,
# so a failed start never leaves a server behind).
kill_server() {
  local pids=()
  mapfile -t pids < <(server_pids)
  if (( ${#pids[@]} )); then kill -KILL "${pids[@]}" 2>/dev/null || true; fi
}

print_log_tail() {
  log "last lines of $CHROOT$ERRLOG:"
  tail -n 40 "$CHROOT$ERRLOG" >&2 2>/dev/null || true
  if [[ -s "$CHROOT$LOGDIR/console.log" ]]; then
    log "mysqld stdout/stderr ($CHROOT$LOGDIR/console.log):"
    tail -n 20 "$CHROOT$LOGDIR/console.log" >&2 || true
  fi
}

cmd_start() {
  take_lock
  local pids=()
  mapfile -t pids < <(server_pids)
  if (( ${#pids[@]} )); then
    local rp
    rp="$(running_port)"
    [[ "$rp" == "$PORT" ]] || die "already running on port $rp, not $PORT; run 'stop' first"
    log "already running (pid ${pids[*]})"
    jdbc_url "$rp"
    return 0
  fi

  # Fail clearly if someone else already has the port.
  if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then
    die "something is already listening on 127.0.0.1:$PORT (set MQ_MYSQL_PORT)"
  fi

  ensure_chroot
  log "$(in_chroot /usr/sbin/mysqld --version | sed 's/^ *//')"

  # Fresh data directory on every start, so each run begins from a clean DB.
  local t0=$SECONDS
  rm -rf --one-file-system "$CHROOT$DATADIR" "$CHROOT$RUNDIR"
  mkdir -p "$CHROOT$RUNDIR" "$CHROOT$LOGDIR"
  : >"$CHROOT$ERRLOG"; : >"$CHROOT$LOGDIR/init.log"
  # --initialize-insecure: root@localhost (unix socket) gets an empty password.
  if ! in_chroot /usr/sbin/mysqld --no-defaults --initialize-insecure --user=root \
        --datadir="$DATADIR" --log-error="$LOGDIR/init.log" >/dev/null 2>&1; then
    tail -n 30 "$CHROOT$LOGDIR/init.log" >&2 || true
    die "mysqld --initialize-insecure failed"
  fi
  echo "$PORT" >"$CHROOT$RUNDIR/port"

  # Server options, chosen for a disposable local test database.
  local args=(
    --no-defaults                       # must come first; ignore any my.cnf
    --user=root                         # mysql-server-core creates no mysql user
    --datadir="$DATADIR"
    --socket="$SOCK"
    --pid-file="$RUNDIR/mysqld.pid"
    --log-error="$ERRLOG"
    --bind-address=127.0.0.1            # local only
    --port="$PORT"
    --mysqlx=OFF                        # no X protocol listener on 33060
    --skip-name-resolve                 # no DNS lookup per connection
    --skip-log-bin                      # no binlog disk growth
    --secure-file-priv=                 # allow LOAD DATA / SELECT INTO OUTFILE anywhere
    --max-connections=500
    --innodb-flush-log-at-trx-commit=2  # no fsync per commit
    --innodb-doublewrite=OFF            # crash safety is moot, data is thrown away
    --innodb-buffer-pool-size=512M
    --character-set-server=utf8mb4
    --collation-server=utf8mb4_0900_ai_ci
    --tmpdir=/tmp
  )
  # Detach mysqld: setsid leaves our terminal/process group, the redirects
  # and closing every other inherited fd keep it from holding the caller's
  # pipes (`$(...)` or CI would wait for it) and our lock (fd 9) forever.
  (
    for fd in /proc/self/fd/*; do
      fd="${fd##*/}"
      if (( fd > 2 )); then exec {fd}>&-; fi
    done
    exec setsid chroot "$CHROOT" /usr/sbin/mysqld "${args[@]}"
  ) </dev/null >"$CHROOT$LOGDIR/console.log" 2>&1 &
  local launcher=$!

  # Wait until it answers on its socket, bailing out early if it died.
  local deadline=$((SECONDS + START_TIMEOUT))
  until mysql_sock -N -e 'SELECT 1' >/dev/null 2>&1; do
    if [[ -z "$(server_pids)" ]] && ! kill -0 "$launcher" 2>/dev/null; then
      print_log_tail
      die "mysqld exited during startup"
    fi
    if (( SECONDS >= deadline )); then
      print_log_tail
      kill_server
      die "mysqld did not accept connections within ${START_TIMEOUT} s"
    fi
    sleep 0.3
  done

  # With --skip-name-resolve, root@localhost matches only the unix socket, so
  # add an explicit TCP account for 127.0.0.1 (empty password, all rights).
  mysql_sock -e "
    CREATE USER IF NOT EXISTS 'root'@'127.0.0.1' IDENTIFIED BY '';
    GRANT ALL PRIVILEGES ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION;
    CREATE DATABASE IF NOT EXISTS \`$DB\`;" \
    || { print_log_tail; kill_server; die "could not create database/user"; }

  # Prove the path the application will use: TCP to 127.0.0.1:$PORT as root.
  local version
  version="$(in_chroot /usr/bin/mysql --no-defaults --protocol=TCP -h127.0.0.1 -P"$PORT" \
      -uroot -N -e 'SELECT VERSION()' "$DB")" \
    || { print_log_tail; kill_server; die "TCP connection to 127.0.0.1:$PORT failed"; }
  log "MySQL $version ready on 127.0.0.1:$PORT in $((SECONDS - t0)) s (user root, empty password; log $CHROOT$ERRLOG)"
  jdbc_url "$PORT"
}

cmd_stop() {
  take_lock
  local pids=()
  mapfile -t pids < <(server_pids)
  if (( ${#pids[@]} == 0 )); then
    log "not running"
    return 0
  fi
  # SIGTERM is mysqld's clean shutdown (same as mysqladmin shutdown).
  kill -TERM "${pids[@]}" 2>/dev/null || true
  local deadline=$((SECONDS + 60))
  while [[ -n "$(server_pids)" ]]; do
    if (( SECONDS >= deadline )); then
      log "still running after 60 s, killing (data is disposable)"
      mapfile -t pids < <(server_pids)
      if (( ${#pids[@]} )); then kill -KILL "${pids[@]}" 2>/dev/null || true; fi
      sleep 1
      break
    fi
    sleep 0.2
  done
  rm -f "$CHROOT$RUNDIR/port"
  log "stopped"
}

cmd_status() {
  local pids=()
  mapfile -t pids < <(server_pids)
  if (( ${#pids[@]} )); then
    local port version
    port="$(running_port)"
    version="$(mysql_sock -N -e 'SELECT VERSION()' 2>/dev/null || echo '?')"
    echo "running: pid ${pids[*]}, MySQL $version, $(jdbc_url "$port")"
    return 0
  fi
  if [[ -x "$CHROOT/usr/sbin/mysqld" ]]; then
    echo "stopped (chroot cached at $CHROOT)"
  else
    echo "stopped (chroot not built yet: $CHROOT)"
  fi
  return 3
}

cmd_url() {
  if [[ -n "$(server_pids)" ]]; then jdbc_url "$(running_port)"; else jdbc_url "$PORT"; fi
}

cmd_purge() {
  cmd_stop
  log "removing $CHROOT"
  remove_tree "$CHROOT"
  rm -f "$CHROOT.build.log"
}

[[ $EUID -eq 0 ]] || die "must run as root (chroot/debootstrap)"

case "${1:-}" in
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  url) cmd_url ;;
  purge) cmd_purge ;;
  *) echo "usage: $0 start|stop|status|url|purge" >&2; exit 2 ;;
esac
