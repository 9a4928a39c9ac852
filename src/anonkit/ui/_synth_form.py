"""The risk–utility map's DP synthesis series (issue 29 item 4): the domain form's values → the
``dp-synthetic`` (MST) config placed on the map beside the shown run and SafePub.

The rule the form follows is the synthesizer's: every published column's domain is **declared by the
user, never read from the data** — reading a column's categories or range from the table would spend
privacy budget the (ε, δ) guarantee does not count (a rare category names the one record holding it).
So the form is prefilled only from what the user already declared: a ``dp-synthetic`` domain in the
shown run's config, and the leaf values of a hierarchy file the user imported (the file is theirs).
Everything else starts empty, and an empty or invalid column is refused in one line naming it: the
shape of a filled column is checked by the algorithm's own check
(:func:`anonkit.algorithms.synth.dp_synthetic.check_options`), not re-implemented here.

Everything here is pure (no Shiny), so the form's request is tested without a browser.
"""

from __future__ import annotations

import copy
import importlib.util
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from anonkit.algorithms.synth.dp_synthetic import check_options
from anonkit.algorithms.synth.dp_synthetic import dp_synthetic as _dp_synthetic
from anonkit.errors import InputError

__all__ = ["DP_MODULES", "SYNTH", "SYNTH_METHOD", "FormColumn", "domain_from_form", "dp_extra_missing",
           "form_columns", "prefill", "synth_config", "synth_delta"]

#: the synthesizer's series name on the map (its algorithm's config name)
SYNTH: str = _dp_synthetic.spec.name  # type: ignore[attr-defined]
#: the method the map's series runs (MST: one pass, no rounds to plan; AIM is for a config of its own)
SYNTH_METHOD = "mst"
#: the ``dp`` extra's modules the series needs: OpenDP's noise and private-pgm's model
DP_MODULES = ("opendp", "mbi")
#: roles whose columns are not published (so the synthesizer does not synthesize them)
UNPUBLISHED_ROLES = ("identifier", "person")
#: the attribute type whose columns get bounds, bins and a whole-number tick instead of categories
NUMERIC = "numeric"


@dataclass(frozen=True)
class FormColumn:
    """One row of the domain form: the published column, and whether it is numeric (bounds) or not
    (categories); the kind is the column's declared type, not its values."""

    name: str
    numeric: bool


def dp_extra_missing() -> str | None:
    """Why the DP synthesis series cannot run here (the ``dp`` extra is not installed), or ``None``."""
    missing = [m for m in DP_MODULES if importlib.util.find_spec(m) is None]
    if not missing:
        return None
    return (f"DP synthesis needs the dp extra ({', '.join(missing)} not installed): "
            "pip install anonkit[dp], then restart anonkit ui")


def synth_delta(n: int, delta: float) -> float:
    """SafePub's δ (``delta``) when it is below 1/n, else the largest power of ten below 1/(10 n)
    (a δ of 1/n or more allows publishing a whole record; the synthesizer refuses it)."""
    if n <= 0 or delta * n < 1.0:
        return delta
    return 10.0 ** -(math.ceil(math.log10(n)) + 1)


def form_columns(config: Mapping[str, Any], types: Mapping[str, str] | None = None) -> list[FormColumn]:
    """The published columns of the run's config (every attribute but identifiers and person ids),
    numeric when the config or ``types`` (the workspace's declared types) say ``numeric``."""
    types = types or {}
    out = []
    for name, entry in (config.get("attributes") or {}).items():
        if str(entry.get("role", "")) in UNPUBLISHED_ROLES:
            continue
        kind = entry.get("type") or types.get(name, "")
        out.append(FormColumn(str(name), str(kind) == NUMERIC))
    return out


def _text(values: Sequence[Any]) -> str:
    return ", ".join(str(v) for v in values)


def prefill(config: Mapping[str, Any], imported: Mapping[str, Sequence[str]]) -> dict[str, dict[str, Any]]:
    """The form's starting values per column, from what the user declared only: a ``dp-synthetic``
    domain in ``config``'s algorithm, else the leaf values of a hierarchy the user imported
    (``imported``: column → leaves; a numeric column's bounds are their smallest and largest, whole
    numbers when every leaf is one). A column with neither is absent: its values are not read."""
    out: dict[str, dict[str, Any]] = {}
    for name, leaves in imported.items():
        numbers = _numbers(leaves)
        out[name] = {"categories": _text(leaves)}
        if numbers:
            out[name].update(lo=f"{min(numbers):g}", hi=f"{max(numbers):g}",
                             integer=all(float(x).is_integer() for x in numbers))
    algo = config.get("algorithm") or {}
    if algo.get("name") == SYNTH and isinstance(algo.get("domain"), Mapping):
        for name, raw in algo["domain"].items():
            if not isinstance(raw, Mapping):
                continue
            if "categories" in raw:
                out[str(name)] = {"categories": _text(raw["categories"])}
            elif isinstance(raw.get("bounds"), list | tuple) and len(raw["bounds"]) == 2:
                lo, hi = raw["bounds"]
                out[str(name)] = {"lo": str(lo), "hi": str(hi), "bins": str(raw.get("bins", "")),
                                  "integer": bool(raw.get("integer", False))}
    return out


def _numbers(values: Sequence[str]) -> list[float]:
    """Every value as a finite number, or ``[]`` when one is not."""
    out = []
    for v in values:
        try:
            x = float(v)
        except (TypeError, ValueError):
            return []
        if not math.isfinite(x):
            return []
        out.append(x)
    return out


def _number(text: str) -> object:
    """A bound as typed: an int or a float, else the text itself (the algorithm's check refuses it)."""
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            continue
    return text


def _column(c: FormColumn, values: Mapping[str, Any]) -> dict[str, Any]:
    cats = str(values.get("categories") or "").strip()
    lo, hi = str(values.get("lo") or "").strip(), str(values.get("hi") or "").strip()
    bins = str(values.get("bins") or "").strip()
    raw: dict[str, Any] = {}
    if cats:
        raw["categories"] = [t.strip() for t in cats.split(",") if t.strip()]
    if lo or hi:
        raw["bounds"] = [_number(lo) if lo else "(empty)", _number(hi) if hi else "(empty)"]
        if bins:
            raw["bins"] = _number(bins)
        if values.get("integer"):
            raw["integer"] = True
    if not raw:
        what = "its bounds (lo and hi)" if c.numeric else "its categories (comma-separated)"
        raise InputError(f"DP synthesis needs the domain of every published column: fill {what}; the values in "
                         "your table are not read (that would spend privacy budget the guarantee does not count)",
                         column=c.name)
    return raw


def domain_from_form(columns: Sequence[FormColumn], values: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """The ``domain:`` the form declares (``values``: column → its fields ``categories``, ``lo``,
    ``hi``, ``bins``, ``integer``), checked by the synthesizer's own check; an empty or invalid column
    is refused in one line naming it."""
    domain = {c.name: _column(c, values.get(c.name, {})) for c in columns}
    for name, raw in domain.items():  # one column at a time, so that every refusal names its column
        try:
            check_options({"method": SYNTH_METHOD, "domain": {name: raw}}, "algorithm.")
        except InputError as exc:
            if exc.column is not None:
                raise
            raise InputError(exc.message, column=name, value=exc.value, key=exc.key) from None
    return domain


def synth_config(config: Mapping[str, Any], domain: Mapping[str, Any], epsilon: float, delta: float) -> dict[str, Any]:
    """The run's config as the DP synthesizer runs it: the same input, roles, hierarchies and audit,
    the models replaced by ``{model: differential-privacy, epsilon, delta}`` (which the synthesizer
    enforces) and the algorithm by ``dp-synthetic`` (MST) over the declared ``domain`` with OpenDP's
    draws (not seeded)."""
    out = copy.deepcopy(dict(config))
    out["privacy"] = [{"model": "differential-privacy", "epsilon": epsilon, "delta": delta}]
    out["algorithm"] = {"name": SYNTH, "method": SYNTH_METHOD, "epsilon": epsilon, "delta": delta,
                        "domain": copy.deepcopy(dict(domain))}
    return out
