"""A table read as anonkit reads it (:func:`anonkit.io.read_table`, every format), with the CSV
separator sniffed when none is given, and the ``input:`` mapping that makes a config read it the same
way (the separator written only when it is not the default comma)."""

from __future__ import annotations

import csv
import os
from typing import Any

import pandas as pd

from anonkit.errors import InputError
from anonkit.io import check_format, read_table

#: the separators a CSV file is sniffed for, the likeliest first
SEPARATORS = ",;\t|"
#: how much of a CSV file is read to sniff its separator
SNIFF_BYTES = 64 * 1024


def sniff_separator(path: str | os.PathLike[str], encoding: str = "utf-8") -> str:
    """The field separator of a CSV file, from its first :data:`SNIFF_BYTES` (``,`` when nothing else
    splits the header: a one-column file); a ``.tsv`` file is tab-separated."""
    if str(path).lower().endswith(".tsv"):
        return "\t"
    try:
        with open(path, "rb") as fh:
            raw = fh.read(SNIFF_BYTES)
    except OSError as exc:
        raise InputError(f"cannot read the file: {exc.strerror or exc}", file=str(path)) from None
    text = raw.decode(encoding, errors="replace").lstrip("\ufeff")
    lines = text.splitlines()
    if len(raw) == SNIFF_BYTES and len(lines) > 1:
        lines = lines[:-1]  # the last line may be cut
    sample = "\n".join(lines[:200])
    header = lines[0] if lines else ""
    try:
        found = csv.Sniffer().sniff(sample, delimiters=SEPARATORS).delimiter
    except csv.Error:
        found = max(SEPARATORS, key=lambda s: (header.count(s), -SEPARATORS.index(s)))
        if header.count(found) == 0:
            return ","
    return found if found in header else ","


def read_input(path: str, *, separator: str | None = None, table: str | None = None,
               sheet: str | None = None) -> tuple[pd.DataFrame, dict[str, Any]]:
    """The table at ``path`` (a file of any format anonkit reads, or a database URI) and the ``input:``
    mapping that reads it the same way; a CSV's separator is sniffed unless ``separator`` is given."""
    fmt = check_format(path)
    entry: dict[str, Any] = {"path": path}
    options: dict[str, Any] = {}
    if fmt == "csv":
        sep = separator if separator is not None else sniff_separator(path)
        options["separator"] = sep
        if sep != ",":
            entry["separator"] = sep
    elif separator is not None:
        raise InputError(f"a separator applies to CSV files; {path} is read as {fmt}", key="separator",
                         value=separator)
    if table is not None:
        options["table"] = entry["table"] = table
    if sheet is not None:
        options["sheet"] = entry["sheet"] = sheet
    return read_table(path, **options), entry
