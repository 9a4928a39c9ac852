"""KACA and MDAV meet l-diversity (and t, β, δ) by merging failing classes, not by suppressing them
(anonkit's extension, ``anonkit.algorithms.cluster._merge``); with k-anonymity alone the option
changes nothing."""

from __future__ import annotations

import numpy as np
import pytest

from anonkit.algorithms.cluster.kaca import kaca
from anonkit.algorithms.cluster.mdav import mdav
from anonkit.models import DistinctLDiversity, KAnonymity
from clinic_tables import hierarchical_clinic, numeric_clinic
from support import verified

CASES = [pytest.param(kaca, hierarchical_clinic, id="kaca"), pytest.param(mdav, numeric_clinic, id="mdav")]


@pytest.mark.parametrize(("algorithm", "clinic"), CASES)
def test_l_diversity_is_met_by_merging(algorithm, clinic) -> None:  # type: ignore[no-untyped-def]
    table = clinic(1)
    models = [KAnonymity(4), DistinctLDiversity("disease", 4)]
    old = algorithm(table, models, max_suppression=0.1, failing="suppress")
    rel = algorithm(table, models, max_suppression=0.1)
    assert old.n_suppressed > 30 and not old.satisfied
    assert rel.satisfied and rel.n_suppressed == 0 and verified(table, rel, models)


@pytest.mark.parametrize(("algorithm", "clinic"), CASES)
def test_k_only_is_unchanged_by_the_failing_option(algorithm, clinic) -> None:  # type: ignore[no-untyped-def]
    table = clinic(2, 120)
    a = algorithm(table, [KAnonymity(4)])
    b = algorithm(table, [KAnonymity(4)], failing="suppress")
    assert np.array_equal(a.record_class, b.record_class)
    assert a.notes.get("merges") == b.notes.get("merges")
