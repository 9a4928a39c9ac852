"""Twin tests of the scorer's shortcuts on a new table (issue 30, session 12 round 3):

* :func:`~anonkit.algorithms.lattice._score.loss_level_sums` skips the gather at a *uniform* level (every leaf's
  node has the same share) and sums ``counts · c`` once per share for all QIs: the same bits as the row of the
  ``(levels × tuples)`` product it stands for;
* :meth:`NodeScorer._class_losses` gathers every QI's shares from one lookup array
  (:attr:`NodeScorer._share_lookup`): the same per-QI Loss as the per-QI gather it replaced, bit for bit.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from anonkit import Schema, Table
from anonkit.algorithms.lattice._score import NodeScorer, loss_level_sums
from anonkit.hierarchy import Hierarchy
from anonkit.metrics import SearchMetric
from anonkit.metrics.loss import normalized_loss

N_AGES = 35  # uniform levels of shares 1/35, 5/35, 1 (inexact doubles: a sum's order shows in its bits)
AGES = [str(20 + a) for a in range(N_AGES)]
ZIPS = [f"z{i}" for i in range(29)]


def _age() -> Hierarchy:  # levels 0, 1 (bands of 5) and 3 uniform; level 2 (15, 15, 5 leaves) not
    return Hierarchy([[a, f"b{(int(a) - 20) // 5}", f"h{(int(a) - 20) // 15}", "*"] for a in AGES], name="age")


def _zip() -> Hierarchy:  # level 1: groups of 3 but the last has 2 (not uniform); 0 and 2 uniform
    return Hierarchy([[z, f"p{i // 3}", "*"] for i, z in enumerate(ZIPS)], name="zip")


def _table(seed: int, n: int = 6000) -> Table:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({
        "age": [str(x) for x in rng.choice(np.array(AGES, dtype=object), n)],
        "zip": [str(x) for x in rng.choice(np.array(ZIPS, dtype=object), n)],
        "sex": [str(x) for x in rng.choice(np.array(["m", "f", "x"], dtype=object), n)],
    })
    sex = Hierarchy([["m", "*"], ["f", "*"], ["x", "*"]], name="sex")
    schema = Schema.of(quasi=["age", "zip", "sex"], hierarchies={"age": _age(), "zip": _zip(), "sex": sex})
    return Table(frame, schema)


def _uniform(h: Hierarchy, level: int) -> bool:
    lut = h.domain_share(level)[h.maps[level]]
    return bool((lut == lut[0]).all())


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_uniform_levels_sum_as_the_gathered_row(seed: int) -> None:
    """Every level's sum has the bits of the gathered row's product summed by numpy, and the uniform levels'
    sums are kept per share across the QIs of one call. Catches: the uniform sum taken as ``c · Σ counts``
    (another rounding: the data below differ so at some uniform level, asserted), a non-uniform level taken
    for uniform (its first leaf's share everywhere), and the shared sums keyed by anything but the share."""
    table = _table(seed)
    d = table.distinct
    buf = np.empty(d.size)
    constant: dict[float, np.floating] = {}
    scaled_differs = False
    for j, h in enumerate(table.hierarchies):
        lut = np.stack([h.domain_share(level)[h.maps[level]] for level in range(h.height + 1)])
        want = (d.counts * np.take(lut, d.columns[j], axis=1)).sum(axis=1)
        got = loss_level_sums(d.counts, d.columns[j], h, buf, constant)
        assert [x.tobytes() for x in np.asarray(got)] == [x.tobytes() for x in want]
        for level in range(h.height + 1):
            if _uniform(h, level):
                c = float(lut[level, 0])
                scaled_differs |= (c * d.counts.sum()).tobytes() != want[level].tobytes()
    # the shares of the uniform levels were summed once each (the path ran), the non-uniform ones not kept
    uniform = {float(h.domain_share(lv)[h.maps[lv]][0]) for h in table.hierarchies for lv in range(h.height + 1)
               if _uniform(h, lv)}
    assert set(constant) == uniform
    assert {1 / 35, 5 / 35, 1 / 29, 1 / 3, 1.0} <= uniform
    assert not _uniform(table.hierarchies[0], 2) and not _uniform(table.hierarchies[1], 1)
    assert scaled_differs  # the data tell the uniform sum from a scaled total


@pytest.mark.parametrize("seed", [0, 3])
def test_class_losses_from_one_lookup_are_the_per_qi_gathers(seed: int) -> None:
    """:meth:`NodeScorer._class_losses` (one gather from :attr:`NodeScorer._share_lookup`) gives every QI's Loss
    as the per-QI gather of ``domain_share(level)`` it replaced, bit for bit, at every node of the lattice.
    Catches a wrong start in the lookup (a level's block off by one, another QI's or level's block) and
    shares summed in another order."""
    table = _table(seed)
    scorer = NodeScorer(table, SearchMetric(gs=0.3), 0.05)
    rng = np.random.default_rng(seed)
    hs = table.hierarchies
    heights = [h.height for h in hs]
    for levels in np.ndindex(*[x + 1 for x in heights]):
        n_classes = 700
        codes = np.stack([rng.integers(0, hs[j].size(lv), n_classes) for j, lv in enumerate(levels)], axis=1)
        kept = rng.integers(0, 9, n_classes).astype(np.float64)
        sup = np.where(rng.random(n_classes) < 0.2, kept, 0.0)
        kept = kept - sup
        n_sup = float(sup.sum())
        got = scorer._class_losses(tuple(levels), codes, kept, sup, n_sup)
        want = []
        for j, lv in enumerate(levels):
            share = np.ascontiguousarray(hs[j].domain_share(lv)[codes[:, j]])
            x = scorer.g * float((kept * share).sum()) + float((sup * (share + scorer.s * (1.0 - share))).sum())
            want.append(normalized_loss(x, scorer.n, hs[j].n_leaves, scorer.g))
        assert np.array(got).tobytes() == np.array(want).tobytes(), levels
