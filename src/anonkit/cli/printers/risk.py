"""What ``anonkit risk`` prints: the file's risk figures and its riskiest records (their keys only)."""

from __future__ import annotations

from typing import Any

from rich.markup import escape
from rich.table import Table as RichTable

from anonkit.cli import console
from anonkit.cli.printers.units import OVERFLOW, num, one_in

#: how many of the riskiest records the summary lists (every record is in --records)
RISKIEST = 5


def totals_rows(t: dict[str, Any]) -> list[tuple[str, str]]:
    """The file-level figures as (what, value) rows, in the order shown."""
    base = f"weights {t['weight']}" if t.get("weight") else "no weights: the table is the population"
    rows = [("records", num(t["records"])), ("sample uniques (fk = 1)", num(t["sample_uniques"])),
            ("expected re-identifications", f"{t['expected_reidentifications']:.4g} ({base})"),
            ("global risk (mean individual risk)", one_in(t["global_risk"])),
            ("highest individual risk", one_in(t["max_risk"]))]
    if t.get("household") is not None:
        rows += [("household expected re-identifications", f"{t['household_expected_reidentifications']:.4g}"),
                 ("household global risk", one_in(t["household_global_risk"]))]
    s = t.get("suda2")
    if s is not None:
        top = sorted(s["attribute_contributions"].items(), key=lambda kv: (-kv[1], kv[0]))[:3]
        rows += [("SUDA2: records with a minimal sample unique", f"{num(s['records_with_msu'])} (MSUs up to "
                  f"{s['max_size']} variables, DIS fraction {s['dis_fraction']:g})"),
                 ("SUDA2: largest contributions", ", ".join(f"{a} {p:.3g} %" for a, p in top))]
    ll = t.get("loglinear")
    if ll is not None:
        rows.append(("log-linear risk (modRisk)", f"gr1 {ll['gr1']:.4g}, gr2 {ll['gr2']:.4g} over "
                     f"{num(ll['cells_kept'])} cells" + ("" if ll["converged"] else " (the fit did not converge)")))
    return rows


def riskiest_table(frame: Any, result: Any, count: int = RISKIEST) -> RichTable:
    """The ``count`` riskiest records: their row, their values of --qi, --weight and --household (no other
    column) and their figures."""
    shown = [*result.keys, *(c for c in (result.weight, result.household) if c is not None)]
    figures = [c for c in result.records.columns if c in ("fk", "Fk", "risk", "household_risk", "dis_suda")]
    t = RichTable(title=f"the {count} riskiest records")
    for name in ["row", "values", *figures]:
        t.add_column(escape(str(name)), overflow=OVERFLOW)
    for pos in result.riskiest(count):
        values = " ".join(f"{c}={_cell(frame[c].iloc[pos])}" for c in shown)
        cells = [str(int(pos) + 1), values, *(num(_plain(result.records[c].iloc[pos])) for c in figures)]
        t.add_row(*(escape(c) for c in cells))
    return t


def _plain(value: Any) -> Any:
    return value.item() if hasattr(value, "item") else value


def _cell(value: object) -> str:
    """A key value as shown: a missing one as ``—`` (it matches any value)."""
    return "—" if _missing(value) else str(value)


def _missing(value: object) -> bool:
    return value is None or (isinstance(value, float) and value != value)


def print_risk(data: str, frame: Any, result: Any, written: str | None) -> None:
    """The human summary: the totals, the riskiest records, and the file written."""
    t = RichTable(title=escape(f"anonkit risk — {data}"), show_header=False)
    t.add_column("what", style="bold", overflow=OVERFLOW)
    t.add_column("value", overflow=OVERFLOW)
    for what, value in totals_rows(result.to_dict()):
        t.add_row(escape(what), escape(value))
    console.out.print(t)
    if len(result.records):
        console.out.print(riskiest_table(frame, result))
    if written is not None:
        console.out.print(f"written: {written}", highlight=False, markup=False, soft_wrap=True)
