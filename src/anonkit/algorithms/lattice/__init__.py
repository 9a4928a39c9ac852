"""Full-domain generalization over the lattice of transformations: Flash, OLA, Incognito, Datafly
and the best-effort Lightning heuristic (spec §4.10, §5.1–5.3; ARX compatibility §2.2)."""

from anonkit.algorithms.lattice._search import Search
from anonkit.algorithms.lattice._space import Lattice, SearchState
from anonkit.algorithms.lattice.flash import flash

__all__ = ["Lattice", "Search", "SearchState", "flash"]
