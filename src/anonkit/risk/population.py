"""Sample uniqueness and population uniqueness (ARX ``RiskModelSampleUniqueness``,
``RiskModelPopulationUniqueness``, ``ARXPopulationModel``).

The population is given by its size ``N``, by the sampling fraction ``n/N`` (ARX's
``ARXPopulationModel.create(n, fraction)``: ``N = round(n / fraction)``) or by one of ARX's regions
(:data:`REGIONS`). Population uniqueness — the share of the population's records that are unique in
the quasi-identifiers — is estimated from the release's class-size frequencies by Pitman's, Zayatz's
and the SNB model (:mod:`anonkit.risk.estimators`); Dankar et al.'s decision rule ("Estimating the
re-identification risk of clinical data sets", BMC Med. Inform. Decis. Mak. 12:66, 2012), as ARX
implements it, picks one:

* no sample uniques: no population uniques (0);
* sampling fraction ≤ 0.1: Pitman; when Pitman has no estimate, Zayatz;
* otherwise the smaller of Zayatz and SNB; Zayatz when SNB has no estimate.

Every estimate is reported; a model without an estimate is ``None`` and listed in ``failed`` (ARX
reports it as 0).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from anonkit.errors import InputError
from anonkit.risk._newton import DEFAULT_SOLVER, SolverConfig
from anonkit.risk._sizes import released_sizes, size_histogram
from anonkit.risk.estimators import pitman, snb, zayatz

__all__ = ["MODELS", "REGIONS", "PopulationUniqueness", "population_size", "population_uniqueness",
           "sample_uniqueness"]

#: ARX's ``ARXPopulationModel.Region`` populations (names lower-case; ``_`` and ``-`` read as spaces)
REGIONS: dict[str, int] = {
    "africa": 1_100_000_000,
    "australia": 23_130_900,
    "europe": 740_000_000,
    "north america": 565_265_000,
    "south america": 385_742_554,
    "european union": 507_420_000,
    "brasil": 202_656_788,
    "canada": 34_834_841,
    "china": 1_366_040_000,
    "france": 65_820_916,
    "germany": 80_767_000,
    "india": 1_210_569_573,
    "uk": 63_705_000,
    "usa": 317_238_626,
}

#: the estimators and the decision rule, as ``model`` names them
MODELS = ("dankar", "pitman", "zayatz", "snb")
#: Dankar et al.'s rule: Pitman up to this sampling fraction, else the smaller of Zayatz and SNB
DANKAR_PITMAN_FRACTION = 0.1

Model = Literal["dankar", "pitman", "zayatz", "snb"]


def population_size(records: int, population: int | str | None = None,
                    sampling_fraction: float | None = None) -> tuple[int, str | None]:
    """The population size ``N`` (and the region's name, if one was named) from ``population`` (a
    size or a region of :data:`REGIONS`) or ``sampling_fraction`` (``N = round(records / fraction)``,
    ARX's rounding: half up). ``N`` must hold the ``records`` released."""
    if population is not None and sampling_fraction is not None:
        raise InputError("give the population size or the sampling fraction, not both", key="sampling_fraction")
    region = None
    if sampling_fraction is not None:
        if isinstance(sampling_fraction, bool) or not isinstance(sampling_fraction, int | float | np.number):
            raise InputError("sampling_fraction must be a number in (0, 1]", key="sampling_fraction",
                             value=sampling_fraction)
        f = float(sampling_fraction)
        if not 0.0 < f <= 1.0:
            raise InputError("sampling_fraction must lie in (0, 1]", key="sampling_fraction", value=sampling_fraction)
        size = math.floor(records / f + 0.5)
    elif isinstance(population, str):
        region = " ".join(population.lower().replace("_", " ").replace("-", " ").split())
        if region not in REGIONS:
            raise InputError(f"unknown region; known: {', '.join(sorted(REGIONS))}", key="population",
                             value=population)
        size = REGIONS[region]
    elif population is None:
        raise InputError("population uniqueness needs the population: its size, a region or the sampling "
                         "fraction", key="population")
    else:
        if isinstance(population, bool) or not isinstance(population, int | float | np.number) or (
                not float(population).is_integer()):
            raise InputError("population must be a whole number of records (or a region)", key="population",
                             value=population)
        size = int(population)
    if size < records or size < 0:
        raise InputError(f"the population must hold at least the {records:,} released record(s)",
                         key="sampling_fraction" if sampling_fraction is not None else "population",
                         value=sampling_fraction if sampling_fraction is not None else size)
    return size, region


def sample_uniqueness(sample_sizes: object) -> float:
    """Share of the released records that are alone in their class (ARX
    ``RiskModelSampleUniqueness.getFractionOfUniqueRecords``; 0 when nothing is released). With
    sizes that count persons, the share of persons alone in their class."""
    sizes = released_sizes(sample_sizes)
    n = int(sizes.sum())
    return float((sizes == 1).sum()) / n if n else 0.0


@dataclass(frozen=True)
class PopulationUniqueness:
    """Estimated population uniqueness of a release.

    Attributes
    ----------
    pitman, zayatz, snb:
        Each model's estimated share of the population that is unique (``None``: no estimate — the
        solver did not converge or the estimate left ``[0, N]``).
    dankar:
        The estimate Dankar et al.'s rule picks.
    requested:
        The model asked for (``"dankar"``: the rule); ``fraction`` is its estimate.
    model:
        The estimator behind ``fraction``: the one Dankar's rule picked, or the one requested;
        ``"dankar"`` when the rule was asked for and there are no sample uniques (every estimate is 0,
        as in ARX).
    population_size, sampling_fraction, records, sample_uniques:
        ``N``, ``n/N``, ``n`` and the classes of size 1.
    region:
        The region named for ``N``, if any.
    failed:
        The models without an estimate.
    note:
        One line: which model was used and why.
    """

    pitman: float | None
    zayatz: float | None
    snb: float | None
    dankar: float | None
    requested: str
    model: str
    population_size: int
    sampling_fraction: float
    records: int
    sample_uniques: int
    region: str | None
    failed: tuple[str, ...]
    note: str

    @property
    def fraction(self) -> float | None:
        """The estimate of ``requested``: the share of the population unique in the quasi-identifiers."""
        return getattr(self, self.requested)

    @property
    def uniques(self) -> float | None:
        """The estimated number of population uniques (``fraction × N``)."""
        f = self.fraction
        return None if f is None else f * self.population_size

    @property
    def sample_uniqueness(self) -> float:
        """Share of the released records that are sample uniques."""
        return self.sample_uniques / self.records if self.records else 0.0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: every estimate under its model's name (``None`` without one); ``model`` is the
        estimator behind ``fraction`` (for the rule, the one it picked)."""

        def num(v: float | None) -> float | None:
            return None if v is None else float(v)

        uniques = self.uniques
        return {
            "model": self.model,
            "requested": self.requested,
            "fraction": num(self.fraction),
            "uniques": num(uniques),
            "pitman": num(self.pitman),
            "zayatz": num(self.zayatz),
            "snb": num(self.snb),
            "dankar": num(self.dankar),
            "population_size": int(self.population_size),
            "sampling_fraction": float(self.sampling_fraction),
            "records": int(self.records),
            "sample_uniques": int(self.sample_uniques),
            "sample_uniqueness": float(self.sample_uniqueness),
            "region": self.region,
            "failed": list(self.failed),
            "note": self.note,
        }


def population_uniqueness(sample_sizes: object, *, population: int | str | None = None,
                          sampling_fraction: float | None = None, model: Model = "dankar",
                          solver: SolverConfig | None = None) -> PopulationUniqueness:
    """Population uniqueness of a release from its class sizes (ARX ``RiskModelPopulationUniqueness``).

    Parameters
    ----------
    sample_sizes:
        Per released class, its records (persons, with a person column); empty classes are ignored.
    population, sampling_fraction:
        The population: its size ``N`` or a region of :data:`REGIONS`, or the sampling fraction
        ``n/N``. One of them is required.
    model:
        ``"dankar"`` (the decision rule, ARX's default), ``"pitman"``, ``"zayatz"`` or ``"snb"``: the
        estimate ``fraction`` reports. All are computed.
    solver:
        Newton–Raphson settings for Pitman and SNB; ARX's defaults when omitted.
    """
    if model not in MODELS:
        raise InputError(f"unknown population model; allowed: {', '.join(MODELS)}", key="model", value=model)
    sizes = released_sizes(sample_sizes)
    n = int(sizes.sum())
    N, region = population_size(n, population, sampling_fraction)
    f = n / N if N else 0.0
    c1 = int((sizes == 1).sum())
    common = {"requested": model, "population_size": N, "sampling_fraction": f, "records": n,
              "sample_uniques": c1, "region": region}
    if c1 == 0:
        return PopulationUniqueness(pitman=0.0, zayatz=0.0, snb=0.0, dankar=0.0, model=model, failed=(),
                                    note="no sample uniques, so no population uniques", **common)
    values, counts = size_histogram(sizes)
    config = solver or DEFAULT_SOLVER
    numbers = {"pitman": pitman(values, counts, N, config), "zayatz": zayatz(values, counts, N),
               "snb": snb(values, counts, N, config)}
    # ARX treats NaN and 0 alike: no estimate
    est = {k: (None if math.isnan(v) or v == 0.0 else v / N) for k, v in numbers.items()}
    failed = tuple(k for k in ("pitman", "zayatz", "snb") if est[k] is None)
    chosen, why = _dankar(est, f)
    if model == "dankar":
        used, note = chosen, why
    else:
        used = model
        note = f"{model} asked for" + ("" if est[model] is not None else f"; {model} has no estimate")
    if failed:
        note += f" ({', '.join(failed)}: no estimate)"
    return PopulationUniqueness(pitman=est["pitman"], zayatz=est["zayatz"], snb=est["snb"], dankar=est[chosen],
                                model=used, failed=failed, note=note, **common)


def _dankar(est: dict[str, float | None], fraction: float) -> tuple[str, str]:
    """Dankar et al.'s choice as ARX's ``getNumUniqueTuplesDankar(true)`` makes it, with the reason."""
    if fraction <= DANKAR_PITMAN_FRACTION:
        if est["pitman"] is not None:
            return "pitman", f"sampling fraction {fraction:.4g} ≤ {DANKAR_PITMAN_FRACTION}: Pitman (Dankar et al.)"
        return "zayatz", (f"sampling fraction {fraction:.4g} ≤ {DANKAR_PITMAN_FRACTION}: Pitman, which has no "
                          "estimate, so Zayatz (ARX's fallback)")
    zay, snb_ = est["zayatz"], est["snb"]
    if snb_ is None:
        return "zayatz", (f"sampling fraction {fraction:.4g} > {DANKAR_PITMAN_FRACTION}: the smaller of Zayatz and "
                          "SNB; SNB has no estimate, so Zayatz")
    if zay is not None and zay < snb_:
        return "zayatz", f"sampling fraction {fraction:.4g} > {DANKAR_PITMAN_FRACTION}: Zayatz, smaller than SNB"
    return "snb", f"sampling fraction {fraction:.4g} > {DANKAR_PITMAN_FRACTION}: SNB, not larger than Zayatz"
