"""Flags read the same way by every command: whole numbers and the HTML report's place."""

from __future__ import annotations

from pathlib import Path

from anonkit.errors import InputError


def whole_number(text: str, flag: str) -> int:
    """``text`` as an int; an InputError naming ``flag`` otherwise."""
    try:
        return int(text.strip())
    except ValueError:
        raise InputError(f"{flag} must be a whole number", key=flag.lstrip("-"), value=text) from None


def check_report(report: str, refuse: list[str]) -> None:
    """Before any work: the report's folder exists and the report is none of the files in ``refuse``."""
    from anonkit.io import same_file  # the one rule: real path, symlink or hard link

    target = Path(report)
    for path in refuse:
        if path and "://" not in path and same_file(path, target):
            raise InputError("the report would replace a file the run reads or writes; write it elsewhere",
                             key="--report", value=report)
    if target.suffix.lower() not in (".html", ".htm"):
        raise InputError("the report is an HTML file: give a name ending in .html", key="--report", value=report)
    if not target.resolve().parent.is_dir():
        raise InputError("the report's folder does not exist", key="--report", value=report)
