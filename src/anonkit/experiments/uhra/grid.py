"""The grid of configurations: :class:`Grid`, the full and quick grids, and which runs are identical."""

from __future__ import annotations

from dataclasses import dataclass

from anonkit.experiments.uhra.constants import K_PRIMACY, METHODS


@dataclass(frozen=True)
class Grid:
    """The sweeps: ``ks`` at (t, J), ``Js`` at (k, t), ``ts`` at (k, J); attacks at ``attack_ts``."""

    ks: tuple[int, ...]
    Js: tuple[float, ...]
    ts: tuple[float, ...]
    k: int = 5
    t: float = 0.5
    J: float = 0.8
    attack_ts: tuple[float, ...] = (0.5, 0.2)

    def configurations(self) -> list[tuple[str, int, float, float]]:
        """``(sweep, k, t, J)`` of every row of the grid, sweep by sweep."""
        out = [("k", int(k), self.t, self.J) for k in self.ks]
        out += [("J", self.k, self.t, float(j)) for j in self.Js]
        out += [("t", self.k, float(t), self.J) for t in self.ts]
        return out


FULL_GRID = Grid(ks=(3, 5, 10, 15, 20), Js=(0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8), ts=(0.1, 0.2, 0.5, 0.6, 0.7, 0.8))
QUICK_GRID = Grid(ks=(5, 10), Js=(0.3, 0.8), ts=(0.2, 0.5))


def _key(method: str, k: int, t: float, J: float) -> tuple:
    """What makes two runs identical (k-primacy has no t)."""
    return (method, int(k), None if method == K_PRIMACY else round(float(t), 9), round(float(J), 9))


def unique_runs(grid: Grid) -> int:
    """Runs per data set once shared configurations are reused."""
    return len({_key(m, k, t, J) for _, k, t, J in grid.configurations() for m in METHODS})
