"""Anonymization algorithms, ``(table, models, **options) -> Release``, declared beside their code
(:mod:`anonkit.algorithms.spec`) and collected by the registry (:mod:`anonkit.algorithms.registry`)."""

from anonkit.algorithms.registry import algorithms, default_algorithm, get, get_algorithm
from anonkit.algorithms.spec import Algorithm
from anonkit.algorithms.transform import evaluate_node

__all__ = ["Algorithm", "algorithms", "default_algorithm", "evaluate_node", "get", "get_algorithm"]
