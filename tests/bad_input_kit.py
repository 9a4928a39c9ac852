"""The bad-input catalogue's kit: the toy directory, case builders and the harness that runs a case.

A case (:class:`Case`) lays out the t-closeness paper's 9-record table (``test2.csv``) with its
hierarchies and a config that runs, changes one thing, runs the CLI and expects an exit code and the
words of one error line, with nothing written and every input unchanged. ``tests/test_bad_input.py``
runs the catalogue: its own cases plus every ``tests/cases_*.py`` module's ``CASES`` list (one
module a topic, so each topic's cases live beside nothing else).
"""

from __future__ import annotations

import shutil
import sqlite3
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import yaml
from typer.testing import CliRunner

from anonkit.cli import app

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
DATA = TESTS / "data"
runner = CliRunner()

TOY = "test2.csv"
HEADER = "ZIPCode;Age;Salary;Disease"


def base_config() -> dict:
    """A config over the toy table that runs (exit 0, writes ``out.csv``)."""
    return {
        "input": {"path": TOY, "separator": ";"},
        "attributes": {
            "ZIPCode": {"role": "quasi", "hierarchy": "test2_hierarchy_ZIPCode.csv"},
            "Age": {"role": "quasi", "hierarchy": "test2_hierarchy_Age.csv"},
            "Salary": {"role": "sensitive", "type": "numeric"},
            "Disease": {"role": "sensitive", "hierarchy": "test2_hierarchy_Disease.csv"},
        },
        "privacy": [{"model": "k-anonymity", "k": 3}],
        "algorithm": {"name": "fixed", "levels": {"ZIPCode": 3, "Age": 1}},
        "output": {"path": "out.csv", "separator": ";"},
    }


# ------------------------------------------------------------------------------------ case builders
Mutation = Callable[[dict], None]
Prepare = Callable[[Path], None]


def put(dotted: str, value: object) -> Mutation:
    """Set a key of the config (``algorithm.levels.ZIPCode``); list items by index (``privacy.0.k``)."""

    def mutate(cfg: dict) -> None:
        *parents, last = dotted.split(".")
        node: object = cfg
        for p in parents:
            node = node[int(p)] if isinstance(node, list) else node.setdefault(p, {})  # type: ignore[index,union-attr]
        if isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value  # type: ignore[index]

    return mutate


def drop(dotted: str) -> Mutation:
    def mutate(cfg: dict) -> None:
        *parents, last = dotted.split(".")
        node = cfg
        for p in parents:
            node = node[p]
        del node[last]

    return mutate


def add_model(model: dict) -> Mutation:
    return lambda cfg: cfg["privacy"].append(model)


def flash(cfg: dict) -> None:
    """Search instead of fixed levels."""
    cfg["algorithm"] = {"name": "flash"}


def edit_toy(old: str, new: str) -> Prepare:
    """Replace text in the toy table (must occur)."""

    def prepare(tmp: Path) -> None:
        text = (tmp / TOY).read_text()
        assert old in text, old
        (tmp / TOY).write_text(text.replace(old, new, 1))

    return prepare


def write(name: str, text: str) -> Prepare:
    return lambda tmp: (tmp / name).write_text(text)


def copy_toy(name: str) -> Prepare:
    return lambda tmp: shutil.copy(tmp / TOY, tmp / name)


def mkdir(name: str) -> Prepare:
    return lambda tmp: (tmp / name).mkdir(parents=True)


def symlink(name: str, target: str) -> Prepare:
    return lambda tmp: (tmp / name).symlink_to(tmp / target)


def sqlite_input(name: str = "in.db", table: str = "people") -> Prepare:
    """The toy table as a SQLite table (built with the standard library's sqlite3)."""

    def prepare(tmp: Path) -> None:
        frame = pd.read_csv(tmp / TOY, sep=";", dtype=str, keep_default_na=False)
        with sqlite3.connect(tmp / name) as con:
            frame.to_sql(table, con, index=False)
        con.close()

    return prepare


def identical_rows(tmp: Path) -> None:
    (tmp / TOY).write_text(HEADER + "\n" + "47677;29;3;flu\n" * 9)


def with_name_column(tmp: Path) -> None:
    """The toy table with a direct identifier ``Name`` in front."""
    lines = (tmp / TOY).read_text().splitlines()
    out = ["Name;" + lines[0]] + [f"person{i};{line}" for i, line in enumerate(lines[1:], 1)]
    (tmp / TOY).write_text("\n".join(out) + "\n")


def base_yaml(extra: str = "") -> str:
    """The base config as YAML text, for cases that need what a mapping cannot hold (a repeated key)."""
    return yaml.safe_dump(base_config(), sort_keys=False) + extra


@dataclass(frozen=True)
class Case:
    id: str
    code: int
    words: tuple[str, ...]
    cfg: tuple[Mutation, ...] = ()  # changes to the base config
    files: tuple[Prepare, ...] = ()  # changes to the directory (after the config is written)
    args: tuple[str, ...] = ()  # extra CLI arguments; "{tmp}" is the directory
    raw: str | None = None  # the config file's text instead of the (mutated) base config
    check: tuple[str, ...] | None = None  # run `anonkit check` with these arguments instead
    config: str = "c.yaml"  # the config file the CLI is given
    command: str = "anonymize"  # the CLI command run on the config (e.g. "explore")


def C(id: str, code: int, words: str | tuple[str, ...], **kw: object) -> Case:
    return Case(id, code, (words,) if isinstance(words, str) else tuple(words), **kw)  # type: ignore[arg-type]


Q = "quasi"
CHECK_TOY = ("{tmp}/" + TOY, "--separator", ";")


# ------------------------------------------------------------------------------------------ harness
def toy_dir(tmp: Path) -> Path:
    for f in DATA.glob("test2*.csv"):
        shutil.copy(f, tmp / f.name)
    return tmp


def snapshot(tmp: Path) -> dict[str, bytes | None]:
    """Every entry under ``tmp``: a file's bytes, ``None`` for a directory or a symlink."""
    out: dict[str, bytes | None] = {}
    for p in sorted(tmp.rglob("*")):
        rel = str(p.relative_to(tmp))
        out[rel] = None if p.is_dir() or p.is_symlink() else p.read_bytes()
    return out


#: warnings Python shows a user by default (DeprecationWarning and its kin are hidden outside __main__)
_HIDDEN = (DeprecationWarning, PendingDeprecationWarning, ImportWarning, ResourceWarning)


@dataclass
class Run:
    exit_code: int
    stdout: str
    stderr: str
    exception: BaseException | None


def run(args: list[str]) -> Run:
    """Invoke the CLI; a Python warning it raises is added to stderr the way Python would print it
    (pytest would otherwise capture it, while a user sees two more lines)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        res = runner.invoke(app, args)
    shown = "".join(
        warnings.formatwarning(w.message, w.category, w.filename, w.lineno, w.line)
        for w in caught if not issubclass(w.category, _HIDDEN)
    )
    return Run(res.exit_code, res.stdout, shown + res.stderr, res.exception)


def build(case: Case, tmp: Path) -> list[str]:
    """Lay the case out in ``tmp``; return the CLI arguments."""
    toy_dir(tmp)
    if case.raw is not None:
        (tmp / "c.yaml").write_text(case.raw)
    else:
        cfg = base_config()
        for m in case.cfg:
            m(cfg)
        (tmp / "c.yaml").write_text(yaml.safe_dump(cfg, sort_keys=False))
    for prepare in case.files:
        prepare(tmp)
    if case.check is not None:
        return ["check", *(a.replace("{tmp}", str(tmp)) for a in case.check)]
    return [case.command, str(tmp / case.config), *(a.replace("{tmp}", str(tmp)) for a in case.args)]


def error_line(stderr: str, code: int) -> str:
    """The one line of the error; every other non-blank line must be a warning."""
    prefix = "error:" if code == 2 else "not anonymous:"
    lines = [line for line in stderr.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith(prefix)]
    others = [line for line in lines if not line.startswith((prefix, "warning:"))]
    assert len(errors) == 1 and not others, f"expected one {prefix!r} line, got:\n{stderr}"
    return errors[0]


def assert_refused(res: Run, code: int, words: tuple[str, ...]) -> str:
    out, err = res.stdout, res.stderr
    assert "Traceback" not in out and "Traceback" not in err, err
    # an exception the CLI did not handle reaches the runner (exit 1, no message): a traceback for a user
    assert res.exception is None or isinstance(res.exception, SystemExit), repr(res.exception)
    assert res.exit_code == code, f"exit {res.exit_code}, expected {code}\nstdout: {out}\nstderr: {err}"
    line = error_line(err, code)
    missing = [w for w in words if w.lower() not in line.lower()]
    assert not missing, f"{missing} not in the error line: {line!r}"
    return line
