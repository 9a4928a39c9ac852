"""Helpers shared by several test modules (pytest puts this folder on ``sys.path``)."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pandas as pd
import yaml
from typer.testing import CliRunner

from anonkit import Hierarchy, Schema
from anonkit.cli import app
from anonkit.models import (
    BetaLikeness,
    Criterion,
    DeltaDisclosure,
    DistinctLDiversity,
    EntropyLDiversity,
    RecursiveCLDiversity,
    TCloseness,
)
from anonkit.release import Release, full_domain_release
from anonkit.table import Table
from anonkit.verifier import verify

#: models a class of k or more records can still fail, on the sensitive attribute ``s``
MODEL_CHOICES = {
    "distinct-2": lambda: DistinctLDiversity("s", 2),
    "distinct-3": lambda: DistinctLDiversity("s", 3),
    "entropy-2": lambda: EntropyLDiversity("s", 2),
    "recursive-3-2": lambda: RecursiveCLDiversity("s", 3, 2),
    "t-0.1": lambda: TCloseness("s", 0.1),
    "t-0.25": lambda: TCloseness("s", 0.25),
    "beta-1": lambda: BetaLikeness("s", 1.0),
    "delta-1": lambda: DeltaDisclosure("s", 1.0),
}


def verified(table: Table, rel: Release, models: list[Criterion]) -> bool:
    """Whether the independent verifier accepts ``rel``'s published frame (reference: the input)."""
    sens = {s: table.frame[s] for s in table.sensitive}
    return verify(rel.to_frame(), table.schema, models, reference=sens).ok


ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"
_runner = CliRunner()


def run_cli(*args: str) -> tuple[int, str, str]:
    """The ``anonkit`` command with ``args``: exit code, stdout, stderr."""
    res = _runner.invoke(app, list(args))
    return res.exit_code, res.stdout, res.stderr


def toy_config(**changes: object) -> dict:
    """A config over the t-closeness paper's table (``test2.csv``): ZIPCode and Age quasi-identifiers
    with ARX's hierarchies, Salary and Disease sensitive (Disease with its hierarchy); k = 3 with
    Flash; ``out.csv`` beside it. ``changes`` replace top-level keys."""
    config: dict = {
        "input": {"path": "test2.csv", "separator": ";"},
        "attributes": {
            "ZIPCode": {"role": "quasi", "hierarchy": "test2_hierarchy_ZIPCode.csv"},
            "Age": {"role": "quasi", "hierarchy": "test2_hierarchy_Age.csv"},
            "Salary": {"role": "sensitive"},
            "Disease": {"role": "sensitive", "hierarchy": "test2_hierarchy_Disease.csv"},
        },
        "privacy": [{"model": "k-anonymity", "k": 3}],
        "algorithm": {"name": "flash"},
        "output": {"path": "out.csv", "separator": ";"},
    }
    config.update(changes)
    return config


def toy_dir(tmp_path: Path, config: dict) -> Path:
    """The t-closeness paper's table and hierarchies copied into ``tmp_path``, with ``config``
    written there as ``c.yaml``."""
    for f in DATA.glob("test2*.csv"):
        shutil.copy(f, tmp_path / f.name)
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    return tmp_path


#: spec §4.9's hierarchies: Education {Bachelors, Masters, Doctorate} → Higher-ed,
#: {HS-grad, 11th} → Secondary → ANY; Sex {M, F} → ANY
EDU = Hierarchy(
    [
        ["Bachelors", "Higher-ed", "ANY"],
        ["Masters", "Higher-ed", "ANY"],
        ["Doctorate", "Higher-ed", "ANY"],
        ["HS-grad", "Secondary", "ANY"],
        ["11th", "Secondary", "ANY"],
    ],
    name="edu",
)
SEX = Hierarchy([["M", "ANY"], ["F", "ANY"]], name="sex")


def ncp_table() -> Table:
    """Spec §2.1: Age numeric on the domain 20–60 (with a hierarchy), Sex {M, F}; records (25,M),
    (30,F), (40,M), (60,M)."""
    h_age = Hierarchy(
        [["20", "20", "*"], ["25", "25-30", "*"], ["30", "25-30", "*"], ["40", "40-60", "*"], ["60", "40-60", "*"]],
        name="age",
    )
    h_sex = Hierarchy([["M", "*"], ["F", "*"]], name="sex")
    frame = pd.DataFrame({"age": ["25", "30", "40", "60"], "sex": ["M", "F", "M", "M"]})
    schema = Schema.of(quasi=["age", "sex"], types={"age": "numeric"}, hierarchies={"age": h_age, "sex": h_sex})
    return Table(frame, schema)


def bucket_table(sa: list[str], *, seed: int = 0, presuppress: int = 0, note: bool = False) -> Table:
    """A random table for bucketization: name (identifier), age, zip (quasi-identifiers), the
    sensitive ``disease`` values ``sa`` (and an insensitive ``note`` with ``note``); the first
    ``presuppress`` zips are missing and suppressed up front."""
    rng = np.random.default_rng(seed)
    n = len(sa)
    zips = rng.choice(["1234", "1235", "1299"], n).astype(object)
    if presuppress:
        zips[:presuppress] = ""
    columns = {
        "name": [f"p{i}" for i in range(n)],
        "age": rng.integers(20, 60, n).astype(str),
        "zip": zips,
        "disease": sa,
    }
    if note:
        columns["note"] = rng.choice(["x", "y"], n)
    schema = Schema.of(identifier=["name"], quasi=["age", "zip"], sensitive=["disease"],
                       insensitive=["note"] if note else [], types={"age": "numeric"})
    return Table(pd.DataFrame(columns), schema, missing="suppress" if presuppress else "value")


def inference_toy(tmp: Path, n: int, seed: int) -> dict:
    """A random toy (``t.csv`` in ``tmp``: age, zip, disease) and its config, whose Mondrian 2-anonymity fails
    the audit's inference attack, so the advice reruns and the fixes try (test_rerun_inputs, test_job_cost_paths)."""
    rng = np.random.default_rng(seed)
    pd.DataFrame({"age": rng.integers(20, 70, n), "zip": rng.choice(["a", "b", "c", "d"], n),
                  "disease": rng.choice(["flu", "cold", "ulcer", "cancer", "hiv"], n)}).to_csv(tmp / "t.csv",
                                                                                                index=False)
    return {"input": {"path": "t.csv"},
            "attributes": {"age": {"role": "quasi", "type": "numeric"}, "zip": {"role": "quasi"},
                           "disease": {"role": "sensitive"}},
            "privacy": [{"model": "k-anonymity", "k": 2}], "algorithm": {"name": "mondrian"},
            "output": {"path": "out.csv"}, "audit": {"attacks": ["inference"]}}


def schema_of_test2(hierarchies: dict) -> Schema:
    """test2.csv's schema of the publishing tests (test_publish_paths, test_call_stages_paths): ZIPCode and
    Age quasi-identifying, Salary (numeric) and Disease sensitive, with ``hierarchies`` (the test2 fixture's)."""
    h = hierarchies
    return Schema.of(quasi=["ZIPCode", "Age"], sensitive=["Salary", "Disease"],
                     hierarchies={"ZIPCode": h["ZIPCode"], "Age": h["Age"], "Disease": h["Disease"]},
                     types={"Salary": "numeric"})


def release_at(table: Table, levels: list[int], *, k: int = 1) -> Release:
    """The full-domain release of ``table`` at ``levels``: classes of fewer than ``k`` records (weighted)
    suppressed (left empty)."""
    tuple_class, n = table.tuple_classes(levels)
    record_class = tuple_class[table.distinct.inverse].astype(np.int64)
    sizes = np.bincount(record_class, weights=table.weights, minlength=n)
    record_class[sizes[record_class] < k] = -1
    return full_domain_release(table, levels, record_class, n, algorithm="test")


#: the project's benchmark scripts (not a package: loaded by path)
BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


@contextmanager
def benchmark_module(name: str) -> Iterator[ModuleType]:
    """``benchmarks/<name>.py`` loaded as the module ``name``, registered in ``sys.modules`` while it runs (its
    dataclasses look their module up); ``sys.path`` (a script puts ``benchmarks/`` on it for its siblings) and
    the modules it loaded (``bench_lattice``, …) are as they were afterwards."""
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    path, loaded = list(sys.path), set(sys.modules)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.path[:] = path
        for added in set(sys.modules) - loaded:
            if added == name or added.startswith("bench_"):
                sys.modules.pop(added, None)


def counted_calls(monkeypatch: Any, module: object, name: str) -> list[int]:
    """``module.name`` wrapped (by ``monkeypatch``) so that every call appends 1 to the returned list and still
    runs: a test counts which path ran, never how long it took."""
    counted: list[int] = []
    original = getattr(module, name)

    def counting(*args: object, **kwargs: object) -> object:
        counted.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, counting)
    return counted


def shuffled_records(adult: tuple[pd.DataFrame, dict], seed: int, n: int) -> tuple[pd.DataFrame, dict]:
    """``n`` of Adult's records drawn in another order by ``seed`` (numbered 0…n−1), with its hierarchies: new
    data, whose leaves are first seen in another order than the file's."""
    frame, hierarchies = adult
    rows = np.random.default_rng(seed).permutation(len(frame))[:n]
    return frame.iloc[rows].reset_index(drop=True), hierarchies
