#!/usr/bin/env bash
# Renders the Kubernetes manifests (k8s/overlays/sidecar and k8s/overlays/central) with
# kustomize and validates them offline, strictly (unknown fields are errors), against the
# schemas of one fixed Kubernetes version that kubernetes-validate ships. Exits non-zero on
# any error. Needs no cluster and no jar.
#
# Tools, installed on first use and cached in $MQ_K8S_TOOLS (default /var/cache/tenant-mq/k8s-tools):
#   kustomize           the Go module sigs.k8s.io/kustomize/kustomize/v5 (go install; needs Go)
#   kubernetes-validate from PyPI, in a virtual environment (needs python3 with venv)
# The rendered manifests are written to target/k8s/<overlay>.yaml. The central one must also
# pass scripts/k8s-policy-check.py: a NetworkPolicy admits only the Prometheus namespace to the
# management port.
#
# Environment:
#   MQ_KUSTOMIZE_VERSION            default v5.7.1
#   MQ_KUBERNETES_VALIDATE_VERSION  default 1.37.0
#   MQ_KUBERNETES_VERSION           schema version to validate against, default 1.35.0 (the package ships 1.25 to 1.37)
set -euo pipefail
cd "$(dirname "$0")/.."

KUSTOMIZE_VERSION=${MQ_KUSTOMIZE_VERSION:-v5.7.1}
KV_VERSION=${MQ_KUBERNETES_VALIDATE_VERSION:-1.37.0}
K8S_VERSION=${MQ_KUBERNETES_VERSION:-1.35.0}
TOOLS=${MQ_K8S_TOOLS:-/var/cache/tenant-mq/k8s-tools}
KUSTOMIZE=$TOOLS/kustomize-$KUSTOMIZE_VERSION/kustomize
VENV=$TOOLS/kubernetes-validate-$KV_VERSION
OUT=target/k8s

if [[ ! -x $KUSTOMIZE ]]; then
  command -v go >/dev/null || { echo "k8s-validate.sh: needs Go to install kustomize (apt-get install golang-go)" >&2; exit 1; }
  echo "k8s-validate.sh: installing kustomize $KUSTOMIZE_VERSION (go install, once per machine)" >&2
  mkdir -p "$(dirname "$KUSTOMIZE")"
  (cd / && GOBIN="$(dirname "$KUSTOMIZE")" go install "sigs.k8s.io/kustomize/kustomize/v5@$KUSTOMIZE_VERSION")
fi
if [[ ! -x $VENV/bin/kubernetes-validate ]]; then
  echo "k8s-validate.sh: installing kubernetes-validate $KV_VERSION (PyPI, once per machine)" >&2
  rm -rf "$VENV"
  if ! python3 -m venv "$VENV" 2>/dev/null; then
    apt-get update -q >/dev/null && apt-get install -y -q python3-venv >/dev/null
    rm -rf "$VENV"
    python3 -m venv "$VENV"
  fi
  "$VENV/bin/pip" install -q --disable-pip-version-check "kubernetes-validate==$KV_VERSION"
fi

validate() {
  "$VENV/bin/kubernetes-validate" --strict --kubernetes-version "$K8S_VERSION" "$@"
}

# The validator must reject what it should: a manifest with an unknown field fails, or this
# check would prove nothing.
mkdir -p "$OUT"
cat > "$OUT/must-fail.yaml" <<'YAML'
apiVersion: v1
kind: ConfigMap
metadata:
  name: must-fail
  unknownField: x
data: {}
YAML
if validate "$OUT/must-fail.yaml" >/dev/null 2>&1; then
  echo "k8s-validate.sh: kubernetes-validate accepted an unknown field; strict validation is not working" >&2
  exit 1
fi

status=0
for overlay in sidecar central; do
  "$KUSTOMIZE" build "k8s/overlays/$overlay" > "$OUT/$overlay.yaml"
  echo "== $overlay: $(grep -c '^kind:' "$OUT/$overlay.yaml") resources, Kubernetes $K8S_VERSION, strict"
  validate "$OUT/$overlay.yaml" || status=1
done
# The central overlay keeps its management port (metrics, no credentials) to the Prometheus
# namespace (docs/security.md, "Metrics").
"$VENV/bin/python" scripts/k8s-policy-check.py "$OUT/central.yaml" || status=1
exit $status
