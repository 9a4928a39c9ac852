"""Clustering benchmarks: KACA and MDAV on Adult (30,162 records).

Run: python benchmarks/bench_cluster.py [kaca|mdav|all]

KACA (hierarchy-based): Adult's ARX hierarchies, 8 QIs (all but occupation, which is sensitive —
12,458 distinct tuples) and all 9 (19,502 distinct tuples). Prints the time of ``kaca()`` (one run,
release and metrics included), the number of classes, the total WHD distortion and its average per
record, the modification rate and GCP (``anonkit.metrics.gcp``). Target: under 10 s each.

MDAV: Adult has one numeric column (age). The numeric benchmark adds ``education-num``, the
ordinal code of education (UCI's numbering: Preschool = 1 … Doctorate = 16), and groups on age and
education-num (z-scores). MDAV-generic then runs on the 8 QIs with age numeric and the others
categorical (§0.3 distance through the ARX hierarchies). Prints the time of ``mdav()``, groups,
``SSE/SST`` information loss, GCP of the same grouping released as intervals, MDAV's group sizes
and the number of published classes (groups published with identical labels form one class).
Target: under 10 s each.

Models other than k-anonymity (KACA on 8 QIs, both MDAV tables): distinct 3-diversity and
equal-distance 0.4-closeness of occupation, each run twice — with the default ``failing="merge"``
(a failing class is merged with its nearest class until it holds, anonkit's extension: see
``anonkit.algorithms.cluster._merge``) and with ``failing="suppress"`` (failing classes suppressed,
the behaviour before the extension). These runs allow any suppression (``max_suppression=1``) and
also print the suppressed records and the merges done for the models.
"""

from __future__ import annotations

import sys
import time

import numpy as np

from anonkit import Schema, Table, load_adult
from anonkit.algorithms.cluster.kaca import kaca
from anonkit.algorithms.cluster.mdav import mdav
from anonkit.metrics import gcp
from anonkit.models import Criterion, DistinctLDiversity, KAnonymity, TCloseness
from anonkit.release import Release

QI8 = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass", "salary-class"]
QI9 = [*QI8[:-1], "occupation", "salary-class"]
SENSITIVE = "occupation"
EDUCATION_NUM = [
    "Preschool", "1st-4th", "5th-6th", "7th-8th", "9th", "10th", "11th", "12th", "HS-grad", "Some-college",
    "Assoc-voc", "Assoc-acdm", "Bachelors", "Masters", "Prof-school", "Doctorate",
]  # fmt: skip


def model_runs() -> list[tuple[str, list[Criterion], dict]]:
    """The runs with a model a class of k records can fail, merged and suppressed."""
    runs: list[tuple[str, list[Criterion], dict]] = []
    for label, model in (("distinct 3-diversity", DistinctLDiversity(SENSITIVE, 3)),
                         ("0.4-closeness", TCloseness(SENSITIVE, 0.4))):  # fmt: skip
        for failing in ("merge", "suppress"):
            runs.append((f"k=5 + {label}, failing={failing}", [KAnonymity(5), model],
                         {"max_suppression": 1.0, "failing": failing}))  # fmt: skip
    return runs


def merge_info(rel: Release) -> str:
    """The merges done for the models, when there were any rounds."""
    if not rel.notes.get("merge_rounds"):
        return ""
    return f", model merges {rel.notes['model_merges']:,} in {rel.notes['merge_rounds']} round(s)"


def bench_kaca() -> None:
    frame, hier = load_adult()
    for label, qi, sens in (("8 QIs", QI8, [SENSITIVE]), ("9 QIs", QI9, [])):
        table = Table(frame, Schema.of(quasi=qi, sensitive=sens, hierarchies={q: hier[q] for q in qi}))
        runs = [("k=2", [KAnonymity(2)], {}), ("k=5", [KAnonymity(5)], {}), ("k=10", [KAnonymity(10)], {}),
                ("k=5 height weights", [KAnonymity(5)], {"weights": "height"}),
                ("k=5 random picks (seed 0)", [KAnonymity(5)], {"seed": 0})]  # fmt: skip
        if sens:
            runs += model_runs()
        print(f"KACA, Adult {label} ({table.distinct.size:,} distinct tuples)", flush=True)
        for name, models, opts in runs:
            t = time.perf_counter()
            rel = kaca(table, models, **opts)
            sec = time.perf_counter() - t
            w = rel.notes["whd"]
            print(f"  {name}: {sec:.2f} s, {rel.n_classes:,} classes, {rel.notes['merges']:,} merges, "
                  f"WHD {w:.1f} (avg {w / table.n:.4f}), modification rate {rel.notes['modification_rate']:.4f}, "
                  f"GCP {gcp(table, rel):.4f}, suppressed {rel.n_suppressed}, satisfied {rel.satisfied}"
                  f"{merge_info(rel)}", flush=True)  # fmt: skip


def bench_mdav() -> None:
    frame, hier = load_adult()
    with_num = frame.copy()
    with_num["education-num"] = frame["education"].map({e: str(i + 1) for i, e in enumerate(EDUCATION_NUM)})
    numeric = Table(
        with_num[["age", "education-num", SENSITIVE]],
        Schema.of(quasi=["age", "education-num"], sensitive=[SENSITIVE],
                  types={"age": "numeric", "education-num": "numeric"}),
    )  # fmt: skip
    generic = Table(
        frame[[*QI8, SENSITIVE]],
        Schema.of(quasi=QI8, sensitive=[SENSITIVE], hierarchies={q: hier[q] for q in QI8 if q != "age"},
                  types={"age": "numeric"}),
    )  # fmt: skip
    for label, table, ks in (
        ("age + education-num (numeric)", numeric, (2, 5, 10)),
        ("8 QIs, MDAV-generic (age numeric)", generic, (5,)),
    ):
        print(f"MDAV, Adult {label}", flush=True)
        for k in ks:
            t = time.perf_counter()
            rel = mdav(table, [KAnonymity(k)])
            sec = time.perf_counter() - t
            intervals = mdav(table, [KAnonymity(k)], output="intervals")
            g = np.bincount(rel.record_group[rel.record_group >= 0])
            print(f"  k={k}: {sec:.2f} s, {rel.notes['groups']:,} groups (sizes {g.min()}–{g.max()}), "
                  f"{rel.n_classes:,} published classes (groups published alike merged; intervals: "
                  f"{intervals.n_classes:,}), IL = SSE/SST {rel.notes['information_loss']:.5f}, "
                  f"GCP (intervals) {gcp(table, intervals):.4f}, satisfied {rel.satisfied}", flush=True)  # fmt: skip
        for name, models, opts in model_runs():
            t = time.perf_counter()
            rel = mdav(table, models, **opts)
            sec = time.perf_counter() - t
            intervals = mdav(table, models, output="intervals", **opts)
            print(f"  {name}: {sec:.2f} s, {rel.n_classes:,} published classes, "
                  f"IL = SSE/SST {rel.notes['information_loss']:.5f}, GCP (intervals) {gcp(table, intervals):.4f}, "
                  f"suppressed {rel.n_suppressed}, satisfied {rel.satisfied}{merge_info(rel)}", flush=True)  # fmt: skip


if __name__ == "__main__":
    which = sys.argv[1] if len(sys.argv) > 1 else "all"
    if which in ("kaca", "all"):
        bench_kaca()
    if which in ("mdav", "all"):
        bench_mdav()
