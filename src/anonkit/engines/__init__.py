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
:class:`~anonkit.engines.spark.SparkEngine` (Apache Spark) implements the same three calls on
Spark data frames: its ``encode`` returns a weighted table of the distinct combinations, so the
algorithms, the models and the verifier's formulas are shared unchanged.
"""

from __future__ import annotations

from typing import Any, Protocol

from anonkit.engines.defaults import DEFAULT_PARTITION_ROWS
from anonkit.errors import InputError


class Engine(Protocol):
    """A compute engine for the row-level work (see the module docstring)."""

    name: str

    def refuse(self, spec: Any, options: dict[str, Any]) -> None:
        """An :class:`~anonkit.errors.InputError` naming the algorithm if this engine cannot run it."""
        ...

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
    """The engine called ``name`` (default ``local``), or ``name`` itself when it is an engine.
    ``spark`` is :class:`~anonkit.engines.spark.SparkEngine` on the active (or a new ``local[*]``)
    Spark session; it needs the ``spark`` extra."""
    if name is None or name == "local":
        from anonkit.engines.local import LocalEngine

        return LocalEngine()
    if not isinstance(name, str):
        return name
    if name == "spark":
        from anonkit.engines.spark import SparkEngine

        return SparkEngine()
    raise InputError(f"unknown engine {name!r}; available: local, spark", key="engine")


__all__ = ["DEFAULT_PARTITION_ROWS", "Engine", "get_engine"]
