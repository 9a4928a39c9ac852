"""The paper's qualitative claims checked on our runs (utility and risk, runtime) and as printed."""

from __future__ import annotations

import textwrap

import numpy as np
import pandas as pd

from anonkit.experiments.uhra.constants import BKA_JS, FLAT_TOLERANCE, K_PRIMACY, METHODS, PROPOSED, WIDTH

CLAIM_COLUMNS = ["dataset", "claim", "sweep", "satisfied", "configurations", "detail"]


def _flat(sec: pd.Series) -> bool:
    mean = float(sec.mean())
    return bool(len(sec) and (np.abs(sec - mean) <= FLAT_TOLERANCE * mean).all())


def claims(runs: pd.DataFrame) -> pd.DataFrame:
    """The paper's qualitative claims checked on our runs, per data set and sweep: how many
    configurations satisfy each (see :data:`CLAIM_COLUMNS`)."""
    rows = []
    for ds in dict.fromkeys(runs["dataset"]):
        mine = runs[runs["dataset"] == ds]
        for sweep in ("k", "J", "t"):
            sub = mine[mine["sweep"] == sweep]
            if sub.empty:
                continue
            gcp = sub.pivot_table(index=sweep, columns="method", values="gcp")
            rl = sub.pivot_table(index=sweep, columns="method", values="record_linkage")
            n = len(gcp)
            tests = {
                f"GCP: {PROPOSED} < {BKA_JS}": gcp[PROPOSED] < gcp[BKA_JS],
                f"GCP: {PROPOSED} < {K_PRIMACY}": gcp[PROPOSED] < gcp[K_PRIMACY],
                f"RL: {PROPOSED} < {BKA_JS}": rl[PROPOSED] < rl[BKA_JS],
                f"RL: {PROPOSED} < {K_PRIMACY}": rl[PROPOSED] < rl[K_PRIMACY],
            }
            tests[f"{PROPOSED} lower GCP and RL than both"] = pd.Series(
                np.logical_and.reduce([np.asarray(v, dtype=bool) for v in tests.values()]), index=gcp.index
            )
            for claim, ok in tests.items():
                fails = ", ".join(f"{sweep}={v:g}" for v in ok.index[~np.asarray(ok, dtype=bool)])
                rows.append(
                    {
                        "dataset": ds,
                        "claim": claim,
                        "sweep": sweep,
                        "satisfied": int(np.sum(ok)),
                        "configurations": n,
                        "detail": f"not at {fails}" if fails else "every configuration",
                    }
                )
        # runtime vs J (Figure 4): flat for J >= 0.3, lower below
        sub = mine[mine["sweep"] == "J"]
        if not sub.empty:
            ok, details = 0, []
            for method in METHODS:
                s = sub[sub["method"] == method].set_index("J")["seconds"].sort_index()
                lo, hi = s[s.index < 0.3 - 1e-9], s[s.index >= 0.3 - 1e-9]
                flat = _flat(hi) if len(hi) else False
                lower = bool(len(lo) and len(hi) and lo.max() < hi.min())
                ok += int(flat and lower)
                low_txt = f"J<0.3 {lo.mean():.2f}s, " if len(lo) else "no J<0.3, "
                details.append(
                    f"{method}: {low_txt}J>=0.3 {hi.min():.2f}-{hi.max():.2f}s"
                    f" ({'flat' if flat else 'not flat'}{', lower below' if lower else ''})"
                )
            rows.append(
                {
                    "dataset": ds,
                    "claim": "runtime flat for J >= 0.3, lower for J < 0.3",
                    "sweep": "J",
                    "satisfied": ok,
                    "configurations": len(METHODS),
                    "detail": "; ".join(details),
                }
            )
        # runtime vs k (Figure 5): falls as k grows
        sub = mine[mine["sweep"] == "k"]
        if not sub.empty:
            ok, details = 0, []
            for method in METHODS:
                s = sub[sub["method"] == method].set_index("k")["seconds"].sort_index()
                falls = bool(len(s) > 1 and s.iloc[-1] < s.iloc[0])
                steps = int((np.diff(s.to_numpy()) < 0).sum())
                ok += int(falls)
                details.append(
                    f"{method}: {s.iloc[0]:.2f}s at k={s.index[0]} -> {s.iloc[-1]:.2f}s at "
                    f"k={s.index[-1]}, {steps}/{len(s) - 1} steps down"
                )
            rows.append(
                {
                    "dataset": ds,
                    "claim": "runtime falls as k grows",
                    "sweep": "k",
                    "satisfied": ok,
                    "configurations": len(METHODS),
                    "detail": "; ".join(details),
                }
            )
        # BKA-JS fastest; UHRA about as fast as k-primacy
        first = mine.drop_duplicates(["method", "k", "t", "J"])
        secs = first.pivot_table(index=["k", "t", "J"], columns="method", values="seconds")
        fastest = (secs[BKA_JS] < secs[PROPOSED]) & (secs[BKA_JS] < secs[K_PRIMACY])
        ratio = float((secs[PROPOSED] / secs[K_PRIMACY]).median())
        rows.append(
            {
                "dataset": ds,
                "claim": "BKA-JS is fastest",
                "sweep": "all",
                "satisfied": int(fastest.sum()),
                "configurations": len(secs),
                "detail": "median seconds: "
                + ", ".join(f"{m} {secs[m].median():.2f}" for m in (BKA_JS, PROPOSED, K_PRIMACY)),
            }
        )
        rows.append(
            {
                "dataset": ds,
                "claim": "UHRA about as fast as k-primacy (median ratio in 0.5-2)",
                "sweep": "all",
                "satisfied": int(0.5 <= ratio <= 2.0),
                "configurations": 1,
                "detail": f"median UHRA / k-primacy runtime ratio {ratio:.2f}",
            }
        )
    return pd.DataFrame(rows, columns=CLAIM_COLUMNS)


UTILITY_CLAIMS = (
    ("GCP: UHRA < BKA-JS", "GCP<BKA-JS"),
    ("GCP: UHRA < k-primacy", "GCP<k-prim"),
    ("RL: UHRA < BKA-JS", "RL<BKA-JS"),
    ("RL: UHRA < k-primacy", "RL<k-prim"),
    ("UHRA lower GCP and RL than both", "all four"),
)


def claims_text(df: pd.DataFrame, paper: dict) -> str:
    """The claims as printed: the paper's sentence, then ours per data set."""
    lines = []
    for key, text in paper["claims"].items():
        lines += textwrap.wrap(text, WIDTH, initial_indent="paper: ", subsequent_indent=" " * 7)
        if key == "utility_and_risk":
            lines.append("  ours: configurations of each sweep where UHRA is lower")
            head = f"  {'data':<6} {'sweep':<5}" + "".join(f"{short:>11}" for _, short in UTILITY_CLAIMS)
            lines.append(head)
            for (ds, sweep), sub in df[df["claim"].isin([c for c, _ in UTILITY_CLAIMS])].groupby(
                ["dataset", "sweep"], sort=False
            ):
                got = sub.set_index("claim")
                shares = [f"{got.loc[c, 'satisfied']}/{got.loc[c, 'configurations']}" for c, _ in UTILITY_CLAIMS]
                cells = "".join(f"{x:>11}" for x in shares)
                lines.append(f"  {ds:<6} {sweep:<5}{cells}")
            lines.append("")
            continue
        if key == "runtime_J":
            sub = df[df["claim"].str.startswith("runtime flat")]
        elif key == "runtime_k":
            sub = df[df["claim"].str.startswith("runtime falls")]
        else:
            sub = df[df["sweep"] == "all"]
        for r in sub.itertuples(index=False):
            text = f"{r.dataset}: {r.claim}: {r.satisfied}/{r.configurations}; {r.detail}"
            lines += textwrap.wrap(text, WIDTH, initial_indent="  ours: ", subsequent_indent=" " * 8)
        lines.append("")
    return "\n".join(lines).rstrip()
