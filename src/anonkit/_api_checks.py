"""The Python API's argument checks: :func:`anonkit.anonymize` refuses a wrong Python type in one line
saying what it got and what to give, before any work.

Without them a list of dicts for the frame, a single model not in a list, a hierarchy given as a
DataFrame or an empty list of models ended in a ``TypeError``/``AttributeError`` from deep inside,
or (the empty list) in a release published under no privacy model at all, which must never happen.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pandas as pd

from anonkit.errors import InputError
from anonkit.models import Criterion
from anonkit.schema import Schema


def _what(value: object) -> str:
    return type(value).__name__


def check_models(models: object) -> list[Criterion]:
    """``models`` as a list of at least one privacy model (a single model must be put in a list)."""
    if isinstance(models, Criterion):
        raise InputError(f"models must be a list of privacy models, got one {_what(models)}: write [{models!r}]",
                         key="models")
    if isinstance(models, str | bytes | dict) or not isinstance(models, Iterable):
        raise InputError(f"models must be a list of privacy models (e.g. [KAnonymity(5)]), got {_what(models)} "
                         f"{models!r}", key="models")
    out = list(models)
    for i, m in enumerate(out):
        if not isinstance(m, Criterion):
            raise InputError(f"models[{i}] is a {_what(m)}, not a privacy model (KAnonymity, DistinctLDiversity, "
                             "TCloseness, … from anonkit.models)", key="models", value=m)
    if not out:
        raise InputError("give at least one privacy model (e.g. [KAnonymity(5)]): a release under no model "
                         "protects nobody", key="models")
    return out


def check_frame(frame: object, *, local: bool) -> None:
    """Refuse a frame that is not a pandas DataFrame (on the local engine; another engine takes its own
    frames)."""
    if local and not isinstance(frame, pd.DataFrame):
        hint = " (build one with pandas.DataFrame(rows))" if isinstance(frame, list | tuple | dict) else ""
        raise InputError(f"frame must be a pandas DataFrame, got {_what(frame)}{hint}", key="frame")


def check_schema(schema: object) -> Schema:
    """Refuse a schema that is not a :class:`~anonkit.schema.Schema`."""
    if not isinstance(schema, Schema):
        raise InputError(f"schema must be an anonkit Schema (Schema.of(quasi=[…], sensitive=[…])), got "
                         f"{_what(schema)}", key="schema")
    return schema


def check_metric(metric: Any) -> Any:
    """A search metric: ``None``, a config's ``MetricConfig``, a ``SearchMetric`` or its name (``"dm"``)."""
    from anonkit import metrics as _m

    if metric is None or isinstance(metric, _m.SearchMetric) or hasattr(metric, "search_metric"):
        return metric
    if isinstance(metric, str):
        return _m.SearchMetric(metric)
    raise InputError(f"metric must be a metric name such as 'loss' or a SearchMetric, got {_what(metric)} "
                     f"{metric!r}", key="metric")
