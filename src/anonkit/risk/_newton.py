"""The two-dimensional Newton–Raphson solver behind the Pitman and SNB estimates, with ARX's settings.

ARX solves the estimators' likelihood equations with ``NewtonRaphson2D`` (library
``de.linearbits:newtonraphson`` 0.0.1) configured by ``ARXSolverConfiguration``: accuracy 1e-6
(both equations within it), at most 1000 steps per try, and — ARX's default "deterministic" mode —
a first try from the model's own start value followed by one try from each of 16 prepared start
values, the grid ``{0, 0.33, 0.66, 0.99}²``, in that order. A try ends when the equations hold
(its point is the root), when a step leaves a constraint, gives NaN, or has used its steps; the
try from the last prepared start value is stopped after its first step (as the library does).
The root is that of the first try that converges.

The tries do not depend on each other, so they run side by side as numpy lanes and the first
converging lane in try order is the root — the same root ARX's sequential loop returns. A try
that steps back onto a point it has already evaluated is ended at once: the iteration is
deterministic, so it would cycle there, unconverged, until its steps run out (ARX's trigamma makes
such cycles common for Pitman). ARX's wall
clock limits (100 ms a try, 1 s in all) are not applied, so the result does not depend on the
machine; its limit on the total number of steps, ``(tries) × steps per try``, is (it never binds:
a try takes at most 1001 evaluations).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from anonkit.errors import InputError


def _arx_start_values() -> tuple[tuple[float, float], ...]:
    """ARX's ``getDefaultStartValues``: both coordinates step from 0 by 0.33 while below 1."""
    grid = []
    d = 0.0
    while d < 1.0:
        grid.append(d)
        d += 0.33
    return tuple((a, b) for a in grid for b in grid)


#: ARX's ``ARXSolverConfiguration.getDefaultStartValues()``, in ARX's order
ARX_START_VALUES = _arx_start_values()
DEFAULT_ACCURACY = 1e-6
DEFAULT_ITERATIONS_PER_TRY = 1000

#: ``f(x, y)`` on lanes → the two equations and the Jacobian ``(f1, f2, j11, j12, j21, j22)``
Equations = Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, ...]]


@dataclass(frozen=True)
class SolverConfig:
    """Settings of the Newton–Raphson solver (ARX ``ARXSolverConfiguration``; defaults are ARX's).

    Attributes
    ----------
    accuracy:
        A point is a root when both equations are within this of 0.
    iterations_per_try:
        Newton steps one try may take.
    start_values:
        The tries after the model's own start value, in order (empty: that one try only).
    arx_gamma:
        Pitman's first pass evaluates its equations with ARX's digamma/trigamma approximations, as
        ARX does (``True``: choose the root ARX chooses), or only the exact pass runs (``False``:
        no root is taken from ARX's inexact Jacobian; see :func:`anonkit.risk.estimators.pitman`).
    """

    accuracy: float = DEFAULT_ACCURACY
    iterations_per_try: int = DEFAULT_ITERATIONS_PER_TRY
    start_values: tuple[tuple[float, float], ...] = field(default=ARX_START_VALUES)
    arx_gamma: bool = True

    def __post_init__(self) -> None:
        if not (isinstance(self.accuracy, int | float) and self.accuracy > 0):
            raise InputError("the solver's accuracy must be a number > 0", key="solver.accuracy", value=self.accuracy)
        if isinstance(self.iterations_per_try, bool) or not isinstance(self.iterations_per_try, int) or (
                self.iterations_per_try < 0):
            raise InputError("the solver's iterations per try must be a whole number ≥ 0",
                             key="solver.iterations_per_try", value=self.iterations_per_try)
        try:
            values = tuple((float(a), float(b)) for a, b in self.start_values)
        except (TypeError, ValueError) as exc:
            raise InputError("the solver's start values must be pairs of numbers", key="solver.start_values") from exc
        object.__setattr__(self, "start_values", values)


DEFAULT_SOLVER = SolverConfig()


class Root(NamedTuple):
    """A root of the equations and the try (0: the model's start value) that found it."""

    x: float
    y: float
    attempt: int


def solve(equations: Equations, start: tuple[float, float], config: SolverConfig = DEFAULT_SOLVER, *,
          constraint: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None) -> Root | None:
    """The first root ARX's Newton–Raphson loop finds from ``start`` then ``config.start_values``
    (``None`` when no try converges). ``constraint(x, y)`` is checked after every step; a lane
    leaving it ends its try."""
    starts = np.array([start, *config.start_values], dtype=np.float64).reshape(-1, 2)
    n_lanes = len(starts)
    last = n_lanes - 1 if config.start_values else -1
    x, y = starts[:, 0].copy(), starts[:, 1].copy()
    alive = np.ones(n_lanes, dtype=bool)
    root = np.zeros(n_lanes, dtype=bool)
    evaluations = np.zeros(n_lanes, dtype=np.int64)
    # every point each try has evaluated (row = step)
    seen_x = np.full((config.iterations_per_try + 2, n_lanes), np.nan)
    seen_y = np.full((config.iterations_per_try + 2, n_lanes), np.nan)
    seen_x[0], seen_y[0] = x, y
    acc = config.accuracy
    with np.errstate(all="ignore"):
        for step in range(config.iterations_per_try + 1):
            lanes = np.flatnonzero(alive)
            if lanes.size == 0:
                break
            f1, f2, j11, j12, j21, j22 = equations(x[lanes], y[lanes])
            evaluations[lanes] += 1
            ok = (np.abs(f1) <= acc) & (np.abs(f2) <= acc)
            root[lanes[ok]] = True
            alive[lanes[ok]] = False
            # the earliest try still open has converged: later tries cannot change the answer
            pending = np.flatnonzero(alive | root)
            if pending.size and root[pending[0]]:
                break
            go = ~ok
            lanes, f1, f2 = lanes[go], f1[go], f2[go]
            j11, j12, j21, j22 = j11[go], j12[go], j21[go], j22[go]
            # the library inverts the Jacobian, then multiplies: keep its order of operations
            scale = 1.0 / (j11 * j22 - j12 * j21)
            i11, i12, i21, i22 = j22 * scale, -j12 * scale, -j21 * scale, j11 * scale
            new_x = x[lanes] - (i11 * f1 + i12 * f2)
            new_y = y[lanes] - (i21 * f1 + i22 * f2)
            x[lanes], y[lanes] = new_x, new_y
            stop = np.isnan(new_x) | np.isnan(new_y) | (lanes == last)
            # back at a point it has evaluated: the try cycles, unconverged, until its steps run out
            cycling = ((seen_x[: step + 1, lanes] == new_x) & (seen_y[: step + 1, lanes] == new_y)).any(axis=0)
            cycling &= ~stop
            evaluations[lanes[cycling]] = config.iterations_per_try + 1
            stop |= cycling
            seen_x[step + 1, lanes], seen_y[step + 1, lanes] = new_x, new_y
            if constraint is not None:
                stop |= ~constraint(x[lanes], y[lanes])
            if step == config.iterations_per_try:
                stop[:] = True
            alive[lanes[stop]] = False
    # a try starts only while the steps of the tries before it stay within the total limit
    limit = n_lanes * config.iterations_per_try
    before = np.concatenate([[0], np.cumsum(evaluations)[:-1]])
    for lane in range(n_lanes):
        if before[lane] > limit:
            return None
        if root[lane]:
            return Root(float(x[lane]), float(y[lane]), lane)
    return None
