"""Packages whose public names load on first use (:pep:`562`): ``import anonkit`` and a run that
needs one module of a package do not load the others (nor pandas, scipy… through them)."""

from __future__ import annotations

import importlib
from collections.abc import Callable


def lazy_names(package: str, table: dict[str, str], namespace: dict[str, object]
               ) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package`` whose names ``table`` maps to the modules
    defining them; a name, once loaded, is bound in ``namespace`` (the package's globals)."""

    def __getattr__(name: str) -> object:
        module = table.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted([*namespace, *table])

    return __getattr__, __dir__
