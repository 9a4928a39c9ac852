"""The report of a finished run, from its ``--json`` summary (``anonkit report RUN.json --out …``).

The summary's ``run`` section names the config, the input and every output with their SHA-256;
:func:`report_from_run` re-reads them, refuses to go on when a file changed since the run (the
report would describe other data than the summary), and writes the report. An exploration's JSON
(``"kind": "explore"``) gives the report of its runs.

A PostgreSQL input or output is recorded without its password (``postgresql://user@host/db#table``).
The report reads it through the config's own URI when the run used the config's input or output,
so a password the config holds is used again, as the run used it; otherwise (a URI without a
password, or another location given on the command line) the driver takes it from ``PGPASSWORD`` or
``~/.pgpass``. No password or token appears in the report: the config is shown through
:func:`anonkit._secrets.mask_secrets` (every URI password, percent-encoded or not, ``password=``,
``token=``, ``secret=``, ``api_key=`` masked ``***``), as are the locations of the input and outputs.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from anonkit._secrets import mask_secrets
from anonkit._values import strip_cells
from anonkit.config import Config, load_config
from anonkit.datasets import DATASETS
from anonkit.errors import InputError
from anonkit.io import read_table, same_file
from anonkit.io import shown as _shown
from anonkit.io import without_password as _without_password
from anonkit.plan.load import load_input, sha256_of
from anonkit.report.html import build_report, write_report

__all__ = ["EVALUATE_KEY", "report_from_run"]

#: how messages name the report's evaluation target (``anonkit report … --evaluate COL``)
EVALUATE_KEY = "--evaluate"


def report_from_run(run_json_path: str | os.PathLike[str], out_path: str | os.PathLike[str], *,
                    show_values: bool = False, evaluate: str | None = None) -> None:
    """Write the report of the run (or exploration) whose JSON summary is ``run_json_path``;
    ``evaluate`` (a column of the input) adds the release's utility for classifying it
    (:func:`anonkit.evaluate.evaluate_frames`, section 5).

    Raises
    ------
    InputError
        The summary cannot be read or names no files, a file it names is missing or changed since
        the run (its SHA-256 differs), or ``out_path`` is one of the run's files; ``evaluate`` on
        an exploration, on a release of linked tables, or naming no column of the input.
    """
    json_path = Path(run_json_path)
    summary = _read_json(json_path)
    for named in _named_files(summary):  # before any work: the report never lands on a file of the run
        if "://" not in named and same_file(named, out_path):
            raise InputError("the report would overwrite a file of the run; write it elsewhere", file=str(out_path))
    if summary.get("kind") == "explore":
        if evaluate is not None:
            raise InputError("--evaluate evaluates a run's release; an exploration has many: report one of its runs",
                             key=EVALUATE_KEY, file=str(json_path))
        html, refuse = _explore_report(summary, json_path, show_values)
    else:
        html, refuse = _run_report(summary, json_path, show_values, evaluate)
    write_report(html, out_path, refuse=[str(json_path), *refuse])


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError("run summary not found", file=str(path)) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read the run summary: {exc}", file=str(path)) from None
    except json.JSONDecodeError as exc:
        raise InputError(f"the run summary is not JSON ({exc.msg}, line {exc.lineno}); give the file "
                         "anonkit anonymize --json wrote", file=str(path)) from None
    if not isinstance(data, dict):
        raise InputError("the run summary is not a JSON object; give the file anonkit anonymize --json wrote",
                         file=str(path))
    return data


def _config(location: str | None, json_path: Path) -> tuple[Config | None, str | None, Path | None]:
    """The config a run names, its text to show (passwords masked) and its folder (``None``s when the
    run had none)."""
    if not location:
        return None, None, None
    path = Path(location)
    if not path.is_absolute() and not path.exists():
        path = json_path.parent / path
    config = load_config(path)
    return config, _masked(path.read_text(encoding="utf-8")), path.parent


def _masked(text: str) -> str:
    """A config's text as the report shows it: every password and token in it masked (``***``), in
    every spelling (:func:`anonkit._secrets.mask_secrets`, the one masking function)."""
    return mask_secrets(text)


def _check(location: str, recorded: object, what: str) -> None:
    """InputError when the file at ``location`` is missing or its SHA-256 is not ``recorded``."""
    if not recorded:
        return
    file = location.rpartition("#")[0] if "#" in location and not Path(location).exists() else location
    if not Path(file).is_file():
        raise InputError(f"the {what} of the run is missing; re-run anonkit anonymize", file=_shown(location))
    if sha256_of(file) != recorded:
        raise InputError(f"the {what} changed since the run (its SHA-256 differs); re-run anonkit anonymize",
                         file=_shown(location))


def _own_input(config: Config, base: Path) -> str:
    """Where the config's own input is (the run may have read another, given with ``--input``)."""
    inp = config.input
    if inp.dataset is not None:
        return str(DATASETS[inp.dataset][0]())
    assert inp.path is not None
    if "://" in inp.path:  # as the run records it: without the password
        location = _without_password(inp.path)
        return f"{location}#{inp.table}" if inp.table else location
    p = Path(inp.path).expanduser()
    location = str(p if p.is_absolute() else base / p)
    return f"{location}#{inp.table}" if inp.table else location


def _named_files(summary: dict[str, Any]) -> list[str]:
    """The files a run's (or an exploration's) summary names: its config, input and outputs."""
    if summary.get("kind") == "explore":
        return [str(summary["config"])] if summary.get("config") else []
    run = summary.get("run")
    if not isinstance(run, Mapping):
        return []
    names = [str(p) for p in (run.get("config"), run.get("input")) if p]
    names += [str(o["path"]) for o in run.get("outputs") or [] if isinstance(o, Mapping) and o.get("path")]
    return [_split(p)[0] for p in names]


def _split(location: str) -> tuple[str, str | None]:
    """``(file, SQL table)`` of a location written ``file#table``."""
    if "#" in location and not Path(location).exists():
        file, _, table = location.rpartition("#")
        return file, table
    return location, None


def _run_report(summary: dict[str, Any], json_path: Path, show_values: bool,
                evaluate: str | None = None) -> tuple[str, list[str]]:
    run = summary.get("run")
    if not isinstance(run, Mapping):
        raise InputError("the run summary has no 'run' section (an older anonkit wrote it): re-run anonkit "
                         "anonymize --json", file=str(json_path))
    config, config_text, config_dir = _config(run.get("config"), json_path)
    if run.get("config"):
        _check(str(run["config"]), run.get("config_sha256"), "config")
    location = run.get("input")
    original = None
    if location:
        _check(str(location), run.get("input_sha256"), "input")
        original = _read_input(config, Path(run.get("base") or config_dir or "."), str(location))
    outputs = [o for o in run.get("outputs") or [] if isinstance(o, Mapping) and o.get("path")]
    frames = {}
    for i, o in enumerate(outputs):
        _check(str(o["path"]), o.get("sha256"), "release")
        frames[_table_name(config, i, len(outputs), str(o["path"]))] = _read_output(config, str(o["path"]))
    release: pd.DataFrame | dict[str, pd.DataFrame] | None = (
        None if not frames else next(iter(frames.values())) if len(frames) == 1 else frames)
    features = None if evaluate is None else _evaluation_features(evaluate, config, original, release)
    audit = summary.get("audit")
    if audit is None and config is not None and release is not None:
        # a run without an audit: the report's privacy section needs one (default settings)
        from anonkit.audit.run import audit_frames
        from anonkit.plan import plan_from_config

        base = Path(run.get("base") or config_dir or ".")
        plan = plan_from_config(config, config_dir=base, input_path=_override(config, base, location), writes=False)
        audit = audit_frames(plan, _as_text(release))
    evaluation = None
    if evaluate is not None and features is not None:
        evaluation = _evaluation(original, release, evaluate, features)  # type: ignore[arg-type]
    html = build_report(summary, original=original, release=release, config_text=config_text,
                        audit=audit, show_values=show_values, evaluation=evaluation)
    refuse = [str(p) for p in (run.get("config"), location) if p] + [str(o["path"]) for o in outputs]
    return html, [_split(p)[0] for p in refuse]


def _evaluation_features(target: str, config: Config | None, original: pd.DataFrame | None,
                         release: pd.DataFrame | dict[str, pd.DataFrame] | None) -> list[str]:
    """The columns the classifiers read to predict ``target`` (checked before any work): the
    released columns of the input but the target and those the config declares sensitive,
    identifying or a person's; refused without one release table or when ``target`` is no column
    of both the input and the release."""
    if original is None or release is None:
        raise InputError("--evaluate needs the run's input and release; the summary names none", key=EVALUATE_KEY)
    if isinstance(release, dict):
        raise InputError("the release is several linked tables; --evaluate evaluates a one-table release",
                         key=EVALUATE_KEY)
    for what, frame in (("input", original), ("release", release)):
        if target not in frame.columns:
            raise InputError(f"the {what} has no column {target!r}; choose one of: "
                             f"{', '.join(map(str, frame.columns))}", key=EVALUATE_KEY, column=target)
    hidden = set() if config is None else {n for n, a in config.attributes.items()
                                           if a.role in ("sensitive", "identifier", "person", "individual")}
    features = [str(c) for c in release.columns if c != target and c in original.columns and c not in hidden]
    if not features:
        raise InputError("no published column is left to predict the target from", key=EVALUATE_KEY, column=target)
    return features


def _evaluation(original: pd.DataFrame, release: pd.DataFrame, target: str, features: list[str]) -> dict[str, Any]:
    """:func:`anonkit.evaluate.evaluate_frames` with its defaults, its refusals naming ``--evaluate``."""
    from anonkit.evaluate import evaluate_frames

    try:
        return evaluate_frames(original, _as_text(release), target, features)  # type: ignore[arg-type]
    except InputError as exc:
        raise InputError(exc.message, key=EVALUATE_KEY, column=exc.column, value=exc.value) from None


def _read_input(config: Config | None, base: Path, location: str) -> pd.DataFrame:
    """The input as the run read it: through the config (its separator, encoding, missing values;
    ``location`` instead when the run was given another input), cells stripped when the config does."""
    if config is None:
        file, table = _split(location)
        return read_table(file, table=table)
    frame, _ = load_input(config, base, _override(config, base, location))
    if config.input.strip and len(frame.columns):
        frame = frame.apply(strip_cells)
    return frame


def _override(config: Config, base: Path, location: str | None) -> str | None:
    """The input the run read when it is not the config's own (``--input``), else ``None``."""
    if not location or location == _own_input(config, base):
        return None
    return _split(location)[0]


def _as_text(release: pd.DataFrame | dict[str, pd.DataFrame]) -> pd.DataFrame | dict[str, pd.DataFrame]:
    """Published cells as text, as the audit reads a release."""
    from anonkit.audit.inputs import published_text

    if isinstance(release, dict):
        return {k: published_text(v) for k, v in release.items()}
    return published_text(release)


def _read_output(config: Config | None, location: str) -> pd.DataFrame:
    """A released table as the run wrote it; a PostgreSQL table through the config's output URI (and
    its password) when that is where the run wrote it."""
    file, table = _split(location)
    if config is None:
        return read_table(file, table=table)
    out = config.output
    if out.path is not None and "://" in out.path and table is not None and _without_password(out.path) == file:
        file = out.path
    return read_table(file, format=out.format, separator=out.separator, encoding=out.encoding, table=table)


def _table_name(config: Config | None, i: int, n: int, location: str) -> str:
    """A released table's name: the algorithm's (``qit``, ``st``) when it publishes several."""
    tables = config.algorithm.spec.tables if config is not None else ()
    if n > 1 and len(tables) == n:
        return str(tables[i])
    return Path(_split(location)[0]).stem if n > 1 else "release"


def _explore_report(doc: dict[str, Any], json_path: Path, show_values: bool) -> tuple[str, list[str]]:
    runs = doc.get("runs")
    if not isinstance(runs, list):
        raise InputError("the exploration has no 'runs' list; give the explore.json anonkit explore wrote",
                         file=str(json_path))
    frame = pd.DataFrame(runs)
    for c in ("satisfied", "verified", "meets", "pareto"):
        if c in frame.columns:
            frame[c] = frame[c].fillna(False).astype(bool)
    for c in ("loss", "risk", "seconds"):
        if c in frame.columns:
            frame[c] = pd.to_numeric(frame[c], errors="coerce")
    frame.attrs.update(risk=doc.get("risk"), loss=doc.get("loss"), thresholds=doc.get("thresholds") or {})
    config, config_text, config_dir = _config(doc.get("config"), json_path)
    # the input is read to know which values to hide (a run's message may name one) and to draw its shape
    original = None if config is None or config_dir is None else _read_input(config, config_dir, _own_input(
        config, config_dir))
    summary = {"kind": "explore", "warnings": list(doc.get("notes") or [])}
    html = build_report(summary, original=original, release=None, config_text=config_text, explore=frame,
                        show_values=show_values)
    return html, [str(doc["config"])] if doc.get("config") else []
