"""The fused node judgement (anonkit.algorithms._node_kernels): k-anonymity, distinct l-diversity and
equal-distance t-closeness judged in one compiled pass must give what the general model-by-model path
gives (which classes are released, the records the monotone models alone suppress, whether it stopped
settled), in both tiers, on random classes, model orders, monotone selections and suppression limits —
also on a t-closeness bound the EMD meets exactly, where only numpy's summation order gives numpy's verdict."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anonkit import _kernels as K
from anonkit.algorithms import _node_kernels as N
from anonkit.algorithms import transform as T
from anonkit.models import DistinctLDiversity, EntropyLDiversity, KAnonymity, TCloseness
from anonkit.stats import ClassStats, SensitiveDomain


@pytest.fixture
def tier():
    """Restore the process's tier after a test that sets it."""
    was = K.use_numba()
    yield
    K.use_numba(was)


def _stats(rng: np.random.Generator, c: int, s: int, whole: bool) -> ClassStats:
    """``c`` classes over ``s`` sensitive values: counts (some classes empty, some values absent) or,
    with ``whole`` False, weights that are not whole numbers."""
    hist = rng.integers(0, 4, (c, s)) * (rng.random((c, s)) < 0.6)
    hist[rng.random(c) < 0.15] = 0
    hist = hist.astype(np.float64) if whole else hist * rng.choice([0.3, 0.7, 1.1], (c, s))
    reference = rng.random(s) + 0.01
    domain = SensitiveDomain("s", np.arange(s).astype(str), reference / reference.sum())
    return ClassStats(hist.sum(axis=1), {"s": hist}, {"s": domain})


def _general(stats, ordered, monotone, settle_above):
    with pytest.MonkeyPatch.context() as m:
        m.setattr(T, "fused_plan", lambda *_a: None)
        return T._judge_classes(stats, ordered, monotone, settle_above)


def _same(a, b) -> None:
    assert np.array_equal(a[0], b[0]) and a[1:] == b[1:], (a, b)


@settings(deadline=None, max_examples=20, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10_000), c=st.integers(0, 60), s=st.integers(1, 20), whole=st.booleans(),
       picks=st.lists(st.sampled_from("klt"), min_size=1, max_size=3, unique=True),
       settle=st.one_of(st.none(), st.integers(0, 40)), mono_t=st.booleans())
def test_fused_equals_the_general_path(seed, c, s, whole, picks, settle, mono_t, tier) -> None:
    """Random classes and a random order of the three models: the fused judgement (numpy and numba
    tiers) equals :func:`~anonkit.algorithms.transform._judge_classes` model by model."""
    rng = np.random.default_rng(seed)
    stats = _stats(rng, c, s, whole)
    make = {"k": KAnonymity(int(rng.integers(1, 6))), "l": DistinctLDiversity("s", float(rng.integers(1, 4))),
            "t": TCloseness("s", float(rng.choice([0.05, 0.2, 0.5])))}
    ordered = [make[p] for p in picks]
    monotone = None if mono_t else (lambda m: not isinstance(m, TCloseness))
    want = _general(stats, ordered, monotone, settle)
    plan = N.fused_plan(ordered, stats)
    if picks == ["k"]:
        assert plan is None  # k alone stays on the sizes-only path
        return
    for jit in (False, True):
        K.use_numba(jit)
        _same(T._judge_classes(stats, ordered, monotone, settle), want)


@pytest.mark.parametrize("s", [3, 8, 13, 17, 64, 128])
def test_t_on_its_bound_is_judged_as_numpy_sums(s: int, tier) -> None:
    """Non-whole weights over ``s`` values, t set so that ``t + 1e-12`` is each class's numpy EMD
    exactly (passes) or one step below it (fails): the compiled pass, summing in numpy's pairwise order,
    gives numpy's verdicts; a plain running sum differs from it on some of these rows."""
    rng = np.random.default_rng(s)
    stats = _stats(rng, 40, s, whole=False)
    emd = TCloseness("s", 0.5).emd(stats)
    checked = 0
    for i in np.flatnonzero(stats.sizes > 0):
        t = float(emd[i]) - N.T_SLACK
        if t <= 0 or t + N.T_SLACK != emd[i]:
            continue
        for bound in (t, float(np.nextafter(t, 0))):
            model = TCloseness("s", bound)
            want = model.passes(stats) & (stats.sizes > 0)  # an empty class is never released
            plan = N.fused_plan([model], stats)
            assert plan is not None
            for jit in (False, True):
                K.use_numba(jit)
                got = N.judge_fused(stats, plan, [True], None)[0]
                assert np.array_equal(got, want)
        checked += 1
    assert checked >= 10


def test_the_kernel_sums_as_numpy_does(tier) -> None:
    """The compiled EMD sums rows in numpy's pairwise order: a running sum would differ (the control)."""
    rng = np.random.default_rng(7)
    stats = _stats(rng, 200, 17, whole=False)
    h = stats.hist["s"]
    n = h.sum(axis=1)
    p = h / np.where(n > 0, n, 1)[:, None]
    diff = np.abs(p - stats.domains["s"].reference)
    running = np.array([sum(float(x) for x in row) for row in diff])
    assert (running != diff.sum(axis=1)).any()  # the order matters on these rows


def test_fused_plan_takes_only_what_it_judges() -> None:
    """k with distinct-l and equal-distance t on one attribute take the fused pass; anything else — a
    hierarchical or ordered distance, entropy-l, k on a subset, two sensitive attributes, a domain over
    128 values, a non-contiguous histogram — takes the general path."""
    rng = np.random.default_rng(1)
    stats = _stats(rng, 10, 5, whole=True)
    k, lm, t = KAnonymity(2), DistinctLDiversity("s", 2), TCloseness("s", 0.2)
    kinds, bounds, sensitive = N.fused_plan([k, lm, t], stats)
    assert kinds.tolist() == [N.K_SIZE, N.L_DISTINCT, N.T_EQUAL] and bounds[:2].tolist() == [2, 2]
    assert sensitive == "s" and bounds[2] == 0.2 + N.T_SLACK
    for other in ([k, TCloseness("s", 0.2, "ordered")], [k, TCloseness("s", 0.2, "hierarchical")],
                  [k, EntropyLDiversity("s", 2)], [KAnonymity(2, ("a",)), lm], [k], [lm, DistinctLDiversity("x", 2)]):
        assert N.fused_plan(other, stats) is None
    wide = _stats(rng, 10, 129, whole=True)
    assert N.fused_plan([lm], wide) is None and N.fused_plan([lm], _stats(rng, 10, 128, whole=True)) is not None
    strided = ClassStats(stats.sizes, {"s": np.asfortranarray(stats.hist["s"])}, stats.domains)
    assert N.fused_plan([lm], strided) is None


@settings(deadline=None, max_examples=15)
@given(seed=st.integers(0, 10_000), c=st.integers(0, 50), s=st.integers(1, 30), whole=st.booleans())
def test_tiers_agree(seed, c, s, whole) -> None:
    """The numpy tier and the compiled kernel give the same stages, tallies and exactness flag."""
    rng = np.random.default_rng(seed)
    stats = _stats(rng, c, s, whole)
    kinds = np.array([N.K_SIZE, N.T_EQUAL, N.L_DISTINCT], dtype=np.int64)
    bounds = np.array([2.0, 0.3 + N.T_SLACK, 2.0])
    args = (stats.sizes, stats.hist["s"], stats.domains["s"].reference, kinds, bounds)
    a, b = N._stages_np(*args), K.compiled(N._stages_py)(*args)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1]) and a[2] == b[2]


@pytest.mark.parametrize("whole", [True, False])  # sizes tallied in the kernel, or summed by numpy
@pytest.mark.parametrize(("limit", "ok", "settled"), [
    (None, [False, False, False, True], False), (1, [True, False, False, True], True),
    (2, [False, False, False, True], True), (5, [False, False, False, True], False)])
def test_settling_at_the_limit(whole: bool, limit: int | None, ok: list[bool], settled: bool, tier) -> None:
    """k = 3, distinct 2-diversity, then 0.9-closeness: class 0 (3 records, one value) fails l, class 1
    (2 records) fails k, class 2 is empty, class 3 passes (3 records, or 4.5 of non-whole weight). A node
    settles only once the failed records exceed the limit, not at equality, and a settled node leaves the
    later models unjudged (limit 1: class 0 stays released); the monotone count stops before t-closeness."""
    hist = np.array([[3, 0, 0], [1, 1, 0], [0, 0, 0],
                     [1, 1, 1] if whole else [1.5, 1.5, 1.5]], dtype=np.float64)
    domain = SensitiveDomain("s", np.array(["a", "b", "c"]), np.array([0.5, 0.3, 0.2]))
    stats = ClassStats(hist.sum(axis=1), {"s": hist}, {"s": domain})
    ordered = [KAnonymity(3), DistinctLDiversity("s", 2), TCloseness("s", 0.9)]
    monotone = lambda m: not isinstance(m, TCloseness)  # noqa: E731
    want = _general(stats, ordered, monotone, limit)
    assert want[0].tolist() == ok and want[2] == settled
    assert want[1] == (None if settled else int(hist.sum() - hist[3].sum()))
    for jit in (False, True):
        K.use_numba(jit)
        _same(T._judge_classes(stats, ordered, monotone, limit), want)


def test_rolled_up_tuple_classes_compose_on_demand(test2_frame, test2_hierarchies) -> None:  # type: ignore[no-untyped-def]
    """Nodes rolled up from rolled-up nodes (a chain from the scratch node) give every distinct tuple
    the class a scratch computation gives (the classes are numbered alike), composing their maps only when
    asked; a control: a node computed from scratch holds its tuples' classes itself."""
    from anonkit import Schema, Table
    from anonkit.algorithms.rollup import RollupCache

    qi = ["ZIPCode", "Age"]
    t = Table(test2_frame[qi], Schema.of(quasi=qi, hierarchies={q: test2_hierarchies[q] for q in qi}))
    cache = RollupCache(t)
    heights = [h.height for h in t.hierarchies]
    levels = [0] * len(qi)
    scratch = cache.classes(tuple(levels))
    assert scratch._lineage is None and scratch._tuple_class is not None
    chain = []
    for j, top in enumerate(heights):
        for _ in range(top):
            levels[j] += 1
            chain.append(cache.classes(tuple(levels)))
    assert cache.computed == 1 and cache.rolled == len(chain) >= 2
    assert all(node._tuple_class is None for node in chain)  # nothing composed yet
    for node in reversed(chain):  # the coarsest first: its maps composed down the whole chain
        want, n = t.tuple_classes(node.levels)
        assert node.n_classes == n
        np.testing.assert_array_equal(node.tuple_class, want)
