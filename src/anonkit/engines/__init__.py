"""Where the data-parallel work runs: the seam between the pipeline and a compute engine.

The pipeline (:func:`anonkit.anonymize`) asks an :class:`Engine` for three things, and nothing
else touches the rows:

* ``encode``: the input as a :class:`~anonkit.table.Table` — integer codes, and the distinct
  quasi-identifier tuples with their counts and sensitive histograms, the only thing algorithms
  read (a lattice search runs on the driver over those tuples, whatever the engine);
* ``publish``: a :class:`~anonkit.release.Release` applied to the rows — generalized values,
  suppressed records dropped or marked, rows shuffled with the seed;
* ``verify``: the independent verifier on the published data.

:class:`~anonkit.engines.local.LocalEngine` (pandas and numpy in this process) is the default.
A distributed engine (Apache Spark) implements the same three calls on its own data frames, so
the algorithms, the models and the verifier's formulas are shared unchanged.
"""

from __future__ import annotations

from typing import Any, Protocol

from anonkit.errors import InputError


class Engine(Protocol):
    """A compute engine for the row-level work (see the module docstring)."""

    name: str

    def encode(self, data: Any, schema: Any, *, missing: str, strip: bool, person_qi: str = "error") -> Any:
        """The input encoded: a :class:`~anonkit.table.Table`."""
        ...

    def publish(self, release: Any, *, suppressed: str, seed: int) -> Any:
        """The published rows of ``release`` (shuffled with ``seed``)."""
        ...

    def verify(self, published: Any, schema: Any, models: list, **link: Any) -> Any:
        """The independent verifier's :class:`~anonkit.verifier.Verification` of ``published``."""
        ...


def get_engine(name: str | Engine | None) -> Engine:
    """The engine called ``name`` (default ``local``), or ``name`` itself when it is an engine."""
    if name is None or name == "local":
        from anonkit.engines.local import LocalEngine

        return LocalEngine()
    if not isinstance(name, str):
        return name
    raise InputError(f"unknown engine {name!r}; available: local", key="engine")


__all__ = ["Engine", "get_engine"]
