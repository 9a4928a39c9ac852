"""Where a config run reads and writes, collected and checked before any work.

One rule for paths: every path a config names is relative to the config's folder (``~`` expanded),
a database URI stays as it is (:func:`location`). :func:`read_places` lists everything a run reads
— the config file, the input (or ``--input``, or a bundled dataset), the research subset's file
(``input.subset.path``), hierarchy, categories and prior files, the audit's population and control
tables — and :func:`plan_run` everything it writes —
the release (each linked table of an algorithm that publishes several, ``NAME-qit.csv`` /
``table_qit``), the private manifest of fake records, the HTML report — and refuses, naming both
keys, a write that lands on a read or on another write (:func:`anonkit.io.check_places`:
same resolved file, symlink, hard link, ``..``, same database table), then checks every write can be
made (:func:`anonkit.io.check_target`). So a bad path fails in a second and no output ever replaces
an input.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from anonkit.config import BackgroundKnowledgeConfig, Config
from anonkit.datasets import DATASETS
from anonkit.errors import InputError
from anonkit.io import Place, check_format, check_places, check_target

__all__ = ["CONFIG_KEY", "RunPlan", "input_location", "location", "output_targets", "plan_run", "read_files",
           "read_places", "resolve"]

#: how a message names the config file among the places a run reads
CONFIG_KEY = "the config file"


def resolve(base: Path, path: str) -> Path:
    """A config's file path: ``~`` expanded, relative to the config's folder ``base``."""
    p = Path(path).expanduser()
    return p if p.is_absolute() else base / p


def location(base: Path, path: str) -> str:
    """A file path relative to the config (:func:`resolve`), or a database URI as it is."""
    return path if "://" in path else str(resolve(base, path))


def suffix_format(loc: str) -> str | None:
    """The format a path's suffix names, ``None`` when it names none."""
    try:
        return check_format(loc)
    except InputError:
        return None


def input_location(config: Config, base: Path, override: str | None) -> tuple[str, str | None, str | None]:
    """``(location, format, table)`` of the input a run reads."""
    inp = config.input
    if override is not None:
        return override, None, None
    if inp.dataset is not None:
        path_fn, _ = DATASETS[inp.dataset]
        return str(path_fn()), "csv", None
    assert inp.path is not None
    return location(base, inp.path), inp.format, inp.table


def _input_place(config: Config, base: Path, override: str | None) -> Place:
    loc, fmt, table = input_location(config, base, override)
    if override is not None:
        return Place("--input", loc)
    if config.input.dataset is not None:
        return Place("input.dataset", loc, fmt)
    return Place("input.path", loc, fmt, table, config.input.query)


def read_places(config: Config, base: Path, *, input_path: str | None = None,
                config_file: str | Path | None = None) -> list[Place]:
    """Every place a run of ``config`` reads, each with the key that names it: the config file, the
    input, the research subset's file, every hierarchy, categories and prior file, the audit's
    population and control tables."""
    places = [] if config_file is None else [Place(CONFIG_KEY, str(config_file), "yaml")]
    if input_path is not None or config.input.path is not None or config.input.dataset is not None:
        places.append(_input_place(config, base, input_path))  # else a Spark catalog table: no file
    subset = config.input.subset
    if subset is not None and subset.path is not None:  # read like the input (plan/load.py), so never written
        places.append(Place("input.subset.path", location(base, subset.path)))
    for name, a in config.attributes.items():
        if isinstance(a.hierarchy, str):
            places.append(Place(f"attributes.{name}.hierarchy", location(base, a.hierarchy), "csv"))
        if isinstance(a.categories, str):
            places.append(Place(f"attributes.{name}.categories", location(base, a.categories), "csv"))
        if a.key_file is not None:  # a pseudonym's key: a release written over it would destroy the key
            places.append(Place(f"attributes.{name}.key_file", location(base, a.key_file)))
    for i, m in enumerate(config.privacy):
        if isinstance(m, BackgroundKnowledgeConfig):
            for kind in ("path", "external"):
                path = getattr(m.prior, kind)
                if path is not None:
                    places.append(Place(f"privacy.{i}.prior.{kind}", location(base, path)))
    audit = config.audit
    if audit is not None:
        for key in ("population_table", "control"):
            path = getattr(audit, key)
            if path is not None:
                places.append(Place(f"audit.{key}", location(base, path)))
    return places


def read_files(config: Config, base: Path, config_file: str | Path | None) -> list[str]:
    """Every file a run reads besides its input (the config, hierarchy, categories, prior files and
    audit tables), as paths."""
    places = read_places(config, base, config_file=config_file)
    return [p.location for p in places if p.key not in ("input.path", "input.dataset", "--input")]


def output_targets(target: str, table: str | None, keys: list[str] | tuple[str, ...] = ()
                   ) -> list[tuple[str, str | None]]:
    """Where each published table goes: the target itself (one table), or for several tables (Anatomy's
    quasi-identifier and sensitive tables, ``keys`` ``qit`` and ``st``) ``name-qit.csv``/``name-st.csv``
    beside it, or the SQL tables ``table_qit``/``table_st``."""
    keys = list(keys)
    if len(keys) < 2:
        return [(target, table)]
    out: list[tuple[str, str | None]] = []
    for key in keys:
        if table is not None:
            out.append((target, f"{table}_{key}"))
        elif "://" in target:
            out.append((target, key))
        else:
            p = Path(target)
            out.append((str(p.with_name(f"{p.stem}-{key}{p.suffix}")), None))
    return out


def _side_file(spec: object) -> tuple[str, object] | None:
    """What an algorithm publishes beside a release written to a file, as its entry declares it
    (``side_file = (tag, function)``: ``NAME.TAG.csv`` and the function making its table from the
    release; PRAM's matrices), or ``None``."""
    return getattr(getattr(spec, "entry", None), "side_file", None)


def side_places(spec: object, outputs: list[tuple[str, str | None]]) -> list[Place]:
    """The side file a run writes beside its one release file (``NAME.pram.csv``, key ``output.pram``);
    none for a release to a database (the summary's notes hold the same figures)."""
    side = _side_file(spec)
    if side is None or len(outputs) != 1 or outputs[0][1] is not None or "://" in outputs[0][0]:
        return []
    p = Path(outputs[0][0])
    return [Place(f"output.{side[0]}", str(p.with_name(f"{p.stem}.{side[0]}.csv")), "csv")]


def side_outputs(spec: object, writes: tuple[Place, ...] | list[Place]) -> list[tuple[str, object]]:
    """The planned side files of ``writes``: (location, the function making its table from the release)."""
    side = _side_file(spec)
    return [] if side is None else [(w.location, side[1]) for w in writes if w.key == f"output.{side[0]}"]


@dataclass
class RunPlan:
    """What a run will write, checked: the release's ``(location, SQL table)`` targets, the manifest
    of fake records (``None`` when there is none), and every place read and written."""

    outputs: list[tuple[str, str | None]]
    manifest: str | None
    reads: list[Place] = field(default_factory=list)
    writes: list[Place] = field(default_factory=list)


def _manifest_place(config: Config, base: Path, outputs: list[tuple[str, str | None]],
                    options: Mapping[str, object]) -> Place | None:
    """Where the private manifest of fake records goes, or ``None``: the fakes of post-analytics
    (``post_analytics.inject_fake``) or of an algorithm's noise records (angelization's ``repair:
    noise``), at ``output.manifest`` or ``post_analytics.manifest``, else beside the output as
    ``NAME.fakes.csv``."""
    post = config.post_analytics
    given = config.output.manifest or (post.manifest if post is not None else None)
    may_fake = (post is not None and post.inject_fake) or options.get("repair") == "noise"
    if not outputs or (not may_fake and given is None):
        return None
    key = "output.manifest" if config.output.manifest or post is None else "post_analytics.manifest"
    if given is not None:
        return Place(key, location(base, given), "csv")
    if outputs[0][1] is not None or "://" in outputs[0][0]:
        raise InputError("the release goes to a database: give output.manifest, a file for the private "
                         "list of fake records", key=key)
    p = Path(outputs[0][0])
    tables = config.algorithm.spec.tables
    stem = p.stem.removesuffix(f"-{tables[0]}") if len(tables) > 1 else p.stem  # NAME-qt.csv → NAME
    return Place(key, str(p.with_name(f"{stem}.fakes.csv")), "csv")


def plan_run(config: Config, *, config_dir: str | Path = ".", input_path: str | None = None,
             output_path: str | None = None, config_file: str | Path | None = None,
             report: str | None = None, options: Mapping[str, object] | None = None) -> RunPlan:
    """Check, before any work, every place a run of ``config`` reads and writes (see the module).
    ``options``: the algorithm's options as validated (validated here when not given).

    Raises
    ------
    InputError
        One line naming the output (and the read it would replace) and what to change.
    """
    base = Path(config_dir)
    if input_path is not None:
        from anonkit._config_input import check_override

        check_override(config.input, input_path)
    out = config.output
    if output_path is not None:
        from anonkit.config import output_key_misfit

        misfit = output_key_misfit(out, output_path)
        if misfit is not None:
            raise InputError(f"--output {output_path}: {misfit}; drop it from the config or give an output of the "
                             "config's format", key="output")
    target = output_path if output_path is not None else (None if out.path is None else location(base, out.path))
    key = "--output" if output_path is not None else "output.path"
    outputs = [] if target is None else output_targets(target, out.table, config.algorithm.spec.tables)
    reads = read_places(config, base, input_path=input_path, config_file=config_file)
    writes = [Place(key, loc, out.format, table) for loc, table in outputs]
    manifest = _manifest_place(config, base, outputs, config.algorithm.options() if options is None else options)
    if manifest is not None:
        writes.append(manifest)
    sides = side_places(config.algorithm.spec, outputs)
    writes += sides
    if report is not None:
        writes.append(Place("--report", report, "html"))
    check_places(reads, writes)
    for loc, table in outputs:
        try:
            check_target(loc, format=out.format, table=table, separator=out.separator, encoding=out.encoding,
                         if_exists=out.if_exists if table is not None else None, sheet=out.sheet)
        except InputError as exc:
            raise InputError(str(exc), key=key if exc.key is None else None) from None
    for side in sides:
        try:
            check_target(side.location, format="csv")
        except InputError as exc:
            raise InputError(str(exc), key=side.key if exc.key is None else None) from None
    if manifest is not None:
        try:
            check_target(manifest.location, format="csv")
        except InputError as exc:
            raise InputError(str(exc), key=manifest.key if exc.key is None else None) from None
    return RunPlan(outputs, None if manifest is None else manifest.location, reads, writes)
