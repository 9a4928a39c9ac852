"""The tiered kernels (anonkit._kernels.tiered): numpy until their work would have paid for loading
numba, then numba. Both tiers give the same ids, codes, sums and lattice tags, so which one a run
takes never shows in its output; a short run never imports numba."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonkit import _kernels as K
from anonkit.algorithms.lattice._space import Lattice, SearchState, closure_np, closure_py


@pytest.fixture
def tier():
    """Restore the process's tier after a test that sets it."""
    was = K.use_numba()
    yield
    K.use_numba(was)


@settings(deadline=None, max_examples=60)  # the first compiled call loads a kernel
@given(seed=st.integers(0, 10_000), m=st.integers(0, 600), d=st.integers(0, 4),
       leaves=st.sampled_from([2, 9, 300]), small=st.booleans())
def test_node_ids_and_roll_up_agree(seed: int, m: int, d: int, leaves: int, small: bool) -> None:
    """Generalize-and-group (``node_ids``) and the class roll-up (``roll_classes``): the numpy tier
    equals the compiled kernel exactly, on lookup-array and hashed key spaces alike."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 3 if small else leaves + 1, d).astype(np.int64)
    maps = [rng.integers(0, s, leaves) for s in sizes]  # a leaf → its node at some level
    flat = np.concatenate(maps).astype(np.int64) if d else np.zeros(0, dtype=np.int64)
    offsets = np.arange(d, dtype=np.int64) * leaves
    cols = rng.integers(0, leaves, (d, m)).astype(np.int32)
    radix = int(np.prod(sizes)) if d else 1
    ids, g = K._node_ids_np(cols, flat, offsets, sizes, radix)
    jit_ids, jit_g = K.compiled(K._node_ids_py)(cols, flat, offsets, sizes, radix)
    assert g == jit_g and np.array_equal(ids, jit_ids)

    codes = np.ascontiguousarray(cols.T, dtype=np.int64)
    weights = rng.integers(1, 9, m).astype(np.float64)
    hist = rng.integers(0, 5, (m, 3)).astype(np.float64)
    got = K._roll_np(codes, flat, offsets, sizes, radix, weights, hist)
    want = K.compiled(K._roll_py)(codes, flat, offsets, sizes, radix, weights, hist)
    assert got[1] == want[1]
    for a, b in zip([got[0], *got[2:]], [want[0], *want[2:]], strict=True):
        assert a.shape == b.shape and np.array_equal(a, b)


@settings(deadline=None, max_examples=60)
@given(seed=st.integers(0, 10_000), n=st.integers(0, 3_000), spread=st.sampled_from([3, 1_000, 2**40]))
def test_dense_ids_tiers_agree(seed: int, n: int, spread: int) -> None:
    """Dense ids in first-appearance order: pandas' hash (the numpy tier, and every tier from
    ``NUMBA_BELOW`` keys up) and the compiled open-addressing kernel give the same ids."""
    keys = np.random.default_rng(seed).integers(-spread, spread, n)
    ids, count = K._first_appearance(keys)
    if n:
        jit_ids, jit_count = K.compiled(K._dense_ids_py)(keys)
        assert count == jit_count and np.array_equal(ids, jit_ids)
    else:
        assert count == 0


@settings(deadline=None, max_examples=80)
@given(spans=st.lists(st.integers(1, 5), min_size=1, max_size=5), seed=st.integers(0, 10_000), up=st.booleans())
def test_closure_tiers_agree(spans: list[int], seed: int, up: bool) -> None:
    """Predictive tagging: the layered numpy closure tags the nodes the queue of ``closure_py``
    tags (interpreted and compiled), in the same order, from any start and statuses."""
    lattice = Lattice([f"q{j}" for j in range(len(spans))], [0] * len(spans), [s - 1 for s in spans])
    rng = np.random.default_rng(seed)
    status = rng.choice(np.array([0, 0, 0, 1, 2], dtype=np.int8), lattice.size)
    start = int(rng.integers(0, lattice.size))
    strides, span = lattice.strides, np.asarray(lattice.span, dtype=np.int64)
    outs = []
    for run in (closure_np, closure_py, K.compiled(closure_py)):
        s, out = status.copy(), np.empty(lattice.size, dtype=np.int64)
        count = run(s, strides, span, start, up, 3, out)
        outs.append((s, out[:count].tolist()))
    for s, tagged in outs[1:]:
        assert np.array_equal(s, outs[0][0]) and tagged == outs[0][1]


def test_the_tier_switches_after_its_budget(tier, monkeypatch) -> None:
    """numpy first; once the numpy work has cost ``NUMBA_AFTER_SECONDS``, numba from then on."""
    K.use_numba(False)
    state = SearchState(Lattice(["a", "b"], [0, 0], [3, 3]))
    monkeypatch.setattr(K, "NUMBA_AFTER_SECONDS", 0.0)
    state.closure(0, up=True, value=3)  # numpy, and its time spends the (empty) budget
    assert K.use_numba()
    assert K.compiled.cache_info().currsize >= 1


SMALL_RUN = textwrap.dedent("""
    import json, sys
    from anonkit import _kernels, load_adult
    from anonkit.models import KAnonymity, DistinctLDiversity
    from anonkit.pipeline import anonymize
    from anonkit.schema import Schema
    if sys.argv[1] == "numba":
        _kernels.use_numba(True)
    else:  # numpy throughout, however slow the machine (the budget itself is the benchmarks' to judge)
        _kernels.NUMBA_AFTER_SECONDS = float("inf")
    frame, h = load_adult()
    qis = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass"]
    schema = Schema.of(quasi=qis, sensitive=["occupation"], insensitive=["salary-class"],
                       hierarchies={q: h[q] for q in qis})
    result = anonymize(frame, schema, [KAnonymity(5), DistinctLDiversity("occupation", 3)], max_suppression=0.02)
    s = result.summary
    print(json.dumps({"numba": "numba" in sys.modules, "csv": result.frame.to_csv(index=False),
                      "summary": [s["transformation"], s["score"], s["suppressed"], s["metrics"], s["lattice"]]}))
""")


def test_a_run_on_numpy_loads_no_numba_and_publishes_what_numba_would(tmp_path) -> None:
    """A Flash run on Adult in a fresh process on the numpy tier never imports numba, and its
    release, measures and search counts are those of a run on numba's kernels."""
    script = tmp_path / "run.py"
    script.write_text(SMALL_RUN)
    runs = {tier: json.loads(subprocess.run([sys.executable, str(script), tier], check=True, capture_output=True,
                                            text=True).stdout) for tier in ("numpy", "numba")}
    assert runs["numpy"]["numba"] is False and runs["numba"]["numba"] is True
    assert runs["numpy"]["csv"] == runs["numba"]["csv"]
    assert runs["numpy"]["summary"] == runs["numba"]["summary"]
