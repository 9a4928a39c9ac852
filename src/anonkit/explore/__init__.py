"""``anonkit explore``: a grid of runs over privacy parameters and algorithms, and its R-U map.

One config, some of its privacy parameters (or algorithm options) varied over lists of values, one
or more algorithms: every combination is anonymized, verified and judged by a risk and an
information loss, against the audit thresholds and against each other (the Pareto front)::

    from anonkit.explore import explore, parse_vary, write_explore

    result = explore("examples/adult.yaml", vary=parse_vary(["k=2,5,10,20"]), algorithms=["flash", "mondrian"])
    result.frame            # one row per run
    write_explore(result, "adult-explore")   # explore.csv, ru-map.png, ru-map.svg, explore.json

Several configs on one map, each a series with its own grid, measured by the figures every release
has (the attacks' risk, the marginals' distance)::

    explore("kanon.yaml", also=["safepub.yaml", "synth.yaml"], vary=parse_series_vary(["k=2,5", "epsilon=1,2"]))

Modules: :mod:`~anonkit.explore.measures` (the risk and loss choices and their thresholds),
:mod:`~anonkit.explore.grid` (``--vary``, the grid checked before any run),
:mod:`~anonkit.explore.series` (several configs on one map: their rules, ``NAME:KEY`` grids),
:mod:`~anonkit.explore.marginals` (the marginal distances every release has),
:mod:`~anonkit.explore.run` (the runs, on one encoding of the input), :mod:`~anonkit.explore.front`
(thresholds met, the Pareto front), :mod:`~anonkit.explore.write` (the files).
"""

from anonkit.explore.front import meets, pareto_front
from anonkit.explore.grid import parse_algorithms, parse_vary, vary_keys
from anonkit.explore.measures import (
    COMMON_LOSSES,
    COMMON_RISKS,
    DEFAULT_LOSS,
    DEFAULT_RISK,
    LOSSES,
    RISKS,
    risk_limit,
)
from anonkit.explore.run import ExploreResult, explore, resolve_thresholds
from anonkit.explore.series import Series, parse_series_vary
from anonkit.explore.write import FILES, explore_outputs, write_explore

__all__ = [
    "COMMON_LOSSES",
    "COMMON_RISKS",
    "DEFAULT_LOSS",
    "DEFAULT_RISK",
    "FILES",
    "LOSSES",
    "RISKS",
    "ExploreResult",
    "Series",
    "explore",
    "explore_outputs",
    "meets",
    "pareto_front",
    "parse_algorithms",
    "parse_series_vary",
    "parse_vary",
    "resolve_thresholds",
    "risk_limit",
    "vary_keys",
    "write_explore",
]
