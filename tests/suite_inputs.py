"""The common suite's inputs, shared by every test that runs each registered algorithm on random data
(test_common_suite, test_batches, test_weighted_table): a small random table, the models an algorithm
takes, and options drawn from its declaration. One definition, so that these tests run every algorithm
on the same inputs as the common suite."""

from __future__ import annotations

from typing import Literal, get_args, get_origin

import numpy as np
import pandas as pd

from anonkit import Hierarchy, Schema
from anonkit.algorithms import Algorithm
from anonkit.models import DifferentialPrivacy, DistinctLDiversity, KAnonymity, TCloseness, ThetaSensitivity

#: every disease's category (θ-sensitivity; spec §1.5)
CATEGORIES = {"cold": "Asymptomatic", "flu": "Low", "ulcer": "Mild", "cancer": "Severe"}


def draw_options(spec: Algorithm, heights: list[int], rng: np.random.Generator) -> dict:
    """Options for ``spec`` read off its declaration: a random choice for every choice option
    (literals, booleans), a random suppression limit, a random level per quasi-identifier for a
    required ``levels``; every other option keeps its default."""
    out: dict = {}
    for name, info in spec.options.model_fields.items():
        choices = _choices(info.annotation)
        if name == "max_suppression":
            out[name] = float(rng.choice([0.0, 0.1, 0.5, 1.0]))
        elif name == "levels" and info.is_required():
            out[name] = [int(rng.integers(0, h + 1)) for h in heights]
        elif choices:
            out[name] = choices[int(rng.integers(len(choices)))]
        elif info.is_required() and name not in SUITE_OPTIONS.get(spec.name, {}):
            raise AssertionError(f"{spec.name}: the suite cannot draw the required option {name!r}")
    return out | SUITE_OPTIONS.get(spec.name, {})


#: what the suite's table needs some algorithms to be told (their other options are drawn)
SUITE_OPTIONS: dict[str, dict] = {
    "safepub": {"seeded": True},  # one transformation (a degree is drawn) and draws a test can repeat
    "local-suppression": {"households": "independent"},  # the suite's table has no households (record-swap's has)
    "record-swap": {"hierarchy": ["zip"], "risk": "k-anonymity"},  # the geography swapped (test_swap: other risks)
    "shuffle": {"columns": ["age"], "predictors": ["zip"]},  # the one numeric column, modelled on zip
    # a synthetic table of the suite's columns (their domains declared), draws a test can repeat
    "dp-synthetic": {"epsilon": 1.0, "delta": 1e-3, "seeded": True, "iterations": 50, "domain": {
        "age": {"bounds": [20, 39], "bins": 4, "integer": True},
        "zip": {"categories": ["1234", "1235", "1299", "1300"]},
        "disease": {"categories": ["flu", "cold", "cancer", "ulcer"]}, "note": {"categories": ["=cmd()", "ok"]}}},
}
#: the families the common suite's invariants do not describe (rows that are not records: tests of their own)
OWN_SUITE_FAMILIES = ("synth",)
#: the algorithms that read households (the suite gives them an ``hh`` column)
HOUSEHOLDS = ("record-swap",)


def _choices(annotation: object) -> list:
    """The values of a Literal (or a bool), also inside ``X | None``; [] for anything else."""
    if annotation is bool:
        return [False, True]
    if get_origin(annotation) is Literal:
        return list(get_args(annotation))
    for arg in get_args(annotation):
        if arg is not type(None) and (found := _choices(arg)):
            return found
    return []


def random_table(seed: int, n: int, persons: bool = False, households: bool = False) -> tuple[pd.DataFrame, Schema]:
    """``n`` records; with ``persons`` they belong to persons of 1 to 3 records (equal QIs), a
    ``pid`` column names them; with ``households`` they live in households of 1 to 3 records (one
    zip per household: the geography), an ``hh`` column (role household) names them."""
    rng = np.random.default_rng(seed)
    age = rng.integers(20, 40, n)
    zips = rng.choice(["1234", "1235", "1299", "1300"], n)
    pid = np.arange(n)
    if persons:
        pid = np.repeat(np.arange(n), rng.integers(1, 4, n))[:n]
        age, zips = age[pid], zips[pid]
    hh = np.repeat(np.arange(n), rng.integers(1, 4, n))[:n]
    if households:
        zips = zips[hh]
    frame = pd.DataFrame(
        {
            "name": [f"person{i}" for i in range(n)],
            "age": age.astype(str),
            "zip": zips,
            "disease": rng.choice(["flu", "cold", "cancer", "ulcer"], n),
            "note": rng.choice(["=cmd()", "ok"], n),
        }
    )
    if persons:
        frame.insert(0, "pid", [f"p{i}" for i in pid])
    if households:
        frame["hh"] = [f"h{i}" for i in hh]
    h_age = Hierarchy([[str(a), f"{a // 10 * 10}-{a // 10 * 10 + 9}", "*"] for a in range(20, 40)], name="age")
    h_zip = Hierarchy([[z, z[:3] + "*", "*"] for z in ["1234", "1235", "1299", "1300"]], name="zip")
    schema = Schema.of(
        identifier=["name"], quasi=["age", "zip"], sensitive=["disease"], insensitive=["note"],
        hierarchies={"age": h_age, "zip": h_zip}, types={"age": "numeric"}, categories={"disease": CATEGORIES},
        person="pid" if persons else None, household="hh" if households else None,
    )
    return frame, schema


def suite_models(spec: Algorithm, k: int, with_l: bool, t: float | None) -> list:
    """k, distinct 2-diversity and t-closeness; an algorithm that publishes per-person tables takes
    only the models it guarantees (θ-sensitivity or l-diversity for the diversity part)."""
    if spec.name == "safepub":  # SafePub enforces its differential-privacy model (k follows from ε, δ: 33 here;
        return [DifferentialPrivacy(2.0, 0.01)]  # δ below 1/n for the suite's tables of at most 60 rows)
    models: list = [KAnonymity(k)]
    if spec.verifier is not None:
        if with_l:
            models.append(ThetaSensitivity("disease", k, 0.5) if "theta-sensitivity" in spec.enforces
                          else DistinctLDiversity("disease", 2))
        return models
    if with_l:
        models.append(DistinctLDiversity("disease", 2))
    if t is not None:
        models.append(TCloseness("disease", t))
    return models
