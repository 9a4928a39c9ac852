"""Paper D's comparison (Fazal, Khan, Anjum, Syed, Khan, Rehman, "Improved angelization technique
against background knowledge attack for 1:M microdata", PeerJ CS 9:e1255, 2023):
``anonkit experiment angelization``.

On the 1:M table :func:`anonkit.datasets.make_one_to_many` builds from Adult's persons (all 30,162
by default, about three diagnosis records each; ``--quick``: 3,000), three algorithms publish the
same data:

* ``angelization`` — (θ*,k)-utility angelization (spec §4.5): one bucket per person, QT and ST;
* ``theta-sensitive`` — θ-sensitive k-anonymity applied record by record (spec §4.6; a
  reconstruction): the person column is an identifier, every record counts as a person, so one
  person's records may land in several classes;
* ``kl-diversity`` — (k,l)-diversity for 1:M data (spec §1.6; a reconstruction), ``l = min(k, 5)``
  (the public code's default l = 5, capped at k so that both baselines and angelization ask for
  classes of k).

over ``k ∈ {2, 4, 6, 8, 10}`` at λ = 0.5, and ``λ ∈ {0.5, 0.7, 0.9}`` at k = 4 (λ does not apply to
(k,l)-diversity: its k = 4 run is the reference line). Each run goes through
:func:`anonkit.anonymize` (so every release is verified independently) and is measured with spec
§2.7's measures (:mod:`anonkit.metrics.one_to_many`): NCP per person, query accuracy and mean
relative error of the same 1,000 seeded COUNT queries on every release, the record-intersection
attack, record linkability (mean, maximum), the smallest number of distinct persons in a class
(``min_persons``: the k the release gives persons — the record-level baseline's classes of k
records may hold fewer), and the time of :func:`anonymize`'s encoding and algorithm (median of
``repeats`` runs).

Written to ``--out``: ``angelization_results.csv`` (one row per algorithm and setting),
``angelization_claims.csv`` (the paper's qualitative claims beside ours, reproduced or not),
``angelization_k.png`` and ``angelization_lambda.png``. The paper's text as we have it keeps only
its outline (no figures), so its claims are checked qualitatively: (θ*,k)-utility has better
utility (lower NCP, higher query accuracy) and better privacy (no record intersection, lower
linkability) than both baselines.
"""

from __future__ import annotations

import statistics
import textwrap
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from anonkit.errors import UnsatisfiableError
from anonkit.experiments._main import quick_main

WIDTH = 78
DEFAULT_OUT = "angelization-experiment"
QIS = ("age", "sex", "race", "marital-status", "education", "native-country", "workclass")
SENSITIVE = "diagnosis"
KS = (2, 4, 6, 8, 10)
LAMBDAS = (0.5, 0.7, 0.9)
LAMBDA_K = 4
BASE_LAMBDA = 0.5
QUICK_PERSONS = 3_000
#: (k,l)-diversity's l: the public code's default, capped at k
KL_MAX_L = 5
ALGORITHMS = ("angelization", "theta-sensitive", "kl-diversity")
METRICS = ("min_persons", "ncp", "query_accuracy", "query_error", "intersection_rate", "linkability_mean",
           "linkability_max", "seconds")
#: what each measure's "better" is
LOWER_IS_BETTER = {"min_persons": False, "ncp": True, "query_accuracy": False, "query_error": True,
                   "intersection_rate": True,
                   "linkability_mean": True, "linkability_max": True, "seconds": True}

Progress = Callable[[int, int, str], None]


def _schemas():
    """The schema of the 1:M runs (person column) and of the record-level baseline (an identifier)."""
    from anonkit.datasets import CATEGORY_ORDER, ONE_TO_MANY_CATEGORIES, adult_hierarchies
    from anonkit.schema import Schema

    hier = adult_hierarchies()
    common = {
        "quasi": list(QIS), "sensitive": [SENSITIVE], "hierarchies": {q: hier[q] for q in QIS if q != "age"},
        "types": {"age": "numeric"}, "categories": {SENSITIVE: ONE_TO_MANY_CATEGORIES},
        "category_order": {SENSITIVE: CATEGORY_ORDER},
    }
    return Schema.of(person="person", **common), Schema.of(identifier=["person"], **common)  # type: ignore[arg-type]


def _models(algorithm: str, k: int, lam: float) -> list:
    from anonkit.models import FrequencyLDiversity, KAnonymity, ThetaSensitivity

    if algorithm == "kl-diversity":
        return [KAnonymity(k), FrequencyLDiversity(SENSITIVE, min(k, KL_MAX_L))]
    return [KAnonymity(k), ThetaSensitivity(SENSITIVE, k, lam)]


def _measure(frame: pd.DataFrame, algorithm: str, k: int, lam: float, person: np.ndarray, queries: object,
             repeats: int, seed: int) -> dict:
    """One algorithm at one setting: anonymized ``repeats`` times (the median time), measured once."""
    from anonkit.metrics.one_to_many import linkability, ncp_per_person, query_accuracy, record_intersection
    from anonkit.runner.anonymize import anonymize

    persons_schema, records_schema = _schemas()
    schema = records_schema if algorithm == "theta-sensitive" else persons_schema
    models = _models(algorithm, k, lam)
    row: dict[str, object] = {"algorithm": algorithm, "k": k, "lambda": lam if algorithm != "kl-diversity" else np.nan,
                              "l": min(k, KL_MAX_L) if algorithm == "kl-diversity" else np.nan}
    times, result = [], None
    for _ in range(max(repeats, 1)):
        try:
            result = anonymize(frame, schema, models, algorithm=algorithm, seed=seed)
        except UnsatisfiableError as exc:
            row.update(status="unsatisfiable", reason=str(exc))
            return row
        times.append(float(result.summary["seconds"]))
    assert result is not None and result.verification.ok
    table, release = result.release.table, result.release
    acc = query_accuracy(table, release, queries)  # type: ignore[arg-type]
    inter = record_intersection(table, release, person=person)
    link = linkability(table, release, person=person)
    rc = release.record_class
    kept = rc >= 0
    pairs = np.unique(rc[kept] * np.int64(person.max() + 1) + person[kept])
    people = np.bincount(pairs // (person.max() + 1), minlength=release.n_classes)
    row.update(
        status="verified", classes=release.n_classes, suppressed=release.n_suppressed,
        min_persons=int(people[people > 0].min()) if people.any() else 0,
        ncp=ncp_per_person(table, release, person=person), query_accuracy=acc.accuracy, query_error=acc.error,
        spread=inter.spread, breached=inter.breached, intersection_rate=inter.rate,
        linkability_mean=link.mean, linkability_max=link.max, seconds=statistics.median(times),
        reconstructed=bool(result.summary.get("reconstructed", False)),
    )
    return row


def run(out: str | Path = DEFAULT_OUT, *, persons: int | None = None, quick: bool = False, seed: int = 0,
        repeats: int | None = None, progress: Progress | None = None) -> dict[str, pd.DataFrame]:
    """Run the comparison; returns ``results`` and ``claims`` (with ``.attrs["files"]`` on results)."""
    from anonkit.datasets import make_one_to_many
    from anonkit.metrics.one_to_many import random_count_queries
    from anonkit.table import Table

    step = progress or (lambda _i, _n, _msg: None)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    n_persons = persons if persons is not None else (QUICK_PERSONS if quick else None)
    reps = repeats if repeats is not None else (1 if quick else 3)
    frame = make_one_to_many(n_persons, seed=seed)
    person = pd.factorize(frame["person"])[0]
    persons_schema, _ = _schemas()
    queries = random_count_queries(Table(frame, persons_schema), seed=seed)  # the same queries for every release
    settings = [(k, BASE_LAMBDA) for k in KS] + [(LAMBDA_K, lam) for lam in LAMBDAS if lam != BASE_LAMBDA]
    jobs = [(a, k, lam) for k, lam in settings for a in ALGORITHMS if not (a == "kl-diversity" and lam != BASE_LAMBDA)]
    rows = []
    for i, (algorithm, k, lam) in enumerate(jobs):
        step(i, len(jobs), f"{algorithm}, k = {k}, λ = {lam}")
        rows.append(_measure(frame, algorithm, k, lam, person, queries, reps, seed))
    step(len(jobs), len(jobs), "writing")
    results = pd.DataFrame(rows)
    results.attrs.update(persons=int(person.max() + 1), records=len(frame), repeats=reps)
    claims = _claims(results)
    files = []
    for name, df in (("results", results), ("claims", claims)):
        path = out / f"angelization_{name}.csv"
        df.to_csv(path, index=False)
        files.append(str(path))
    files += _plots(results, out)
    results.attrs["files"] = files
    return {"results": results, "claims": claims}


def _claims(results: pd.DataFrame) -> pd.DataFrame:
    """Paper D's qualitative claims, checked on every k (at λ = 0.5): (θ*,k)-utility against each
    baseline, measure by measure."""
    base = results[(results["status"] == "verified") & ((results["lambda"] == BASE_LAMBDA) | results["lambda"].isna())]
    claims = [
        ("privacy: larger classes of persons (k achieved on persons)", "min_persons"),
        ("utility: lower NCP", "ncp"),
        ("utility: higher query accuracy (lower mean relative error)", "query_error"),
        ("privacy: fewer persons breached by record intersection", "intersection_rate"),
        ("privacy: lower mean record linkability", "linkability_mean"),
        ("privacy: lower maximum record linkability", "linkability_max"),
    ]
    rows = []
    angel = base[base["algorithm"] == "angelization"].set_index("k")
    for baseline in ALGORITHMS[1:]:
        other = base[base["algorithm"] == baseline].set_index("k")
        ks = sorted(set(angel.index) & set(other.index))
        for text, metric in claims:
            wins = [k for k in ks if _better(angel.at[k, metric], other.at[k, metric], LOWER_IS_BETTER[metric])]
            ties = [k for k in ks if np.isclose(angel.at[k, metric], other.at[k, metric])]
            ours = ", ".join(f"k={k}: {angel.at[k, metric]:.4g} vs {other.at[k, metric]:.4g}" for k in ks)
            if not ks:
                verdict = "not measured"
            elif len(wins) == len(ks):
                verdict = "reproduced"
            elif len(wins) + len(ties) == len(ks):
                verdict = "tied (not better)"
            elif wins:
                verdict = f"partly (k = {', '.join(map(str, wins))})"
            else:
                verdict = "not reproduced"
            rows.append({"claim": f"(θ*,k)-utility vs {baseline}: {text}", "paper": "better", "ours": ours,
                         "verdict": verdict})
    return pd.DataFrame(rows)


def _better(ours: float, theirs: float, lower: bool) -> bool:
    if np.isclose(ours, theirs):
        return False
    return bool(ours < theirs) if lower else bool(ours > theirs)


def _plots(results: pd.DataFrame, out: Path) -> list[str]:
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    ok = results[results["status"] == "verified"]
    labels = {"ncp": "NCP per person", "query_error": "query mean relative error",
              "intersection_rate": "record-intersection breach rate", "linkability_mean": "linkability (mean)",
              "linkability_max": "linkability (max)", "seconds": "seconds (encode + algorithm)"}
    files = []
    for axis, title, sub, name in (
        ("k", f"λ = {BASE_LAMBDA}", ok[(ok["lambda"] == BASE_LAMBDA) | ok["lambda"].isna()], "angelization_k.png"),
        ("lambda", f"k = {LAMBDA_K}", ok[ok["k"] == LAMBDA_K], "angelization_lambda.png"),
    ):
        fig, axes = plt.subplots(2, 3, figsize=(13, 7))
        for ax, (metric, label) in zip(axes.flat, labels.items(), strict=True):
            for algorithm, marker in zip(ALGORITHMS, ("o", "s", "^"), strict=True):
                rows = sub[sub["algorithm"] == algorithm].sort_values("k")
                if rows.empty:
                    continue
                if axis == "lambda" and algorithm == "kl-diversity":
                    ax.axhline(float(rows[metric].iloc[0]), color="C2", ls="--", lw=1, label=f"{algorithm} (no λ)")
                    continue
                rows = rows.sort_values(axis)
                ax.plot(rows[axis], rows[metric], marker=marker, label=algorithm)
            ax.set_xlabel("λ" if axis == "lambda" else "k")
            ax.set_ylabel(label)
            ax.grid(alpha=0.3)
        axes.flat[0].legend(fontsize=8)
        fig.suptitle(f"paper D's comparison on make_one_to_many ({title})")
        fig.tight_layout()
        path = out / name
        fig.savefig(path, dpi=110)
        plt.close(fig)
        files.append(str(path))
    return files


def cli_run(out: str = DEFAULT_OUT, *, quick: bool = False, persons: int | None = None, seed: int = 0,
            progress: Progress | None = None) -> str:
    """What ``anonkit experiment angelization`` prints: our figures and the paper's claims."""
    tables = run(out, quick=quick, persons=persons, seed=seed, progress=progress)
    results, claims = tables["results"], tables["claims"]
    lines = textwrap.wrap(
        f"Paper D's comparison on {results.attrs['persons']:,} persons ({results.attrs['records']:,} records): "
        "(θ*,k)-utility angelization against θ-sensitive k-anonymity record by record and (k,l)-diversity for "
        "1:M data (both reconstructions), every release verified.", WIDTH)
    lines += ["", "algorithm         k    λ    NCP    accuracy  rel.err  intersect  link mean  link max  k(persons)"
              "  seconds"]
    for r in results.to_dict("records"):
        lam = "  —" if pd.isna(r["lambda"]) else f"{r['lambda']:.1f}"
        head = f"{r['algorithm']:<16} {r['k']:>2}  {lam}"
        if r["status"] != "verified":
            lines.append(f"{head}  unsatisfiable: {r['reason']}")
            continue
        lines.append(f"{head}  {r['ncp']:.3f}  {r['query_accuracy']:8.3f}  {r['query_error']:7.3f}"
                     f"  {r['intersection_rate']:9.3f}  {r['linkability_mean']:9.3f}  {r['linkability_max']:8.3f}"
                     f"  {int(r['min_persons']):10d}  {r['seconds']:7.2f}")
    lines += ["", "The paper's claims (it reports (θ*,k)-utility better on each) beside ours:"]
    for c in claims.itertuples():
        lines += textwrap.wrap(f"{c.verdict.upper()}: {c.claim} — {c.ours}", WIDTH, subsequent_indent="    ")
    lines += ["", "written:", *(f"  {f}" for f in results.attrs["files"])]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m anonkit.experiments.angelization [--out DIR] [--quick] [--persons N]``."""
    return quick_main(__file__, __doc__, cli_run, DEFAULT_OUT, argv, persons=True)


if __name__ == "__main__":
    raise SystemExit(main())
