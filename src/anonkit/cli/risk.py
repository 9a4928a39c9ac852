"""``anonkit risk``: sdcMicro's risk figures for every record of a survey table (fk, Fk, individual,
household risk, SUDA2), named so that a user can check one tool against the other."""

from __future__ import annotations

from typing import Annotated

import typer

from anonkit.cli import console
from anonkit.cli.options import whole_number
from anonkit.cli.running import interruptible
from anonkit.errors import InputError

#: the key that names the table read in messages (``--records`` may not land on it)
DATA_KEY = "DATA"


def _names(text: str) -> list[str]:
    return [x.strip() for x in text.split(",") if x.strip()]


def _fraction(text: str | None) -> float | None:
    if text is None:
        return None
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0.0 < value <= 1.0:
        raise InputError("--dis-fraction is the sampling fraction of DIS-SUDA: a number in (0, 1]",
                         key="--dis-fraction", value=text)
    return value


def _flags(qi: str, suda: bool, suda_max_size: str | None, household: str | None,
           weight: str | None) -> tuple[list[str], int | None]:
    """The flags' own checks, before the table is read."""
    keys = _names(qi)
    if not keys:
        raise InputError("--qi names no column: give the key variables an intruder may know, e.g. --qi age,sex",
                         key="--qi", value=qi)
    for flag, value in (("--weight", weight), ("--household", household)):
        if value is not None and not value.strip():
            raise InputError(f"{flag} needs a column name", key=flag)
    size = None
    if suda_max_size is not None:
        if not suda:
            raise InputError("--suda-max-size goes with --suda (the largest MSU SUDA2 searches)", key="--suda-max-size")
        size = whole_number(suda_max_size, "--suda-max-size")
        if not 1 <= size <= len(keys):
            raise InputError(f"--suda-max-size must be from 1 to the {len(keys)} key variables of --qi",
                             key="--suda-max-size", value=suda_max_size)
    return keys, size


def _check_records(records: str, data: str, table: str | None) -> None:
    """Before any work: ``--records`` can be written and is not the table read (the one path rule)."""
    from anonkit.io import Place, check_places, check_target

    check_target(records)
    check_places([Place(DATA_KEY, data, table=table)], [Place("--records", records)])


def risk_command(
    data: Annotated[str, typer.Argument(help="The survey table (CSV, Parquet, Excel, SQLite, DuckDB, PostgreSQL).")],
    qi: Annotated[str, typer.Option("--qi", help="The key variables (quasi-identifiers), comma-separated.")],
    weight: Annotated[str | None, typer.Option("--weight", help="The sampling-weight column (numbers >= 1): Fk and "
                                               "the risk estimate the population from it; without it the table is "
                                               "the population (risk 1/fk).")] = None,
    household: Annotated[str | None, typer.Option("--household", help="The household-id column: adds each "
                                                  "record's household risk.")] = None,
    suda: Annotated[bool, typer.Option("--suda", help="Add SUDA2's score and DIS-SUDA score per record.")] = False,
    suda_max_size: Annotated[str | None, typer.Option("--suda-max-size", help="With --suda: the largest minimal "
                                                      "sample unique searched (default: every key variable).")]
    = None,
    dis_fraction: Annotated[str | None, typer.Option("--dis-fraction", help="With --suda: DIS-SUDA's sampling "
                                                     "fraction (default 0.01, sdcMicro's DisFraction).")] = None,
    loglinear: Annotated[bool, typer.Option("--loglinear", help="Add the log-linear model's global risk (sdcMicro's "
                                            "modRisk, default method, keys as factors; needs every key value).")]
    = False,
    records: Annotated[str | None, typer.Option("--records", help="Write one row per input record, in input order "
                                                "(row, fk, Fk, risk and the other figures), to this file (CSV, "
                                                "Parquet or another table format, from its suffix).")]
    = None,
    na_values: Annotated[str, typer.Option("--na-values", help="Cell texts that mean a missing value, comma-"
                                           "separated, besides the empty cell (e.g. NA,.). A missing key value "
                                           "matches any value, as in sdcMicro.")] = "",
    separator: Annotated[str, typer.Option("--separator", help="CSV field separator.")] = ",",
    table: Annotated[str | None, typer.Option("--table", help="SQL table name.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the totals as one JSON object.")] = False,
) -> None:
    """Compute sdcMicro's risk figures per record (fk, Fk, individual risk; household risk, SUDA2) and the file's
    expected re-identifications and global risk.

    A missing key value matches any value, as in sdcMicro. Nothing of the table but --qi, --weight and
    --household is printed; --records holds the row numbers and figures only."""
    from anonkit.cli.printers.risk import print_risk
    from anonkit.risk.records import record_risks
    from anonkit.risk.suda2 import DEFAULT_DIS_FRACTION

    try:
        keys, size = _flags(qi, suda, suda_max_size, household, weight)
        fraction = _fraction(dis_fraction)
        if fraction is not None and not suda:
            raise InputError("--dis-fraction goes with --suda (DIS-SUDA's sampling fraction)", key="--dis-fraction")
        if records is not None:
            _check_records(records, data, table)

        def job() -> tuple:
            from anonkit.io import read_table

            frame = read_table(data, separator=separator, table=table, na_values=["", *_names(na_values)])
            result = record_risks(frame, keys, weight=weight, household=household, suda=suda, suda_max_size=size,
                                  dis_fraction=DEFAULT_DIS_FRACTION if fraction is None else fraction,
                                  loglinear=loglinear)
            if records is not None:
                write_records(result.records, records)
            return frame, result

        frame, result = interruptible(job)
    except InputError as exc:
        console.fail(exc, 2)
    if as_json:
        console.print_json({**result.to_dict(), "records_file": records})
        return
    print_risk(data, frame, result, records)


def write_records(per_record: object, path: str) -> None:
    """The per-record figures with a 1-based ``row`` first, written atomically (the format from the suffix)."""
    import pandas as pd

    from anonkit.io import write_table

    frame = per_record if isinstance(per_record, pd.DataFrame) else pd.DataFrame(per_record)
    out = frame.copy()
    out.insert(0, "row", range(1, len(out) + 1))
    write_table(out, path, neutralise=False)
