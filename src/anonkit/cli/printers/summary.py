"""A run's summary for people: one table grouped as Privacy, Utility and Run, each section drawn by
its own printer, every figure with its unit and which direction is better. The full list of
measures is in ``--json`` (README glossary)."""

from __future__ import annotations

from rich.markup import escape
from rich.table import Table as RichTable

from anonkit.cli import console
from anonkit.cli.printers.dp import add_differential_privacy
from anonkit.cli.printers.perturbed import add_perturbed_utility
from anonkit.cli.printers.units import OVERFLOW, metric_name, num, one_in, pct

#: the verification rows of per-person tables (their shape and link to the input), shown as one line
TABLE_CHECKS = ("structure:", "link:", "manifest:")


def print_summary(s: dict) -> None:
    """The summary grouped as Privacy, Utility and Run; every figure with its unit and which
    direction is better, then the post-analytics alerts and the run's warnings on standard error."""
    t = RichTable(title=escape(f"anonkit — {s['algorithm']}: {s['message']}, verified independently"),
                  show_header=False, title_justify="left")
    t.add_column("what", style="bold", overflow=OVERFLOW)
    t.add_column("value", overflow=OVERFLOW)
    t.add_column("better", style="dim", overflow=OVERFLOW)
    t.add_row("[underline]Privacy", "", "")
    add_models(t, s)
    add_differential_privacy(t, s)  # SafePub's guarantee and parameters (its notes); nothing otherwise
    recordless = "not_applicable" in s  # a synthetic table: no row is a record, no class figure applies
    if recordless:
        t.add_row("  class figures", escape(s["not_applicable"]), "")
    else:
        add_risk(t, s)
    add_one_to_many_risk(t, s.get("one_to_many"))
    t.add_row("[underline]Utility", "", "")
    if recordless:
        add_synthetic_utility(t, s.get("synthetic_utility"))
    else:
        add_utility(t, s)
        add_generalization(t, s.get("generalization") or {})
    add_perturbed_utility(t, s)
    t.add_row("[underline]Run", "", "")
    add_search(t, s)
    add_analytics(t, s)
    t.add_row("  time", f"{s.get('total_seconds', s['seconds']):.2f} s", "")
    console.out.print(t)
    print_outputs(s)
    print_alerts((s.get("post_analytics") or {}).get("alerts", []))
    print_warnings(s.get("warnings", []))


def written_files(s: dict) -> list[tuple[str, str]]:
    """The files a run wrote, each ``(path, what it is)``: the release's tables in order (one, or one
    per linked table), the private manifests of fake records, the files beside the release (``side_files``:
    PRAM's matrices), the HTML report."""
    output = s.get("output")
    files = [(path, "") for path in ([] if output is None else [output] if isinstance(output, str) else output)]
    fakes = (s.get("post_analytics") or {}).get("fakes") or {}
    for manifest in (fakes.get("manifest"), s.get("manifest")):
        if manifest:
            files.append((manifest, "the private manifest of fake records: never publish it"))
    for side in s.get("side_files") or []:  # written beside the release (PRAM's NAME.pram.csv)
        files.append((side, "PRAM's transition matrices" if str(side).endswith(".pram.csv") else "beside the release"))
    if s.get("report"):
        files.append((s["report"], "the HTML report"))
    return files


def print_outputs(s: dict) -> None:
    """Each file the run wrote on a line of its own, ``written: PATH``, never wrapped nor cut (soft
    wrap: a terminal folds a long line, the path stays whole to copy); ``output: (not written)``
    when the release was not written."""
    if s.get("output") is None:
        console.out.print("output: (not written)", highlight=False, markup=False)
    for path, what in written_files(s):
        console.out.print(f"written: {path}" + (f" ({what})" if what else ""), highlight=False, markup=False,
                          soft_wrap=True)


def print_warnings(warnings: list[str]) -> None:
    """Each warning as a ``warning:`` line on standard error."""
    for w in warnings:
        console.err.print(f"[yellow]warning:[/] {escape(w)}", highlight=False, soft_wrap=True)


def print_alerts(alerts: list[str]) -> None:
    """Each post-analytics alert as an ``alert:`` line on standard error."""
    for line in alerts:
        console.err.print(f"[bold yellow]alert:[/] {escape(line)}", highlight=False, soft_wrap=True)


def add_models(t: RichTable, s: dict) -> None:
    """The independent verifier's verdict, model by model; the checks of per-person tables (their
    shape and their link to the input) in one line when they hold."""
    checks = [r for r in s.get("verification", []) if r["model"].startswith(TABLE_CHECKS)]
    if checks:  # the shape of per-person tables and their link to the input: one line when they hold
        bad = [r["model"] for r in checks if not r["holds"]]
        t.add_row("  published tables and their link", "[red]fails: " + escape("; ".join(bad)) if bad else
                  f"[green]{len(checks)} checks hold", "")
    for r in s.get("verification", []):
        if r in checks:
            continue
        status = "[green]holds" if r["holds"] else "[red]fails"
        achieved = "" if r.get("achieved") is None else f" (achieved {num(r['achieved'])})"  # a check with no figure
        t.add_row(escape(f"  {r['model']}"), f"{status}[/]{achieved}", "")


def unit(s: dict) -> str:
    """What the summary counts: persons for data with several records per person, records otherwise."""
    return "persons" if "persons" in s else "records"


#: what the summary shows for an optional measure the run skipped (``measures.skip``; the summary's
#: ``skipped_measures`` says why it is optional)
NOT_COMPUTED = "not computed (measures.skip)"


def add_risk(t: RichTable, s: dict) -> None:
    """Re-identification risk: the smallest class, prosecutor risk, records (or persons) above the
    threshold, uniqueness and record linkage."""
    m = s["metrics"]
    people = "persons" in s  # data with several records per person: classes, risk and uniqueness count persons
    what = unit(s)
    released = s["released_persons"] if people else s["released"]
    t.add_row("  smallest class", f"{s['min_class_size']:,} {what}", "higher")
    t.add_row("  re-identification risk (prosecutor)",
              f"highest {one_in(m['prosecutor_highest'])}, average {one_in(m['prosecutor_average'])}", "lower")
    at_risk = round(m["records_at_risk"] * released)
    t.add_row(f"  {what} above the risk threshold ({pct(s.get('risk_threshold', 0.2))})",
              f"{at_risk:,} of {released:,} released ({pct(m['records_at_risk'])})", "lower")
    t.add_row(f"  unique {what}", f"{pct(m['sample_uniqueness'])} of released {what} are alone in their class",
              "lower")
    t.add_row("  record linkage", NOT_COMPUTED if "record_linkage" not in m else
              f"{pct(m['record_linkage'] / 100.0)} of records re-linked by a matching attack", "lower")


def add_one_to_many_risk(t: RichTable, one: dict | None) -> None:
    """The 1:M attacks on data with several records per person: record intersection and linkability."""
    if not one:
        return
    ri, li = one["record_intersection"], one["linkability"]
    t.add_row("  record intersection", f"{ri['breached']:,} of {ri['persons_with_several_records']:,} persons with "
              f"several records disclosed ({pct(ri['rate'])}); {ri['spread']:,} spread over classes", "lower")
    t.add_row("  record linkability", f"mean {pct(li['mean'])}, highest {pct(li['max'])} (a person's most "
              "severe value guessed)", "lower")


def score_text(s: dict) -> str:
    """The search score: a vector's first four entries, ARX Loss as a percentage, another metric as a number."""
    score = s["score"]
    metric = s["metric"]
    return (("[" + ", ".join(num(float(v)) for v in score[:4]) + (", …]" if len(score) > 4 else "]"))
            if isinstance(score, list) else (pct(score) if metric["name"] == "loss" else num(score)))


def add_utility(t: RichTable, s: dict) -> None:
    """Information loss (GCP; NCP and query accuracy per person on 1:M data), the search score,
    suppression, classes and, on 1:M data, the persons released."""
    m = s["metrics"]
    one = s.get("one_to_many")
    t.add_row("  information loss (GCP)", pct(m["gcp"]), "lower")
    if one:
        t.add_row("  NCP per person", pct(one["ncp"]), "lower")
        t.add_row(f"  query accuracy ({one['queries']:,} COUNT queries)",
                  f"{pct(one['query_accuracy'])} (mean relative error {one['query_error']:.3g})", "higher")
    t.add_row(f"  search score ({metric_name(s['metric'])})", escape(score_text(s)), "lower")
    share = pct(s["suppressed"] / s["records"])
    t.add_row("  suppressed records", f"{s['suppressed']:,} of {s['records']:,} ({share})", "lower")
    t.add_row("  classes", f"{s['classes']:,} (average {m['avg_class_size']:,.1f} {unit(s)})", "")
    if "persons" in s:
        reconciled = f"; {s['reconciled']:,} reconciled to their first row" if s.get("reconciled") else ""
        t.add_row("  persons", f"{s['released_persons']:,} of {s['persons']:,} released{reconciled}", "")


def add_synthetic_utility(t: RichTable, u: dict | None) -> None:
    """A synthetic table's utility: the one- and two-way total variation distances of its marginals
    from the input's (0: the same distribution, 1: disjoint), the farthest column and pair."""
    if not u:
        return
    one = u.get("one_way") or {}
    worst = max(one, key=lambda c: (one[c], c)) if one else None
    t.add_row("  one-way marginals (TVD)", f"mean {num(u['one_way_mean'])}, largest {num(u['one_way_max'])}"
              + (escape(f" ({worst})") if worst else ""), "lower")
    if u.get("two_way_mean") is not None:
        pair = (u.get("worst_pairs") or [{}])[0].get("columns")
        t.add_row("  two-way marginals (TVD)", f"mean {num(u['two_way_mean'])}, largest {num(u['two_way_max'])}"
                  + (escape(f" ({' × '.join(pair)})") if pair else ""), "lower")


def add_generalization(t: RichTable, generalization: dict) -> None:
    """Each quasi-identifier's published labels: a few examples, the level, how many values changed."""
    for name, g in generalization.items():
        if g["changed"] == 0:
            value = "unchanged"
        else:
            value = ", ".join(g["examples"]) + (", …" if g["labels"] > len(g["examples"]) else "")
            level = "" if g["level"] is None else f"level {g['level']} of {g['height']}, "
            plural = "s" if g["labels"] != 1 else ""
            value += f"  ({level}{g['labels']:,} label{plural}, {pct(g['changed'])} of values generalized)"
        t.add_row(escape(f"  {name} →"), escape(value), "")


def add_search(t: RichTable, s: dict) -> None:
    """How the release was found: the lattice's checked transformations, a fallback, background knowledge."""
    if s.get("lattice"):
        lat = s["lattice"]
        pruned = f", {lat['pruned']:,} pruned by the metric's lower bound" if lat.get("pruned") else ""
        t.add_row("  lattice", f"{lat['checked']:,} of {lat['nodes']:,} transformations checked{pruned}, the rest "
                  "inferred", "")
    if s.get("fallback"):
        t.add_row("  note", f"[yellow]{escape(str(s['fallback']))}", "")
    if s.get("background_knowledge"):
        bk = s["background_knowledge"]
        clusters = "" if bk.get("clusters") is None else f"; BK clusters: {bk['clusters']}"
        t.add_row("  background knowledge",
                  escape(f"{bk['test']} JSD ≤ {bk['J']:g}; priors: {bk['prior']}{clusters}"), "")


def add_analytics(t: RichTable, s: dict) -> None:
    """Post-analytics inference (with the fake records it injected) and the private manifest of fake records."""
    if s.get("post_analytics"):
        post = s["post_analytics"]
        t.add_row("  inference (post-analytics)", escape(
            f"{post['vulnerable_classes']:,} classes ({post['individuals_at_risk']:,} individuals) with one "
            f"critical value ≥ {pct(post['rho'])}"), "lower")
        fakes = post.get("fakes")
        if fakes:
            where = "private manifest listed below" if fakes.get("manifest") else "no manifest written"
            t.add_row("  fake records", escape(f"{fakes['injected']:,} injected; {where}"), "")
    if s.get("manifest"):
        noise = (s.get("notes") or {}).get("noise_records")
        count = f"{noise:,} noise records; " if isinstance(noise, int) else ""
        t.add_row("  fake records", escape(f"{count}private manifest (never publish it) listed below"), "")
