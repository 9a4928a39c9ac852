"""What ``anonkit algorithms``, ``anonkit explore`` and ``anonkit cloak`` print for people."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table as RichTable

from anonkit.cli import console
from anonkit.cli.printers.units import num


def print_algorithms(described: list[dict]) -> None:
    """One row per algorithm: family, what it does, its options with defaults, what it enforces, needs, publishes."""
    t = RichTable(title="anonkit algorithms (config: algorithm: {name: NAME, OPTION: VALUE, …})")
    for col in ("name", "family", "what it does", "options (default)", "enforces", "needs / publishes"):
        t.add_column(col)
    for a in described:
        options = "\n".join(f"{o['name']}: {o['type']}" + ("" if o["required"] else f" = {o['default']}")
                            for o in a["options"])
        t.add_row(escape(a["name"]), a["family"], escape(a["summary"]), escape(options), escape(a["enforces_text"]),
                  escape(", ".join([*a["needs"], a["publishes"]])))
    console.out.print(t)


def print_models(described: list[dict]) -> None:
    """One row per privacy model: its config entry, what it guarantees, its parameters (required or
    with their default), the statistics it needs and its monotonicity."""
    t = RichTable(title="anonkit privacy models (config: privacy: [{model: NAME, PARAMETER: VALUE, …}])")
    for col in ("config", "what it guarantees", "parameters (default)", "needs", "monotonic"):
        t.add_column(col)
    for m in described:
        def written(entry: dict) -> str:
            return ", ".join(f"{k}: {v}" for k, v in entry.items() if k != "or")

        entry = written(m["config"]) + ("" if "or" not in m["config"] else f" (or {written(m['config']['or'])})")
        params = "\n".join(f"{p['key']}: {p['type']}" + ("" if p["required"] else f" = {p['default']}")
                           for p in m["params"])
        mono = m["monotonic"]
        monotonic = ("yes" if mono["generalization"] and mono["suppression"]
                     else "generalization only" if mono["generalization"] else "no")
        t.add_row(escape(entry), escape(m["summary"]), escape(params), escape(", ".join(m["needs"])), monotonic)
    console.out.print(t)


def print_explore(result, keys: list[str], risk: str, loss: str, written: list[str]) -> None:  # type: ignore[no-untyped-def]
    """One row per run of the grid (its parameters ``keys``, risk, loss, whether it meets the thresholds
    and is on the Pareto front), the notes, and the files written."""
    frame = result.frame
    t = RichTable(title=f"{len(frame)} runs: {loss} against {risk}"
                  + ("" if result.limit is None else f" (threshold {result.limit:g})"))
    for col in ("algorithm", *keys, "satisfied", "risk", "loss", "meets", "pareto"):
        t.add_column(col)
    for row in frame.itertuples(index=False):
        r = row._asdict()
        t.add_row(*(escape(str(r[c])) for c in ("algorithm", *keys)), "yes" if r["satisfied"] else "no",
                  num(r["risk"]), num(r["loss"]), "yes" if r["meets"] else "no", "●" if r["pareto"] else "")
    console.out.print(t)
    for note in result.notes:
        console.err.print(f"note: {note}", highlight=False, markup=False, soft_wrap=True)
    console.out.print("written: " + ", ".join(written), highlight=False, markup=False, soft_wrap=True)


def print_cloak(summary: dict, to: Console) -> None:
    """The cloaking summary in three lines on ``to``: requests served, held and dropped; cloaked area; delay."""
    area_s, delay_s = summary["area"], summary["delay"]
    k_text = "—" if summary.get("k_achieved") is None else f"{summary['k_achieved']:,}"
    lines = [
        f"requests {summary['requests']:,}: served {summary['served']:,} (spatial {summary.get('spatial', 0):,}, "
        f"temporal {summary.get('temporal', 0):,}), held {summary['held']:,}, dropped {summary['dropped']:,}",
        f"cloaked area: median {num(area_s['median'])}, 95th percentile {num(area_s['p95'])}",
        f"delay: median {num(delay_s['median'])}, 95th percentile {num(delay_s['p95'])}; k achieved {k_text}",
    ]
    for line in lines:
        to.print(escape(line), highlight=False, soft_wrap=True)
