"""The runner: :func:`run` executes a :class:`~anonkit.plan.Plan` on its engine.

Public: :func:`run`; :func:`~anonkit.runner.anonymize.anonymize` (the Python entry point on a
frame) and :class:`~anonkit.runner.result.Result`. One path for every engine: the plan was
validated at the boundary; an engine's runner reads the input, counts, applies and writes
(:mod:`anonkit.runner.local`, :mod:`anonkit.runner.spark`), an algorithm that runs its own way on
an engine says so in its declaration (``runners=``), and one summary builder
(:mod:`anonkit.runner.summary`) serves them all.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from anonkit.plan import Plan
from anonkit.runner.result import Result

__all__ = ["ENGINE_RUNNERS", "run"]

#: the runner of each engine, as ``module:function`` (imported when a plan asks for that engine, so
#: the local runner never loads PySpark)
ENGINE_RUNNERS = {"local": "anonkit.runner.local:run_local", "spark": "anonkit.runner.spark:run_spark"}


def run(plan: Plan, progress: Callable[[str], None] | None = None) -> Result:
    """Run ``plan`` on its engine; ``progress`` is told each phase ("reading input", …)."""
    module, function = ENGINE_RUNNERS[plan.engine_name].split(":")
    runner = getattr(importlib.import_module(module), function)
    return runner(plan, progress)
