"""What ``anonkit check`` and ``anonkit analyze`` print: the parameters a table achieves, leakage, post-analytics."""

from __future__ import annotations

from rich.markup import escape
from rich.table import Table as RichTable

from anonkit.cli import console
from anonkit.cli.printers.summary import print_alerts
from anonkit.cli.printers.units import OVERFLOW, pct

#: the table-wide figures ``anonkit check`` shows, in this order, when the report has them
CHECK_FIGURES = ("records", "released", "suppressed", "classes", "k", "avg_class_size", "uniques",
                 "persons_in_several_classes")
#: the most leaking attributes and combinations ``anonkit analyze`` shows (all are in --json)
LEAKAGE_ROWS = 30


def print_check(data: str, report: dict) -> None:
    """The privacy parameters a table achieves, table-wide then per sensitive attribute, and the notes."""
    t = RichTable(title=escape(f"anonkit check — {data}"), show_header=False)
    t.add_column("what", style="bold", overflow=OVERFLOW)
    t.add_column("value", overflow=OVERFLOW)
    for key in CHECK_FIGURES:
        if key not in report:
            continue
        v = report[key]
        t.add_row(key, f"{v:.4g}" if isinstance(v, float) else f"{v:,}")
    for s, r in report["sensitive"].items():
        for key, v in r.items():
            shown = v if isinstance(v, str) else ("—" if v is None else f"{v:.4g}")
            t.add_row(escape(f"{s}: {key}"), escape(shown))
    population = report.get("population")
    if population is not None:
        for what, shown in population_rows(population):
            t.add_row(escape(what), escape(shown))
    survey = report.get("survey")
    if survey is not None:
        for what, shown in survey_rows(survey):
            t.add_row(escape(what), escape(shown))
    console.out.print(t)
    for note in [*report["notes"], *(population or {}).get("notes", [])]:
        console.err.print(f"note: {note}", highlight=False, markup=False, soft_wrap=True)


def population_rows(p: dict) -> list[tuple[str, str]]:
    """``anonkit check --population``'s rows: the population's records, k-map, δ-presence's bounds."""
    rows = [("population records", f"{p['records']:,}"),
            ("k-map (population)", "—" if p["k_map"] is None else f"{p['k_map']:,}")]
    if p.get("delta_min") is not None:
        rows.append((f"δ-presence (from the {p['delta_from']})", f"{p['delta_min']:.4g} ≤ δ ≤ {p['delta_max']:.4g}"))
    return rows


def survey_rows(s: dict) -> list[tuple[str, str]]:
    """sdcMicro's survey measures (``--weight``, ``--household``, ``--suda2``; the audit's survey section)."""
    r = s["individual_risk"]
    base = "weights " + s["weight_column"] if s.get("weight_column") else "no weights: the table is the population"
    rows = [("individual risk: highest", f"{r['max']:.4g} ({base})"),
            ("individual risk: mean (global risk)", f"{r['mean']:.4g}"),
            (f"records above {s['threshold']:.4g}", f"{r['above']:,} ({pct(r['above_share'])})"),
            ("expected re-identifications", f"{s['expected_reidentifications']:.4g}")]
    hh = s.get("household")
    if hh is not None:
        rows += [("household risk: highest", f"{hh['max']:.4g}"),
                 ("household expected re-identifications", f"{hh['expected_reidentifications']:.4g}")]
    sd = s.get("suda2")
    if sd is not None:
        top = ", ".join(f"{c['attribute']} {c['percent']:.1f} %" for c in sd["attribute_contributions"])
        rows += [(f"DIS-SUDA: highest (fraction {sd['dis_fraction']:.4g})", f"{sd['dis_suda']['max']:.4g}"),
                 ("records with a special unique", f"{sd['records_with_msu']:,}"),
                 ("SUDA contributions", top or "—")]
    return rows


def print_leakage(data: str, report: dict, tau: float) -> None:
    """Attributes and combinations ranked by leakage (the vulnerable ones flagged), likely identifiers
    and suggested quasi-identifiers."""
    t = RichTable(title=escape(f"anonkit analyze — {data}: {report['records']:,} records; leakage ≥ {tau:g} "
                               "is vulnerable (higher leaks more)"))
    for col in ("attribute(s)", "leakage", "distinct", "unique records", "smallest group", ""):
        t.add_column(col, overflow=OVERFLOW)
    rows = [([a], f) for a, f in report["attributes"].items()] + [(c["attributes"], c) for c in report["combinations"]]
    rows.sort(key=lambda r: -r[1]["leakage"])
    for attrs, f in rows[:LEAKAGE_ROWS]:
        flag = "[red]vulnerable" if f["leakage"] >= tau else ""
        t.add_row(escape(" + ".join(attrs)), f"{f['leakage']:.3f}", f"{f['distinct']:,}", pct(f["unique_share"]),
                  f"{f['min_group']:,}", flag)
    console.out.print(t)
    if report["likely_identifiers"]:
        console.out.print(escape("likely identifiers (near-unique: drop them): "
                                 + ", ".join(report["likely_identifiers"])))
    if report.get("suggested_combinations"):
        console.out.print(escape("combinations that single people out though no attribute does alone: "
                                 + "; ".join(" + ".join(c) for c in report["suggested_combinations"])),
                          soft_wrap=True)
    if report["suggested_quasi_identifiers"]:
        console.out.print(escape("suggested quasi-identifiers: " + ", ".join(report["suggested_quasi_identifiers"])))


def print_post(p: dict) -> None:
    """Post-analytics for people: leakage before and after, the largest shares, the alerts."""
    t = RichTable(title=f"post-analytics: {p['records']:,} records in {p['classes']:,} classes; a class is "
                        f"vulnerable when one critical value reaches {pct(p['rho'])}")
    for col in ("attribute", "leakage before", "leakage after"):
        t.add_column(col, overflow=OVERFLOW)
    for name, after in p["leakage_after"].items():
        before = p["leakage_before"].get(name)
        t.add_row(escape(name), "—" if before is None else f"{before:.3f}", f"{after:.3f}")
    console.out.print(t)
    for name, share in p["max_share"].items():
        console.out.print(escape(f"{name}: largest share of one value in a class {pct(share)} (lower is better)"))
    print_alerts(p["alerts"])
    fakes = p.get("fakes")
    if fakes:
        before, after = fakes.get("vulnerable_classes_without", "—"), fakes.get("vulnerable_classes_with", "—")
        console.out.print(escape(f"fake records injected: {fakes['injected']:,}; vulnerable classes {before} → "
                                 f"{after}; manifest (private, do not publish): {fakes.get('manifest')}"),
                          highlight=False, soft_wrap=True)
