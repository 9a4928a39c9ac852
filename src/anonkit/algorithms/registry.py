"""The registry: every algorithm's declaration (:mod:`anonkit.algorithms.spec`), collected from the
family packages, so the config, the pipeline, the CLI, the experiments and the common tests see
every algorithm the same way.

Declarations live beside their code (one ``@algorithm(...)`` per algorithm); this module only
finds them: it imports the modules of each family package (``anonkit.algorithms.<family>``) whose
names do not start with ``_`` and keeps every function that carries a ``spec``. Names are unique.

The walk is lazy, family by family (issue 30, item 1: a job's fixed cost): :func:`get` and
:func:`default_algorithm` walk the families in order only until they find what they look for (Flash, the
default, is in the first family, so ``anonkit anonymize`` on a lattice job never imports the perturbative,
synthetic or clustering modules and what they load); :func:`family` walks one family; :func:`algorithms`,
and any face that lists the algorithms (:func:`anonkit.algorithms.spec.declared`), walks them all and
checks the registry's rules (unique names, exactly one default). A name is found in the same place either
way: the families and their modules are walked in the one order.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from functools import cache

from anonkit.algorithms import spec as _spec
from anonkit.algorithms.spec import FAMILIES, Algorithm, in_order
from anonkit.errors import InputError


@cache
def family(name: str) -> dict[str, Algorithm]:
    """The algorithms of one family (``anonkit.algorithms.<name>``) by config name, by module name; empty for
    a family without a package. Imports that family's public modules only."""
    found: dict[str, Algorithm] = {}
    try:
        package = importlib.import_module(f"anonkit.algorithms.{name}")
    except ModuleNotFoundError:
        return found
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
    return found


@cache
def algorithms() -> dict[str, Algorithm]:
    """Every registered algorithm by config name, family by family (lattice, search, partition,
    cluster, bucket), then by module name."""
    found: dict[str, Algorithm] = {}
    for name in FAMILIES:
        for spec in family(name).values():
            if spec.name in found and found[spec.name] is not spec:
                raise RuntimeError(f"two algorithms are named {spec.name!r}")
            found[spec.name] = spec
    defaults = [a.name for a in found.values() if a.default]
    if len(defaults) != 1:
        raise RuntimeError(f"exactly one algorithm must be the default, found {defaults}")
    in_order(list(found.values()))  # what a declaration lists of the others follows the registry's order
    return found


def _first(wanted: Callable[[Algorithm], bool]) -> Algorithm | None:
    """The first algorithm, in the registry's order, that ``wanted`` accepts, walking only the families
    up to it; once every family was walked, read from :func:`algorithms`'s one table (what it holds is what
    every lookup sees, a test's stand-in included)."""
    if algorithms.cache_info().currsize:
        return next((a for a in algorithms().values() if wanted(a)), None)
    for name in FAMILIES:
        spec = next((a for a in family(name).values() if wanted(a)), None)
        if spec is not None:
            return spec
    return None


def get(name: str | None = None) -> Algorithm:
    """The declaration of ``name`` (default: the default algorithm); an :class:`InputError` naming
    the known ones otherwise."""
    if name is None:
        return default_algorithm()
    found = _first(lambda a: a.name == name) if isinstance(name, str) else None
    if found is None:
        known = algorithms()
        raise InputError(f"unknown algorithm {name!r}; available: {', '.join(known)}", key="algorithm.name")
    return found


def default_algorithm() -> Algorithm:
    """The algorithm used when none is named (Flash, as in ARX)."""
    found = _first(lambda a: a.default)
    if found is None:
        algorithms()  # refuses a registry without a default, saying what it found
        raise RuntimeError("exactly one algorithm must be the default, found none")
    return found


def get_algorithm(name: str) -> Callable:
    """The callable of ``name``: ``fn(table, models, **options)`` with validated options (the
    decorated function of its module)."""
    spec = get(name)
    return spec.entry if spec.entry is not None else spec.__call__


_spec.walk_all(algorithms)  # a declaration that lists the others (declared()) sees every family

__all__ = ["Algorithm", "algorithms", "default_algorithm", "family", "get", "get_algorithm"]
