"""Explore on Adult (issue 29, item 4): k-anonymity, SafePub and DP synthesis on one risk–utility map.

Run: python benchmarks/bench_explore.py [--out DIR] [--targets N] [--no-synth]

Three series over the bundled Adult table (30,162 records; the roles of ``examples/adult.yaml``: eight
quasi-identifiers, occupation sensitive), each its own config and grid, one ``anonkit explore`` map:

* ``kanon``: k-anonymity by Flash (ARX's Loss, at most 2 % suppressed), k ∈ {2, 5, 10, 20};
* ``safepub``: SafePub's data-dependent search (100 steps, a search budget of 0.1 of ε), δ = 1e-5,
  ε ∈ {0.5, 1, 2};
* ``synth``: ``dp-synthetic`` (MST), δ = 1e-5, ε ∈ {0.5, 1, 2} — when the ``dp`` extra's synthesizer is
  installed (else said and left out). Its domain is declared as the config demands: Adult's categories as
  its codebook lists them (read here from the bundled table, which holds every category of the
  codebook) and age within [17, 90].

SafePub and the synthesizer are **seeded** (reproducible, NOT private: a benchmark only). Every point is
measured alike: the risk is the largest of the singling-out, linkability and inference attacks' risks
(the audit's forms: released cells for k-anonymity and SafePub, nearest neighbour by Gower distance for
the synthetic table; ``--targets`` targets each), the loss the mean two-way marginal TVD. The script
prints the map's rows, each series' CPU and wall seconds and the load average, and writes
``explore.csv``, ``explore.json`` and ``ru-map.png``/``.svg`` into ``--out``.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import resource
import tempfile
import time
from pathlib import Path

import yaml

from anonkit.algorithms import registry
from anonkit.errors import InputError
from anonkit.explore import explore, write_explore
from anonkit.explore.series import parse_series_vary

ROOT = Path(__file__).resolve().parent.parent
#: the grids of the issue
K = (2, 5, 10, 20)
EPSILONS = (0.5, 1, 2)
DELTA = 1e-5
AGE_BOUNDS = (17, 90)


def _attributes() -> dict:
    return yaml.safe_load((ROOT / "examples" / "adult.yaml").read_text())["attributes"]


def configs(targets: int) -> dict[str, dict]:
    """The three series' configs (the synthesizer's only when it is installed)."""
    common = {"input": {"dataset": "adult"}, "attributes": _attributes(), "seed": 0,
              "audit": {"targets": targets}}
    out = {
        "kanon": {**common, "privacy": [{"model": "k-anonymity", "k": 5}],
                  "algorithm": {"name": "flash", "max_suppression": 0.02,
                                "metric": {"name": "loss", "gs": 0.5, "aggregate": "geometric"}}},
        "safepub": {**common, "privacy": [{"model": "differential-privacy", "epsilon": 1.0, "delta": DELTA}],
                    "algorithm": {"name": "safepub", "steps": 100, "search_budget": 0.1, "seeded": True}},
    }
    synth = _synth(common)
    if synth is not None:
        out["synth"] = synth
    return out


def _synth(common: dict) -> dict | None:
    """The DP synthesizer's series, or ``None`` (said) when the ``dp`` extra's synthesizer is missing."""
    try:
        registry.get("dp-synthetic")
    except InputError:
        print("dp-synthetic is not registered: the synth series is left out")
        return None
    if importlib.util.find_spec("mbi") is None:
        print("private-pgm (mbi, the dp extra) is not installed: the synth series is left out")
        return None
    from anonkit import load_adult

    frame, _ = load_adult()
    domain = {c: {"categories": sorted(frame[c].astype(str).unique().tolist())} for c in frame.columns if c != "age"}
    domain["age"] = {"bounds": list(AGE_BOUNDS), "bins": 10, "integer": True}
    return {**common, "privacy": [{"model": "differential-privacy", "epsilon": 1.0, "delta": DELTA}],
            "algorithm": {"name": "dp-synthetic", "method": "mst", "epsilon": 1.0, "delta": DELTA,
                          "domain": domain, "seeded": True}}


def main(args: argparse.Namespace) -> None:
    series = configs(args.targets)
    if args.no_synth:
        series.pop("synth", None)
    folder = Path(tempfile.mkdtemp(prefix="bench-explore-"))
    paths = []
    for name, config in series.items():
        path = folder / f"{name}.yaml"
        path.write_text(yaml.safe_dump(config, sort_keys=False))
        paths.append(path)
    vary = [f"kanon:k={','.join(map(str, K))}", f"epsilon={','.join(map(str, EPSILONS))}"]
    print(f"load average before {os.getloadavg()}")
    c0, t0 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    result = explore(paths[0], also=paths[1:], vary=parse_series_vary(vary), seed=0)
    c1, t1 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    cpu = (c1.ru_utime + c1.ru_stime) - (c0.ru_utime + c0.ru_stime)
    f = result.frame
    shown = f[["series", "label", "satisfied", "risk", "singling_out", "linkability", "inference", "loss", "pareto",
               "suppressed", "seconds"]]
    print(shown.to_string(index=False, float_format=lambda v: f"{v:.4f}"))
    for name in series:
        part = f[f["series"] == name]
        print(f"{name}: {len(part)} runs, {part['seconds'].sum():.1f} s wall in the runs")
    print(f"total: {cpu:.1f} s CPU, {t1 - t0:.1f} s wall (encoding {result.timings['encode']:.1f} s); "
          f"load average after {os.getloadavg()}")
    for note in result.notes:
        print(f"note: {note}")
    for path in write_explore(result, args.out, timings=True):
        print(f"written: {path}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="bench-explore", help="folder for the map's files")
    parser.add_argument("--targets", type=int, default=2000, help="targets of each attack (the audit's default)")
    parser.add_argument("--no-synth", action="store_true", help="leave the DP synthesizer out")
    main(parser.parse_args())
