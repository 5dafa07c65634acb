#!/usr/bin/env python3
"""Checks a rendered central overlay (scripts/k8s-validate.sh writes target/k8s/central.yaml):
the management port of the queue pods (9000, named `management`: /q/metrics and /q/health, no
credentials, tenant names in the metrics) is admitted to one namespace only, the Prometheus
namespace, by a NetworkPolicy (docs/security.md, "Metrics").

It holds when a NetworkPolicy selects the queue pods for Ingress, and every one of its ingress
rules that admits the management port (a rule without ports admits every port) admits only
sources chosen by a namespaceSelector. Before checking the manifest, the check proves that it
rejects what it should: the same manifest without its NetworkPolicy, and with a management
rule open to every source. Needs PyYAML (the kubernetes-validate venv has it).

Usage: k8s-policy-check.py RENDERED.yaml [NAMESPACE]   (NAMESPACE default: monitoring)
"""
import copy
import sys

import yaml

MANAGEMENT = {"management", 9000}


def pod_labels(docs):
    for d in docs:
        if d.get("kind") == "Deployment":
            return d["spec"]["template"]["metadata"]["labels"]
    raise SystemExit("k8s-policy-check.py: no Deployment in the manifest")


def admits_management(rule):
    ports = rule.get("ports")
    return not ports or any(p.get("port") in MANAGEMENT for p in ports)


def problems(docs, namespace):
    labels = pod_labels(docs)
    policies = [d for d in docs if d.get("kind") == "NetworkPolicy"
                and all(labels.get(k) == v for k, v in d["spec"].get("podSelector", {}).get("matchLabels", {}).items())
                and "Ingress" in d["spec"].get("policyTypes", ["Ingress"])]
    if not policies:
        return ["no NetworkPolicy selects the queue pods for Ingress: the management port is open to every pod"]
    out = []
    for p in policies:
        name = p["metadata"]["name"]
        for i, rule in enumerate(p["spec"].get("ingress", [])):
            if not admits_management(rule):
                continue
            sources = rule.get("from")
            if not sources:
                out.append(f"NetworkPolicy {name} ingress[{i}] admits the management port from every source")
                continue
            for s in sources:
                ns = s.get("namespaceSelector", {}).get("matchLabels", {})
                if ns != {"kubernetes.io/metadata.name": namespace}:
                    out.append(f"NetworkPolicy {name} ingress[{i}] admits the management port from {s},"
                               f" not only the namespace {namespace}")
        if not any(admits_management(r) for r in p["spec"].get("ingress", [])):
            out.append(f"NetworkPolicy {name} admits no one to the management port: Prometheus cannot scrape")
    return out


def main():
    path = sys.argv[1]
    namespace = sys.argv[2] if len(sys.argv) > 2 else "monitoring"
    with open(path) as f:
        docs = [d for d in yaml.safe_load_all(f) if d]
    # The check must reject what it should, or it proves nothing.
    without = [d for d in docs if d.get("kind") != "NetworkPolicy"]
    opened = copy.deepcopy(docs)
    for d in opened:
        if d.get("kind") == "NetworkPolicy":
            for rule in d["spec"].get("ingress", []):
                rule.pop("from", None)
    for name, bad in (("without its NetworkPolicy", without), ("with the management port open", opened)):
        if not problems(bad, namespace):
            print(f"k8s-policy-check.py: the check accepted the manifest {name}; it proves nothing", file=sys.stderr)
            return 1
    found = problems(docs, namespace)
    for p in found:
        print(f"k8s-policy-check.py: {path}: {p}", file=sys.stderr)
    if not found:
        print(f"== {path}: the management port admits the namespace {namespace} only (NetworkPolicy)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
