"""The plan of a run: a config validated once, at the boundary, into one immutable record.

A :class:`Plan` holds everything a run needs decided before any work: the config as validated (with
the command line's ``--input``, ``--output`` and ``--seed`` folded in), the algorithm's declaration
and its options validated by it, the privacy models built from the config, the seed, the engine,
the audit's settings, and — for the local engine — every place the run reads and writes, checked by
the one path rule (:func:`anonkit.plan.places.plan_run`). Nothing below the plan validates again:
the runner (:func:`anonkit.runner.run`), the audit, explore, the report and the CLI read these
fields.

A plan writes back to YAML (:meth:`Plan.to_yaml`) as the config that gives the same plan, so what
the studio builds the CLI reruns (:func:`plan_from_yaml` ∘ :meth:`Plan.to_yaml` is the identity on
:meth:`Plan.declaration`).

This is ARX's ``ARXConfiguration.initialize`` and scikit-learn's ``validate_params`` at the public
boundary, in one place.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

import yaml

from anonkit._config_input import check_override
from anonkit.algorithms.spec import Algorithm
from anonkit.config import AuditConfig, Config, parse_config, read_yaml
from anonkit.errors import InputError
from anonkit.io import Place
from anonkit.models import Criterion
from anonkit.plan.places import location, plan_run, read_places, suffix_format
from anonkit.release import check_seed
from anonkit.schema import Schema

__all__ = ["Plan", "plan_from_config", "plan_from_yaml"]


@dataclass(frozen=True, eq=False)
class Plan:
    """One run, decided: see the module docstring. Build it with :func:`plan_from_config`."""

    #: the config as validated, the command line's overrides folded in (:meth:`declaration`);
    #: ``None`` for a plan made in Python (:func:`~anonkit.plan.arguments.plan_from_arguments`)
    config: Config | None
    #: the folder every relative path of the config is read from
    base: Path
    #: the config file (a place the run reads), ``None`` for a config built in memory
    config_file: Path | None
    #: ``--input``: the input read instead of the config's (its format from its suffix)
    input_path: str | None
    #: ``--output``: where the release goes instead of ``output.path``
    output_path: str | None
    #: the HTML report the run writes (``--report``), ``None`` without one
    report: str | None
    seed: int
    #: the engine's name (``local``, ``spark``), or an engine object given to the Python API
    engine: Any
    algorithm: Algorithm
    #: the algorithm's options, validated by its declaration (read-only)
    options: Mapping[str, Any]
    #: the privacy models, built once
    models: tuple[Criterion, ...]
    #: the release's ``(location, SQL table)`` targets; the private manifest of fake records
    outputs: tuple[tuple[str, str | None], ...]
    manifest: str | None
    #: every place read and written (the local engine's; checked by the one path rule)
    reads: tuple[Place, ...]
    writes: tuple[Place, ...]
    #: the quality model a search optimizes and the summary's score reports (``None``: ARX's Loss)
    metric: Any = None
    #: what becomes of suppressed records (``output.suppressed``)
    suppressed: str = "drop"
    #: how missing values count, whether cells are stripped, what a person with differing QIs is
    missing: str = "value"
    strip: bool = True
    person_qi: str = "error"
    #: the schema given to the Python API; a config's is built from its data as the input is read
    schema: Schema | None = None
    #: the optional measures the summary leaves out (``measures.skip``; :data:`anonkit.metrics.OPTIONAL_MEASURES`)
    skip_measures: tuple[str, ...] = ()

    @property
    def engine_name(self) -> str:
        """The engine's name: what :data:`anonkit.runner.ENGINE_RUNNERS` dispatches on."""
        return self.engine if isinstance(self.engine, str) else str(getattr(self.engine, "name", "local"))

    @property
    def audit(self) -> AuditConfig:
        """The audit's settings: the config's ``audit:``, or the quick checks' defaults."""
        return (None if self.config is None else self.config.audit) or AuditConfig()

    @property
    def audit_given(self) -> bool:
        """Whether the config has an ``audit:`` section (the CLI then prints the audit's tables)."""
        return self.config is not None and self.config.audit is not None

    def declaration(self) -> dict[str, Any]:
        """The plan as the config that gives it: the config's keys as given, with ``--input``,
        ``--output`` and ``--seed`` folded in (a plain, YAML-ready mapping).

        A plan made in Python holds objects no config spells (a schema with built hierarchies,
        models as objects, priors as a function), so it has no declaration: it is refused in one line.
        """
        if self.config is None:
            raise InputError("a plan made in Python (anonymize(frame, …)) has no YAML config: write the run as a "
                             "config (anonkit init DATA writes a starting one) to save or rerun it", key="plan")
        data = self.config.model_dump(mode="json", exclude_unset=True, by_alias=True)
        data["seed"] = self.seed
        if self.input_path is not None:
            data["input"] = _folded_input(data.get("input", {}), self.input_path)
        if self.output_path is not None:
            data["output"] = {**data.get("output", {}), "path": self.output_path}
        return data

    def to_yaml(self) -> str:
        """The plan as a YAML config (paths as the plan holds them: relative to :attr:`base`)."""
        return yaml.safe_dump(self.declaration(), sort_keys=False, allow_unicode=True)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Plan):
            return False
        if self.config is None or other.config is None:
            return self is other
        return (self.declaration(), self.base.resolve(), self.report) == (
            other.declaration(), other.base.resolve(), other.report)

    __hash__ = None  # type: ignore[assignment]


#: the input keys that say what kind of input it is; ``--input`` replaces them by its path
_INPUT_KIND_KEYS = ("path", "format", "table", "query", "dataset", "sheet", "header_row")


def _folded_input(given: Mapping[str, Any], path: str) -> dict[str, Any]:
    """The config's input with ``--input`` in place of what it named: the reading options (separator,
    encoding, missing values, …) stay; the format follows the new path's suffix. An Excel input
    keeps its sheet and header row when ``--input`` is an Excel file too."""
    out = {k: v for k, v in given.items() if k not in _INPUT_KIND_KEYS}
    if suffix_format(path) == "excel":
        out.update({k: given[k] for k in ("sheet", "header_row") if k in given})
    return {"path": path, **out}


def plan_from_config(config: Config, *, config_dir: str | Path = ".", input_path: str | None = None,
                     output_path: str | None = None, seed: int | None = None,
                     config_file: str | Path | None = None, report: str | None = None,
                     writes: bool = True) -> Plan:
    """Validate ``config`` with the command line's overrides into a :class:`Plan`, before any work.

    The seed, the algorithm's options (by its declaration) and the models are validated and built
    here, once; for the local engine every place the run reads and writes is checked by the one path
    rule (a write never lands on a read, nor on another write, and each can be made). A run on
    Spark checks its places itself before its session starts (its output is a Parquet directory).

    ``writes=False`` makes a read-only plan, for the jobs that read a config's input but never write
    its release (``audit``, ``explore``): no output is planned or checked (an existing SQL output
    table, which a run would refuse, is what an audit reads), the reads are still listed.

    Raises
    ------
    InputError
        One line naming the key, the path or the value and what to change.
    """
    base = Path(config_dir)
    run_seed = check_seed(config.seed if seed is None else seed)
    spec = config.algorithm.spec
    options = MappingProxyType(config.algorithm.options())
    models = tuple(config.models())
    inp = config.input
    settings = {"metric": config.algorithm.metric, "suppressed": config.output.suppressed, "missing": inp.missing,
                "strip": inp.strip, "person_qi": inp.person_qi, "skip_measures": config.measures.skip}
    if not writes:
        if input_path is not None:
            check_override(config.input, input_path)
        reads = tuple(read_places(config, base, input_path=input_path, config_file=config_file))
        return Plan(config=config, base=base, config_file=None if config_file is None else Path(config_file),
                    input_path=input_path, output_path=None, report=None, seed=run_seed, engine=config.engine,
                    algorithm=spec, options=options, models=models, outputs=(), manifest=None, reads=reads,
                    writes=(), **settings)
    if config.engine == "local":
        places = plan_run(config, config_dir=base, input_path=input_path, output_path=output_path,
                          config_file=config_file, report=report, options=options)
        outputs, manifest = tuple(places.outputs), places.manifest
        reads, written = tuple(places.reads), tuple(places.writes)
    else:
        out = config.output
        target = output_path if output_path is not None else (None if out.path is None else location(base, out.path))
        outputs, manifest, reads, written = (() if target is None else ((target, None),)), None, (), ()
    return Plan(config=config, base=base, config_file=None if config_file is None else Path(config_file),
                input_path=input_path, output_path=output_path, report=report, seed=run_seed,
                engine=config.engine, algorithm=spec, options=options, models=models, outputs=outputs,
                manifest=manifest, reads=reads, writes=written, **settings)


def plan_from_yaml(text: str, *, config_dir: str | Path = ".", report: str | None = None) -> Plan:
    """A plan from YAML text (:meth:`Plan.to_yaml`'s, or a config file's)."""
    return plan_from_config(parse_config(read_yaml(text, source="the plan")), config_dir=config_dir, report=report)
