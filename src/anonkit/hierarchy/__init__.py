"""Value generalization hierarchies: the :class:`Hierarchy`, ARX CSV I/O and builders."""

from anonkit.hierarchy import builders
from anonkit.hierarchy._core import Hierarchy
from anonkit.hierarchy.arx import parse_hierarchy, read_hierarchy, write_hierarchy
from anonkit.hierarchy.lca import PairwiseLCA, class_lca, lca_levels

__all__ = [
    "Hierarchy", "PairwiseLCA", "builders", "class_lca", "lca_levels", "parse_hierarchy", "read_hierarchy",
    "write_hierarchy",
]
