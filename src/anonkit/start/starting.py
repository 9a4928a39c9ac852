"""A whole starting config for a table nobody has configured yet: what ``anonkit init`` writes and
``anonkit ui`` opens with.

:func:`starting_point` puts together the roles (:func:`~anonkit.start.roles.suggest_roles`), a
hierarchy built from the data for every quasi-identifier (:func:`~anonkit.start.hierarchies.auto_hierarchy`),
a model set and an algorithm, and :meth:`StartingPoint.to_yaml` writes it as a commented YAML config
(the reason for every role beside it) that parses back to the same config and that ``anonkit
anonymize`` runs as it is. The model set:

* k-anonymity with the k of anonkit's default highest-risk threshold (no record above 20 %: k = 5,
  :func:`~anonkit.start.risk.models_for_risk`), at most the number of records;
* for every sensitive attribute with two values or more, t-closeness with t = :data:`DEFAULT_T`
  (ordered distance for numbers, equal for categories): distinct l-diversity alone lets an attacker
  infer a skewed class's value (anonkit's audit measures that on Adult), t-closeness bounds it.

The algorithm: Flash (ARX's optimal full-domain search) while the lattice of the hierarchies has at
most :data:`FLASH_NODES` nodes, else Lightning (ARX's heuristic for large lattices); both suppress at
most :data:`MAX_SUPPRESSION` of the records.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from anonkit.algorithms.lattice.lightning import lightning
from anonkit.algorithms.registry import default_algorithm
from anonkit.errors import InputError
from anonkit.hierarchy.builders.periods import date_ladder, year_level
from anonkit.risk.thresholds import DEFAULT_HIGHEST_RISK
from anonkit.start.hierarchies import auto_hierarchy, built_hierarchy
from anonkit.start.risk import models_for_risk
from anonkit.start.roles import ROLES, ColumnAdvice, suggest_roles

#: the t of the t-closeness suggested for every sensitive attribute
DEFAULT_T = 0.2
#: the largest lattice Flash searches in a starting config (above it: Lightning)
FLASH_NODES = 100_000
#: the share of records a starting config lets the algorithm suppress
MAX_SUPPRESSION = 0.02
#: the input a config names when :func:`starting_point` is given no path
PLACEHOLDER_INPUT = "data.csv"


@dataclass(frozen=True)
class StartingPoint:
    """A starting config (``config``: the dict a YAML config parses to), the advice per column it came
    from (``columns``), and the notes that explain its choices (``notes``: model, algorithm)."""

    config: dict[str, Any]
    columns: list[ColumnAdvice]
    notes: dict[str, str] = field(default_factory=dict)

    def to_yaml(self) -> str:
        """The config as commented YAML: a header on how to run it, the reason for every role as a
        comment above its attribute, the reason for the models and the algorithm; it parses back to
        :attr:`config`."""
        return _yaml(self)


def starting_point(frame: pd.DataFrame, *, input: str | dict[str, Any] | None = None) -> StartingPoint:
    """The starting config for ``frame``, read from ``input`` (a path the config names as it is given,
    or a whole ``input:`` mapping such as ``{path: data.csv, separator: ";"}``)."""
    columns = suggest_roles(frame)
    attributes: dict[str, dict[str, Any]] = {}
    heights: list[int] = []
    sensitive: list[ColumnAdvice] = []
    for c in columns:
        entry: dict[str, Any] = {"role": c.role}
        if c.role in ("quasi", "sensitive"):
            entry["type"] = c.type
        if c.role == "quasi":
            spec = auto_hierarchy(frame[c.name], name=c.name, type="code" if c.shape == "code" else c.type)
            entry["hierarchy"] = spec
            heights.append(built_hierarchy(frame[c.name], spec, name=c.name).height)
            if c.kind == "dob" and spec["builder"] == "periods":
                entry["min_level"] = year_level(date_ladder(frame[c.name], name=c.name))
        if c.role == "sensitive":
            sensitive.append(c)
        attributes[c.name] = entry
    privacy, model_note = _models(frame, sensitive)
    nodes = math.prod(h + 1 for h in heights)
    optimal = default_algorithm().name  # Flash, ARX's optimal search
    name = optimal if nodes <= FLASH_NODES else lightning.spec.name  # type: ignore[attr-defined]
    algorithm_note = (f"{name}: the hierarchies make a lattice of {nodes:,} generalizations; "
                      + ("Flash finds the one that loses least" if name == optimal else
                         f"above {FLASH_NODES:,} Lightning searches it heuristically")
                      + f"; at most {MAX_SUPPRESSION:.0%} of the records may be suppressed")
    source = _input_entry(input)
    config = {
        "input": source,
        "attributes": attributes,
        "privacy": privacy,
        "algorithm": {"name": name, "max_suppression": MAX_SUPPRESSION},
        "output": {"path": _output_path(source.get("path", PLACEHOLDER_INPUT))},
        "seed": 0,
    }
    return StartingPoint(config, columns, {"privacy": model_note, "algorithm": algorithm_note})


def _models(frame: pd.DataFrame, sensitive: list[ColumnAdvice]) -> tuple[list[dict[str, Any]], str]:
    """The model set and why (see the module)."""
    advice = models_for_risk(highest=DEFAULT_HIGHEST_RISK)[0]
    k = min(int(advice["k"]), len(frame))
    note = advice.explanation if k == advice["k"] else (
        f"k-anonymity with k = {k}, the number of records (k = {advice['k']} would need more records)")
    privacy: list[dict[str, Any]] = [{"model": "k-anonymity", "k": k}]
    for s in sensitive:
        if frame[s.name].nunique(dropna=False) < 2:
            continue
        distance = "ordered" if s.type == "numeric" else "equal"
        privacy.append({"model": "t-closeness", "attribute": s.name, "t": DEFAULT_T, "distance": distance})
    if len(privacy) > 1:
        note += (f"; t-closeness (t = {DEFAULT_T}) on the sensitive attributes: every class's distribution of them "
                 "stays close to the whole table's, so being in a class tells little about a person's value")
    return privacy, note


def _input_entry(given: str | dict[str, Any] | None) -> dict[str, Any]:
    if isinstance(given, dict):
        if "path" not in given and "dataset" not in given:
            raise InputError("the input mapping needs 'path' (or 'dataset')", key="input")
        return dict(given)
    return {"path": PLACEHOLDER_INPUT if given is None else str(given)}


def _output_path(path: str) -> str:
    """``data.csv`` → ``data-anonymized.csv`` beside it (every input format's release as CSV)."""
    if "://" in path:
        return "anonymized.csv"
    stem = os.path.splitext(path)[0]
    return f"{stem}-anonymized.csv"


# --------------------------------------------------------------------------------------------- YAML
def _flow(value: Any) -> str:
    """``value`` in YAML's flow style on one line (quoted where YAML would misread it)."""
    return yaml.safe_dump(value, default_flow_style=True, width=1 << 30, sort_keys=False,
                          allow_unicode=True).strip().removesuffix("...").strip()


def _key(name: str) -> str:
    return _flow([name])[1:-1]


def _comment(text: str, indent: str = "") -> list[str]:
    """``text`` as comment lines of at most about 110 characters."""
    words, lines, line = text.split(), [], ""
    for w in words:
        if line and len(indent) + 2 + len(line) + 1 + len(w) > 110:
            lines.append(line)
            line = w
        else:
            line = f"{line} {w}".strip()
    if line:
        lines.append(line)
    return [f"{indent}# {x}" for x in lines]


def _yaml(point: StartingPoint) -> str:
    c = point.config
    path = c["input"].get("path", "")
    out = [f"# anonkit starting config for {Path(str(path)).name or 'the input'}, written by `anonkit init`:",
           "# roles, types and hierarchies were guessed from the data; read every reason below, change what",
           "# is wrong, then run (the roles: " + ", ".join(ROLES) + "):",
           "#   anonkit anonymize THIS_FILE",
           "# The run prints a verdict (the audit); when it fails it says the change that passes.",
           f"input: {_flow(c['input'])}", "attributes:"]
    by_name = {a.name: a for a in point.columns}
    for name, entry in c["attributes"].items():
        a = by_name.get(name)
        if a is not None and a.reason:
            out += _comment(f"{a.role}: {a.reason}", "  ")
        out.append(f"  {_key(name)}: {_flow(entry)}")
    out += _comment(point.notes.get("privacy", ""))
    out.append("privacy:")
    out += [f"  - {_flow(m)}" for m in c["privacy"]]
    out += _comment(point.notes.get("algorithm", ""))
    out.append(f"algorithm: {_flow(c['algorithm'])}")
    out.append(f"output: {_flow(c['output'])}")
    out.append(f"seed: {_flow(c['seed'])}")
    text = "\n".join(out) + "\n"
    if yaml.safe_load(text) != c:  # the comments never change the config
        raise AssertionError("the commented YAML does not parse back to the config")
    return text
