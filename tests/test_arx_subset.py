"""ARX's TestAnonymizationSubset (issue 27, item 2): a research subset anonymized with ARX's ``Inclusion``.

ARX draws each subset with ``getSubset(size)``: ``new Random(0xDEADBEEF)`` (the int literal, so the seed
−559038737), then ``size`` draws of ``nextInt(size)`` into a set of row indices of ``adult.csv``
(30,162 rows): about 63 % of the first ``size`` rows. ``tests/java_random.py`` is Java's generator,
so the subsets here are ARX's, row for row.

``Inclusion`` is ARX's δ-presence without bounds (``isAnonymous`` is always true): it only marks the
research subset. In anonkit that is ``input.subset`` (here the Python API's ``subset=``) with no model
that reads the population (no k-map, no δ-presence): the subset's records are encoded, judged and
released alone, with the hierarchies given for the whole table. ARX also forms classes of the
population records outside the subset (``pcount``), but with ``count = 0`` they are judged by no
model here, their records are never released, and the search metric and t-closeness's overall
distribution are taken over the subset in both tools, so the optimum and the loss string are ARX's
exactly. One difference in the output: ARX's output handle still holds the rows outside the subset,
anonkit's release holds the subset's rows only.

Setup as in ARX's ``AbstractAnonymizationTest``: 8 quasi-identifiers, occupation sensitive (with its
hierarchy for hierarchical t-closeness), no suppression, ``createPrecomputedEntropyMetric(0.1, true)``
(the monotonic non-uniform entropy; the 0.1 is ARX's precomputation threshold, a speed-up with the
same values). Each search takes well under a second, so none is marked slow.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from anonkit import Schema, anonymize, load_adult
from anonkit.metrics import SearchMetric
from anonkit.models import KAnonymity, RecursiveCLDiversity, TCloseness
from anonkit.verifier import verify
from java_random import JavaRandom, java_int

OCC = "occupation"
ENT_MONO = SearchMetric("entropy", monotonic=True)  # Metric.createPrecomputedEntropyMetric(0.1d, true)
#: ARX's ``new Random(0xDEADBEEF)``: the int literal, sign-extended to a long
ARX_SEED = java_int(0xDEADBEEF)
ADULT_ROWS = 30162


def arx_subset(size: int, rows: int = ADULT_ROWS) -> np.ndarray:
    """TestAnonymizationSubset's ``getSubset(size)`` as a mask over Adult's rows."""
    rng = JavaRandom(ARX_SEED)
    mask = np.zeros(rows, dtype=bool)
    for _ in range(size):
        mask[rng.next_int(size)] = True
    return mask


def hd_t() -> TCloseness:
    return TCloseness(OCC, 0.2, "hierarchical")


#: (ARX's case, subset size, rows drawn, models, the occupation hierarchy, ARX's loss string, ARX's transformation)
CASES = [
    ("0 k5+HD-t0.2 subset 20000", 20000, 12620, [KAnonymity(5), hd_t()], True, "178437.4164900378",
     [1, 4, 1, 1, 3, 2, 2, 1]),
    ("1 k5 subset 10000", 10000, 6315, [KAnonymity(5)], False, "70774.7774633781", [0, 4, 1, 1, 2, 2, 2, 0]),
    ("2 HD-t0.2 subset 30000", 30000, 19015, [hd_t()], True, "250816.4033099704", [0, 4, 1, 1, 3, 2, 2, 1]),
    ("3 rec-(4,5)-diversity subset 9000", 9000, 5681, [RecursiveCLDiversity(OCC, 4.0, 5)], False, "65996.221545847",
     [1, 2, 1, 1, 3, 2, 2, 1]),
]


@pytest.fixture(scope="module")
def adult() -> tuple[pd.DataFrame, dict]:
    return load_adult()


def schema_of(adult: tuple[pd.DataFrame, dict], hierarchical: bool) -> Schema:
    frame, h = adult
    qi = [c for c in frame.columns if c != OCC]
    hierarchies = {q: h[q] for q in qi} | ({OCC: h[OCC]} if hierarchical else {})
    return Schema.of(quasi=qi, sensitive=[OCC], hierarchies=hierarchies)


@pytest.mark.parametrize(("size", "drawn", "models", "hierarchical", "loss", "levels"),
                         [pytest.param(*c[1:], id=c[0]) for c in CASES])
def test_arx_subset_golden(adult, size: int, drawn: int, models: list, hierarchical: bool, loss: str,  # type: ignore[no-untyped-def]
                           levels: list[int]) -> None:
    """Flash on ARX's subset returns ARX's transformation with ARX's loss string, and the release
    (the subset's records only) passes the independent verifier."""
    frame, _ = adult
    mask = arx_subset(size)
    assert int(mask.sum()) == drawn and not mask[size:].any()
    schema = schema_of(adult, hierarchical)
    res = anonymize(frame, schema, models, algorithm="flash", subset=mask, max_suppression=0.0, metric=ENT_MONO)
    assert list(res.summary["transformation"].values()) == levels
    assert repr(res.summary["score"]) == loss
    assert len(res.frame) == drawn and res.verification.ok
    reference = {OCC: frame.loc[mask, OCC].reset_index(drop=True)}
    assert verify(res.frame, schema, models, reference=reference).ok


def test_the_subset_changes_the_optimum(adult) -> None:  # type: ignore[no-untyped-def]
    """Control: the same models on the whole table give another optimum (ARX's TestAnonymizationCombinations
    k5 s0: 324620.5269918692), so the goldens above depend on the subset being ARX's."""
    frame, _ = adult
    schema = schema_of(adult, False)
    whole = anonymize(frame, schema, [KAnonymity(5)], algorithm="flash", max_suppression=0.0, metric=ENT_MONO)
    assert repr(whole.summary["score"]) == "324620.5269918692"
    shifted = np.roll(arx_subset(10000), 1)  # another subset of the same size: not ARX's loss
    other = anonymize(frame, schema, [KAnonymity(5)], algorithm="flash", subset=shifted, max_suppression=0.0,
                      metric=ENT_MONO)
    assert repr(other.summary["score"]) != "70774.7774633781"


def test_the_config_input_subset_rows_gives_arx_golden(tmp_path: Path) -> None:
    """The same case through a YAML config: ``input.subset.rows`` (1-based row numbers) is ARX's Inclusion."""
    from typer.testing import CliRunner

    from anonkit.cli import app

    rows = (np.flatnonzero(arx_subset(10000)) + 1).tolist()
    qi = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass", "salary-class"]
    cfg = {
        "input": {"dataset": "adult", "subset": {"rows": rows}},
        "attributes": {**{q: {"role": "quasi"} for q in qi}, OCC: {"role": "sensitive"}},
        "privacy": [{"model": "k-anonymity", "k": 5}],
        "algorithm": {"name": "flash", "max_suppression": 0.0, "metric": {"name": "entropy", "monotonic": True}},
        "output": {"path": "out.csv"},
    }
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(cfg, sort_keys=False))
    res = CliRunner().invoke(app, ["anonymize", str(tmp_path / "c.yaml"), "--json"])
    assert res.exit_code == 0, res.output
    assert "70774.7774633781" in res.output
    assert len(pd.read_csv(tmp_path / "out.csv", dtype=str)) == 6315
