"""Paper B §4.3's location cloaking against its two attacks: ``anonkit experiment cloaking``.

Paper B (a survey of k-anonymity) describes the cloaking algorithm of a trusted location broker
(Gruteser & Grunwald, MobiSys 2003; spec §4.11): a request is forwarded to the location-based
service with its position replaced by a quadtree cell holding at least k_min subjects (*spatial*
cloaking) or, when no small enough cell does, its time replaced by an interval during which k_min
distinct subjects visited the cell (*temporal* cloaking) — against *restricted-space
identification* (a message from Bob's flat is Bob's) and *observation identification* (the
adversary saw S where the message came from). The survey makes no quantitative claim; it says the
boxes cost the service usability. This experiment measures what each k_min costs and buys.

Setting
-------
The city of :func:`anonkit.datasets.city.simulate_city` (5,000 subjects × 100 steps, ``--quick``:
1,000 × 30; seeded; ``[0, 1024)²`` metres, every subject reporting its position at every step, about 2%
of them requesting per step), cloaked by :class:`anonkit.location.Cloaker` for ``k_min ∈ {2, 5,
10, 20}`` with one policy: ``max_area`` = (side / 16)² = 4,096 m² (the largest box a user accepts, a
64 m square), ``max_delay`` = 10 steps, ``on_fail = "drop"``, ``min_side`` = 1 m (the positions'
grid). Spatial cloaking serves a request when a cell of at most 4,096 m² holds k_min subjects;
otherwise temporal cloaking waits up to 10 steps for k_min distinct visitors of the requester's
64 m square; otherwise the request is dropped.

Measured per k_min (``cloaking_results.csv``): requests served (spatially, temporally), held,
dropped; the boxes' area (median, 95th percentile, mean; m²) and the delay (forward time − request
time; median, p95, mean; steps) of the served requests; and the linked share of
:mod:`anonkit.location.attacks` on the forwarded requests and on the same requests uncloaked:

* restricted-space identification (rule ``within``: the box lies within a lone home's 16 m
  square; the weaker ``contains`` rule is reported too, with no guarantee);
* observation identification by an adversary who sees half of the subjects at half of the steps
  (seeded), and by one who sees everyone at every step (the k-anonymity guarantee's case: every
  request's link probability ≤ 1/k_min; its largest is ``obs_complete_max``).

Expectations (``cloaking_expectations.csv``, judged on the figures and printed with a verdict —
``holds``, ``partly (only k_min = …)`` or ``does NOT hold``): the area, the delay and the dropped
share grow with k_min; with cloaking each attack links at most 1/k_min of the forwarded requests;
without cloaking each links far more (at least :data:`FAR_HIGHER` times the cloaked share). The last
cannot hold everywhere for the partial observer: a box of m subjects leaves it
``(1 − 2^−m) / (2m)`` against ``1/4`` uncloaked, only 1.3–1.7 times less for the 2–3 subjects of
a k_min = 2 box, and the report says so when it happens.

Written to ``--out``: ``cloaking_results.csv``, ``cloaking_expectations.csv`` (each qualitative
expectation, measured, holds or not), ``cloaking_area_delay.png``, ``cloaking_attacks.png`` and
``cloaking_map.png`` (one step's cloaked boxes over the subjects, at k_min = 5).
"""

from __future__ import annotations

import textwrap
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from anonkit.experiments._main import quick_main

WIDTH = 78
DEFAULT_OUT = "cloaking-experiment"
KS = (2, 5, 10, 20)
#: (subjects, steps) of the city
FULL_SIZE = (5_000, 100)
QUICK_SIZE = (1_000, 30)
#: the policy: the largest box a user accepts, as a fraction of the area's side (squared)
MAX_AREA_SIDE = 1 / 16
MAX_DELAY = 10.0
MIN_SIDE = 1.0
ON_FAIL = "drop"
#: the partial observer: shares of subjects and of steps seen
SUBJECT_SHARE = 0.5
TIME_SHARE = 0.5
#: the k_min whose boxes the map shows
MAP_K = 5
#: "far higher without cloaking": the uncloaked linked share at least this many times the cloaked one
FAR_HIGHER = 2.0

Progress = Callable[[int, int, str], None]


def _messages(stream: pd.DataFrame) -> list:
    from anonkit.location import Message

    cols = (stream[c].tolist() for c in ("t", "subject", "x", "y", "kind", "payload"))
    return [Message(float(t), s, float(x), float(y), k, p) for t, s, x, y, k, p in zip(*cols, strict=True)]


def _policy(k: int, side: int) -> object:
    from anonkit.location import Policy

    return Policy(k=k, max_area=float((side * MAX_AREA_SIDE) ** 2), max_delay=MAX_DELAY, on_fail=ON_FAIL,
                  min_side=MIN_SIDE)


def _attacks(released: object, city: object, seed: int) -> dict[str, float]:
    from anonkit.location.attacks import observation_identification, restricted_space_identification

    track = city.track()  # type: ignore[attr-defined]
    within = restricted_space_identification(released, city.homes, cell=city.home_cell)  # type: ignore[arg-type,attr-defined]
    contains = restricted_space_identification(released, city.homes, cell=city.home_cell,  # type: ignore[arg-type,attr-defined]
                                               rule="contains")
    partial = observation_identification(released, track, subject_share=SUBJECT_SHARE,  # type: ignore[arg-type]
                                         time_share=TIME_SHARE, seed=seed)
    complete = observation_identification(released, track, subject_share=1.0, time_share=1.0)  # type: ignore[arg-type]
    return {
        "rs": within.linked_share, "rs_contains": contains.linked_share, "obs": partial.linked_share,
        "obs_unique": partial.unique_share, "obs_complete": complete.linked_share,
        "obs_complete_max": complete.max_probability,
    }


def run(out: str | Path = DEFAULT_OUT, *, quick: bool = False, seed: int = 0,
        progress: Progress | None = None) -> dict[str, pd.DataFrame]:
    """Run the experiment; returns ``results`` (one row per k_min, ``.attrs["files"]``) and
    ``expectations``."""
    from anonkit.datasets.city import simulate_city
    from anonkit.location import Area, Cloaker, cloak
    from anonkit.location.attacks import forwarded_requests, uncloaked_requests

    step = progress or (lambda _i, _n, _what: None)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    subjects, steps = QUICK_SIZE if quick else FULL_SIZE
    total = len(KS) + 2
    step(0, total, f"simulating the city ({subjects:,} subjects × {steps} steps)")
    city = simulate_city(subjects, steps, seed)
    requests = city.requests()
    messages = _messages(city.stream)
    area = Area(0, 0, city.side, city.side)
    step(1, total, "attacking the uncloaked requests")
    plain = _attacks(uncloaked_requests(requests), city, seed)
    rows, boxes = [], None
    for i, k in enumerate(KS):
        step(2 + i, total, f"cloaking with k_min = {k}")
        start = time.perf_counter()
        cloaker = Cloaker(area, _policy(k, city.side))  # type: ignore[arg-type]
        fwd = list(cloak(messages, area, cloaker=cloaker))
        seconds = time.perf_counter() - start
        stats = cloaker.stats()
        released = forwarded_requests(fwd, requests)
        delay = np.array([f.t for f in fwd], dtype=float) - requests["t"].to_numpy(float)[released.request]
        n = max(stats["requests"], 1)
        attacks = _attacks(released, city, seed)
        rows.append({
            "k_min": k, "bound": 1 / k, "subjects": subjects, "steps": steps, "messages": len(messages),
            "requests": stats["requests"], "served": stats["served"], "spatial": stats["spatial"],
            "temporal": stats["temporal"], "served_share": stats["served"] / n, "held_share": stats["held"] / n,
            "dropped_share": stats["dropped"] / n, "pending": stats["pending"],
            "area_median": stats["area"]["median"], "area_p95": stats["area"]["p95"],
            "area_mean": float(released.area.mean()) if len(released) else np.nan,
            "delay_median": stats["delay"]["median"], "delay_p95": stats["delay"]["p95"],
            "delay_mean": float(delay.mean()) if len(delay) else np.nan, "k_achieved": stats["k_achieved"],
            **{f"{name}_cloaked": value for name, value in attacks.items() if name != "obs_complete_max"},
            "obs_complete_max": attacks["obs_complete_max"],
            **{f"{name}_uncloaked": value for name, value in plain.items() if name != "obs_complete_max"},
            "seconds": seconds,
        })
        if k == MAP_K:
            boxes = (fwd, released)
    step(len(KS) + 1, total, "writing")
    results = pd.DataFrame(rows)
    results.attrs.update(subjects=subjects, steps=steps, messages=len(messages), requests=len(requests),
                         lone_homes=int(city.homes["alone"].sum()), homes=len(city.homes), home_cell=city.home_cell,
                         max_area=float((city.side * MAX_AREA_SIDE) ** 2))
    expectations = _expectations(results)
    files = []
    for name, df in (("results", results), ("expectations", expectations)):
        path = out / f"cloaking_{name}.csv"
        df.to_csv(path, index=False)
        files.append(str(path))
    files += _plots(results, city, boxes, requests, out)
    step(total, total, "done")
    results.attrs["files"] = files
    return {"results": results, "expectations": expectations}


def _never_falls(values: pd.Series) -> bool:
    v = values.to_numpy(float)
    return bool(np.all(np.diff(v) >= -1e-12))


def _grows(values: pd.Series) -> bool:
    v = values.to_numpy(float)
    return _never_falls(values) and bool(v[-1] > v[0])


def _expectations(results: pd.DataFrame) -> pd.DataFrame:
    """The qualitative expectations, each measured and judged."""
    r = results.sort_values("k_min")
    ks = r["k_min"].tolist()

    def series(col: str, fmt: str = "{:.4g}") -> str:
        return ", ".join(f"k={k}: {fmt.format(v)}" for k, v in zip(ks, r[col], strict=True))

    rows = [
        ("cost: the cloaked area grows with k_min (median, p95 and mean never fall; the largest k's mean "
         "above the smallest's)", series("area_median") + " m² (median); " + series("area_mean") + " m² (mean)",
         _grows(r["area_mean"]) and _never_falls(r["area_median"]) and _never_falls(r["area_p95"])),
        ("cost: the delay grows with k_min (mean and p95 never fall; the largest k's mean above the smallest's)",
         series("delay_mean") + " steps (mean); " + series("delay_p95") + " (p95)",
         _grows(r["delay_mean"]) and _never_falls(r["delay_p95"])),
        ("cost: fewer requests are served as k_min grows (never more)", series("served_share", "{:.3f}"),
         _never_falls(-r["served_share"])),
    ]
    attacks = (("restricted-space identification", "rs"), ("observation identification (half the subjects, half "
                                                           "the steps)", "obs"),
               ("observation identification (everyone, every step)", "obs_complete"))
    for label, col in attacks:
        cloaked, bound = r[f"{col}_cloaked"], r["bound"]
        rows.append((f"gain: with cloaking, {label} links at most 1/k_min of the forwarded requests",
                     series(f"{col}_cloaked", "{:.4f}") + " (bounds " + series("bound", "{:.3f}") + ")",
                     bool((cloaked <= bound + 1e-12).all())))
        plain = r[f"{col}_uncloaked"]
        rows.append((f"gain: without cloaking, {label} links far more (≥ {FAR_HIGHER:g}× the cloaked share)",
                     f"uncloaked {plain.iloc[0]:.4f}; cloaked " + series(f"{col}_cloaked", "{:.4f}"),
                     [k for k, ok in zip(ks, (plain > 0) & (plain >= FAR_HIGHER * cloaked), strict=True) if ok]))
    rows.append(("guarantee: no request's link probability exceeds 1/k_min (complete observation)",
                 series("obs_complete_max", "{:.4f}"), bool((r["obs_complete_max"] <= r["bound"] + 1e-12).all())))
    return pd.DataFrame([{"expectation": e, "measured": m, "verdict": _verdict(ok, ks)} for e, m, ok in rows])


def _verdict(ok: bool | list[int], ks: list[int]) -> str:
    """``holds`` / ``does NOT hold``; for a per-k check, ``partly (k_min = …)`` naming where it holds."""
    if isinstance(ok, list):
        if len(ok) == len(ks):
            return "holds"
        return f"partly (only k_min = {', '.join(map(str, ok))})" if ok else "does NOT hold"
    return "holds" if ok else "does NOT hold"


def _plots(results: pd.DataFrame, city: object, boxes: tuple | None, requests: pd.DataFrame,
           out: Path) -> list[str]:
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    r = results.sort_values("k_min")
    files = []
    fig, (a1, a2, a3) = plt.subplots(1, 3, figsize=(14, 4))
    for col, label, marker in (("area_median", "median", "o"), ("area_p95", "95th percentile", "s"),
                               ("area_mean", "mean", "^")):
        a1.plot(r["k_min"], r[col], marker=marker, label=label)
    a1.set_ylabel("cloaked area (m²)")
    a1.set_yscale("log")
    for col, label, marker in (("delay_mean", "mean", "^"), ("delay_p95", "95th percentile", "s"),
                               ("delay_median", "median", "o")):
        a2.plot(r["k_min"], r[col], marker=marker, label=label)
    a2.set_ylabel("delay (steps)")
    for col, label, marker in (("served_share", "served", "o"), ("dropped_share", "dropped", "x"),
                               ("held_share", "held", "s")):
        a3.plot(r["k_min"], r[col], marker=marker, label=label)
    share_temporal = r["temporal"] / r["requests"].clip(lower=1)
    a3.plot(r["k_min"], share_temporal, marker="d", ls="--", label="served temporally")
    a3.set_ylabel("share of requests")
    a3.set_ylim(-0.02, 1.02)
    for ax in (a1, a2, a3):
        ax.set_xlabel("k_min")
        ax.set_xticks(list(r["k_min"]))
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(f"what cloaking costs (city of {results.attrs['subjects']:,} subjects × "
                 f"{results.attrs['steps']} steps)")
    fig.tight_layout()
    path = out / "cloaking_area_delay.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    files.append(str(path))

    fig, axes = plt.subplots(1, 3, figsize=(14, 4), sharey=False)
    for ax, (col, title) in zip(axes, (("rs", "restricted-space identification"),
                                       ("obs", f"observation ({SUBJECT_SHARE:.0%} subjects, {TIME_SHARE:.0%} steps)"),
                                       ("obs_complete", "observation (everyone, every step)")), strict=True):
        ax.plot(r["k_min"], r[f"{col}_uncloaked"], marker="s", color="C3", label="without cloaking")
        ax.plot(r["k_min"], r[f"{col}_cloaked"], marker="o", color="C0", label="with cloaking")
        ax.plot(r["k_min"], r["bound"], ls="--", color="grey", label="1/k_min")
        ax.set_yscale("symlog", linthresh=1e-3)
        ax.set_ylim(0, 1.2)
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("k_min")
        ax.set_xticks(list(r["k_min"]))
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("linked share of forwarded requests")
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    path = out / "cloaking_attacks.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    files.append(str(path))

    fig, ax = plt.subplots(figsize=(10, 7.5))
    side = city.side  # type: ignore[attr-defined]
    t_map = city.positions.shape[0] // 2  # type: ignore[attr-defined]
    pos = city.positions[t_map]  # type: ignore[attr-defined]
    ax.scatter(pos[:, 0], pos[:, 1], s=2, color="0.6", label=f"subjects at step {t_map}")
    lone = city.lone_homes()  # type: ignore[attr-defined]
    ax.scatter(lone["x"], lone["y"], s=6, marker="s", color="C2", alpha=0.5, label="homes of people living alone")
    ax.scatter(city.districts[:, 0], city.districts[:, 1], s=80, marker="x", color="k",  # type: ignore[attr-defined]
               label="district centres")
    if boxes is not None:
        fwd, released = boxes
        asked = requests["t"].to_numpy()[released.request] == t_map
        shown = {"spatial": False, "temporal": False}
        for f, here in zip(fwd, asked, strict=True):
            if not here:
                continue
            color = "C0" if f.method == "spatial" else "C1"
            ax.add_patch(Rectangle((f.x0, f.y0), f.x1 - f.x0, f.y1 - f.y0, fill=False, lw=1.2, color=color,
                                   label=None if shown[f.method] else f"{f.method} box (k_min = {MAP_K})"))
            shown[f.method] = True
        req = requests[requests["t"] == t_map]
        ax.scatter(req["x"], req["y"], s=14, color="C3", label=f"requesters at step {t_map} (no box: dropped)")
    ax.set_xlim(0, side)
    ax.set_ylim(0, side)
    ax.set_aspect("equal")
    ax.set_xlabel("x (m)")
    ax.set_ylabel("y (m)")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    ax.set_title(f"one step's cloaked boxes (k_min = {MAP_K}; requests of step {t_map})", fontsize=10)
    fig.tight_layout()
    path = out / "cloaking_map.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    files.append(str(path))
    return files


def _pct(v: float) -> str:
    return f"{100 * v:.2f}%"


def cli_run(out: str = DEFAULT_OUT, *, quick: bool = False, seed: int = 0, progress: Progress | None = None) -> str:
    """What ``anonkit experiment cloaking`` prints: what each k_min costs and buys, the expectations."""
    tables = run(out, quick=quick, seed=seed, progress=progress)
    r, expectations = tables["results"], tables["expectations"]
    a = r.attrs
    lines = textwrap.wrap(
        f"Paper B §4.3: spatial and temporal cloaking of a city's location-based-service requests "
        f"({a['subjects']:,} subjects × {a['steps']} steps, {a['requests']:,} requests, {a['lone_homes']:,} of "
        f"{a['homes']:,} homes alone in their {a['home_cell']} m square) against restricted-space and observation "
        f"identification. Policy: boxes of at most {a['max_area']:,.0f} m², "
        f"waits of at most {MAX_DELAY:g} steps, else dropped. The survey makes no quantitative claim.", WIDTH)
    lines += ["", "k_min  served  temporal  dropped  area m² (median / p95)  delay steps (mean / p95)"]
    for row in r.itertuples():
        lines.append(f"{row.k_min:>5}  {row.served_share:6.1%}  {row.temporal / max(row.requests, 1):8.1%}  "
                     f"{row.dropped_share:7.1%}  {row.area_median:>10,.0f} / {row.area_p95:<10,.0f}  "
                     f"{row.delay_mean:>9.2f} / {row.delay_p95:<6.1f}")
    first = r.iloc[0]
    lines += ["", "linked share of the forwarded requests (uncloaked baseline first):",
              f"  restricted space   {_pct(first['rs_uncloaked'])} uncloaked  → "
              + ", ".join(f"k={row.k_min}: {_pct(row.rs_cloaked)}" for row in r.itertuples()),
              f"  observation        {_pct(first['obs_uncloaked'])} uncloaked  → "
              + ", ".join(f"k={row.k_min}: {_pct(row.obs_cloaked)}" for row in r.itertuples()),
              f"  complete observer  {_pct(first['obs_complete_uncloaked'])} uncloaked → "
              + ", ".join(f"k={row.k_min}: {_pct(row.obs_complete_cloaked)}" for row in r.itertuples()),
              f"  (weaker 'contains' restricted-space rule, no guarantee: {_pct(first['rs_contains_uncloaked'])} "
              "uncloaked → " + ", ".join(f"k={row.k_min}: {_pct(row.rs_contains_cloaked)}" for row in r.itertuples())
              + ")"]
    lines += ["", "What each k_min costs and buys:"]
    for row in r.itertuples():
        lines += textwrap.wrap(
            f"k_min = {row.k_min}: boxes of {row.area_median:,.0f} m² (median; p95 {row.area_p95:,.0f}), a mean "
            f"wait of {row.delay_mean:.2f} steps, {row.served_share:.1%} of requests served "
            f"({row.dropped_share:.1%} dropped); buys links of at most {_pct(row.obs_complete_max)} per request "
            f"(bound {_pct(row.bound)}) against {_pct(row.obs_complete_uncloaked)} uncloaked for a complete "
            f"observer, {_pct(row.obs_cloaked)} against {_pct(row.obs_uncloaked)} for the partial one, "
            f"{_pct(row.rs_cloaked)} against {_pct(row.rs_uncloaked)} by restricted space.",
            WIDTH, initial_indent="  ", subsequent_indent="    ")
    failed = expectations[expectations["verdict"] != "holds"]
    lines += ["", "Expectations:"]
    for e in expectations.itertuples():
        lines += textwrap.wrap(f"{e.verdict.upper()}: {e.expectation} — {e.measured}", WIDTH, initial_indent="  ",
                               subsequent_indent="    ")
    lines.append("")
    if failed.empty:
        lines.append("Every expectation holds.")
    else:
        lines += textwrap.wrap(f"{len(failed)} expectation(s) do not hold everywhere: "
                               + "; ".join(f"{e.expectation} — {e.verdict}" for e in failed.itertuples()), WIDTH)
    lines += ["", "written:", *(f"  {f}" for f in r.attrs["files"])]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m anonkit.experiments.cloaking [--out DIR] [--quick] [--seed N]``."""
    return quick_main(__file__, __doc__, cli_run, DEFAULT_OUT, argv)


if __name__ == "__main__":
    raise SystemExit(main())
