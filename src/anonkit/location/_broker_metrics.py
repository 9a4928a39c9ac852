"""The broker's counters in the Prometheus text format (``GET /metrics``, operator only)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from anonkit.location._broker_state import Broker

#: the reasons a call is refused, as ``anonkit_broker_rejected_total{reason=…}`` counts them
REJECT_REASONS = ("invalid", "outside_area", "policy", "clock_skew", "out_of_order", "unauthorized", "forbidden",
                  "too_large", "too_many_pending", "closing")
_METHODS = ("spatial", "temporal")


def metrics(broker: Broker) -> str:
    """Every counter and gauge of ``broker``, one sample a line."""
    c, f = broker.counts, broker.forwarder
    lines: list[str] = []

    def metric(name: str, kind: str, text: str, samples: list[tuple[str, float]]) -> None:
        lines.append(f"# HELP anonkit_broker_{name} {text}")
        lines.append(f"# TYPE anonkit_broker_{name} {kind}")
        lines.extend(f"anonkit_broker_{name}{labels} {_number(value)}" for labels, value in samples)

    metric("updates_total", "counter", "Position updates accepted.", [("", c["updates"])])
    metric("requests_total", "counter", "Requests accepted.", [("", c["requests"])])
    metric("served_total", "counter", "Requests cloaked and released for forwarding, by cloaking method.",
           [(f'{{method="{m}"}}', c[f"served_{m}"]) for m in _METHODS])
    metric("held_total", "counter", "Requests held: no cloaking served them (never forwarded).", [("", c["held"])])
    metric("dropped_total", "counter", "Requests dropped: no cloaking served them (never forwarded).",
           [("", c["dropped"])])
    metric("refused_total", "counter", "Releases that failed the broker's own check (never forwarded).",
           [("", c["refused"])])
    metric("lost_total", "counter", "Requests lost when the broker last died: pending, or queued with an unreadable "
           "spool line (read from the journal at start).", [("", c["lost"])])
    metric("pending", "gauge", "Requests waiting for temporal cloaking.", [("", len(broker.pending))])
    metric("subjects", "gauge", "Subjects with a known position.", [("", broker.cloaker.subjects)])
    metric("rejected_total", "counter", "Calls refused, by reason.",
           [(f'{{reason="{r}"}}', c[f"rejected_{r}"]) for r in REJECT_REASONS])
    metric("forwarded_total", "counter", "Cloaked requests the service accepted (status forwarded).",
           [("", c["forwarded"])])
    metric("forward_errors_total", "counter", "Cloaked requests the service did not accept after the retries, or "
           "that could not be queued (status failed).", [("", c["failed"])])
    metric("forward_retries_total", "counter", "Delivery attempts retried.", [("", f.retries)])
    metric("forward_queue", "gauge", "Cloaked requests not yet accepted by the service (status queued).",
           [("", broker.queued)])
    metric("recovered_total", "counter", "Queued requests read back from the spool at start and queued again.",
           [("", c["recovered"])])
    lines.append("# HELP anonkit_broker_request_seconds Time the broker took to handle a call, by endpoint.")
    lines.append("# TYPE anonkit_broker_request_seconds histogram")
    for name, h in broker.latency.items():
        cumulative = 0
        for bound, count in zip((*h.buckets, math.inf), h.counts, strict=True):
            cumulative += count
            le = "+Inf" if bound == math.inf else _number(bound)
            lines.append(f'anonkit_broker_request_seconds_bucket{{endpoint="{name}",le="{le}"}} {cumulative}')
        lines.append(f'anonkit_broker_request_seconds_sum{{endpoint="{name}"}} {_number(h.sum)}')
        lines.append(f'anonkit_broker_request_seconds_count{{endpoint="{name}"}} {h.count}')
    return "\n".join(lines) + "\n"


def _number(value: float) -> str:
    if isinstance(value, float):
        if math.isinf(value):
            return "+Inf" if value > 0 else "-Inf"
        return repr(value)
    return str(value)
