"""The registry: config names → algorithm functions, so the CLI and the common tests see every
algorithm the same way. Entries are ``module:function`` paths imported on first use, so an
algorithm's dependencies load only when it runs."""

from __future__ import annotations

import importlib
from collections.abc import Callable

from anonkit.errors import InputError

ALGORITHMS: dict[str, str] = {
    "fixed": "anonkit.algorithms.transform:fixed",
    "flash": "anonkit.algorithms.lattice.flash:flash",
    "ola": "anonkit.algorithms.lattice.ola:ola",
    "incognito": "anonkit.algorithms.lattice.incognito:incognito",
    "datafly": "anonkit.algorithms.lattice.datafly:datafly",
    "lightning": "anonkit.algorithms.lattice.lightning:lightning",
    "mondrian": "anonkit.algorithms.partition.mondrian:mondrian",
    "kaca": "anonkit.algorithms.cluster.kaca:kaca",
    "mdav": "anonkit.algorithms.cluster.mdav:mdav",
    "stack-and-deal": "anonkit.algorithms.bucket.stack_and_deal:stack_and_deal",
    "anatomy": "anonkit.algorithms.bucket.anatomy:anatomy",
    "uhra": "anonkit.algorithms.knowledge.uhra:uhra",
    "bka-js": "anonkit.algorithms.knowledge.bka_js:bka_js",
    "k-primacy": "anonkit.algorithms.knowledge.k_primacy:k_primacy",
}
#: the algorithms that search the full-domain lattice (they take ``metric`` and report a lattice)
LATTICE_ALGORITHMS = {"flash", "ola", "incognito", "datafly", "lightning"}
#: the background-knowledge algorithms (spec §4.1–4.3): the only ones that enforce the record-level
#: :class:`~anonkit.models.BackgroundKnowledge` model (§1.7); they take ``priors``
BK_ALGORITHMS = {"uhra", "bka-js", "k-primacy"}
#: the algorithms that draw random numbers: the pipeline passes them its ``seed``
RANDOMIZED = {"kaca", "anatomy"}
#: the algorithms that publish several linked tables, and their names (``Release.extra["tables"]``)
PUBLISHES: dict[str, tuple[str, ...]] = {"anatomy": ("qit", "st")}


def get_algorithm(name: str) -> Callable:
    try:
        target = ALGORITHMS[name]
    except KeyError:
        raise InputError(
            f"unknown algorithm {name!r}; available: {', '.join(sorted(ALGORITHMS))}", key="algorithm.name"
        ) from None
    module, _, func = target.partition(":")
    return getattr(importlib.import_module(module), func)  # type: ignore[no-any-return]
