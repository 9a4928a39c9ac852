"""Marginals of the encoded data, their noisy measurements, and the graphical model fitted to them
by private-pgm (``mbi``, McKenna, Sheldon & Miklau 2019): mirror descent over the marginal polytope,
then rows sampled from the fitted model (randomized rounding, mbi's default).

JAX and mbi are imported here, on first use, so that ``import anonkit`` never loads JAX. JAX is set
to float64 (mbi warns that float32 estimation can stall on large tables), and its persistent
compilation cache is turned off (mbi compiles many small programs); mbi's two import-time warnings
about exactly these settings are silenced, nothing else. Both settings are process-wide; anonkit
uses JAX nowhere else.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

#: the mirror-descent iterations of the final fit unless the config says otherwise
DEFAULT_ITERATIONS = 1000


@dataclass(frozen=True)
class Measurement:
    """A marginal over ``clique`` (column indices) measured with Gaussian noise ``sigma``."""

    clique: tuple[int, ...]
    noisy: np.ndarray
    sigma: float


def marginal(codes: np.ndarray, sizes: Sequence[int], clique: tuple[int, ...]) -> np.ndarray:
    """The counts of the marginal over ``clique`` (flattened in C order) of the encoded rows ``codes``."""
    shape = tuple(int(sizes[j]) for j in clique)
    if codes.shape[0] == 0:
        return np.zeros(int(np.prod(shape)), dtype=np.int64)
    flat = np.ravel_multi_index(tuple(codes[:, j] for j in clique), shape)
    return np.bincount(flat, minlength=int(np.prod(shape))).astype(np.int64)


def noisy_total(measurements: Sequence[Measurement]) -> float:
    """The number of records estimated from the one-way measurements (post-processing): each sums
    to the total plus noise of variance ``σ²·cells``; their inverse-variance weighted mean."""
    sums, weights = [], []
    for m in measurements:
        if len(m.clique) == 1:
            sums.append(float(m.noisy.sum()))
            weights.append(1.0 / (m.sigma ** 2 * m.noisy.size))
    return float(np.average(sums, weights=weights)) if sums else 0.0


def _mbi() -> Any:
    import jax

    jax.config.update("jax_enable_x64", True)
    jax.config.update("jax_enable_compilation_cache", False)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="JAX is running in float32 mode", category=UserWarning)
        warnings.filterwarnings("ignore", message="JAX persistent compilation cache", category=UserWarning)
        import mbi
    return mbi


def names(n: int) -> list[str]:
    """The model's attribute names (column positions: the model never sees a column's name)."""
    return [f"c{j}" for j in range(n)]


def fit(sizes: Sequence[int], measurements: Sequence[Measurement], *, iterations: int, total: float,
        warm: Any = None) -> Any:
    """The graphical model (an ``mbi.MarkovRandomField``) that best explains ``measurements``."""
    mbi = _mbi()
    attrs = names(len(sizes))
    domain = mbi.Domain(attrs, [int(s) for s in sizes])
    loss = [mbi.LinearMeasurement(np.asarray(m.noisy, dtype=np.float64), tuple(attrs[j] for j in m.clique),
                                  float(m.sigma)) for m in measurements]
    return mbi.estimation.MirrorDescent().estimate(domain, loss, known_total=max(1.0, total), iters=iterations,
                                                   warm_start=warm)


def model_marginal(model: Any, clique: tuple[int, ...]) -> np.ndarray:
    """The fitted model's marginal over ``clique`` (flattened in C order, as :func:`marginal`)."""
    attrs = names(max(clique) + 1)
    return np.asarray(model.project(tuple(attrs[j] for j in clique)).datavector(), dtype=np.float64)


def model_size_mb(sizes: Sequence[int], cliques: Sequence[tuple[int, ...]]) -> float:
    """The size of the junction tree a model over ``cliques`` would hold, in megabytes (mbi's count)."""
    mbi = _mbi()
    attrs = names(len(sizes))
    domain = mbi.Domain(attrs, [int(s) for s in sizes])
    return float(mbi.junction_tree.hypothetical_model_size(domain, [tuple(attrs[j] for j in c) for c in cliques]))


def sample(model: Any, rows: int, seed: int) -> np.ndarray:
    """``rows`` rows of codes drawn from ``model`` (post-processing). mbi draws from NumPy's global
    generator: it is seeded with ``seed`` for the draw and given back its state afterwards."""
    saved = np.random.get_state()
    try:
        np.random.seed(seed % 2**32)
        data = model.synthetic_data(rows).data
    finally:
        np.random.set_state(saved)
    n = len(data)
    return np.column_stack([np.asarray(data[f"c{j}"], dtype=np.int64) for j in range(n)])
