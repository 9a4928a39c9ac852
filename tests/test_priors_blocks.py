"""The blocked, windowed kernel priors equal the full every-tuple-against-every-tuple comparison bit
for bit (issue 30 item 2; anonkit.knowledge._priors_blocks).

The reference below is the former ``kernel_priors`` body: every target tuple against every source
tuple, the weights of the product or distance kernel, and the numerator summed over the sources
one by one in ascending order (the order the blocked version keeps)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import anonkit.knowledge._priors_blocks as blocks
import anonkit.knowledge.priors as pri
from anonkit import Hierarchy, Schema, Table
from anonkit.knowledge import kernel_priors

LEAVES = [f"v{i}" for i in range(8)]
#: a 4-level hierarchy over 8 leaves: pairs, quadruples, everything
TREE = Hierarchy([[v, f"p{i // 2}", f"q{i // 4}", "*"] for i, v in enumerate(LEAVES)], name="tree")
#: a flat hierarchy whose blank leaf is a missing value (at 1 from everything)
FLAT = Hierarchy([[v, "*"] for v in ("a", "b", "c", "")], name="flat")


def full_reference(table: Table, sensitive: str, bandwidth, kernel: str, external: Table | None = None) -> np.ndarray:
    """The full comparison: ``m × m_s`` weights, numerator summed source by source."""
    source = pri._source(table, sensitive, external)
    target = pri._side(table, sensitive) if external is not None else source
    glob = pri._global(source.hist)
    bands = pri._bandwidths(table, bandwidth)
    deltas = pri._Deltas(table, target, source)
    m, ms = table.distinct.size, source.hist.shape[0]
    rows = slice(0, m)
    if kernel == "distance":
        u2 = np.zeros((m, ms))
        for j in range(len(deltas)):
            u2 += (deltas.block(j, rows) / bands[j]) ** 2
        w = np.where(u2 < 1.0, 0.75 * (1.0 - u2), 0.0)
    else:
        w = np.ones((m, ms))
        for j in range(len(deltas)):
            u = deltas.block(j, rows) / bands[j]
            w *= np.where(u < 1.0, 0.75 * (1.0 - u * u), 0.0)
    num = np.zeros((m, source.hist.shape[1]))
    for c in range(ms):
        num += w[:, c, None] * source.hist[c]
    den = num.sum(axis=1)
    out = np.empty_like(num)
    out[:] = glob
    ok = den > 0
    out[ok] = num[ok] / den[ok, None]
    return out


def make_table(frame: pd.DataFrame) -> Table:
    schema = Schema.of(
        quasi=["age", "tree", "flat", "w"],
        sensitive=["s"],
        hierarchies={"tree": TREE, "flat": FLAT},
        types={"age": "numeric", "w": "numeric", "tree": "categorical", "flat": "categorical"},
    )
    return Table(frame, schema)


def random_frame(rng: np.random.Generator, n: int, missing: float, labels=("x", "y", "z")) -> pd.DataFrame:
    age = rng.integers(0, 60, size=n).astype(str).astype(object)
    w = np.round(rng.normal(70, 15, size=n), 1).astype(str).astype(object)
    flat = rng.choice(["a", "b", "c"], size=n).astype(object)
    for col in (age, w, flat):
        col[rng.random(n) < missing] = ""
    return pd.DataFrame({
        "age": age, "tree": rng.choice(LEAVES, size=n), "flat": flat, "w": w,
        "s": rng.choice(list(labels), size=n),
    })


BANDS = st.sampled_from([0.05, 0.2, 0.3, 0.5, 0.99, 1.0, 1.5])


@settings(max_examples=20, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    n=st.integers(1, 70),
    missing=st.sampled_from([0.0, 0.15]),
    kernel=st.sampled_from(["product", "distance"]),
    bands=st.lists(BANDS, min_size=4, max_size=4),
    external=st.booleans(),
)
def test_blocked_priors_equal_full_comparison(seed, n, missing, kernel, bands, external):
    rng = np.random.default_rng(seed)
    table = make_table(random_frame(rng, n, missing))
    target = table.frame["s"].unique()
    source = make_table(random_frame(rng, n + 5, missing, target)) if external else None
    bandwidth = dict(zip(["age", "tree", "flat", "w"], bands, strict=True))
    got = kernel_priors(table, "s", bandwidth=bandwidth, kernel=kernel, external=source).per_tuple
    np.testing.assert_array_equal(got, full_reference(table, "s", bandwidth, kernel, source))


@pytest.mark.parametrize("kernel", ["product", "distance"])
@pytest.mark.parametrize("bandwidth", [0.3, 1.0, 2.0])
def test_one_bandwidth_and_one_pair_per_chunk(monkeypatch, kernel, bandwidth):
    table = make_table(random_frame(np.random.default_rng(3), 80, 0.1))
    whole = kernel_priors(table, "s", bandwidth=bandwidth, kernel=kernel).per_tuple
    np.testing.assert_array_equal(whole, full_reference(table, "s", bandwidth, kernel))
    monkeypatch.setattr(pri, "CHUNK_ELEMENTS", 1)  # a chunk is one target tuple
    np.testing.assert_array_equal(kernel_priors(table, "s", bandwidth=bandwidth, kernel=kernel).per_tuple, whole)


def candidate_pairs(table: Table, bandwidth) -> tuple[int, int]:
    side = pri._side(table, "s")
    deltas = pri._Deltas(table, side, side)
    bands = pri._bandwidths(table, bandwidth)
    m = table.distinct.size
    _, start, stop, _ = blocks.candidate_ranges(deltas.parts, bands, m, m)
    return int((stop - start).sum()), m * m


def test_blocking_prunes_only_when_the_support_is_narrow():
    table = make_table(random_frame(np.random.default_rng(5), 200, 0.05))
    pairs, full = candidate_pairs(table, 0.3)
    assert pairs < full / 4  # the tree, flat values and two windows cut most pairs
    assert candidate_pairs(table, 1.5) == (full, full)  # every pair can weigh > 0: nothing dropped


def test_too_narrow_a_window_would_be_caught(monkeypatch):
    """Control: the comparison sees a window that drops pairs inside the support."""
    table = make_table(random_frame(np.random.default_rng(11), 120, 0.0))
    bandwidth = {"age": 0.3, "tree": 1.5, "flat": 1.5, "w": 1.5}
    np.testing.assert_array_equal(kernel_priors(table, "s", bandwidth=bandwidth).per_tuple,
                                  full_reference(table, "s", bandwidth, "product"))
    monkeypatch.setattr(blocks, "WINDOW_SLACK", -0.5)
    assert not np.array_equal(kernel_priors(table, "s", bandwidth=bandwidth).per_tuple,
                              full_reference(table, "s", bandwidth, "product"))


def test_blas_free_sum_stays_within_rounding_of_a_matrix_product():
    """The sequential sum and the former ``w @ hist`` differ at most in the last bits."""
    table = make_table(random_frame(np.random.default_rng(13), 150, 0.05))
    side = pri._side(table, "s")
    deltas = pri._Deltas(table, side, side)
    m = table.distinct.size
    w = np.ones((m, m))
    for j in range(len(deltas)):
        u = deltas.block(j, slice(0, m)) / 0.5
        w *= np.where(u < 1.0, 0.75 * (1.0 - u * u), 0.0)
    num = w @ side.hist
    ok = num.sum(axis=1) > 0
    np.testing.assert_allclose(kernel_priors(table, "s", bandwidth=0.5).per_tuple[ok],
                               num[ok] / num[ok].sum(axis=1, keepdims=True), rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("offset", [0.0, 1e9])
def test_tiny_bandwidth_and_large_values_keep_every_pair_in_the_support(offset):
    """Bins are capped (:data:`MAX_BINS`) and the window carries slack for values far from 0."""
    frame = random_frame(np.random.default_rng(17), 90, 0.1)
    known = frame["w"] != ""
    frame.loc[known, "w"] = (frame.loc[known, "w"].astype(float) + offset).astype(str)
    table = make_table(frame)
    for bandwidth in ({"w": 1e-12, "age": 1.5, "tree": 1.5, "flat": 1.5}, {"w": 0.01, "age": 0.02}):
        for kernel in ("product", "distance"):
            np.testing.assert_array_equal(kernel_priors(table, "s", bandwidth=bandwidth, kernel=kernel).per_tuple,
                                          full_reference(table, "s", bandwidth, kernel))
