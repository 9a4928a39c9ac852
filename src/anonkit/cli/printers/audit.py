"""An audit for people: its verdicts, the risk models and the attacks as tables, its notes and verdict line."""

from __future__ import annotations

from rich.markup import escape
from rich.table import Table as RichTable

from anonkit.cli import console
from anonkit.cli.printers.dp import dp_audit_notes
from anonkit.cli.printers.units import OVERFLOW, ci, num, pct


def print_audit(a: dict, verdict: bool = True) -> None:
    """The audit's verdicts, risk models and attacks as tables; its verdict line unless ``verdict``
    is false (``anonkit anonymize`` prints the run's one verdict instead)."""
    print_checks(a["verdicts"])
    print_risk(a["risk"])
    print_attacks(a["attacks"])
    for note in [*a.get("notes", []), *dp_audit_notes(a)]:  # SafePub: what the audit cannot judge
        console.err.print(f"note: {note}", highlight=False, markup=False, soft_wrap=True)
    if verdict:
        shown = "[green]every check holds[/]" if a["ok"] else "[bold red]some checks fail[/]"
        console.out.print(f"Audit: {shown} ({a['seconds']['total']:.2f} s)")
    if a.get("report"):
        console.out.print(f"written: {a['report']} (the HTML report)", highlight=False, markup=False, soft_wrap=True)


def print_checks(verdicts: list[dict]) -> None:
    """Each check's value (with the upper end of an attack's interval), threshold and whether it holds."""
    t = RichTable(title="Audit: verdicts")
    for col in ("check", "value", "threshold", "holds"):
        t.add_column(col, overflow=OVERFLOW)
    for v in verdicts:
        value = v["value"]
        shown = "—" if value is None else (num(value) if v["kind"] == "model" else pct(value))
        if v["kind"] == "attack" and v.get("upper") is not None:
            shown += f" (≤ {pct(v['upper'])})"
        threshold = "" if v["threshold"] is None else pct(v["threshold"])
        holds = "[green]yes[/]" if v["holds"] else "[bold red]no[/]"
        if v.get("uncertain"):
            holds += " (uncertain)"
        t.add_row(escape(v["check"]), shown, threshold, holds)
    console.out.print(t)


def print_risk(risk: dict) -> None:
    """Re-identification risk per attacker model, then sample and population uniqueness in one line."""
    if "prosecutor" not in risk:  # a synthetic table: no classes, no class risk (the audit says why)
        console.out.print(f"Re-identification risk: {risk.get('not_applicable', 'not judged')}", highlight=False,
                          markup=False, soft_wrap=True)
        return
    r = RichTable(title="Re-identification risk (records)")
    for col in ("attacker", "highest", "average", "records at risk"):
        r.add_column(col, overflow=OVERFLOW)
    for who in ("prosecutor", "journalist"):
        p = risk[who]
        r.add_row(who, pct(p["highest"]), pct(p["average"]), pct(p["records_at_risk"]))
    r.add_row("marketer", "", pct(risk["marketer"]["average"]), "")
    console.out.print(r)
    pu = risk["population_uniqueness"]
    line = f"sample uniqueness {pct(risk['sample_uniqueness'])}"
    if pu.get("model"):
        est = ", ".join(f"{m} {pct(pu[m])}" for m in ("pitman", "zayatz", "snb") if pu.get(m) is not None)
        line += f"; population uniqueness {pct(pu[pu['model']])} ({pu['model']}; {est})"
    console.out.print(line, highlight=False)


def print_attacks(attacks: list[dict]) -> None:
    """The attack simulations with 95 % intervals: success, baseline, control and risk (none: no table)."""
    if not attacks:
        return
    k = RichTable(title="Attacks (95 % intervals)")
    for col in ("attack", "success", "baseline", "control", "risk"):
        k.add_column(col, overflow=OVERFLOW)
    for x in attacks:
        k.add_row(escape(x["name"]), f"{pct(x['success'])} {ci(x['ci'])}",
                  "" if x["baseline"] is None else pct(x["baseline"]),
                  "" if x["control"] is None else f"{pct(x['control'])} {ci(x['control_ci'])}",
                  f"{pct(x['risk'])} {ci(x['risk_ci'])}")
    console.out.print(k)
