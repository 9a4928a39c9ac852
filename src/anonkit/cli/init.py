"""``anonkit init DATA [-o CONFIG]``: a commented starting config guessed from a table, which
``anonkit anonymize CONFIG`` runs as it is (:mod:`anonkit.start`)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from anonkit.cli import console
from anonkit.cli.running import interruptible
from anonkit.errors import InputError

#: the config written for a database URI when -o is not given
DEFAULT_CONFIG = "anonkit.yaml"


def _config_path(data: str, output: str | None) -> Path:
    """``-o`` as given, else the data's name with ``.yaml`` beside it (``anonkit.yaml`` for a URI)."""
    if output is not None:
        return Path(output)
    if "://" in data:
        return Path(DEFAULT_CONFIG)
    return Path(data).with_suffix(".yaml")


def _relative(data: str, config: Path) -> str:
    """The data's path as the config names it: relative to the config's directory (a URI as it is)."""
    if "://" in data:
        return data
    try:
        return Path(os.path.relpath(Path(data).resolve(), config.resolve().parent)).as_posix()
    except ValueError:  # another drive
        return str(Path(data).resolve())


def init(
    data: Annotated[str, typer.Argument(help="The table to start from: a file of any format anonkit reads "
                                        "(CSV, Parquet, Excel, SQLite, DuckDB) or a postgresql:// URI.")],
    output: Annotated[str | None, typer.Option("-o", "--output", help="Write the config here (default: DATA's "
                                               "name with .yaml, beside it).")] = None,
    force: Annotated[bool, typer.Option("--force", help="Replace CONFIG if it exists.")] = False,
    separator: Annotated[str | None, typer.Option("--separator", help="CSV field separator (default: "
                                                  "sniffed from the file).")] = None,
    table: Annotated[str | None, typer.Option("--table", help="SQL inputs: the table to read.")] = None,
    sheet: Annotated[str | None, typer.Option("--sheet", help="Excel inputs: the sheet to read.")] = None,
) -> None:
    """Write a commented starting config for DATA: types, roles with their reasons, hierarchies built
    from the data, privacy models and an algorithm; then run it with `anonkit anonymize CONFIG`."""
    target = _config_path(data, output)

    def job() -> tuple[str, list]:
        from anonkit.io import atomic_write, check_format
        from anonkit.start import read_input, starting_point

        if target.exists() and not force:
            raise InputError("the config exists; give another -o, or --force to replace it", file=str(target))
        if target.suffix.lower() not in (".yaml", ".yml"):
            raise InputError("the config is YAML: give a name ending in .yaml", file=str(target), key="-o")
        if "://" not in data and not Path(data).exists():
            raise InputError("no such file", file=data)
        if "://" not in data and Path(data).resolve() == target.resolve():
            raise InputError("the config would replace the data; give another -o", file=str(target))
        check_format(data)
        frame, entry = read_input(data, separator=separator, table=table, sheet=sheet)
        entry["path"] = _relative(data, target)
        point = starting_point(frame, input=entry)
        text = point.to_yaml()
        if not target.parent.exists():
            raise InputError("the config's directory does not exist", file=str(target.parent))
        atomic_write(target, str(target), lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))
        return str(target), point.columns

    try:
        written, columns = interruptible(job)
    except InputError as exc:
        console.fail(exc, 2)
    for c in columns:
        console.out.print(escape(f"{c.name}: {c.role} ({c.type})"), highlight=False, soft_wrap=True)
    console.out.print(escape(f"written: {written} — read the reasons in it, then run: anonkit anonymize {written}"),
                      highlight=False, soft_wrap=True)
