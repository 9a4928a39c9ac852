"""Algorithm ``dp-synthetic``: a synthetic table drawn from a differentially private graphical model
(issue 29), by MST (McKenna, Miklau & Sheldon 2021, :mod:`._mst`) or AIM (McKenna et al. 2022,
:mod:`._aim`), the model fitted by private-pgm (``mbi``, :mod:`._model`).

1. **Domain**: every synthesized column — every column the input publishes: quasi-identifiers,
   sensitive and insensitive ones; identifiers and person columns never reach the table — has a
   domain declared in ``domain`` (:mod:`._domain`): nothing about the domain is read from the data,
   so the preprocessing budget is 0. An id column (new-id, pseudonym, household) or a survey weight
   is refused: a synthetic row is no person, so it has no id and no weight.
2. **Budget**: (ε, δ) becomes ρ-zCDP by Bun & Steinke's conversion (:mod:`._accounting`); MST spends
   ρ/3 on one-way marginals, ρ/3 on choosing a spanning tree of two-way marginals, ρ/3 on measuring
   them; AIM spends it over adaptive rounds. Every noisy count and every choice is drawn by OpenDP
   (:mod:`._draws`); with ``seeded: true`` they come from NumPy seeded by the run's seed instead —
   reproducible and NOT private.
3. **Rows**: ``rows`` when given, otherwise the noisy total of the one-way measurements (rounded,
   at least 1), sampled from the fitted model (post-processing, no budget): a binned value drawn
   uniformly inside its bin.

What is true of the output: every row is synthetic (no row is a person's record, though one may
equal a real record by chance), every value lies in its declared domain, the table has exactly the
declared columns and the stated rows. Under ``privacy:`` a ``differential-privacy`` model with the
same ε and δ is what this algorithm enforces (a different ε or δ is refused); every other model is
judged by the audit on the synthetic table, not enforced.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Annotated, Any, Literal

import numpy as np
import pandas as pd
from pydantic import Field

import anonkit.algorithms.lattice.safepub  # noqa: F401  (declares the model's first enforcer before we add ours)
from anonkit._verify_synth import SYNTHETIC, verify_synthetic
from anonkit.algorithms.spec import algorithm
from anonkit.algorithms.synth._accounting import epsilon_from_rho, rho_from_epsilon_delta
from anonkit.algorithms.synth._aim import DEFAULT_MAX_MODEL_SIZE, aim
from anonkit.algorithms.synth._domain import ColumnDomain, bind, parse_domain
from anonkit.algorithms.synth._draws import Draws, require_opendp
from anonkit.algorithms.synth._model import DEFAULT_ITERATIONS, fit, noisy_total, sample
from anonkit.algorithms.synth._mst import mst
from anonkit.errors import InputError
from anonkit.models import Criterion
from anonkit.models.differential_privacy import DifferentialPrivacy
from anonkit.release import Release, full_domain_release
from anonkit.schema import Role
from anonkit.table import Table

NAME = "dp-synthetic"
#: the options that apply to AIM only
AIM_ONLY = ("max_model_size", "rounds")
#: the warning a seeded run carries (as SafePub's)
SEEDED_WARNING = "a seeded run is reproducible and NOT differentially private: publish only unseeded runs"
#: roles a synthetic table cannot carry (a synthetic row is no person: no id, no household, no weight)
REFUSED_ROLES = (Role.NEW_ID, Role.PSEUDONYM, Role.HOUSEHOLD, Role.WEIGHT)

if NAME not in DifferentialPrivacy.enforced_by:
    DifferentialPrivacy.enforced_by = (*DifferentialPrivacy.enforced_by, NAME)


class _OneTable(dict):  # type: ignore[type-arg]
    """``Release.tables`` of a synthetic release: the verifier finds the table by its declared name,
    while as a mapping of *linked* tables it is empty, so the write, the audit and the report read the
    release as one table (:meth:`SyntheticRelease.to_frame`)."""

    def __init__(self, frame: pd.DataFrame) -> None:
        super().__init__()
        self.frame = frame

    def __missing__(self, key: str) -> pd.DataFrame:
        if key == SYNTHETIC:
            return self.frame
        raise KeyError(key)


@dataclass
class SyntheticRelease(Release):
    """A release whose published table is synthetic (``published``). Its classes are one per input
    record only so that the release's bookkeeping (counts, the verifier's row count) has a shape: no
    synthetic row stands for a record, so nothing reads them as classes — the family ``synth`` is
    declared without class figures (:attr:`anonkit.algorithms.spec.Algorithm.class_figures`): the summary,
    the audit, the report and the UI show none and say why; the audit judges the synthetic table itself
    by the nearest-neighbour attacks."""

    truthful = False  # its published values are not generalizations of the records' own

    published: pd.DataFrame = field(default_factory=pd.DataFrame)

    def published_rows(self, *, suppressed: Literal["drop", "mark"] = "drop", seed: int = 0) -> np.ndarray:
        """No published row is an input record."""
        return np.zeros(0, dtype=np.int64)

    def to_frame(self, *, suppressed: Literal["drop", "mark"] = "drop", seed: int = 0) -> pd.DataFrame:
        return self.published


def check_options(options: Mapping[str, object], where: str = "") -> None:
    """Before any work: the domain's shape (:func:`._domain.parse_domain`) and AIM's options only with AIM."""
    method = options.get("method", "mst")
    for name in AIM_ONLY:
        if method != "aim" and options.get(name) is not None:
            raise InputError(f"{name} is an option of method aim, not {method}: drop it or choose method: aim",
                             key=f"{where}{name}")
    domain = options.get("domain")
    if not isinstance(domain, Mapping) or not domain:
        raise InputError("declare every synthesized column's domain: domain: {column: {categories: [...]} or "
                         "{bounds: [lo, hi], bins: n}}", key=f"{where}domain")
    parse_domain(domain, where)


def _columns(table: Table) -> list[str]:
    """The synthesized columns: every column the input publishes; an id or weight column is refused."""
    for name in table.frame.columns:
        role = table.schema[name].role
        if role in REFUSED_ROLES:
            raise InputError(f"{NAME}: a synthetic row is no person, so it has no {role.value} column: give the "
                             "column role identifier (dropped) or remove it", column=name, key="attributes")
    return list(table.frame.columns)


def _implies(table: Table, models: list[Criterion], options: Mapping[str, object]) -> list[Criterion]:
    """Before any work: OpenDP installed, δ < 1/n, the columns and their domain, a listed
    differential-privacy model with the same ε and δ (then enforced here: it leaves the list of models
    the audit judges on classes, where SafePub's k would mean nothing)."""
    if not options.get("seeded"):
        require_opendp()
    epsilon, delta = float(options["epsilon"]), float(options["delta"])  # type: ignore[arg-type]
    n = table.n_records
    if n and delta * n >= 1.0:
        raise InputError(f"{NAME} delta {delta:g} is not below 1/n = 1/{n}: such a delta allows publishing a whole "
                         f"record; choose delta < {1.0 / n:.3g}", key="algorithm.delta")
    columns = _columns(table)
    _encode(table, bind(parse_domain(options["domain"], "algorithm."), columns))  # type: ignore[arg-type]
    rounds = options.get("rounds")
    if rounds is not None and int(rounds) <= len(columns):  # type: ignore[call-overload]
        raise InputError(f"AIM's rounds must exceed the {len(columns)} synthesized columns (the one-way "
                         f"measurements spend {len(columns)} rounds' budget): give rounds ≥ {len(columns) + 1} or "
                         "drop it (default 16 per column)", key="algorithm.rounds")
    for m in models:
        if isinstance(m, DifferentialPrivacy) and (m.epsilon != epsilon or m.delta != delta):
            raise InputError(f"the differential-privacy model says epsilon {m.epsilon:g}, delta {m.delta:g} but "
                             f"{NAME} spends epsilon {epsilon:g}, delta {delta:g}: give the same values",
                             key="algorithm.epsilon")
    return [m for m in models if not isinstance(m, DifferentialPrivacy)]


def _encode(table: Table, domains: list[ColumnDomain]) -> np.ndarray:
    kept = np.flatnonzero(~table.presuppressed)
    frame = table.frame.iloc[kept]
    if not len(domains):
        return np.zeros((len(kept), 0), dtype=np.int64)
    return np.column_stack([d.encode(frame[d.name]) for d in domains])


def _release(table: Table, published: pd.DataFrame, params: dict[str, Any], notes: dict[str, Any],
             message: str, seconds: float) -> SyntheticRelease:
    record_class = np.full(table.n, -1, dtype=np.int64)
    kept = np.flatnonzero(~table.presuppressed)
    record_class[kept] = np.arange(kept.size)
    base = full_domain_release(table, [0] * len(table.qi), record_class, int(kept.size), algorithm=NAME,
                               params=params, seconds=seconds)
    values = {f.name: getattr(base, f.name) for f in fields(Release)}
    values.update(message=message, notes=notes)
    rel = SyntheticRelease(**values, published=published)
    rel.tables = _OneTable(published)
    return rel


def _message(method: str, epsilon: float, delta: float, rho: float, rows: int, seeded: bool) -> str:
    split = ("one third of rho on one-way marginals, one third choosing a spanning tree of two-way marginals, "
             "one third measuring them" if method == "mst" else
             "rho spent over adaptive rounds: 0.9 of each round measuring, 0.1 choosing the worst-approximated "
             "marginal")
    guarantee = (f"({epsilon:g}, {delta:g})-differential privacy ({rho:.6g}-zCDP)" if not seeded
                 else "NO privacy guarantee: " + SEEDED_WARNING)
    rows_drawn = f"{rows:,} row{'' if rows == 1 else 's'}"
    return (f"synthetic, not records: {rows_drawn} drawn from a graphical model fitted to noisy marginals "
            f"({method.upper()}); no row is a person's record (one may equal a real record by chance); {guarantee}; "
            f"budget: {split}; preprocessing budget 0 (the domain is declared); every value inside its declared "
            "domain; the class figures do not apply (no row stands for a record): judge the table by the audit")


@algorithm(
    NAME,
    family="synth",
    label="DP synthetic data",
    summary="a synthetic table drawn from a differentially private graphical model of the declared columns "
            "(MST or AIM; marginals measured with OpenDP's noise, the model fitted by private-pgm)",
    enforces=(),
    tables=(SYNTHETIC,),
    randomized=True,
    implies=_implies,
    verifier=verify_synthetic,
    check=check_options,
    progress="",
)
def dp_synthetic(
    table: Table,
    models: list[Criterion],
    *,
    epsilon: Annotated[float, Field(gt=0, allow_inf_nan=False)],
    delta: Annotated[float, Field(gt=0, lt=1)],
    domain: dict[str, dict[str, Any]] | None = None,
    method: Literal["mst", "aim"] = "mst",
    rows: Annotated[int, Field(ge=1, le=100_000_000)] | None = None,
    seeded: bool = False,
    iterations: Annotated[int, Field(ge=1, le=100_000)] = DEFAULT_ITERATIONS,
    max_model_size: Annotated[float, Field(gt=0, allow_inf_nan=False)] | None = None,
    rounds: Annotated[int, Field(ge=1, le=10_000)] | None = None,
    seed: int = 0,
) -> Release:
    """DP synthetic data; see the module docstring.

    Parameters
    ----------
    epsilon:
        The privacy budget ε of the whole run.
    delta:
        The probability δ that the ε guarantee fails; below 1/n.
    domain:
        Every synthesized column's domain: {categories: [...]} or {bounds: [lo, hi], bins: n}; never read from the data.
    method:
        mst (one-way marginals and a spanning tree of two-way ones) or aim (adaptive, workload-driven rounds).
    rows:
        The synthetic rows; default: the noisy total of the one-way measurements.
    seeded:
        Draw from the run's seed with NumPy: reproducible, for tests only, and NOT private (default: OpenDP's samplers).
    iterations:
        Mirror-descent iterations of the final model fit.
    max_model_size:
        AIM only: the largest model in megabytes (default 80).
    rounds:
        AIM only: the rounds the budget is planned over (default 16 per column).
    """
    start = time.perf_counter()
    columns = _columns(table)
    domains = bind(parse_domain(domain or {}, "algorithm."), columns)
    codes = _encode(table, domains)
    sizes = [d.size for d in domains]
    draws = Draws(np.random.default_rng(seed) if seeded else None)
    rho = rho_from_epsilon_delta(epsilon, delta)
    if method == "mst":
        measurements, facts = mst(codes, sizes, rho, draws)
    else:
        measurements, facts = aim(codes, sizes, rho, draws, rounds=rounds, iterations=iterations,
                                  max_model_size=max_model_size or DEFAULT_MAX_MODEL_SIZE)
    total = noisy_total(measurements)
    n_rows = int(rows) if rows is not None else max(1, round(total))
    model = fit(sizes, measurements, iterations=iterations, total=total)
    drawn = sample(model, n_rows, draws.sampler_seed())
    values = np.random.default_rng(draws.sampler_seed())
    published = pd.DataFrame({d.name: d.decode(drawn[:, j], values) for j, d in enumerate(domains)},
                             columns=columns)
    notes: dict[str, Any] = {
        "method": method, "epsilon": epsilon, "delta": delta, "rho": rho,
        "epsilon from rho": epsilon_from_rho(rho, delta), "preprocessing budget": 0.0,
        "synthetic rows": n_rows,
        "rows from": "rows" if rows is not None else "the noisy total of the one-way marginals",
        "measured marginals": [[columns[j] for j in m.clique] for m in measurements],
        "values": "a category, or drawn uniformly inside its bin (whole numbers for whole-number columns)",
        "guarantee": (f"({epsilon:g}, {delta:g})-differential privacy" if not seeded else "none: " + SEEDED_WARNING),
        **{k: _plain(v, columns) for k, v in facts.items()},
    }
    if seeded:
        notes["warning"] = SEEDED_WARNING
    params = {"method": method, "epsilon": epsilon, "delta": delta, "domain": dict(domain), "rows": rows,
              "seeded": seeded}
    return _release(table, published, params, notes, _message(method, epsilon, delta, rho, n_rows, seeded),
                    time.perf_counter() - start)


def synth_lines(summary: dict) -> list[tuple[str, str]] | None:
    """``(what, value)`` lines of a ``dp-synthetic`` run's summary for the printed summary (the guarantee,
    the parameters, the rows, the measured marginals); ``None`` for another algorithm's summary."""
    notes = summary.get("notes") or {}
    if summary.get("algorithm") != NAME or "rho" not in notes:
        return None
    marginals = notes.get("measured marginals") or []
    pairs = sum(1 for m in marginals if len(m) == 2)
    return [("guarantee", str(notes.get("guarantee", ""))),
            ("parameters", f"{str(notes['method']).upper()}, epsilon {notes['epsilon']:g}, delta {notes['delta']:g} "
                           f"→ rho {notes['rho']:.6g} (zCDP); preprocessing budget 0 (the domain is declared)"),
            ("rows", f"{notes['synthetic rows']:,} synthetic rows ({notes.get('rows from', '')}); no row is a "
                     "person's record"),
            ("marginals", f"{len(marginals)} measured, {pairs} of them two-way")]


def _plain(value: object, columns: list[str]) -> object:
    """A fact for the notes: cliques of column positions as column names, numbers as Python floats."""
    if isinstance(value, list):
        return [[columns[j] for j in v] if isinstance(v, tuple) else v for v in value]
    return float(value) if isinstance(value, float | np.floating) else value


__all__ = ["SyntheticRelease", "dp_synthetic", "synth_lines"]
