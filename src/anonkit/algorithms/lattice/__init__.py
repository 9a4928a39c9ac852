"""Full-domain generalization over the lattice of transformations: Flash, OLA, Incognito, Datafly,
the best-effort Lightning heuristic and the fixed transformation (spec §4.10, §5.1–5.3; ARX
compatibility §2.2). Each algorithm is a module of its own; the search machinery is ``_search``,
``_space`` (the lattice and node states) and ``_score`` (quality metrics on nodes)."""

from anonkit.algorithms.lattice._search import Search
from anonkit.algorithms.lattice._space import Lattice, SearchState

__all__ = ["Lattice", "Search", "SearchState"]
