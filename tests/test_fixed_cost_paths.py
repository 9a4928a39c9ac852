"""The cheaper paths of a job's fixed cost (issue 30, item 1) give what the paths they replace gave.

* the attacks' consistent-row counts without scipy (``adversary._consistent``): the same triples, in the
  same order, as scipy's sparse product (the inference attack's random tie-breaks are drawn in that order);
* singling-out reads the sampled rows' texts and each column's published cells without a text per row
  (``adversary._texts_at``): what the text of every cell gave;
* the audit's ``*`` test on a categorical (compact) release reads its categories (``audit.run._stars``);
* the input's readings kept across a job's audits (``lasting_reading``): a column is recognised by its memory,
  never by equal values in other memory, and the attacks' figures are the same with and without the store;
* a rerun of the advice and a trial of the fixes are one run whatever ``--input``/``--output`` say
  (``runner.audit_step.rerun_key``), and differ when the release would;
* the modules an ``anonkit anonymize`` job loads for its audit import scipy only where they use it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import sparse

import anonkit.analytics.cover as cover
from anonkit import Hierarchy, Schema
from anonkit.analytics import inference_attack, linkability_attack, singling_out_attack
from anonkit.analytics.adversary import _consistent, _texts, _texts_at
from anonkit.analytics.cover import build_cover, lasting_reading, shared_reading
from anonkit.audit.run import _stars
from anonkit.config import parse_config
from anonkit.runner.audit_step import rerun_key

SRC = Path(__file__).resolve().parents[1] / "src" / "anonkit"
H_AGE = Hierarchy([[str(a), f"{a // 10 * 10}-{a // 10 * 10 + 9}", "*"] for a in range(20, 40)], name="age")
SCHEMA = Schema.of(quasi=["age", "zip"], sensitive=["s"], hierarchies={"age": H_AGE}, types={"age": "numeric"})
AGES = [str(a) for a in range(20, 40)]
CELLS = {"age": ["20-29", "30-39", "*", "25", "33"], "zip": ["a", "b", "c", "*"], "s": ["flu", "cold", "cancer"]}


def tables(seed: int, n_release: int, n_original: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A release of generalized cells and an original table over the same columns."""
    rng = np.random.default_rng(seed)
    release = pd.DataFrame({c: rng.choice(v, size=n_release) for c, v in CELLS.items()})
    original = pd.DataFrame({"age": rng.choice(AGES, size=n_original), "zip": rng.choice(["a", "b", "c"], n_original),
                             "s": rng.choice(CELLS["s"], size=n_original)})
    return release, original


def scipys_product(release: pd.DataFrame, targets: pd.DataFrame, columns: list[str], groups: np.ndarray,
                   n_groups: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The consistent-row counts as they were computed before: scipy's sparse product, its entries in order."""
    quasi = [c for c in columns if c in SCHEMA.quasi]
    cov = build_cover(release[columns], targets[columns], SCHEMA, columns=quasi,
                      exact=[c for c in columns if c not in quasi])
    rec, cls = cov.record_pairs()
    consistent = sparse.csr_array((np.ones(len(rec)), (rec, cls)), shape=(len(targets), cov.n_classes))
    rows = sparse.csr_array((np.ones(len(groups)), (cov.row_class, groups)), shape=(cov.n_classes, n_groups))
    found = (consistent @ rows).tocsr().tocoo()
    return found.row, found.col, found.data


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10_000), n_release=st.integers(1, 60), n_targets=st.integers(1, 40),
       n_groups=st.integers(1, 6),
       columns=st.sampled_from([["age", "zip"], ["age"], ["zip", "s"], ["age", "zip", "s"]]))
def test_consistent_counts_are_scipys_product_in_its_order(seed: int, n_release: int, n_targets: int, n_groups: int,
                                                            columns: list[str]) -> None:
    release, targets = tables(seed, n_release, n_targets)
    groups = np.random.default_rng(seed + 1).integers(0, n_groups, size=n_release)
    got = _consistent(release, targets, SCHEMA, columns, ["age", "zip"], groups, n_groups)
    want = scipys_product(release, targets, columns, groups, n_groups)
    for ours, theirs in zip(got, want, strict=True):
        assert np.array_equal(ours, theirs)  # values and order


def test_consistent_counts_differ_when_the_groups_do() -> None:
    """The control: the comparison above can fail (other groups, other counts)."""
    release, targets = tables(3, 40, 20)
    groups = np.arange(40) % 3
    got = _consistent(release, targets, SCHEMA, ["age", "zip"], ["age", "zip"], groups, 3)
    other = scipys_product(release, targets, ["age", "zip"], (groups + 1) % 3, 3)
    assert not all(np.array_equal(a, b) for a, b in zip(got, other, strict=True))


def columns_of_every_kind(seed: int, n: int) -> list[pd.Series]:
    rng = np.random.default_rng(seed)
    values = rng.choice(["x", " y", "y ", "z", "*"], size=n).tolist()
    values[int(rng.integers(n))] = None
    cats = pd.Categorical(values, categories=["unused", "z", "*", "x", " y", "y "])
    return [pd.Series(values, dtype="str"), pd.Series(values, dtype=object), pd.Series(cats),
            pd.Series(rng.integers(0, 4, size=n))]


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(1, 50))
def test_texts_at_sampled_rows_are_every_cells_texts(seed: int, n: int) -> None:
    rows = np.sort(np.random.default_rng(seed).choice(n, size=max(1, n // 2), replace=False))
    for column in columns_of_every_kind(seed, n):
        texts, domain = _texts_at(column, rows)
        every = _texts(column)
        assert texts.tolist() == every[rows].tolist()
        assert domain.tolist() == pd.unique(every).tolist()  # the published cells, first appearance first


def test_stars_of_a_categorical_read_its_categories() -> None:
    values = ["*", "a", None, "*", "b"]
    compact = pd.Series(pd.Categorical(values, categories=["b", "*", "a", "unused"]))
    assert _stars(compact).tolist() == [True, False, False, True, False]
    assert _stars(compact).tolist() == (compact.astype(object) == "*").tolist()
    assert not _stars(pd.Series(pd.Categorical(["a", None], categories=["a", "*"]))).any()  # "*" unused


def attacks(release: pd.DataFrame, original: pd.DataFrame) -> list[dict]:
    with shared_reading(keep=original):
        return [singling_out_attack(release, original, SCHEMA, n_attacks=50, seed=1).to_dict(),
                linkability_attack(release, original, SCHEMA, n_attacks=50, seed=2).to_dict(),
                inference_attack(release, original, SCHEMA, "s", n_attacks=50, seed=3).to_dict()]


def counting_factorizations(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    sizes: list[int] = []
    real = cover.factorize_text

    def counted(values, **kw):  # type: ignore[no-untyped-def]
        sizes.append(len(values))
        return real(values, **kw)

    monkeypatch.setattr(cover, "factorize_text", counted)
    return sizes


def test_a_jobs_audits_read_the_input_once_and_figure_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    release, original = tables(7, 300, 400)
    alone = attacks(release, original)  # no job store: each audit reads for itself
    sizes = counting_factorizations(monkeypatch)
    with lasting_reading():
        first = attacks(release, original)
        read_first = sizes.count(len(original))
        # the next run's audit: a new encoding of the same input (new column objects, the same memory)
        second = attacks(release.copy(deep=True), original[list(original.columns)])
        read_second = sizes.count(len(original)) - read_first
    assert first == alone and second == alone
    assert read_first == 3 and read_second == 0  # each input column once per job, not once per audit
    sizes.clear()
    attacks(release, original)  # after the job: read again
    assert sizes.count(len(original)) == 3


def test_equal_values_in_other_memory_are_read_again(monkeypatch: pytest.MonkeyPatch) -> None:
    release, original = tables(8, 100, 120)
    sizes = counting_factorizations(monkeypatch)
    with lasting_reading():
        attacks(release, original)
        sizes.clear()
        rebuilt = pd.DataFrame({c: pd.Series(original[c].tolist(), dtype="str") for c in original.columns})
        assert attacks(release, rebuilt) == attacks(release, original)
    assert sizes.count(len(original)) == 3  # the rebuilt table's columns: not taken for the kept ones


BASE = {"input": {"path": "in.csv"}, "attributes": {"age": {"role": "quasi"}, "s": {"role": "sensitive"}},
        "privacy": [{"model": "k-anonymity", "k": 5}], "output": {"path": "out.csv"}}


def key(**changes: dict) -> str:
    data = {**BASE, **changes}
    return rerun_key(parse_config(data), 0)


def test_a_rerun_is_the_same_run_wherever_its_input_and_output_are() -> None:
    assert key(output={"path": "elsewhere.parquet"}) == key()
    assert key(input={"path": "other/in.csv"}) == key()
    assert key(output={"path": "out.csv", "separator": ";"}) == key()


def test_a_rerun_differs_when_its_release_would() -> None:
    assert key(output={"path": "out.csv", "suppressed": "mark"}) != key()
    assert key(privacy=[{"model": "k-anonymity", "k": 6}]) != key()
    assert key(input={"path": "in.csv", "strip": False}) != key()
    assert rerun_key(parse_config(BASE), 1) != key()


@pytest.mark.parametrize("module", ["analytics/cover.py", "analytics/adversary.py", "analytics/wildcard.py"])
def test_the_audits_modules_import_scipy_only_where_they_use_it(module: str) -> None:
    """scipy's import costs ~0.1 CPU-s of an ``anonkit anonymize`` job that needs no sparse matrix."""
    tree = ast.parse((SRC / module).read_text(encoding="utf-8"))
    top = [n for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom)]
    names = [n.module or "" for n in top if isinstance(n, ast.ImportFrom)] + [
        a.name for n in top if isinstance(n, ast.Import) for a in n.names]
    assert not [n for n in names if n.split(".")[0] == "scipy"]


# --- the registry walks a family only when asked (issue 30, item 1: imports of an ``anonkit anonymize`` job) ---

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
#: the families a lattice job (the bundled Adult config: Flash) has no use for
UNUSED_FAMILIES = ("search", "partition", "cluster", "bucket", "perturb", "synth")
PROBE = """
import json, sys
from pathlib import Path
from anonkit.plan import plan_from_yaml
from anonkit.algorithms import registry, spec
def loaded():
    return sorted({m.split(".")[2] for m in sys.modules if m.startswith("anonkit.algorithms.") and m.count(".") >= 3})
config = Path(sys.argv[1])
plan_from_yaml(config.read_text(encoding="utf-8"), config_dir=str(config.parent))
out = {"planned": loaded(), "planned_parquet": "pyarrow.parquet" in sys.modules, "declared_so_far": len(spec._DECLARED)}
from anonkit.config import MODEL_ENTRIES, KAnonymityConfig, parse_config
from anonkit.hierarchy.builder_params import BUILDER_SPECS
import anonkit.runner.local, anonkit.runner.audit_step, anonkit.fixes.trial, anonkit.cli.anonymize
DRIVERS = ("sqlite3", "xml.etree.ElementTree", "openpyxl", "duckdb", "adbc_driver_postgresql", "pyspark", "opendp")
out["drivers"] = [m for m in DRIVERS if m in sys.modules]
out["builders"] = list(BUILDER_SPECS.made)
out["entries"] = [e.__name__ for e in MODEL_ENTRIES if e.__pydantic_complete__]
import anonkit.verifier, anonkit.runner.anonymize, anonkit.risk
out["run_scipy"] = sorted(m for m in sys.modules if m.split(".")[0] == "scipy")
import pandas as pd
anonkit.risk.loglinear_risk(pd.DataFrame({"a": [0, 1, 1], "b": [1, 0, 1]}), ["a", "b"])
out["fitted_scipy"] = "scipy.sparse" in sys.modules
out["declared"] = [a.name for a in spec.declared()]
out["walked"] = list(registry.algorithms())
out["after_walk"] = loaded()
import anonkit.io.parquet as parquet, pandas as pd, tempfile, os
with tempfile.TemporaryDirectory() as d:
    parquet._write_parquet(pd.DataFrame({"a": [1]}), ["a"], Path(d, "t.parquet"), os.path.join(d, "t.parquet"))
out["written_parquet"] = "pyarrow.parquet" in sys.modules
import yaml
from anonkit.io import read_table, write_table
data = yaml.safe_load(config.read_text(encoding="utf-8"))
data["attributes"]["age"]["hierarchy"] = {"builder": "intervals", "width": 10}
out["built_width"] = parse_config(data).attributes["age"].hierarchy.width
out["builders_after"], out["entry_after"] = list(BUILDER_SPECS.made), KAnonymityConfig(model="k-anonymity", k=2).k
out["entries_after"] = [e.__name__ for e in MODEL_ENTRIES if e.__pydantic_complete__]
small = pd.DataFrame({"a": ["x", "y"], "b": ["1", "2"]})
with tempfile.TemporaryDirectory() as d:
    for name in ("t.sqlite", "t.xlsx"):
        write_table(small, os.path.join(d, name), table="t" if name.endswith("sqlite") else None)
        out["read_" + name] = read_table(os.path.join(d, name)).astype(str).values.tolist()
out["drivers_after"] = [m for m in DRIVERS if m in sys.modules]
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def probe() -> dict:
    """One fresh interpreter: the bundled config planned, then every family walked and a Parquet file written."""
    import json
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", PROBE, str(EXAMPLES / "adult.yaml")], capture_output=True,
                          text=True, timeout=120, check=True)
    return json.loads(done.stdout)


def test_planning_the_bundled_job_imports_no_other_family_nor_parquet(probe: dict) -> None:
    """A plan of the Flash job reads Flash's declaration: the lattice family only, no Parquet reader."""
    assert "lattice" in probe["planned"]
    assert not set(UNUSED_FAMILIES) & set(probe["planned"])
    assert not probe["planned_parquet"]


def test_a_runs_modules_load_no_scipy_until_a_loglinear_fit(probe: dict) -> None:
    """The verifier reaches the risk package, whose log-linear model needs ``scipy.sparse`` (0.15 CPU-s of
    imports): loaded by a fit (the control), not by a run that fits none."""
    assert probe["run_scipy"] == []
    assert probe["fitted_scipy"]


def test_the_walk_and_a_parquet_write_import_what_planning_does_not(probe: dict) -> None:
    """The control: the check above sees these modules when they are loaded."""
    assert set(UNUSED_FAMILIES) <= set(probe["after_walk"])
    assert probe["written_parquet"]


def test_planning_the_bundled_job_loads_no_database_or_workbook_driver(probe: dict) -> None:
    """SQLite's driver, the XML parser and the extras load where used (control: each reads its table back)."""
    assert probe["drivers"] == []
    assert probe["drivers_after"] == ["sqlite3", "xml.etree.ElementTree", "openpyxl"]
    assert probe["read_t.sqlite"] == probe["read_t.xlsx"] == [["x", "1"], ["y", "2"]]


def test_a_config_without_builders_makes_no_builder_model_and_one_that_names_one_makes_it(probe: dict) -> None:
    """``BUILDER_SPECS`` makes a builder's model when a config names the builder, and only that one."""
    assert probe["builders"] == []
    assert probe["builders_after"] == ["intervals"]
    assert probe["built_width"] == 10


def test_the_configs_sections_make_their_validators_on_first_use(probe: dict) -> None:
    """Reading the bundled config makes no ``privacy:`` entry's own validator (``defer_build``; control: one
    validated alone makes its own)."""
    assert probe["entries"] == []
    assert probe["entry_after"] == 2
    assert probe["entries_after"] == ["KAnonymityConfig"]


def test_a_list_of_the_algorithms_names_every_family_whatever_a_job_loaded(probe: dict) -> None:
    """``spec.declared()`` (the error messages naming the algorithms that take a model or option) walks first;
    without the walk it would hold the lattice family only."""
    assert probe["declared"] == probe["walked"]
    assert probe["declared_so_far"] < len(probe["walked"])


def test_a_lookup_finds_what_the_whole_walk_finds() -> None:
    from anonkit.algorithms import registry
    from anonkit.algorithms.spec import FAMILIES

    every = registry.algorithms()
    assert all(registry.get(name) is spec for name, spec in every.items())
    assert registry.get() is registry.default_algorithm() is next(a for a in every.values() if a.default)
    assert [n for f in FAMILIES for n in registry.family(f)] == list(every)
    assert registry.family("no-such-family") == {}


@pytest.mark.parametrize("name", ["no-such", "Flash", ""])
def test_an_unknown_algorithm_is_refused_naming_every_one(name: str) -> None:
    from anonkit.algorithms import registry
    from anonkit.errors import InputError

    with pytest.raises(InputError, match="available: ") as err:
        registry.get(name)
    assert all(n in str(err.value) for n in registry.algorithms())
    assert registry.get("flash").name == "flash"  # the control


def test_the_fixes_other_algorithm_is_the_one_the_whole_walk_gives() -> None:
    """fixes/levers reads one family (``OTHER_FAMILY``) instead of every algorithm: the same choice."""
    from anonkit.algorithms import registry
    from anonkit.fixes.levers import CLASS_MODELS, OTHER_FAMILY

    def fits(a: object) -> bool:
        return a.enforces == CLASS_MODELS and not a.needs and not a.persons  # type: ignore[attr-defined]

    walked = next(a for a in registry.algorithms().values() if a.family == OTHER_FAMILY and fits(a))
    assert next(a for a in registry.family(OTHER_FAMILY).values() if fits(a)) is walked


# ------------------------------------------------------- lean reruns, the job's shared encoding (issue 30)
def _toy_files(tmp: Path, n: int = 300, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    pd.DataFrame({"age": rng.integers(20, 60, n), "zip": rng.choice(["a", "b", "c", "d"], n),
                  "disease": rng.choice(["flu", "cold", "ulcer", "cancer", "hiv"], n)}).to_csv(tmp / "t.csv",
                                                                                                index=False)


def _toy_plan(tmp: Path, privacy: list[dict], algorithm: dict, *, writes: bool = False):  # type: ignore[no-untyped-def]
    from anonkit.plan import plan_from_config

    cfg = {"input": {"path": "t.csv"},
           "attributes": {"age": {"role": "quasi", "type": "numeric"}, "zip": {"role": "quasi"},
                          "disease": {"role": "sensitive"}},
           "privacy": privacy, "algorithm": algorithm, "output": {"path": "out.csv"},
           "audit": {"attacks": ["inference", "homogeneity"]}}
    return plan_from_config(parse_config(cfg), config_dir=tmp, writes=writes)


def _inputs(plan):  # type: ignore[no-untyped-def]
    from anonkit.plan.load import config_schema, load_input

    frame, defaults = load_input(plan.config, plan.base, None)
    return frame, config_schema(plan.config, plan.base, defaults, frame)


def _canonical(obj: object) -> str:
    """``obj`` as JSON without its timings (``seconds``: how long each part took, never the same)."""
    import json

    def timeless(x: object) -> object:
        if isinstance(x, dict):
            return {k: timeless(v) for k, v in x.items() if "seconds" not in str(k)}
        return [timeless(v) for v in x] if isinstance(x, list | tuple) else x

    return json.dumps(timeless(obj), sort_keys=True, default=str)


#: what a lean run leaves out of the summary (and its own mark); every other key is the full run's
LEFT_OUT = {"generalization", "score", "metric", "metrics", "risk_threshold", "seconds", "lean"}
K3 = [{"model": "k-anonymity", "k": 3}]
L2 = [{"model": "k-anonymity", "k": 3}, {"model": "l-diversity", "attribute": "disease", "l": 2,
                                         "variant": "distinct"}]
T = [{"model": "k-anonymity", "k": 2}, {"model": "t-closeness", "attribute": "disease", "t": 0.3, "distance": "equal"}]


@pytest.mark.parametrize(("privacy", "algorithm"), [
    (K3, {"name": "mondrian"}), (L2, {"name": "flash", "max_suppression": 0.05}), (T, {"name": "flash"}),
    (K3, {"name": "mdav"}),
])
def test_a_lean_rerun_gives_the_full_runs_verdict_figures(tmp_path: Path, privacy: list[dict],
                                                          algorithm: dict) -> None:
    """A rerun reads the encoded table of the job's first run and computes the loss alone of the measures:
    its release, verification, loss, audit and every other summary key are the full run's."""
    from anonkit.runner.anonymize import Encodings, anonymize_checked
    from anonkit.runner.audit_step import audit_report

    _toy_files(tmp_path)
    plan = _toy_plan(tmp_path, privacy, algorithm)
    frame, schema = _inputs(plan)
    full = anonymize_checked(frame, schema, plan)
    encodings = Encodings()
    first = anonymize_checked(frame, schema, plan, encodings=encodings)
    lean = anonymize_checked(frame, schema, plan, lean=True, encodings=encodings)
    assert lean.release.table is first.release.table and len(encodings) == 1  # encoded once
    assert full.release.table is not first.release.table  # (the control: without the cache, its own)
    pd.testing.assert_frame_equal(lean.frame, full.frame)
    assert lean.summary["lean"] is True and "lean" not in full.summary
    assert lean.summary["metrics"] == {"gcp": full.summary["metrics"]["gcp"]}
    assert "generalization" in full.summary and "generalization" not in lean.summary
    same = {k: v for k, v in full.summary.items() if k not in LEFT_OUT}
    assert _canonical({k: v for k, v in lean.summary.items() if k not in LEFT_OUT}) == _canonical(same)
    assert _canonical(audit_report(plan, lean)) == _canonical(audit_report(plan, full))


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(8, 120), k=st.integers(2, 4),
       algorithm=st.sampled_from(["flash", "mondrian", "mdav"]))
def test_a_lean_runs_loss_is_the_counted_releases_bit_for_bit(seed: int, n: int, k: int, algorithm: str) -> None:
    """The lean loss is taken on the release, not on its counted rows: the same float (classes, sizes and
    each class's NCP in the same order)."""
    from anonkit import anonymize
    from anonkit.metrics import SearchMetric, compute_metrics
    from anonkit.models import KAnonymity
    from anonkit.runner.anonymize import _lean_measures

    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"age": rng.integers(20, 40, n).astype(str), "zip": rng.choice(["a", "b", "c"], n),
                          "s": rng.choice(["x", "y"], n)})
    try:
        result = anonymize(frame, SCHEMA, [KAnonymity(k)], algorithm=algorithm)
    except Exception as exc:  # the models cannot be met on so few records: nothing to compare
        assert type(exc).__name__ == "UnsatisfiableError"
        return
    counted = result.release.counted()
    want = compute_metrics(counted.table, counted, ["gcp"], gs=0.5, aggregate="geometric")["gcp"]
    got = _lean_measures(result.release, SearchMetric(), result.verification)["metrics"]["gcp"]
    assert got == want == result.summary["metrics"]["gcp"]


def test_a_jobs_runs_encode_once_and_its_fix_lines_read_the_reruns_loss(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """The job (its run, the advice's reruns, the fixes' trials) encodes its input once; every fix's loss is
    what the changed config's full run measures (a rerun that skipped the loss would print none)."""
    from anonkit.engines.local import LocalEngine
    from anonkit.fixes import apply_fix, propose_fixes
    from anonkit.plan import plan_from_config
    from anonkit.runner import run

    _toy_files(tmp_path)
    plan = _toy_plan(tmp_path, [{"model": "k-anonymity", "k": 2}], {"name": "mondrian"}, writes=True)
    encoded = []
    encode = LocalEngine.encode
    monkeypatch.setattr(LocalEngine, "encode", lambda self, *a, **k: encoded.append(1) or encode(self, *a, **k))
    result = run(plan)
    fixes = propose_fixes(plan, result=result, max_tries=4)
    assert not result.summary["verdict"]["ok"] and result.reruns and fixes
    assert len(encoded) == 1  # (without the shared encoding: one per run)
    assert "generalization" in result.summary and "lean" not in result.summary  # the run's own summary is whole
    released = [f for f in fixes if not f.failing or f.loss is not None]
    assert released and all(f.loss is not None and "loss " in f.words for f in released if f.passes)
    for fix in released[:2]:
        changed = plan_from_config(parse_config(apply_fix(plan.declaration(), fix)), config_dir=tmp_path,
                                   writes=False)
        assert fix.loss == run(changed).summary["metrics"]["gcp"]


def test_an_encoding_is_shared_by_the_same_objects_and_settings_only() -> None:
    import dataclasses

    from anonkit.runner.anonymize import Encodings

    frame, table = pd.DataFrame({"a": ["x"]}), object()
    encodings = Encodings()
    encodings.put(frame, SCHEMA, (0, "value", True, "error"), table)  # type: ignore[arg-type]
    assert encodings.get(frame, SCHEMA, (0, "value", True, "error")) is table
    assert encodings.get(frame.copy(), SCHEMA, (0, "value", True, "error")) is None  # equal, but another frame
    assert encodings.get(frame, dataclasses.replace(SCHEMA), (0, "value", True, "error")) is None  # an equal copy
    assert encodings.get(frame, SCHEMA, (1, "value", True, "error")) is None  # another seed
    assert encodings.get(frame, SCHEMA, (0, "suppress", True, "error")) is None


# ------------------------------------------------- a release written as CSV through its compact form
CELL_TEXT = st.one_of(st.sampled_from(["", " ", "a", "b,c", 'q"t', "line\nbreak", "=1+2", "-3", "+x", "@s", "é", "*",
                                       "20-39", "nan", "1.0"]),
                      st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=4))


@settings(max_examples=25, deadline=None)
@given(data=st.data(), width=st.integers(2, 4), rows=st.integers(1, 40), neutralise=st.booleans(),
       sep=st.sampled_from([",", ";", "\t", "|"]))
def test_text_written_through_its_compact_form_is_the_dense_bytes(tmp_path_factory: pytest.TempPathFactory,
                                                                  data: st.DataObject, width: int, rows: int,
                                                                  neutralise: bool, sep: str) -> None:
    import anonkit.io._compact as compact
    from anonkit.io import write_table
    from anonkit.io.csv import _csv_bytes

    columns = {}
    for j in range(width):
        pool = data.draw(st.lists(st.one_of(CELL_TEXT, st.none()), min_size=1, max_size=5))
        cells = data.draw(st.lists(st.sampled_from(pool), min_size=rows, max_size=rows))
        columns[f"c{j}" if j else "=head"] = pd.Series(cells, dtype=data.draw(st.sampled_from([object, "string"])))
    frame = pd.DataFrame(columns)
    where = tmp_path_factory.mktemp("csv") / "out.csv"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(compact, "COMPACT_CSV_ROWS", 0)
        if compact.text_compact(frame, "utf-8") is None:  # more distinct values than half the cells: dense
            return
        write_table(frame, str(where), separator=sep, neutralise=neutralise)
    assert where.read_bytes() == _csv_bytes(frame, list(frame.columns), sep, "utf-8", neutralise)


@settings(max_examples=20, deadline=None)
@given(data=st.data(), width=st.integers(2, 4), rows=st.integers(1, 12), neutralise=st.booleans(),
       sep=st.sampled_from([",", ";", "\t"]))
def test_text_cells_rendered_together_are_each_columns_own(data: st.DataObject, width: int, rows: int,
                                                          neutralise: bool, sep: str) -> None:
    """Every column's categories rendered in one ``to_csv`` (``_text_cells``) are the texts the rendering
    column by column gives (the cells the compact CSV writer joins), quoting and formula ``'`` included."""
    from anonkit.io import _compact_write as cw
    from anonkit.io._compact import compact_frame

    frame = compact_frame(pd.DataFrame({
        f"c{j}": pd.Series(data.draw(st.lists(CELL_TEXT, min_size=rows, max_size=rows)),
                           dtype=data.draw(st.sampled_from([object, "string"]))) for j in range(width)}))
    together = cw._text_cells(frame, sep, neutralise)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(cw, "_text_cells", lambda *_: None)
        each = cw._category_cells(frame, sep, neutralise)
    assert together is not None and each is not None
    assert [a.to_pylist() for a in together] == [a.to_pylist() for a in each]


def test_a_compact_frame_with_a_number_column_is_rendered_column_by_column() -> None:
    """The control: categories not all text are rendered column by column."""
    from anonkit.io import _compact_write as cw
    from anonkit.io._compact import compact_frame

    frame = compact_frame(pd.DataFrame({"a": ["=x", "y", "=x"], "b": [1.5, 2.0, 1.5]}))
    assert cw._text_cells(frame, ",", True) is None
    assert [a.to_pylist() for a in cw._category_cells(frame, ",", True)] == [["'=x", "y", ""], ["1.5", "2.0", ""]]


def test_only_repeating_text_in_utf8_takes_the_compact_path() -> None:
    from anonkit.io._compact import COMPACT_CSV_ROWS, text_compact

    n = COMPACT_CSV_ROWS
    text = pd.DataFrame({"a": ["x", "y"] * (n // 2), "b": pd.Series(["1-9", None] * (n // 2), dtype="string")})
    assert text_compact(text, "utf-8") is not None  # the control
    assert text_compact(text.iloc[: n - 1], "utf-8") is None  # too few rows
    assert text_compact(text, "latin-1") is None
    assert text_compact(text[["a"]], "utf-8") is None  # one column
    assert text_compact(text.assign(b=np.arange(n)), "utf-8") is None  # a number column
    assert text_compact(text.assign(b=[str(i) for i in range(n)]), "utf-8") is None  # distinct beyond half


# ------------------------------------------------------------- a command line of the one command it runs
@pytest.mark.parametrize("argv", [["anonymize", "--help"], ["anonymize"], ["anonymize", "--bogus"],
                                  ["anonymize", "x.yaml", "--seed", "-1"], ["experiment", "--help"],
                                  ["check", "--help"], ["models"]])
def test_one_command_runs_as_the_whole_command_line(argv: list[str]) -> None:
    from typer.testing import CliRunner

    from anonkit.cli import _one_command, app

    one = _one_command(tuple(argv))
    assert one is not None
    runner = CliRunner()
    got, want = (runner.invoke(a, argv, prog_name="anonkit", terminal_width=80) for a in (one, app))
    assert (got.exit_code, got.output) == (want.exit_code, want.output)


def test_one_command_registers_that_command_alone() -> None:
    import typer.main

    from anonkit.cli import COMMANDS, _one_command

    assert list(typer.main.get_command(_one_command(("anonymize", "x.yaml"))).commands) == ["anonymize"]
    assert _one_command(("--version",)) is None and _one_command(("anonymze",)) is None and _one_command(()) is None
    assert all(_one_command((name,)) is not None for name, _ in COMMANDS)


def test_the_progress_display_draws_on_a_terminal_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Into a file or a pipe the progress display is off (no refresh thread, no blank line); a terminal's draws."""
    import io

    from rich.console import Console

    from anonkit.cli import console, running

    for terminal in (False, True):
        monkeypatch.setattr(console, "err", Console(file=io.StringIO(), force_terminal=terminal, width=80))
        with running._progress() as bar:
            bar.update(bar.add_task("anonymizing", total=None), description="auditing")
            refreshing = bar.live._refresh_thread is not None
        assert (bar.disable, refreshing) == (not terminal, terminal)
        assert ("auditing" in console.err.file.getvalue()) is terminal

