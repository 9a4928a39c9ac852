"""``anonkit explore``: a grid of parameters and algorithms on one encoding, and its R-U map; with
``--also``, several configs (series) on one map (:mod:`anonkit.explore.series`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from anonkit.cli import console
from anonkit.cli.options import whole_number
from anonkit.cli.printers.listings import print_explore
from anonkit.cli.running import with_steps
from anonkit.errors import InputError


def explore_command(
    config: Annotated[Path, typer.Argument(help="YAML config file (its models, algorithm and audit thresholds).")],
    vary: Annotated[list[str], typer.Option("--vary", help="KEY=V1,V2 (any number of values): a model parameter (k, l, "
                                            "c, t, beta, delta, epsilon, J, lambda and more) or algorithm option to "
                                            "vary; repeat for a grid. With --also it varies every config that has "
                                            "it; NAME:KEY=V1,V2 varies the config NAME.yaml only.")],
    also: Annotated[list[Path] | None, typer.Option("--also", help="Another config on the same map (a series of "
                                                    "its own: same input and roles, e.g. SafePub or a DP "
                                                    "synthesizer beside k-anonymity); repeat for more.")] = None,
    algorithms: Annotated[str | None, typer.Option("--algorithms", help="Algorithms to run, e.g. flash,mondrian "
                                                   "(default: the config's; not with --also).")] = None,
    risk: Annotated[str | None, typer.Option("--risk", help="The risk on the map's x axis: prosecutor_highest "
                                             "(default for one config), prosecutor_average, records_at_risk, "
                                             "sample_uniqueness, record_linkage, journalist_*, marketer_average, "
                                             "population_uniqueness; or an attack's, defined for every release: "
                                             "attack_risk (default with --also), singling_out, linkability, "
                                             "inference.")] = None,
    loss: Annotated[str | None, typer.Option("--loss", help="The information loss on the y axis, e.g. loss "
                                             "(default for one config), gcp, dm, entropy, precision; or a marginal "
                                             "distance, defined for every release: two_way_tvd (default with "
                                             "--also), one_way_tvd.")] = None,
    out: Annotated[str, typer.Option("--out", help="Folder for explore.csv, ru-map.png/.svg and explore.json.")]
    = "explore",
    input: Annotated[str | None, typer.Option("--input", help="Read this table instead of the config's input.")]
    = None,
    seed: Annotated[str | None, typer.Option("--seed", help="Seed of every run (default: the config's).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print explore.json's content.")] = False,
) -> None:
    """Run the config over a grid of parameters and algorithms and map information loss against risk.

    The input is encoded once; the map shows the runs that meet the audit thresholds and the Pareto front.
    With --also, each config is a series of the same map, measured by the same attacks and marginals."""
    from anonkit.config import load_config
    from anonkit.explore import explore, explore_outputs, parse_algorithms, parse_vary, write_explore
    from anonkit.explore.series import as_series, parse_series_vary
    from anonkit.plan import plan_from_config
    from anonkit.release import check_seed

    try:
        run_seed = None if seed is None else check_seed(whole_number(seed, "--seed"))
        cfg = load_config(config)
        names = parse_algorithms(algorithms)
        series = [as_series(path, input_path=input) for path in also or ()]
        grid = parse_series_vary(vary) if series else parse_vary(vary, cfg, names)
        explore_outputs(out, cfg, config_dir=config.parent, config_file=config, input_path=input)
        for s in series:
            explore_outputs(out, s.config, config_dir=s.base, config_file=s.config_file, input_path=input)
        plan = plan_from_config(cfg, config_dir=config.parent, config_file=config, input_path=input, seed=run_seed,
                                writes=False)
        result = with_steps(lambda step: explore(plan, vary=grid, algorithms=names, also=series, risk=risk, loss=loss,
                                                 progress=step))
        written = write_explore(result, out)
    except InputError as exc:
        console.fail(exc, 2)
    if as_json:
        console.print_json(result.to_json(timings=False))
        return
    print_explore(result, [k for k in result.frame.columns if k in {c.rpartition(":")[2] for c in grid}],
                  result.risk, result.loss, written)
