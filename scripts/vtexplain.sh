#!/usr/bin/env bash
# vtexplain: Vitess's offline query planner. It shows how vtgate routes each statement
# over a sharded keyspace. VitessRoutingTest uses it, and it is handy for reviewing SQL by hand.
#
# Usage: scripts/vtexplain.sh build        build (once per machine) and print the binary's path
#        scripts/vtexplain.sh FLAGS...     build if needed, then run vtexplain with FLAGS, e.g.
#          scripts/vtexplain.sh --shards 4 --vschema-file deploy/vitess/vschema.json \
#            --schema "$(cat src/main/resources/db/migration/*.sql)" --sql "SELECT ..."
#
# The binary is built from the Go module vitess.io/vitess@$MQ_VITESS_VERSION through the Go
# module proxy (about 5 minutes on 2 cores) and cached in $MQ_VITESS_CACHE. Neither Vitess's
# code nor the binary belongs in this repository.
# `go install vitess.io/vitess/go/cmd/vtexplain@VERSION` refuses the module, because its
# go.mod has exclude directives. So the script builds in a copy of the module's source,
# where that go.mod is the main module.
# vtexplain exits at once when run as root ("running this as root makes no sense"), so as
# root the script runs it as the user `nobody`. File flags must then name files that
# `nobody` can read; inline --schema/--vschema/--sql avoid that.
#
# Environment:
#   MQ_VITESS_VERSION  Vitess module version (default v0.24.4)
#   MQ_VITESS_CACHE    where the binary is kept (default /var/cache/tenant-mq/vitess-$MQ_VITESS_VERSION)
set -euo pipefail

VERSION=${MQ_VITESS_VERSION:-v0.24.4}
CACHE=${MQ_VITESS_CACHE:-/var/cache/tenant-mq/vitess-$VERSION}
BIN=$CACHE/vtexplain

build() {
  [[ -x $BIN ]] && return 0
  command -v go >/dev/null || { echo "vtexplain.sh: needs Go (apt-get install golang-go)" >&2; exit 1; }
  echo "vtexplain.sh: building vtexplain from vitess.io/vitess@$VERSION (once per machine)..." >&2
  local src work
  src=$(cd / && go mod download -json "vitess.io/vitess@$VERSION" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
  [[ -d $src ]] || { echo "vtexplain.sh: go mod download gave no source directory" >&2; exit 1; }
  work=$(mktemp -d)
  trap 'rm -rf "$work"' RETURN
  cp -r "$src/." "$work/"
  chmod -R u+w "$work"
  mkdir -p "$CACHE"
  (cd "$work" && go build -trimpath -o "$BIN.tmp" ./go/cmd/vtexplain)
  mv "$BIN.tmp" "$BIN"
  chmod 755 "$CACHE" "$BIN"
  echo "vtexplain.sh: built $BIN" >&2
}

build
if [[ ${1:-} == build ]]; then
  echo "$BIN"
  exit 0
fi
if [[ $(id -u) == 0 ]]; then
  exec runuser -u nobody -- "$BIN" "$@"
fi
exec "$BIN" "$@"
