"""The registry: config names → algorithm functions, so the CLI and the common tests see every
algorithm the same way."""

from __future__ import annotations

from collections.abc import Callable

from anonkit.algorithms.lattice import flash
from anonkit.algorithms.transform import fixed
from anonkit.errors import InputError

ALGORITHMS: dict[str, Callable] = {"fixed": fixed, "flash": flash}
#: the algorithms that search the full-domain lattice (they take ``metric`` and report a lattice)
LATTICE_ALGORITHMS = {"flash"}


def get_algorithm(name: str) -> Callable:
    try:
        return ALGORITHMS[name]
    except KeyError:
        raise InputError(
            f"unknown algorithm {name!r}; available: {', '.join(sorted(ALGORITHMS))}", key="algorithm.name"
        ) from None
