"""Bad-input catalogue, ARX's heuristics and local recoding: an option of top-down, genetic-search,
flash's ``heuristic`` or flash-local outside ARX's range (or of the wrong type) is refused as the config is
read, naming ``algorithm.<option>``. None of these options existed before; each case then failed with
"not an option"."""

from __future__ import annotations

from bad_input_kit import C, put


def algo(name: str, **options: object) -> tuple[object, ...]:
    return (put("algorithm", {"name": name, **options}),)


CASES = [
    C("topdown-step-limit-zero", 2, ("algorithm.step_limit",), cfg=algo("top-down", step_limit=0)),
    C("topdown-time-limit-negative", 2, ("algorithm.time_limit",), cfg=algo("top-down", time_limit=-1)),
    C("topdown-step-limit-text", 2, ("algorithm.step_limit",), cfg=algo("top-down", step_limit="1000")),
    C("genetic-population-zero", 2, ("algorithm.population_size",), cfg=algo("genetic-search", population_size=0)),
    C("genetic-iterations-zero", 2, ("algorithm.iterations",), cfg=algo("genetic-search", iterations=0)),
    C("genetic-elite-above-one", 2, ("algorithm.elite_fraction",), cfg=algo("genetic-search", elite_fraction=1.5)),
    C("genetic-crossover-negative", 2, ("algorithm.crossover_fraction",),
      cfg=algo("genetic-search", crossover_fraction=-0.2)),
    C("genetic-production-zero", 2, ("algorithm.production_fraction",),
      cfg=algo("genetic-search", production_fraction=0)),
    C("genetic-mutation-above-one", 2, ("algorithm.mutation_probability",),
      cfg=algo("genetic-search", mutation_probability=2)),
    C("genetic-immigration-interval-zero", 2, ("algorithm.immigration_interval",),
      cfg=algo("genetic-search", immigration_interval=0)),
    C("genetic-immigration-fraction-text", 2, ("algorithm.immigration_fraction",),
      cfg=algo("genetic-search", immigration_fraction="0.2")),
    C("flash-unknown-heuristic", 2, ("algorithm.heuristic",), cfg=algo("flash", heuristic="annealing")),
    C("flash-local-gs-above-one", 2, ("algorithm.gs_factor",), cfg=algo("flash-local", gs_factor=1.5)),
    C("flash-local-adaption-negative", 2, ("algorithm.adaption_factor",),
      cfg=algo("flash-local", adaption_factor=-0.05)),
    C("flash-local-iterations-zero", 2, ("algorithm.max_iterations",), cfg=algo("flash-local", max_iterations=0)),
    C("flash-local-unknown-heuristic", 2, ("algorithm.heuristic",), cfg=algo("flash-local", heuristic="tabu")),
]
