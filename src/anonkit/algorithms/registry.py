"""The registry: every algorithm's declaration (:mod:`anonkit.algorithms.spec`), collected from the
family packages, so the config, the pipeline, the CLI, the experiments and the common tests see
every algorithm the same way.

Declarations live beside their code (one ``@algorithm(...)`` per algorithm); this module only
finds them: it imports the modules of each family package (``anonkit.algorithms.<family>``) whose
names do not start with ``_`` and keeps every function that carries a ``spec``. Names are unique.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from functools import cache

from anonkit.algorithms.spec import FAMILIES, Algorithm, in_order
from anonkit.errors import InputError


@cache
def algorithms() -> dict[str, Algorithm]:
    """Every registered algorithm by config name, family by family (lattice, search, partition,
    cluster, bucket), then by module name."""
    found: dict[str, Algorithm] = {}
    for family in FAMILIES:
        try:
            package = importlib.import_module(f"anonkit.algorithms.{family}")
        except ModuleNotFoundError:
            continue
        for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
            if info.name.startswith("_"):
                continue
            module = importlib.import_module(f"{package.__name__}.{info.name}")
            for value in vars(module).values():
                spec = getattr(value, "spec", None)
                if isinstance(spec, Algorithm) and spec.run.__module__ == module.__name__:
                    if spec.name in found and found[spec.name] is not spec:
                        raise RuntimeError(f"two algorithms are named {spec.name!r}")
                    found[spec.name] = spec
    defaults = [a.name for a in found.values() if a.default]
    if len(defaults) != 1:
        raise RuntimeError(f"exactly one algorithm must be the default, found {defaults}")
    in_order(list(found.values()))  # what a declaration lists of the others follows the registry's order
    return found


def get(name: str | None = None) -> Algorithm:
    """The declaration of ``name`` (default: the default algorithm); an :class:`InputError` naming
    the known ones otherwise."""
    known = algorithms()
    if name is None:
        return default_algorithm()
    try:
        return known[name]
    except KeyError:
        raise InputError(f"unknown algorithm {name!r}; available: {', '.join(known)}", key="algorithm.name") from None


def default_algorithm() -> Algorithm:
    """The algorithm used when none is named (Flash, as in ARX)."""
    return next(a for a in algorithms().values() if a.default)


def get_algorithm(name: str) -> Callable:
    """The callable of ``name``: ``fn(table, models, **options)`` with validated options (the
    decorated function of its module)."""
    spec = get(name)
    return spec.entry if spec.entry is not None else spec.__call__


__all__ = ["Algorithm", "algorithms", "default_algorithm", "get", "get_algorithm"]
