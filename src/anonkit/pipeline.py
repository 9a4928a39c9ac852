"""The Python API's front door: :func:`anonymize` a frame, or :func:`run_config` a validated
:class:`~anonkit.config.Config` the way ``anonkit anonymize`` does.

The work lives below: :mod:`anonkit.plan` validates a config once into an immutable
:class:`~anonkit.plan.Plan` (:func:`~anonkit.plan.plan_from_config`), :mod:`anonkit.runner` runs
it on its engine (:func:`~anonkit.runner.run`) and :mod:`anonkit.runner.anonymize` anonymizes a
frame. This module only joins them (plan → run → summary) and keeps the names callers import
from here; nothing in the package imports it but the package's own ``__init__`` and the CLI.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from anonkit.config import Config
from anonkit.errors import InputError
from anonkit.plan import Plan, plan_from_config
from anonkit.plan.load import config_priors, config_schema, load_input, sha256_of
from anonkit.plan.places import input_location, plan_run
from anonkit.runner import run
from anonkit.runner.anonymize import anonymize
from anonkit.runner.result import PriorsInput, Result

__all__ = ["InputError", "Plan", "PriorsInput", "Result", "anonymize", "config_priors", "config_schema",
           "input_location", "load_input", "planned_outputs", "run_config", "sha256_of"]


def run_config(
    config: Config,
    *,
    config_dir: str | Path = ".",
    input_path: str | None = None,
    output_path: str | None = None,
    seed: int | None = None,
    progress: Callable[[str], None] | None = None,
    config_file: str | Path | None = None,
    audit: bool = False,
) -> Result:
    """Run a config end to end (its plan, :func:`anonkit.plan.plan_from_config`, then
    :func:`anonkit.runner.run`); writes the output only when the models hold.

    Every run audits its release (the config's ``audit:``, else the quick checks) before it is
    written (``summary["audit"]``, ``summary["verdict"]``); ``audit=True`` says an HTML report will
    be made from the run (refused on Spark, which keeps the rows off this machine).

    Everything that can be checked before the work is (the seed, every output target, that no
    output is the input), so a bad setting fails in a second, not after the anonymization.

    Raises
    ------
    InputError
        Bad input or config (one line naming the key, column, value or row).
    UnsatisfiableError
        The models cannot be met; nothing is written (``.summary`` is what ``--json`` prints).
    """
    plan = plan_from_config(config, config_dir=config_dir, input_path=input_path, output_path=output_path,
                            seed=seed, config_file=config_file)
    if audit and plan.engine_name == "spark":
        from anonkit.runner.spark import refuse_report

        refuse_report()
    return run(plan, progress)


def planned_outputs(
    config: Config,
    *,
    config_dir: str | Path = ".",
    input_path: str | None = None,
    output_path: str | None = None,
    config_file: str | Path | None = None,
    report: str | None = None,
) -> list[tuple[str, str | None]]:
    """Check, before any work, every place a run of ``config`` reads and writes; return the release's
    outputs as ``(location, SQL table)`` (:func:`anonkit.plan.places.plan_run`: no write lands on a
    read nor on another write, and each can be made).

    Raises
    ------
    InputError
        One line naming the output, the place it would replace and what to change.
    """
    return plan_run(config, config_dir=config_dir, input_path=input_path, output_path=output_path,
                    config_file=config_file, report=report).outputs
