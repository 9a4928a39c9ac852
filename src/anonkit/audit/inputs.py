"""What an audit reads: the release (whoever made it), the original input, the config's schema, and
optionally a population table, a held-out control set and a second release of the same input.

The release is read as the config's output describes it: one table, or, for an algorithm that
publishes linked tables (Anatomy's ``qit``/``st``, angelization's ``qt``/``st``), each table beside
the named path (``NAME-qit.csv``, …) exactly as ``anonkit anonymize`` writes them. Every cell of a
release is read as text (published labels such as ``20-39`` or ``{a,b}`` are not numbers).

How the cells are *read* comes from the algorithm's declaration (:func:`release_reading`), never from
the data (a ``*`` may be a real value in another release): a release of the ``suppress`` family
publishes a suppressed cell as ``*`` that matches any value (``AuditInputs.wildcard``); a per-person
table (an algorithm counting persons that publishes one table: kl-diversity) publishes each
person's set of sensitive values as its sensitive cell (``AuditInputs.transactions``). An audit
built without an algorithm (:class:`AuditInputs` by hand) reads every cell as a value, and says so
in a note when the schema's quasi-identifiers hold ``*`` in some rows only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from anonkit._values import strip_cells
from anonkit.algorithms.spec import Algorithm
from anonkit.config import Config
from anonkit.errors import InputError
from anonkit.hierarchy import Hierarchy
from anonkit.io import check_format, read_table
from anonkit.plan import Plan
from anonkit.plan.load import config_schema, load_input, load_subset
from anonkit.plan.places import location, output_targets
from anonkit.release import SUPPRESSED
from anonkit.schema import Schema

__all__ = ["NEAREST_FAMILIES", "RECORDLESS_ATTACKS", "RECORDLESS_RISK", "WILDCARD_FAMILIES", "AuditInputs",
           "load_audit_inputs", "published_text", "read_extra", "read_release", "release_reading", "release_records",
           "research_subset"]

#: the algorithm families whose releases publish a suppressed quasi-identifier cell as a marker that
#: matches any value (sdcMicro's semantics), and that marker
WILDCARD_FAMILIES: dict[str, str] = {"suppress": SUPPRESSED}
#: the algorithm families whose releases publish exact-looking values that are not the original ones
#: (perturbed values; ``synth``: synthetic tables, a family to come): the singling-out, linkability and
#: inference attacks run in anonymeter's nearest-neighbour form (:mod:`anonkit.analytics.nearest`)
NEAREST_FAMILIES = frozenset({"perturb", "synth"})
#: the attacks that judge a release whose rows are no records (:attr:`AuditInputs.records` false: a synthetic
#: table): the nearest-neighbour singling-out, linkability and inference; the class attacks and the class
#: risks (prosecutor, journalist, marketer) need records grouped in classes, which such a table has not
RECORDLESS_ATTACKS = ("singling-out", "linkability", "inference")
#: why the audit of such a release judges no class risk (the risk section's and the verdict's words)
RECORDLESS_RISK = ("class risks not judged: no published row is a record (a synthetic table), so prosecutor, "
                   "journalist and marketer risk have no classes to count; the attacks judge it")


@dataclass
class AuditInputs:
    """Everything an audit works from (frames as read; the schema the config declares)."""

    schema: Schema
    original: pd.DataFrame
    release: pd.DataFrame | dict[str, pd.DataFrame]
    population_table: pd.DataFrame | None = None
    control: pd.DataFrame | None = None
    other: pd.DataFrame | None = None
    release_location: str | list[str] | None = None
    #: the whole input when the release is of its research subset (``input.subset``): k-map and
    #: δ-presence are recounted in it; ``original`` is then the subset's rows
    population: pd.DataFrame | None = None
    #: the text of a suppressed cell that matches any value (:func:`release_reading`); ``None``: every
    #: published cell is a value of its own
    wildcard: str | None = None
    #: one row per person whose sensitive cell is the person's set of values, ``{a;b}`` (kl-diversity,
    #: :func:`release_reading`)
    transactions: bool = False
    #: the columns whose published value splits a wildcard release into strata (sdcMicro's
    #: ``strataVars``, the algorithm's ``strata`` option): a row is compatible only within its stratum
    strata: tuple[str, ...] = ()
    #: the release's rows hold exact-looking values that are not the original ones (a family of
    #: :data:`NEAREST_FAMILIES`): the anonymeter-style attacks match by nearest neighbour (Gower distance)
    nearest: bool = False
    #: the release's rows are records grouped in classes (:attr:`anonkit.algorithms.spec.Algorithm.class_figures`);
    #: false for a synthetic table: the audit runs :data:`RECORDLESS_ATTACKS` only and judges no class risk
    records: bool = True

    @property
    def hierarchies(self) -> dict[str, Hierarchy]:
        return {a.name: a.hierarchy for a in self.schema.attributes.values() if a.hierarchy is not None}

    @property
    def quasi(self) -> list[str]:
        return self.schema.quasi

    @property
    def sensitive(self) -> list[str]:
        return self.schema.sensitive

    @property
    def tables(self) -> dict[str, pd.DataFrame]:
        """The release's tables by name (``"table"`` for a one-table release)."""
        return dict(self.release) if isinstance(self.release, dict) else {"table": self.release}


def published_text(frame: pd.DataFrame) -> pd.DataFrame:
    """Every cell of a published table as text (labels such as ``20-39`` are not numbers; missing
    cells stay missing)."""
    return frame.astype("string").astype(object).where(frame.notna(), None)


def release_reading(algorithm: Algorithm | None, options: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """How the audit reads the cells of a release ``algorithm`` made with ``options``, from its
    declaration (the :class:`AuditInputs` fields ``wildcard``, ``transactions`` and ``strata``): a
    family of :data:`WILDCARD_FAMILIES` publishes wildcards, counted within the strata its ``strata``
    option names; an algorithm that counts persons and publishes one table publishes each person's set
    of sensitive values; a family of :data:`NEAREST_FAMILIES` publishes exact-looking values that
    are not the original ones (``nearest``). ``None`` (no algorithm known): every cell is a value."""
    if algorithm is None:
        return {"wildcard": None, "transactions": False, "strata": (), "nearest": False}
    wildcard = WILDCARD_FAMILIES.get(algorithm.family)
    strata = tuple(str(c) for c in ((options or {}).get("strata") or ())) if wildcard is not None else ()
    return {"wildcard": wildcard, "transactions": bool(algorithm.persons and len(algorithm.tables) == 1),
            "strata": strata, "nearest": algorithm.family in NEAREST_FAMILIES}


def release_records(algorithm: Algorithm | None) -> dict[str, bool]:
    """The :class:`AuditInputs` field ``records``: whether the release's rows are records grouped in
    classes (:attr:`~anonkit.algorithms.spec.Algorithm.class_figures`; ``True`` when no algorithm is known)."""
    return {"records": algorithm is None or algorithm.class_figures}


def read_release(config: Config, location: str, *, key: str = "RELEASE") -> tuple[
        pd.DataFrame | dict[str, pd.DataFrame], str | list[str]]:
    """The release at ``location`` as the config's algorithm publishes it (one table or linked tables
    beside ``location``), every cell as text."""
    out = config.output
    names = config.algorithm.spec.tables
    targets = output_targets(location, out.table, names)
    frames = {}
    for name, (loc, table) in zip(names if len(names) > 1 else ("table",), targets, strict=True):
        if table is None and "://" not in loc and not Path(loc).is_file():
            what = "the release" if len(names) < 2 else f"the release's {name!r} table"
            raise InputError(f"{what} was not found (anonkit writes linked tables beside the named path)",
                             file=loc, key=key)
        sheet = {"sheet": out.sheet} if (out.format or check_format(loc)) == "excel" else {}
        frame = read_table(loc, format=out.format, separator=out.separator, encoding=out.encoding, table=table,
                           **sheet)
        frames[name] = published_text(frame)
    shown = [loc if tab is None else f"{loc}#{tab}" for loc, tab in targets]
    if len(frames) < 2:  # one table (also one declared by name: local suppression, the perturbative methods)
        return next(iter(frames.values())), shown[0]
    return frames, shown


def read_extra(path: str | None, config: Config, base: Path, key: str) -> pd.DataFrame | None:
    """A population table or control set named in a config (relative to ``base``, ``~`` expanded: the
    one rule of :func:`anonkit.plan.places.location`) or on the command line."""
    if path is None:
        return None
    where = location(base, path)
    if "://" not in where and not Path(where).is_file():
        raise InputError("file not found", file=where, key=key)
    inp = config.input
    return read_table(where, separator=inp.separator, encoding=inp.encoding, na_values=inp.na_values)


def research_subset(config: Config, base: Path, frame: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame | None]:
    """``(original, population)``: with ``input.subset`` the release is of the subset's rows (what the
    attacks compare it with) and the whole input is the population k-map and δ-presence are counted
    in, as a run reads them (:func:`anonkit.plan.load.load_subset`); without one the input and ``None``."""
    mask = load_subset(config, base, frame)
    if mask is None:
        return frame, None
    return frame.loc[mask].reset_index(drop=True), frame


def load_audit_inputs(plan: Plan, release: str, *, population_table: str | None = None,
                      control: str | None = None, other: str | None = None) -> AuditInputs:
    """Read what ``anonkit audit`` audits, by a read-only plan (``plan_from_config(…, writes=False)``):
    its input (``--original`` is the plan's ``input_path``) and schema; the population table and
    control set default to the config's ``audit`` section (paths relative to the config); ``other``
    is a second release of the same input (the unsorted matching attack)."""
    config, base = plan.config, plan.base
    assert config is not None, "an audit reads a config's plan"
    frame, defaults = load_input(config, base, plan.input_path)
    if plan.strip:
        frame = frame.apply(strip_cells) if len(frame.columns) else frame
    schema = config_schema(config, base, defaults, frame)
    frame, population = research_subset(config, base, frame)
    released, shown = read_release(config, release)
    audit = config.audit
    cwd = Path(".")
    pop = read_extra(population_table, config, cwd, "--population-table") if population_table is not None else (
        read_extra(audit.population_table, config, base, "audit.population_table") if audit is not None else None)
    ctl = read_extra(control, config, cwd, "--control") if control is not None else (
        read_extra(audit.control, config, base, "audit.control") if audit is not None else None)
    second = None
    if other is not None:
        second_release, _ = read_release(config, other, key="--other")
        if isinstance(second_release, dict):
            raise InputError("the unsorted matching attack joins two one-table releases; this algorithm "
                             "publishes linked tables", key="--other")
        second = second_release
    for name, extra in (("population table", pop), ("control set", ctl)):
        if extra is not None:
            missing = [c for c in (*schema.quasi, *schema.sensitive) if c in frame.columns and c not in extra.columns]
            if missing:
                raise InputError(f"the {name} lacks a column of the input", column=missing[0])
    return AuditInputs(schema=schema, original=frame, release=released, population_table=pop, control=ctl,
                       other=second, release_location=shown, population=population,
                       **release_reading(plan.algorithm, plan.options), **release_records(plan.algorithm))
