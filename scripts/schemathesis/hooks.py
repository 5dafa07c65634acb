"""Schemathesis hooks of scripts/schemathesis.sh: rules OpenAPI 3.0 cannot state in a schema.

- An admin listing takes exactly one of `tenant` or `allTenants=true` (SPEC section 4, "Admin");
  neither or both is 400. The contract says so in prose, because OpenAPI 3.0 has no way to
  relate two query parameters. A positive case that breaks the rule is made to keep it (it
  gets `tenant` when it has neither, and loses `tenant` when it has both); negative cases are
  left alone.
- An offset reset takes `toOffset` only with `to=offset` and `toDatetime` only with
  `to=datetime`, and needs the one its `to` names (docs/operations.md, "Replay: resetting a
  group's offsets"); a positive case is made to keep that.
- A published message takes `deliverAt` or `deliverAfterSeconds`, not both, and at most the
  retention max-age ahead (docs/api.md, "Delayed delivery"); a positive case keeps one of them,
  a `deliverAt` in the past and a `deliverAfterSeconds` of at most a minute.
- The settings of a consumer group cannot set `retentionMaxAgeSeconds` or `dedupWindowSeconds`
  (they are the topic's), and a default visibility above the maximum set beside it is 400
  (docs/settings.md, "Per-topic and per-group settings"); a positive case is made to keep both.
- A fetch waits up to `waitSeconds` (0..30) when nothing is deliverable, which is nearly
  always the case for generated topics. The run caps a valid wait at 1 s so that the bounded
  run stays bounded; out-of-range values are sent as generated.

It also works around a CPython 3.11 bug (gh-106905: "AST constructor recursion depth
mismatch", a SystemError from ast.parse deep in a recursion) that Hypothesis meets while it
builds the cosmetic text description of a filter's lambda during schemathesis's coverage phase:
the description falls back to Hypothesis's own "<unknown>" text instead of aborting the operation.
"""
import schemathesis
from hypothesis.internal import lambda_sources

_describe_lambda = lambda_sources._lambda_description


def _lambda_description_or_unknown(f, *args, **kwargs):
    try:
        return _describe_lambda(f, *args, **kwargs)
    except SystemError:
        return "lambda: <unknown>"


lambda_sources._lambda_description = _lambda_description_or_unknown

LISTINGS = {"adminTopics", "adminOffsets", "adminConsumerGroups", "adminLeases", "adminSubscribers"}


@schemathesis.hook
def before_call(context, case, kwargs):
    operation_id = case.operation.definition.raw.get("operationId")
    positive = case.meta is not None and case.meta.generation.mode.is_positive
    if operation_id in LISTINGS and positive:
        query = dict(case.query or {})
        all_tenants = query.get("allTenants") in (True, "true")
        if "tenant" in query and all_tenants:
            del query["tenant"]
        elif "tenant" not in query and not all_tenants:
            query["tenant"] = "demo"
        case.query = query
    if operation_id == "fetch" and isinstance(case.body, dict):
        wait = case.body.get("waitSeconds")
        if isinstance(wait, int) and not isinstance(wait, bool) and 1 < wait <= 30:
            case.body["waitSeconds"] = 1

    if positive and operation_id == "adminResetOffsets":
        query = dict(case.query or {})
        to = query.get("to")
        if to != "offset":
            query.pop("toOffset", None)
        elif "toOffset" not in query:
            query["toOffset"] = 1
        if to != "datetime":
            query.pop("toDatetime", None)
        elif "toDatetime" not in query:
            query["toDatetime"] = "2026-01-01T00:00:00Z"
        case.query = query
    if positive and operation_id == "publish" and isinstance(case.body, dict):
        for message in case.body.get("messages") or []:
            if isinstance(message, dict) and "deliverAt" in message:
                if "deliverAfterSeconds" in message:
                    del message["deliverAt"]
                else:
                    message["deliverAt"] = "2000-01-01T00:00:00Z"  # in the past: due at once
            after = message.get("deliverAfterSeconds") if isinstance(message, dict) else None
            if isinstance(after, int) and not isinstance(after, bool) and after > 60:
                message["deliverAfterSeconds"] = 60
    if positive and operation_id == "adminPutSettings" and isinstance(case.body, dict):
        if (case.query or {}).get("consumerGroup") is not None:
            case.body.pop("retentionMaxAgeSeconds", None)
            case.body.pop("dedupWindowSeconds", None)
        default, maximum = case.body.get("defaultVisibilitySeconds"), case.body.get("maxVisibilitySeconds")
        if isinstance(default, int) and isinstance(maximum, int) and default > maximum:
            case.body["defaultVisibilitySeconds"] = maximum
        # A nack backoff base at most its cap, set here or inherited (a topic's override, or the global one):
        # a positive body that sets one of them sets the other too, within the rule.
        base, cap = case.body.get("nackBackoffBaseMillis"), case.body.get("nackBackoffCapMillis")
        base_set = isinstance(base, int) and not isinstance(base, bool)
        cap_set = isinstance(cap, int) and not isinstance(cap, bool)
        if base_set and not cap_set:
            case.body["nackBackoffCapMillis"] = 43200000
        elif cap_set and not base_set:
            case.body["nackBackoffBaseMillis"] = 0
        elif base_set and cap_set and base > cap:
            case.body["nackBackoffBaseMillis"] = cap
