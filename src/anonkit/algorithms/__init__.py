"""Anonymization algorithms, ``(table, models, **params) -> Release``, and their registry."""

from anonkit.algorithms.registry import ALGORITHMS, LATTICE_ALGORITHMS, get_algorithm
from anonkit.algorithms.transform import evaluate_node, fixed

__all__ = ["ALGORITHMS", "LATTICE_ALGORITHMS", "evaluate_node", "fixed", "get_algorithm"]
