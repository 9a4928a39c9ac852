"""ARX compatibility evidence: Flash's optimum score on Adult equals ARX's JUnit golden values.

Source of every case: the research notes ``/work/notes/arx_semantics.md`` §1.A (2016–2018 ARX tests
on ``data/adult.csv``) and §1.B (2015 tests, kept only where they still hold for the current
native-country hierarchy). Only values the notes mark as reproduced bit-exactly (✔) are used, plus
the "no solution" cases; the Grassberger cases the notes call path-dependent, and the 2015 values
marked ✘cur, are left out. ARX asserts ``getGlobalOptimum().getHighestScore().toString()``; we
compare the parsed double exactly (the shortest repr of a double round-trips). Our optimum's
transformation is not asserted: ARX does not assert it and does not define its tie rule (notes
§0.1). Instead, ARX's printed transformation is applied with ``fixed`` and must be anonymous here
too and score the golden value, so at worst the two optima tie.

Setup as in ARX's ``AbstractAnonymizationTest``: every Adult attribute with a hierarchy file is a
quasi-identifier except the test's sensitive attribute. So TestAnonymizationKAnonymity has 9 QIs;
the other test classes have sensitive attribute occupation and 8 QIs (occupation is ignored by
their k-anonymity-only configurations). TestAnonymizationTCloseness (2018) adds
``HierarchicalDistanceTCloseness(occupation, 0.2)`` to every configuration without a t-closeness
model. ``PM`` (practical monotonicity, an ARX speed-up that may miss the optimum) has no counterpart here:
a PM case is run as the exact search, and its golden is kept when the notes verified it. (The
unverified PM twin TestAnonymizationTCloseness-10, k5 + HD-t s0.04, reports 390765.61…, which the
exact search beats with 377622.78…, the value of case 2.) The TestAnonymizationHeuristic goldens
(Lightning, not an optimum) are scores at printed transformations; ``tests/test_metrics.py``
already checks all of them, so they are not repeated.
"""

from __future__ import annotations

import pytest

from anonkit import load_adult
from anonkit.algorithms import fixed
from anonkit.algorithms.lattice.flash import flash
from anonkit.algorithms.transform import suppression_limit
from anonkit.metrics import SearchMetric, score
from anonkit.models import BetaLikeness, EntropyLDiversity, KAnonymity, RecursiveCLDiversity, TCloseness
from anonkit.release import Release
from anonkit.schema import Schema
from anonkit.table import Table
from anonkit.verify import verify

pytestmark = pytest.mark.slow

OCC = "occupation"

# ARX quality models (notes §1 notation)
ENT_MONO = SearchMetric("entropy", monotonic=True)  # createEntropyMetric(true) / precomputed(0.1, true)
ENT_NM = SearchMetric("entropy", monotonic=False)  # createEntropyMetric(false) / precomputed(0.1[, false])
DM_STAR = SearchMetric("dm*")  # createDiscernabilityMetric(true)
LOSS = SearchMetric("loss")  # createLossMetric(): gs 0.5, geometric mean


def hd_t(t: float = 0.2) -> TCloseness:
    return TCloseness(OCC, t, "hierarchical")


# (id, QI set, models, suppression limit, metric, expected string or None for "no solution", ARX's
# printed transformation). QI sets: "9" = all attributes; "8" = all but occupation (occupation
# sensitive); "8h" = the same with the occupation hierarchy on the sensitive attribute (hierarchical
# t-closeness). Transformations list the QI levels in header order.
CASES = [
    # ---- §1.A TestAnonymizationTCloseness (2018): HD-t(0.2) added where no t model is configured
    ("TCloseness-0 equal-t0.2+k5 s0.04 DM*", "8",
     [TCloseness(OCC, 0.2, "equal"), KAnonymity(5)], 0.04, DM_STAR,
     "3.11880088E8", [1, 4, 1, 0, 3, 2, 2, 1]),
    ("TCloseness-2 k5(+HD-t0.2) s0.04 Ent(mono)", "8h",
     [KAnonymity(5), hd_t()], 0.04, ENT_MONO,
     "377622.78458729305", [1, 4, 0, 0, 3, 2, 2, 1]),
    ("TCloseness-3 k100(+HD-t0.2) s0.04 Ent(mono)", "8h",
     [KAnonymity(100), hd_t()], 0.04, ENT_MONO,
     "390765.61326019815", [1, 4, 1, 0, 3, 1, 2, 1]),
    ("TCloseness-4 equal-t0.2+k5 s0 DM*", "8",
     [TCloseness(OCC, 0.2, "equal"), KAnonymity(5)], 0.0, DM_STAR,
     "4.56853172E8", [1, 4, 1, 1, 3, 2, 2, 1]),
    ("TCloseness-6 k5(+HD-t0.2) s0 Ent(mono); Combinations k5+HD-t s0", "8h",
     [KAnonymity(5), hd_t()], 0.0, ENT_MONO,
     "398400.0741806447", [0, 4, 1, 1, 3, 2, 2, 1]),
    # ---- §1.A TestAnonymizationOrderedDistanceTCloseness (2016), DM*
    ("OrderedT-0 ordered-t0.2+k5 s0.04", "8",
     [TCloseness(OCC, 0.2, "ordered"), KAnonymity(5)], 0.04, DM_STAR,
     "2712340.0", [0, 0, 1, 1, 2, 2, 2, 0]),
    ("OrderedT-1 ordered-t0.2+k100 s0.04", "8",
     [TCloseness(OCC, 0.2, "ordered"), KAnonymity(100)], 0.04, DM_STAR,
     "1.9937246E7", [1, 0, 1, 2, 3, 2, 2, 1]),
    ("OrderedT-2 ordered-t0.1+k5 s0", "8",
     [TCloseness(OCC, 0.1, "ordered"), KAnonymity(5)], 0.0, DM_STAR,
     "9.786802E7", [1, 1, 1, 2, 3, 2, 2, 1]),
    ("OrderedT-3 ordered-t0.2+k100 s0", "8",
     [TCloseness(OCC, 0.2, "ordered"), KAnonymity(100)], 0.0, DM_STAR,
     "1.6231213E8", [1, 4, 1, 1, 1, 2, 2, 1]),
    ("OrderedT-4 ordered-t0.05+k5 s0.04 (PM)", "8",
     [TCloseness(OCC, 0.05, "ordered"), KAnonymity(5)], 0.04, DM_STAR,
     "2.01413138E8", [1, 4, 1, 0, 3, 2, 2, 0]),
    # ---- §1.A TestAnonymizationBLikeness (2018), Loss
    ("BLikeness-0 basic-b3 s0.5", "8",
     [BetaLikeness(OCC, 3.0)], 0.5, LOSS,
     "0.34883856157237925", [0, 3, 0, 0, 2, 0, 1, 0]),
    ("BLikeness-1 enhanced-b2 s0", "8",
     [BetaLikeness(OCC, 2.0, enhanced=True)], 0.0, LOSS,
     "0.759176305345683", [1, 4, 1, 1, 3, 2, 2, 0]),
    ("BLikeness-2 basic-b1 s1", "8",
     [BetaLikeness(OCC, 1.0)], 1.0, LOSS,
     "0.6081345989904172", [1, 4, 0, 1, 3, 0, 2, 0]),
    ("BLikeness-3 enhanced-b10 s1", "8",
     [BetaLikeness(OCC, 10.0, enhanced=True)], 1.0, LOSS,
     "0.3419039849540606", [0, 3, 0, 0, 3, 1, 2, 0]),
    ("BLikeness-4 basic-b5 s0.4", "8",
     [BetaLikeness(OCC, 5.0)], 0.4, LOSS,
     "0.23350465152356303", [0, 2, 0, 0, 2, 0, 1, 0]),
    # ---- §1.A TestAnonymizationEntropyLDiversity (2016/2018) and §1.B TestAnonymizationLDiversity, Ent(NM)
    ("EntropyL-1 l100-shannon s0.04: no solution", "8",
     [EntropyLDiversity(OCC, 100, "shannon")], 0.04, ENT_NM,
     None, None),
    ("EntropyL-2 l5-grassberger s0", "8",
     [EntropyLDiversity(OCC, 5, "grassberger")], 0.0, ENT_NM,
     "324620.5269918692", [1, 1, 1, 1, 3, 2, 2, 1]),
    ("EntropyL-4 l5-shannon s0.04 (PM); LDiversity l5 s0.04", "8",
     [EntropyLDiversity(OCC, 5, "shannon")], 0.04, ENT_NM,
     "228878.2039109517", [1, 0, 1, 1, 2, 2, 2, 1]),
    ("EntropyL-5 l100-grassberger s0.1 (PM): no solution", "8",
     [EntropyLDiversity(OCC, 100, "grassberger")], 0.1, ENT_NM,
     None, None),
    ("LDiversity l100-shannon s0: no solution", "8",
     [EntropyLDiversity(OCC, 100, "shannon")], 0.0, ENT_NM,
     None, None),
    ("LDiversity l5-shannon s0", "8",
     [EntropyLDiversity(OCC, 5, "shannon")], 0.0, ENT_NM,
     "324620.5269918692", [1, 1, 1, 1, 3, 2, 2, 1]),
    # ---- §1.B TestAnonymizationKAnonymity (2015), 9 QIs, Ent(mono)
    ("KAnonymity-0 k5 s0.04", "9",
     [KAnonymity(5)], 0.04, ENT_MONO,
     "255559.85455731067", [1, 0, 1, 1, 3, 2, 2, 0, 1]),
    ("KAnonymity-1 k100 s0.04", "9",
     [KAnonymity(100)], 0.04, ENT_MONO,
     "379417.3460570988", [1, 1, 1, 1, 3, 2, 2, 1, 1]),
    ("KAnonymity-2 k5 s0", "9",
     [KAnonymity(5)], 0.0, ENT_MONO,
     "407289.5388925293", [1, 2, 1, 1, 3, 2, 2, 1, 1]),
    ("KAnonymity-3 k100 s0", "9",
     [KAnonymity(100)], 0.0, ENT_MONO,
     "453196.8932458743", [0, 4, 1, 1, 3, 2, 2, 1, 1]),
    # ---- §1.B TestAnonymizationCombinations (2015), rows without d-presence, PM off
    ("Combinations k5 s0 Ent(mono)", "8",
     [KAnonymity(5)], 0.0, ENT_MONO,
     "324620.5269918692", [1, 1, 1, 1, 3, 2, 2, 1]),
    ("Combinations HD-t s0 Ent(mono)", "8h",
     [hd_t()], 0.0, ENT_MONO,
     "398400.0741806447", [0, 4, 1, 1, 3, 2, 2, 1]),
    ("Combinations rec-c4-l5 s0 Ent(mono)", "8",
     [RecursiveCLDiversity(OCC, 4.0, 5)], 0.0, ENT_MONO,
     "324620.5269918692", [1, 1, 1, 1, 3, 2, 2, 1]),
    ("Combinations k5 s0.05 Ent(NM)", "8",
     [KAnonymity(5)], 0.05, ENT_NM,
     "180132.40848244698", [0, 0, 1, 1, 2, 2, 2, 0]),
    ("Combinations rec-c4-l5 s0.05 Ent(mono)", "8",
     [RecursiveCLDiversity(OCC, 4.0, 5)], 0.05, ENT_MONO,
     "198181.4042332967", [1, 0, 1, 1, 2, 2, 2, 0]),
    ("Combinations rec-c4-l5 s0.05 Ent(NM)", "8",
     [RecursiveCLDiversity(OCC, 4.0, 5)], 0.05, ENT_NM,
     "209764.96161974416", [1, 0, 1, 1, 2, 2, 2, 0]),
]  # fmt: skip

#: cases that do not reproduce, with the reason (strict: a fix must remove the entry)
XFAIL: dict[str, str] = {}


@pytest.fixture(scope="module")
def tables() -> dict[str, Table]:
    frame, h = load_adult()
    all9 = list(frame.columns)
    qi8 = [c for c in all9 if c != OCC]
    hier8 = {q: h[q] for q in qi8}
    return {
        "9": Table(frame, Schema.of(quasi=all9, hierarchies={q: h[q] for q in all9})),
        "8": Table(frame, Schema.of(quasi=qi8, sensitive=[OCC], hierarchies=hier8)),
        "8h": Table(frame, Schema.of(quasi=qi8, sensitive=[OCC], hierarchies={**hier8, OCC: h[OCC]})),
    }


def _params(with_levels: bool) -> list:
    out = []
    for name, qis, models, s, metric, expected, levels in CASES:
        if with_levels and levels is None:
            continue
        marks = [pytest.mark.xfail(strict=True, reason=XFAIL[name])] if name in XFAIL else []
        args = (qis, models, s, metric, expected, levels) if with_levels else (qis, models, s, metric, expected)
        out.append(pytest.param(*args, id=name, marks=marks))
    return out


def assert_verifies(table: Table, rel: Release, models: list, s: float) -> None:
    assert rel.n_suppressed <= suppression_limit(s, table.n)
    reference = {c: table.frame[c] for c in table.sensitive}
    result = verify(rel.to_frame(), table.schema, models, reference=reference)
    assert result.ok, result.summary()


def test_case_list() -> None:
    assert len(CASES) >= 20
    assert len({c[0] for c in CASES}) == len(CASES)
    assert not set(XFAIL) - {c[0] for c in CASES}


@pytest.mark.parametrize(("qis", "models", "s", "metric", "expected"), _params(with_levels=False))
def test_arx_optimum_score(tables: dict[str, Table], qis: str, models, s: float, metric, expected) -> None:
    """Flash's optimum has exactly ARX's score (or, like ARX, there is none)."""
    table = tables[qis]
    rel = flash(table, models, max_suppression=s, metric=metric)
    if expected is None:
        assert rel.satisfied is False
        return
    assert rel.satisfied, rel.message
    assert rel.extra["score"] == float(expected), (rel.extra["score"], rel.transformation)
    assert_verifies(table, rel, models, s)


@pytest.mark.parametrize(("qis", "models", "s", "metric", "expected", "levels"), _params(with_levels=True))
def test_arx_printed_transformation(
    tables: dict[str, Table], qis: str, models, s: float, metric, expected, levels
) -> None:
    """ARX's printed optimum is anonymous here too and scores the golden value: a tie at worst."""
    table = tables[qis]
    rel = fixed(table, models, levels=levels, max_suppression=s)
    assert rel.satisfied, rel.message
    assert score(table, rel, metric) == float(expected)
    assert_verifies(table, rel, models, s)
