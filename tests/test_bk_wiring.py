"""Wiring of the background-knowledge model (spec §1.7, §3, §4.1–4.3): config parsing, the row link
of a release (``Release.published_rows``), the verifier's record-level check and the pipeline's
checks and priors plumbing. The algorithms themselves (uhra, bka-js, k-primacy) are tested elsewhere;
here a stand-in algorithm built on ``partition_release`` exercises the pipeline."""

from __future__ import annotations

import dataclasses
import functools
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from anonkit import Hierarchy, InputError, Schema, Table, anonymize
from anonkit.algorithms.local import partition_release
from anonkit.algorithms.registry import algorithms
from anonkit.config import BackgroundKnowledgeConfig, parse_config
from anonkit.knowledge import Priors, jsd, kernel_priors
from anonkit.knowledge.sources import as_priors, external_table, matrix_file_priors
from anonkit.models import BackgroundKnowledge, KAnonymity
from anonkit.pipeline import config_priors as config_priors
from anonkit.pipeline import run_config
from anonkit.release import Release
from anonkit.verifier import verify

# ---------------------------------------------------------------------------- a small table
AGES = [20, 21, 22, 23, 60, 61, 62, 63]
#: priors ``(P(L), P(H))`` far apart by age band
YOUNG, OLD = (0.9, 0.1), (0.1, 0.9)


def _frame(s: list[str] | None = None) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "name": [f"p{i}" for i in range(8)],
            "age": [str(a) for a in AGES],
            "sex": list("MFMFMFMF"),
            "s": s if s is not None else list("LLLHHHHL"),
        }
    )


def _schema() -> Schema:
    sex = Hierarchy([["M", "*"], ["F", "*"]], name="sex")
    return Schema.of(
        identifier=["name"], quasi=["age", "sex"], sensitive=["s"], hierarchies={"sex": sex}, types={"age": "numeric"}
    )


def _table(s: list[str] | None = None) -> Table:
    return Table(_frame(s), _schema())


def _priors(table: Table, rows: list[tuple[float, float]]) -> np.ndarray:
    """An ``(n × S)`` prior array from ``(P(L), P(H))`` rows, in the table's label order."""
    labels = list(table.domains["s"].labels)
    p = np.zeros((table.n, len(labels)))
    for i, (low, high) in enumerate(rows):
        p[i, labels.index("L")] = low
        p[i, labels.index("H")] = high
    return p


SPLIT_PRIORS = [YOUNG] * 4 + [OLD] * 4
BY_AGE = np.array([0, 0, 0, 0, 1, 1, 1, 1])  # groups identical priors
MIXED = np.array([0, 0, 1, 1, 0, 0, 1, 1])  # every class mixes young and old


def _release(table: Table, record_class: np.ndarray) -> Release:
    rel = partition_release(table, record_class, [KAnonymity(2)], algorithm="test")
    assert rel.n_classes == len(set(record_class[record_class >= 0]))  # published texts differ
    return rel


def _verify(
    rel: Release, model: BackgroundKnowledge, priors: object = None, *, suppressed: str = "drop", seed: int = 0
):
    frame = rel.to_frame(suppressed=suppressed, seed=seed)  # type: ignore[arg-type]
    rows = rel.published_rows(suppressed=suppressed, seed=seed)  # type: ignore[arg-type]
    return verify(frame, rel.table.schema, [model], source=rel.table.frame, rows=rows, priors=priors)


def _only(v):
    assert len(v.results) == 1
    return v.results[0]


# ---------------------------------------------------------------------------- config
BASE = {"input": {"path": "in.csv"}, "attributes": {"age": {"role": "quasi"}, "s": {"role": "sensitive"}}}


def _config(model: dict, algorithm: dict | None = None):
    data = dict(BASE, privacy=[model])
    if algorithm is not None:
        data["algorithm"] = algorithm
    return parse_config(data)


@pytest.mark.parametrize(
    ("prior", "kind", "bandwidth"),
    [
        ("kernel", "kernel", 0.3),
        ("classifier", "classifier", 0.3),
        ({"kind": "kernel", "bandwidth": 0.5, "external": "bk.csv"}, "kernel", 0.5),
        ({"kind": "classifier", "external": "bk.csv", "separator": ";"}, "classifier", 0.3),
        ({"kind": "matrix", "path": "priors.csv"}, "matrix", 0.3),
    ],
)
def test_config_builds_the_model(prior: object, kind: str, bandwidth: float) -> None:
    cfg = _config({"model": "background-knowledge", "attribute": "s", "J": 0.8, "prior": prior, "test": "posterior",
                   "posterior": "exact"})
    (m,) = cfg.models()
    assert m == BackgroundKnowledge("s", 0.8, prior=kind, bandwidth=bandwidth, test="posterior", posterior="exact")
    assert isinstance(cfg.privacy[0], BackgroundKnowledgeConfig)


def test_config_defaults() -> None:
    (m,) = _config({"model": "background-knowledge", "attribute": "s", "J": 0.3}).models()
    assert (m.prior, m.bandwidth, m.test, m.posterior) == ("kernel", 0.3, "auto", "omega")


@pytest.mark.parametrize(
    ("change", "key", "needle"),
    [
        ({"prior": "matrix"}, r"privacy\.0\.prior", "needs a file"),
        ({"prior": "oracle"}, r"privacy\.0\.prior", "allowed"),
        ({"prior": {"kind": "matrix"}}, r"privacy\.0\.prior", "needs 'path'"),
        ({"prior": {"kind": "kernel", "path": "p.csv"}}, r"privacy\.0\.prior", "'path' applies"),
        ({"prior": {"kind": "classifier", "bandwidth": 0.2}}, r"privacy\.0\.prior", "'bandwidth' applies"),
        ({"prior": {"kind": "matrix", "path": "p.csv", "external": "x.csv"}}, r"privacy\.0\.prior", "'external'"),
        ({"prior": {"kind": "kernel", "separator": ";"}}, r"privacy\.0\.prior", "'separator'"),
        ({"prior": {"kind": "bayes"}}, r"privacy\.0\.prior\.kind", "allowed"),
        ({"prior": {"kind": "kernel", "bandwith": 0.2}}, r"privacy\.0\.prior\.bandwith", "unknown key"),
        ({"prior": {"kind": "kernel", "bandwidth": 0}}, r"privacy\.0\.prior\.bandwidth", ""),
        ({"J": 1.5}, r"privacy\.0\.J", ""),
        ({"test": "both"}, r"privacy\.0\.test", "allowed"),
        ({"posterior": "mcmc"}, r"privacy\.0\.posterior", "allowed"),
    ],
)
def test_config_errors_name_the_key(change: dict, key: str, needle: str) -> None:
    model = {"model": "background-knowledge", "attribute": "s", "J": 0.8, **change}
    with pytest.raises(InputError, match=key) as err:
        _config(model)
    assert needle in str(err.value)


def test_config_needs_J() -> None:
    with pytest.raises(InputError, match=r"privacy\.0\.J.*required"):
        _config({"model": "background-knowledge", "attribute": "s"})


def test_algorithm_options() -> None:
    kmodel = {"model": "k-anonymity", "k": 2}
    cfg = _config(kmodel, {"name": "uhra", "small_cluster": "merge", "reference": "cluster", "max_passes": 5})
    assert cfg.algorithm.options() == {"small_cluster": "merge", "reference": "cluster", "max_passes": 5}
    cfg = _config(kmodel, {"name": "bka-js", "bits": 4, "leftover": "suppress", "enforce_k": False})
    assert cfg.algorithm.options() == {"bits": 4, "leftover": "suppress", "enforce_k": False}
    cfg = _config(kmodel, {"name": "k-primacy", "small_cluster": "suppress", "max_passes": 0})
    assert cfg.algorithm.options() == {"small_cluster": "suppress", "max_passes": 0}
    for algorithm, key in [({"name": "k-primacy", "reference": "table"}, "reference"),
                           ({"name": "flash", "bits": 3}, "bits"), ({"name": "uhra", "enforce_k": True}, "enforce_k"),
                           ({"name": "bka-js", "small_cluster": "merge"}, "small_cluster")]:
        with pytest.raises(InputError, match=f"'{key}' is not an option of {algorithm['name']}"):
            _config(kmodel, algorithm)
    with pytest.raises(InputError, match=r"algorithm\.leftover"):
        _config(kmodel, {"name": "bka-js", "leftover": "drop"})


def test_registry_entries() -> None:
    bk = BackgroundKnowledge("s", 0.5)
    enforcing = {a.name for a in algorithms().values() if a.enforces_model(bk)}
    assert enforcing == {"uhra", "bka-js", "k-primacy"}
    assert {a.name for a in algorithms().values() if "priors" in a.needs} == enforcing
    assert algorithms()["bka-js"].bk_test == "posterior" and algorithms()["uhra"].bk_test == "pairwise"
    assert algorithms()["bka-js"].run.__module__ == "anonkit.algorithms.cluster.bka_js"


# ---------------------------------------------------------------------------- published_rows
def _old_to_frame(rel: Release, suppressed: str, seed: int) -> pd.DataFrame:
    """``to_frame`` as it was before ``published_rows`` existed (byte-identity reference)."""
    out = rel.table.frame.copy()
    gen = rel.generalized()
    for name in rel.table.qi:
        out[name] = gen[name].to_numpy()
    if suppressed == "drop":
        out = out.loc[~rel.suppressed]
    order = np.random.default_rng(seed).permutation(len(out))
    return out.iloc[order].reset_index(drop=True)


@pytest.mark.parametrize("suppressed", ["drop", "mark"])
@pytest.mark.parametrize("seed", [0, 1, 17])
@pytest.mark.parametrize("record_class", [BY_AGE, np.array([0, 0, -1, 1, 1, -1, 2, 2]), np.full(8, -1)])
def test_published_rows_link_to_frame(suppressed: str, seed: int, record_class: np.ndarray) -> None:
    table = _table()
    rel = partition_release(table, record_class, [], algorithm="test")
    frame = rel.to_frame(suppressed=suppressed, seed=seed)  # type: ignore[arg-type]
    pd.testing.assert_frame_equal(frame, _old_to_frame(rel, suppressed, seed))
    rows = rel.published_rows(suppressed=suppressed, seed=seed)  # type: ignore[arg-type]
    assert rows.dtype.kind == "i" and len(rows) == len(frame) and len(set(rows)) == len(rows)
    expected_rows = table.n if suppressed == "mark" else rel.n_released
    assert len(rows) == expected_rows
    assert not rel.suppressed[rows].any() or suppressed == "mark"
    source = table.frame.iloc[rows].reset_index(drop=True)
    assert (frame["s"] == source["s"]).all()
    gen = rel.generalized().iloc[rows].reset_index(drop=True)
    pd.testing.assert_frame_equal(frame[table.qi], gen[table.qi])


def test_published_rows_rejects_bad_mode() -> None:
    rel = partition_release(_table(), BY_AGE, [], algorithm="test")
    with pytest.raises(ValueError, match="drop"):
        rel.published_rows(suppressed="hide")  # type: ignore[arg-type]


# ---------------------------------------------------------------------------- verify: pairwise
def test_pairwise_passes_when_classes_group_identical_priors() -> None:
    table = _table()
    p = _priors(table, SPLIT_PRIORS)
    v = _verify(_release(table, BY_AGE), BackgroundKnowledge("s", 0.1, test="pairwise"), p, seed=5)
    r = _only(v)
    assert v.ok and r.passed and r.achieved == pytest.approx(0.0, abs=1e-12)
    assert "pairwise" in r.model


def test_pairwise_fails_when_classes_mix_far_priors() -> None:
    table = _table()
    p = _priors(table, SPLIT_PRIORS)
    rel = _release(table, MIXED)
    v = _verify(rel, BackgroundKnowledge("s", 0.1, test="pairwise"), p, seed=5)
    r = _only(v)
    far = float(jsd(np.array(YOUNG), np.array(OLD)))
    assert not v.ok and not r.passed
    assert (r.failing_classes, r.failing_records) == (2, 8)
    assert r.achieved == pytest.approx(far)
    assert _only(_verify(rel, BackgroundKnowledge("s", far + 1e-6, test="pairwise"), p)).passed


def test_auto_is_judged_pairwise() -> None:
    table = _table()
    p = _priors(table, SPLIT_PRIORS)
    r = _only(_verify(_release(table, MIXED), BackgroundKnowledge("s", 0.1), p))
    assert not r.passed and "pairwise" in r.model


def test_priors_object_and_default_estimate_agree() -> None:
    table = _table()
    rel = _release(table, MIXED)
    model = BackgroundKnowledge("s", 0.05, test="pairwise", bandwidth=0.5)
    given = _only(_verify(rel, model, kernel_priors(table, "s", bandwidth=0.5)))
    estimated = _only(_verify(rel, model))  # the verifier estimates the kernel priors from source itself
    assert given.achieved == pytest.approx(estimated.achieved)
    assert given.achieved > 0


def test_marked_suppressed_rows_are_not_judged() -> None:
    table = _table()
    p = _priors(table, SPLIT_PRIORS)
    # records 2 and 4 (one young, one old) suppressed; the rest grouped by priors
    rel = _release(table, np.array([0, 0, -1, 0, -1, 1, 1, 1]))
    v = _verify(rel, BackgroundKnowledge("s", 0.01, test="pairwise"), p, suppressed="mark", seed=3)
    assert v.ok and (v.suppressed, v.classes) == (2, 2)


# ---------------------------------------------------------------------------- verify: posterior
def test_posterior_test() -> None:
    # identical priors everywhere: the posterior of a class is its sensitive histogram (§1.7)
    table = _table(list("LLLHHHHH"))
    p = _priors(table, [(0.5, 0.5)] * 8)
    rel = _release(table, BY_AGE)
    near = float(jsd(np.array([0.5, 0.5]), np.array([0.75, 0.25])))  # class of L, L, L, H
    far = float(jsd(np.array([0.5, 0.5]), np.array([0.0, 1.0])))  # class of H, H, H, H
    for posterior in ("omega", "exact"):
        r = _only(_verify(rel, BackgroundKnowledge("s", 0.1, test="posterior", posterior=posterior), p))
        assert not r.passed and (r.failing_classes, r.failing_records) == (1, 4)
        assert r.achieved == pytest.approx(far)
        r = _only(_verify(rel, BackgroundKnowledge("s", far + 1e-9, test="posterior", posterior=posterior), p))
        assert r.passed
    # the other class alone sits at `near`
    one = _release(table, np.array([0, 0, 0, 0, -1, -1, -1, -1]))
    r = _only(_verify(one, BackgroundKnowledge("s", 0.1, test="posterior"), p))
    assert r.passed and r.achieved == pytest.approx(near)


def test_posterior_differs_from_pairwise() -> None:
    # mixed classes whose sensitive values match the priors: the Ω posterior equals the prior
    table = _table(list("LLHHHHLL"))
    p = _priors(table, [YOUNG, YOUNG, OLD, OLD, OLD, OLD, YOUNG, YOUNG])
    rel = _release(table, MIXED)
    assert not _only(_verify(rel, BackgroundKnowledge("s", 0.1, test="pairwise"), p)).passed
    r = _only(_verify(rel, BackgroundKnowledge("s", 0.1, test="posterior"), p))
    assert r.passed and r.achieved == pytest.approx(0.0, abs=1e-9)


# ---------------------------------------------------------------------------- verify: errors
def test_record_level_model_needs_source_and_rows() -> None:
    table = _table()
    rel = _release(table, BY_AGE)
    frame = rel.to_frame()
    model = BackgroundKnowledge("s", 0.5)
    with pytest.raises(InputError, match="source="):
        verify(frame, table.schema, [model])
    with pytest.raises(InputError, match="rows="):
        verify(frame, table.schema, [model], source=table.frame)
    with pytest.raises(InputError, match="source="):
        verify(frame, table.schema, [model], rows=rel.published_rows())
    # other models need neither
    assert verify(frame, table.schema, [KAnonymity(2)]).ok


def test_bad_row_links_are_input_errors() -> None:
    table = _table()
    rel = _release(table, BY_AGE)
    frame = rel.to_frame(seed=2)
    rows = rel.published_rows(seed=2)
    model = BackgroundKnowledge("s", 0.5)
    p = _priors(table, SPLIT_PRIORS)

    def run(link: object, priors: object = p) -> None:
        verify(frame, table.schema, [model], source=table.frame, rows=link, priors=priors)  # type: ignore[arg-type]

    with pytest.raises(InputError, match="one input row per released row"):
        run(rows[:-1])
    with pytest.raises(InputError, match="outside the input"):
        run(np.where(rows == rows[0], 99, rows))
    with pytest.raises(InputError, match="same input record"):
        run(np.r_[rows[:-1], rows[0]])
    with pytest.raises(InputError, match="integer"):
        run(rows.astype(float))
    # a link that pairs released rows with records of another sensitive value
    wrong = rows.copy()
    i = int(np.flatnonzero(frame["s"] == "L")[0])
    j = int(np.flatnonzero(frame["s"] == "H")[0])
    wrong[i], wrong[j] = wrong[j], wrong[i]
    with pytest.raises(InputError, match="does not link"):
        run(wrong)
    with pytest.raises(InputError, match="one row per input record"):
        run(rows, p[:4])
    with pytest.raises(InputError, match="priors are about"):
        run(rows, Priors(p, np.arange(8), table.domains["s"].labels, "other"))


# ---------------------------------------------------------------------------- pipeline
def test_pipeline_refuses_other_algorithms() -> None:
    with pytest.raises(InputError) as err:
        anonymize(_frame(), _schema(), [KAnonymity(2), BackgroundKnowledge("s", 0.5)], algorithm="flash")
    msg = str(err.value)
    assert "flash" in msg and "uhra" in msg and "bka-js" in msg and "k-primacy" in msg
    assert "background_knowledge_attack" in msg
    with pytest.raises(InputError, match="priors= applies"):
        anonymize(_frame(), _schema(), [KAnonymity(2)], algorithm="flash", priors=np.full((8, 2), 0.5))


class _Standin:
    """A stand-in background-knowledge algorithm: groups records by age band (``by``) and records
    what the pipeline handed it."""

    def __init__(self, by: np.ndarray) -> None:
        self.by = by
        self.calls: list[dict] = []

    def __call__(self, table: Table, models: list, **params: object) -> Release:
        self.calls.append({"models": models, **params})
        plain = [m for m in models if not getattr(m, "record_level", False)]
        rel = partition_release(table, self.by, plain, algorithm="stand-in")
        rel.bk.clusters = 2
        return rel


@pytest.fixture
def standin(monkeypatch: pytest.MonkeyPatch):
    def install(by: np.ndarray) -> _Standin:
        algo = _Standin(by)
        for name, real in list(algorithms().items()):  # every algorithm runs the stand-in, same options

            @functools.wraps(real.run)
            def run(table: Table, models: list, **params: object) -> Release:
                return algo(table, models, **params)

            monkeypatch.setitem(algorithms(), name, dataclasses.replace(real, run=run))
        return algo

    return install


def test_pipeline_resolves_the_model_and_hands_priors(standin) -> None:
    algo = standin(BY_AGE)
    table = _table()
    p = _priors(table, SPLIT_PRIORS)
    result = anonymize(_frame(), _schema(), [KAnonymity(2), BackgroundKnowledge("s", 0.1)], algorithm="bka-js",
                       priors=p, seed=4, max_suppression=0.0)
    (call,) = algo.calls
    bk = call["models"][1]
    assert bk.test == "posterior"  # auto → the algorithm's own guarantee
    assert isinstance(call["priors"], Priors) and np.allclose(call["priors"].per_record(), p)
    assert result.verification.ok and result.summary["verified"]
    assert result.summary["background_knowledge"] == {
        "attribute": "s", "J": 0.1, "test": "posterior", "prior": "given", "clusters": 2
    }
    assert "name" not in result.frame.columns


def test_pipeline_estimates_priors_once_and_verifies(standin) -> None:
    algo = standin(MIXED)
    model = BackgroundKnowledge("s", 0.001, test="pairwise", bandwidth=0.5)
    with pytest.raises(AssertionError, match="failed independent verification"):
        anonymize(_frame(), _schema(), [model], algorithm="uhra")
    call = algo.calls[0]
    expected = kernel_priors(_table(), "s", bandwidth=0.5).per_record()
    assert np.allclose(call["priors"].per_record(), expected)


def test_pipeline_refuses_two_sensitive_attributes() -> None:
    frame = _frame().assign(t=list("abababab"))
    schema = _schema()
    schema = Schema.of(identifier=["name"], quasi=["age", "sex"], sensitive=["s", "t"],
                       hierarchies={"sex": schema["sex"].hierarchy}, types={"age": "numeric"})
    with pytest.raises(InputError, match="several sensitive attributes"):
        anonymize(frame, schema, [BackgroundKnowledge("s", 0.5), BackgroundKnowledge("t", 0.5)], algorithm="uhra")


def test_as_priors_forms() -> None:
    table = _table()
    p = _priors(table, SPLIT_PRIORS)
    per_record = as_priors(table, "s", p)
    assert np.allclose(per_record.per_record(), p) and per_record.size == 2
    keyed = pd.DataFrame(p, columns=table.domains["s"].labels, index=pd.MultiIndex.from_arrays(
        [[str(a) for a in AGES], list("MFMFMFMF")], names=["age", "sex"]))
    assert np.allclose(as_priors(table, "s", keyed).per_record(), p)
    flipped = Priors(p[:, ::-1].copy(), np.arange(8), table.domains["s"].labels[::-1], "s")
    assert np.allclose(as_priors(table, "s", flipped).per_record(), p)
    with pytest.raises(InputError, match="sum to 1"):
        as_priors(table, "s", p * 2)
    with pytest.raises(InputError, match="cover 4 records"):
        as_priors(table, "s", Priors(p[:4], np.arange(4), table.domains["s"].labels, "s"))


def test_matrix_file_priors_by_tuple_and_by_record() -> None:
    table = _table()
    p = _priors(table, SPLIT_PRIORS)
    labels = list(table.domains["s"].labels)
    keyed = pd.DataFrame({"sex": list("MFMFMFMF"), "age": [str(a) for a in AGES]})
    for j, lab in enumerate(labels):
        keyed[lab] = [str(x) for x in p[:, j]]
    assert np.allclose(matrix_file_priors(table, "s", keyed).per_record(), p)
    by_record = keyed.drop(columns=["sex", "age"])
    assert np.allclose(matrix_file_priors(table, "s", by_record).per_record(), p)
    with pytest.raises(InputError, match="every quasi-identifier"):
        matrix_file_priors(table, "s", keyed.drop(columns=["sex"]))
    with pytest.raises(InputError, match="not a number"):
        matrix_file_priors(table, "s", by_record.assign(L="x"))
    with pytest.raises(InputError, match="one row per input record"):
        matrix_file_priors(table, "s", by_record.iloc[:3])
    with pytest.raises(InputError, match="neither"):
        matrix_file_priors(table, "s", by_record.assign(Q="0"))


def test_external_table() -> None:
    table = _table()
    ext = pd.DataFrame({"age": ["20", "62"], "sex": ["M", "F"], "s": ["L", "H"], "other": ["x", "y"]})
    t = external_table(table, "s", ext)
    assert t.qi == ["age", "sex"] and t.sensitive == ["s"] and t.n == 2
    with pytest.raises(InputError, match="lacks a column"):
        external_table(table, "s", ext.drop(columns=["sex"]))


# ---------------------------------------------------------------------------- run_config
def _write_config(tmp_path: Path, prior: object, J: float = 0.01) -> dict:
    _frame().to_csv(tmp_path / "in.csv", index=False)
    return {
        "input": {"path": "in.csv"},
        "attributes": {"name": {"role": "identifier"}, "age": {"role": "quasi", "type": "numeric"},
                       "sex": {"role": "quasi"}, "s": {"role": "sensitive"}},
        "privacy": [{"model": "k-anonymity", "k": 2},
                    {"model": "background-knowledge", "attribute": "s", "J": J, "prior": prior}],
        "algorithm": {"name": "uhra", "small_cluster": "merge", "max_passes": 3},
        "output": {"path": "out.csv"},
    }


def test_run_config_with_a_matrix_file(tmp_path: Path, standin) -> None:
    algo = standin(BY_AGE)
    table = _table()
    p = _priors(table, SPLIT_PRIORS)
    labels = list(table.domains["s"].labels)
    pd.DataFrame({lab: p[:, j] for j, lab in enumerate(labels)}).to_csv(tmp_path / "priors.csv", index=False)
    cfg = parse_config(_write_config(tmp_path, {"kind": "matrix", "path": "priors.csv"}))
    result = run_config(cfg, config_dir=tmp_path)
    call = algo.calls[0]  # the release; the audit's advice may rerun the algorithm with a changed parameter
    assert call["small_cluster"] == "merge" and call["max_passes"] == 3 and call["models"][1].test == "pairwise"
    assert np.allclose(call["priors"].per_record(), p)
    assert result.summary["background_knowledge"]["prior"] == "matrix from priors.csv"
    assert result.summary["output"] is not None and (tmp_path / "out.csv").exists()


def test_config_priors_external_and_errors(tmp_path: Path) -> None:
    cfg = parse_config(_write_config(tmp_path, "kernel"))
    assert config_priors(cfg, tmp_path) == (None, "kernel")
    pd.DataFrame({"age": ["20", "63"], "sex": ["M", "F"], "s": ["L", "H"]}).to_csv(tmp_path / "bk.csv", index=False)
    cfg = parse_config(_write_config(tmp_path, {"kind": "kernel", "external": "bk.csv", "bandwidth": 0.5}))
    build, note = config_priors(cfg, tmp_path)
    assert note == "kernel on external data bk.csv" and build is not None
    table = _table()
    ext = Table(pd.read_csv(tmp_path / "bk.csv", dtype=str), Schema.of(quasi=["age", "sex"], sensitive=["s"],
                                                                      types={"age": "numeric"}))
    expected = kernel_priors(table, "s", bandwidth=0.5, external=ext).per_record()
    assert np.allclose(build(table).per_record(), expected)
    cfg = parse_config(_write_config(tmp_path, {"kind": "matrix", "path": "missing.csv"}))
    with pytest.raises(InputError, match=r"not found.*privacy\.1\.prior"):
        config_priors(cfg, tmp_path)
    pd.DataFrame({"age": ["20"], "L": ["1"]}).to_csv(tmp_path / "bad.csv", index=False)
    cfg = parse_config(_write_config(tmp_path, {"kind": "matrix", "path": "bad.csv"}))
    build, _ = config_priors(cfg, tmp_path)
    with pytest.raises(InputError, match=r"every quasi-identifier.*bad\.csv.*privacy\.1\.prior"):
        build(table)
