"""Tables 3–5 (Adult group sizes, the paper's beside ours) and the printed tables: Tables 3–5 and the
attack table."""

from __future__ import annotations

import math
import textwrap
from collections.abc import Sequence

import numpy as np
import pandas as pd

from anonkit.experiments.uhra.constants import METHODS, WIDTH
from anonkit.experiments.uhra.paper import load_paper

TABLE_COLUMNS = [
    "table",
    "method",
    "parameter",
    "value",
    "paper_min",
    "paper_avg",
    "group_min",
    "group_avg",
    "class_min",
    "class_avg",
    "suppressed",
    "gcp",
    "record_linkage",
]


def paper_tables(runs: pd.DataFrame, paper: dict | None = None) -> dict[str, pd.DataFrame]:
    """Tables 3–5 (Adult): the paper's min/avg group sizes beside ours (groups and classes), one row
    per (method, parameter value); values we ran beyond the paper's (t = 0.1, 0.2; J = 0.7, 0.8)
    have no paper figure, values of the paper we did not run (``--quick``) no figure of ours."""
    paper = load_paper() if paper is None else paper
    adult = runs[runs["dataset"] == "adult"]
    out = {}
    for name, spec in paper["tables"].items():
        param = spec["parameter"]
        ours = adult[adult["sweep"] == param]
        values = sorted({float(v) for v in spec["values"]} | {float(v) for v in ours[param]})
        rows = []
        for method in METHODS:
            mine = ours[ours["method"] == method]
            for v in values:
                pv = [i for i, x in enumerate(spec["values"]) if math.isclose(float(x), v)]
                pmin, pavg = spec["sizes"][method][pv[0]] if pv else (math.nan, math.nan)
                hit = mine[np.isclose(mine[param].astype(float), v)]
                o = hit.iloc[0] if len(hit) else None

                def get(col: str, o: pd.Series | None = o) -> float:
                    return float(o[col]) if o is not None else math.nan

                rows.append(
                    {
                        "table": name,
                        "method": method,
                        "parameter": param,
                        "value": int(v) if param == "k" else v,
                        "paper_min": float(pmin),
                        "paper_avg": float(pavg),
                        "group_min": get("group_min"),
                        "group_avg": get("group_avg"),
                        "class_min": get("class_min"),
                        "class_avg": get("class_avg"),
                        "suppressed": get("suppressed"),
                        "gcp": get("gcp"),
                        "record_linkage": get("record_linkage"),
                    }
                )
        out[name] = pd.DataFrame(rows, columns=TABLE_COLUMNS)
    return out


def _num(v: float) -> str:
    if not np.isfinite(v):
        return "-"
    if float(v).is_integer():
        return str(int(v))
    return f"{v:.0f}" if abs(v) >= 100 else f"{v:.1f}"


def _size(mn: float, avg: float, *, paper: bool = False) -> str:
    if not (np.isfinite(mn) and np.isfinite(avg)):
        return "-"
    return f"{mn:g}/{avg:g}" if paper else f"{_num(mn)}/{_num(avg)}"


def fixed_table(
    head: Sequence[str], columns: Sequence[str], rows: Sequence[tuple[Sequence[str], Sequence[str]]], width: int = WIDTH
) -> list[str]:
    """Lines of a fixed-width table: label cells (left-aligned) then value cells (right-aligned);
    value columns that do not fit in ``width`` continue in a block below."""
    lw = [max(len(h), *(len(r[0][i]) for r in rows)) if rows else len(h) for i, h in enumerate(head)]
    label = sum(lw) + len(lw) - 1
    cw = max([len(c) for c in columns] + [len(x) for r in rows for x in r[1]] + [1]) + 2
    per = max(1, (width - label) // cw)
    out: list[str] = []
    for start in range(0, len(columns), per):
        if start:
            out.append("")
        cols = slice(start, start + per)
        for labels, cells in [(head, columns), *rows]:
            left = " ".join(x.ljust(w) for x, w in zip(labels, lw, strict=True))
            out.append((left + "".join(c.rjust(cw) for c in list(cells)[cols])).rstrip())
    return out


def table_text(df: pd.DataFrame, caption: str) -> str:
    """One of Tables 3–5 as printed: per method the paper's, our groups' and our classes' min/avg."""
    if df.empty:
        return caption
    param = df["parameter"].iloc[0]
    values = list(dict.fromkeys(df["value"]))
    columns = [f"{param}={v:g}" for v in values]
    rows = []
    for method in METHODS:
        sub = df[df["method"] == method].set_index("value")
        for i, (what, a, b) in enumerate(
            (
                ("paper", "paper_min", "paper_avg"),
                ("ours groups", "group_min", "group_avg"),
                ("ours classes", "class_min", "class_avg"),
            )
        ):
            cells = [_size(sub.loc[v, a], sub.loc[v, b], paper=what == "paper") for v in values]
            rows.append(((method if i == 0 else "", what), cells))
        supp = [_num(sub.loc[v, "suppressed"]) for v in values]
        if any(s not in ("0", "-") for s in supp):
            rows.append((("", "suppressed"), supp))
    lines = textwrap.wrap(caption, WIDTH) + fixed_table(("method", "size min/avg"), columns, rows)
    return "\n".join(lines)


def attack_text(df: pd.DataFrame) -> str:
    """The attack table as printed."""
    head = (
        f"{'data':<6} {'t':>4} {'method':<11} {'GCP':>6} {'RL %':>6} {'supp':>6} {'JSDavg':>6} {'JSDmax':>6} "
        f"{'breach':>6} {'homog':>6}"
    )
    out = [head]
    for r in df.itertuples(index=False):
        t = "" if not np.isfinite(r.t) else f"{r.t:g}"
        homog = "-" if not np.isfinite(r.homogeneity) else f"{r.homogeneity:.3f}"
        out.append(
            f"{r.dataset:<6} {t:>4} {r.method:<11} {r.gcp:>6.3f} {r.record_linkage:>6.2f} {int(r.suppressed):>6} "
            f"{r.bk_mean_jsd:>6.3f} {r.bk_max_jsd:>6.3f} {r.bk_breached_share:>6.3f} {homog:>6}"
        )
    return "\n".join(out)
