"""Paper C's workflow end to end (Arca & Hewett, "Analytics on Anonymity for Privacy Retention in
Smart Health Data", Future Internet 2021): ``anonkit experiment iab``.

On the smart-health data (paper C's Table 1 as :func:`anonkit.datasets.make_smart_health` rebuilds
it, and a larger seeded table of the same shape) and on Adult:

1. **Pre-analytics**: every attribute's normalized Longpre leakage, ranked (``iab_leakage.csv``,
   ``iab_leakage.png``);
2. **IAB against Flash** on the same requirements — the paper's ⟨{AC, Age, Zip}, 3⟩ on Table 1, and
   k = 5 on shields of 3 to 8 of Adult's quasi-identifiers — records kept, distinct rows kept, ARX's
   Loss, seconds, states expanded (``iab_vs_flash.csv``, ``iab_vs_flash.png``);
3. **Post-analytics** of every release, then again with fake records injected
   (``iab_post.csv``): classes vulnerable to inference of the critical attribute (Risk, salary-class)
   at ρ = 0.8, the individuals in them, the fakes needed;
4. **The paper beside ours** (``iab_paper.csv``): the Sex leakage, the leakage ranking and every
   T(violating, rows) state of the paper's IAB illustration.

Flash (global recoding, suppression 0) and IAB (sibling-set recoding) answer the same requirement
differently: Flash generalizes every value of an attribute to one level, IAB only the violating
values and their siblings, so IAB should keep at least as many distinct rows.
"""

from __future__ import annotations

import textwrap
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from anonkit.analytics import inject_fakes, leakage, post_analytics
from anonkit.experiments._main import quick_main
from anonkit.schema import Schema
from anonkit.table import Table

WIDTH = 78
DEFAULT_OUT = "iab-experiment"
#: Adult's quasi-identifiers in the order shields grow (ARX's benchmark order)
ADULT_QIS = ("sex", "age", "race", "marital-status", "education", "native-country", "workclass", "salary-class")
ADULT_K = 5
ADULT_CRITICAL = "occupation"
SMART_SHIELD = ("AC", "Age", "Zip")
SMART_K = 3
SMART_CRITICAL = "Risk"
RHO = 0.8
#: the paper's IAB illustration: the path from the root → (violating rows, rows)
PAPER_TRACE = {(): (6, 22), ("Zip",): (2, 21), ("Age",): (4, 21), ("AC",): (0, 18),
               ("Zip", "Zip"): (2, 21), ("Zip", "Age"): (0, 21), ("Zip", "AC"): (0, 17)}
#: paper C §3.1: Sex leaks 0.168 of the information (27 F, 33 M); Age leaks most, then Zip, then Race
PAPER_SEX_LEAKAGE = 0.168
PAPER_RANKING = ("Age", "Zip", "Race")

Progress = Callable[[int, int, str], None]


def _smart(n: int | None, seed: int) -> tuple[pd.DataFrame, dict]:
    from anonkit.datasets import make_smart_health, smart_health_hierarchies

    return make_smart_health(n, seed=seed), smart_health_hierarchies()


def _table(frame: pd.DataFrame, hierarchies: dict, shield: Sequence[str], critical: str) -> Table:
    schema = Schema.of(quasi=list(shield), sensitive=[critical], hierarchies={q: hierarchies[q] for q in shield},
                       types=dict.fromkeys(shield, "categorical"), default_role="insensitive")
    return Table(frame, schema)


def _distinct_rows(published: pd.DataFrame) -> int:
    return len(published.drop_duplicates())


def _contenders() -> tuple[str, str]:
    """The registry's names of the two algorithms compared: paper C's best-first search (the search
    family's) and the default full-domain search (Flash)."""
    from anonkit.algorithms.registry import algorithms, default_algorithm

    search = next(a.name for a in algorithms().values() if a.family == "search")
    return search, default_algorithm().name


def _run(algorithm: str, table: Table, models: list, **options: object) -> tuple[object, float]:
    from anonkit.algorithms.registry import get

    start = time.perf_counter()
    release = get(algorithm)(table, models, **options)
    return release, time.perf_counter() - start


def _compare(dataset: str, table: Table, shield: Sequence[str], k: int, critical: str, iab_options: dict
             ) -> tuple[list[dict], list[dict], object]:
    """IAB and Flash on one requirement; their rows of the comparison and of the post-analytics."""
    from anonkit.metrics import loss
    from anonkit.models import KAnonymity

    models = [KAnonymity(k, attributes=tuple(shield))]
    rows, post_rows, iab_release = [], [], None
    searcher, flash = _contenders()
    for name, options in ((searcher, iab_options), (flash, {"max_suppression": 0.0})):
        release, seconds = _run(name, table, models, **options)
        published = release.to_frame()  # type: ignore[attr-defined]
        notes = release.notes  # type: ignore[attr-defined]
        rows.append({
            "dataset": dataset, "shield": len(shield), "attributes": "+".join(shield), "k": k, "algorithm": name,
            "satisfied": bool(release.satisfied), "records_kept": int(release.n_released),  # type: ignore[attr-defined]
            "distinct_rows_kept": _distinct_rows(published) if len(published) else 0,
            "loss": float(loss(table, release)) if release.n_released else np.nan,  # type: ignore[arg-type,attr-defined]
            "seconds": round(seconds, 4), "states_expanded": notes.get("states_expanded", np.nan),
            "result": notes.get("result", "optimal" if name == flash else ""),
        })
        if name == searcher:
            iab_release = release
        if not release.n_released:  # type: ignore[attr-defined]
            continue
        report = post_analytics(published, [critical], rho=RHO, key_columns=list(shield))
        fakes = inject_fakes(published, [critical], rho=RHO, seed=0, key_columns=list(shield))
        after = post_analytics(fakes.frame, [critical], rho=RHO, key_columns=list(shield))
        post_rows.append({
            "dataset": dataset, "shield": len(shield), "algorithm": name, "critical": critical,
            "classes": report.classes, "vulnerable_classes": report.summary["vulnerable_classes"],
            "individuals_at_risk": report.individuals_at_risk(), "fakes": fakes.fakes,
            "records_with_fakes": len(fakes.frame),
            "vulnerable_classes_with_fakes": after.summary["vulnerable_classes"],
            "max_share": report.max_share[critical], "max_share_with_fakes": after.max_share[critical],
        })
    return rows, post_rows, iab_release


def _paper_rows(iab_release: object, sex_leakage: float, ranking: list[str]) -> list[dict]:
    """The paper's figures beside ours: Sex leakage, ranking, and every state of the illustration."""
    rows = [
        {"figure": "Sex leakage (27 F, 33 M)", "paper": PAPER_SEX_LEAKAGE, "ours": round(sex_leakage, 4)},
        {"figure": "leakage ranking (top 3 of the non-disclosed attributes)", "paper": " > ".join(PAPER_RANKING),
         "ours": " > ".join(ranking[:3])},
    ]
    trace = iab_release.notes.get("trace", [])  # type: ignore[attr-defined]
    by_id = {t["state"]: t for t in trace}

    def path(t: dict) -> tuple[str, ...]:
        out: list[str] = []
        while t["parent"] is not None:
            out.append(t["attribute"])
            t = by_id[t["parent"]]
        return tuple(reversed(out))

    ours = {path(t): (t["violating"], t["rows"]) for t in trace}
    for p, (v, r) in PAPER_TRACE.items():
        got = ours.get(p)
        rows.append({"figure": "T(violating, rows) after " + (" then ".join(p) if p else "nothing (root)"),
                     "paper": f"({v}, {r})", "ours": "not generated" if got is None else f"({got[0]}, {got[1]})"})
    return rows


def run(out_dir: str | Path = DEFAULT_OUT, *, quick: bool = False, seed: int = 0,
        progress: Progress | None = None) -> dict[str, pd.DataFrame]:
    """Run the experiment; write the CSV and PNG files into ``out_dir``; return the tables."""
    from anonkit.datasets import load_adult

    step = progress or (lambda _d, _t, _w: None)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    adult_sizes = range(3, 5) if quick else range(3, len(ADULT_QIS) + 1)
    iab_options = {"max_states": 300 if quick else 10_000, "time_limit": 10.0 if quick else 60.0}
    total = 2 + len(adult_sizes)
    leak_rows, compare_rows, post_rows = [], [], []

    step(0, total, "smart-health: paper C's Table 1")
    paper, hier = _smart(None, seed)
    large, _ = _smart(2_000 if quick else 20_000, seed)
    adult, adult_h = load_adult()
    for name, frame in (("smart-health Table 1", paper), ("smart-health random", large), ("adult", adult)):
        report = leakage(frame, max_size=1)
        for rank, (attr, facts) in enumerate(report["attributes"].items(), start=1):
            leak_rows.append({"dataset": name, "rank": rank, "attribute": attr, **facts})
    ranking = [a for a in leakage(paper.drop(columns=[SMART_CRITICAL]), max_size=1)["attributes"]]
    sex = leakage(paper[["Sex"]], max_size=1)["attributes"]["Sex"]["leakage"]

    rows, post, iab_release = _compare("smart-health Table 1", _table(paper, hier, SMART_SHIELD, SMART_CRITICAL),
                                       SMART_SHIELD, SMART_K, SMART_CRITICAL, iab_options)
    compare_rows += rows
    post_rows += post
    step(1, total, "smart-health: random table")
    rows, post, _ = _compare("smart-health random", _table(large, hier, SMART_SHIELD, SMART_CRITICAL),
                             SMART_SHIELD, SMART_K, SMART_CRITICAL, iab_options)
    compare_rows += rows
    post_rows += post
    for i, size in enumerate(adult_sizes):
        shield = ADULT_QIS[:size]
        step(2 + i, total, f"adult: shield of {size} quasi-identifiers")
        rows, post, _ = _compare("adult", _table(adult, adult_h, shield, ADULT_CRITICAL), shield, ADULT_K,
                                 ADULT_CRITICAL, iab_options)
        compare_rows += rows
        post_rows += post
    step(total, total, "writing")
    tables = {
        "leakage": pd.DataFrame(leak_rows),
        "vs_flash": pd.DataFrame(compare_rows),
        "post": pd.DataFrame(post_rows),
        "paper": pd.DataFrame(_paper_rows(iab_release, sex, ranking)),
    }
    files = []
    for key, df in tables.items():
        path = out / f"iab_{key}.csv"
        df.to_csv(path, index=False)
        files.append(str(path))
    files += _plots(tables, out)
    tables["vs_flash"].attrs["files"] = files
    return tables


def _plots(tables: dict[str, pd.DataFrame], out: Path) -> list[str]:
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    files = []
    leak = tables["leakage"]
    names = list(dict.fromkeys(leak["dataset"]))
    fig, axes = plt.subplots(1, len(names), figsize=(5.0 * len(names), 3.8), squeeze=False)
    for ax, name in zip(axes[0], names, strict=True):
        sub = leak[leak["dataset"] == name].sort_values("leakage")
        ax.barh(sub["attribute"], sub["leakage"], color=np.where(sub["leakage"] >= 0.5, "C3", "C0"))
        ax.axvline(0.5, color="grey", ls="--", lw=0.8)
        ax.set_title(name, fontsize=9)
        ax.set_xlabel("normalized leakage (τ = 0.5 dashed)")
        ax.set_xlim(0, 1)
    fig.tight_layout()
    path = out / "iab_leakage.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    files.append(str(path))
    cmp = tables["vs_flash"]
    adult = cmp[cmp["dataset"] == "adult"]
    if not adult.empty:
        fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 3.8))
        for name, marker in zip(_contenders(), ("o", "s"), strict=True):
            sub = adult[adult["algorithm"] == name]
            a1.plot(sub["shield"], sub["distinct_rows_kept"], marker=marker, label=name)
            a2.plot(sub["shield"], sub["seconds"], marker=marker, label=name)
        a1.set_xlabel("shield size (Adult, k = 5)")
        a1.set_ylabel("distinct rows kept (higher keeps more detail)")
        a2.set_xlabel("shield size (Adult, k = 5)")
        a2.set_ylabel("seconds")
        a2.set_yscale("log")
        for ax in (a1, a2):
            ax.legend()
            ax.grid(alpha=0.3)
        fig.tight_layout()
        path = out / "iab_vs_flash.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        files.append(str(path))
    return files


def cli_run(out: str = DEFAULT_OUT, *, quick: bool = False, seed: int = 0, progress: Progress | None = None) -> str:
    """What ``anonkit experiment iab`` prints: our figures beside the paper's."""
    tables = run(out, quick=quick, seed=seed, progress=progress)
    lines = textwrap.wrap("Paper C's workflow: pre-analytics (leakage), IAB against Flash on the same "
                          "requirements, post-analytics with and without fake records.", WIDTH)
    lines += ["", "The paper beside ours:"]
    for r in tables["paper"].itertuples():
        lines.append(f"  {r.figure}: paper {r.paper}, ours {r.ours}")
    lines += ["", "IAB against Flash (records kept, distinct rows kept, ARX Loss, seconds, states):"]
    for r in tables["vs_flash"].itertuples():
        loss = "—" if pd.isna(r.loss) else f"{r.loss:.4f}"
        states = "" if pd.isna(r.states_expanded) else f", {int(r.states_expanded):,} states ({r.result})"
        lines.append(f"  {r.dataset}, shield {r.shield}, {r.algorithm}: {r.records_kept:,} records, "
                     f"{r.distinct_rows_kept:,} distinct rows, Loss {loss}, {r.seconds:.2f} s{states}")
    lines += ["", f"Post-analytics (ρ = {RHO}): vulnerable classes → with fakes"]
    for r in tables["post"].itertuples():
        lines.append(f"  {r.dataset}, shield {r.shield}, {r.algorithm}: {r.vulnerable_classes} classes "
                     f"({r.individuals_at_risk:,} individuals) → {r.vulnerable_classes_with_fakes} with "
                     f"{r.fakes:,} fakes")
    lines += ["", "written:", *(f"  {f}" for f in tables["vs_flash"].attrs["files"])]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m anonkit.experiments.iab [--out DIR] [--quick]``."""
    return quick_main(__file__, __doc__, cli_run, DEFAULT_OUT, argv)


if __name__ == "__main__":
    raise SystemExit(main())
