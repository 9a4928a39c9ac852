"""Value generalization hierarchies: the :class:`Hierarchy`, ARX CSV I/O and builders."""

from anonkit.hierarchy import builders
from anonkit.hierarchy._core import Hierarchy
from anonkit.hierarchy.arx import parse_hierarchy, read_hierarchy, write_hierarchy

__all__ = ["Hierarchy", "builders", "parse_hierarchy", "read_hierarchy", "write_hierarchy"]
