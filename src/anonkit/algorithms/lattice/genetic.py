"""ARX's genetic algorithm over the full-domain lattice (``BEST_EFFORT_GENETIC``; Wan et al., "Expanding
access to large-scale genomic data while promoting privacy: a game theoretic approach", AJHG 100(2),
2017), for lattices too large to classify completely. Seeded: the same seed gives the same result.

An *individual* is a transformation (a level per quasi-identifier); its *loss* is the metric's value
with its failing classes suppressed (failing individuals take part too); the best anonymous individual
ever checked is the result. As ARX's source defines it, with ``k = d + population_size`` individuals
in each of two sub-populations:

1. **Start.** Sub-population 1 holds the "triangle" — for ``i < d``, attributes ``0..i`` at their
   highest level and the rest at their lowest — then random individuals; sub-population 2 random
   individuals. A random level of attribute ``j`` is ``min_j + round(u · (max_j − min_j))``, ``u``
   uniform in [0, 1) (ARX's rounding: the end levels come half as often).
2. **Generations** (``iterations`` of them). Sort each sub-population by loss, ascending (stable).
   Every ``immigration_interval``-th generation (the first included) each sub-population passes its
   ``⌊immigration_fraction · k⌋`` fittest individuals to the other (ARX writes ``(int) fraction * k``,
   which casts the fraction first and so never migrates anyone; we use the documented meaning).
   Then, in each sub-population, from a copy of it:

   * the ``⌈elite_fraction · k⌉`` fittest stay;
   * ``⌈crossover_fraction · k⌉`` children replace the last individuals: each takes every level from
     one of two parents (a fair coin per attribute), the parents drawn with replacement from the
     ``⌈production_fraction · k⌉`` fittest with probability proportional to the fitness
     ``1 − (loss − min) / (max − min)`` among them (all 1 when their losses are equal);
   * every other place gets a mutant of an individual drawn uniformly from the copy: ``r`` levels,
     ``r`` uniform in ``0..⌈mutation_probability · d⌉``, at distinct random attributes, set to random
     levels.

3. **Stop** after the generations, or at the wall-clock ``time_limit``, or before a check beyond
   ``step_limit`` (a transformation is checked once; a repeated individual costs nothing).

ARX's deterministic mode fixes Java's generator at one seed; here the seed is the run's ``seed``
(numpy's PCG64), so results agree with ARX in distribution over seeds, not draw for draw.
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Mapping, Sequence
from typing import Annotated

import numpy as np
from pydantic import Field

from anonkit.algorithms.common import DEFAULT_MAX_SUPPRESSION, MaxSuppression
from anonkit.algorithms.lattice._heuristic import (
    STOP_DONE,
    STOP_STEPS,
    STOP_TIME,
    Checker,
    as_number,
    budget_reason,
)
from anonkit.algorithms.lattice._search import Search
from anonkit.algorithms.lattice._space import DEFAULT_TIME_LIMIT
from anonkit.algorithms.spec import algorithm
from anonkit.models import Criterion
from anonkit.release import Release
from anonkit.table import Table

Node = tuple[int, ...]
Fraction = Annotated[float, Field(ge=0, le=1)]

#: ARX's defaults (``ARXConfiguration``): individuals per sub-population (plus one per attribute),
#: generations, fractions and the mutation bound
DEFAULT_POPULATION_SIZE = 100
DEFAULT_ITERATIONS = 50
DEFAULT_ELITE_FRACTION = 0.2
DEFAULT_CROSSOVER_FRACTION = 0.2
DEFAULT_PRODUCTION_FRACTION = 0.2
DEFAULT_MUTATION_PROBABILITY = 0.2
DEFAULT_IMMIGRATION_FRACTION = 0.2
DEFAULT_IMMIGRATION_INTERVAL = 10
#: the seed flash's genetic fallback uses (flash takes no seed; ARX's deterministic mode fixes one too)
FALLBACK_SEED = 0


class _Stop(Exception):
    """The budget ran out (raised out of the generation loop)."""


class _Genetic:
    """One run (module docstring)."""

    def __init__(self, checker: Checker, rng: np.random.Generator, options: Mapping[str, float | int]) -> None:
        self.checker = checker
        self.rng = rng
        self.o = options
        self.lo = [int(x) for x in checker.lattice.min]
        self.hi = [int(x) for x in checker.lattice.max]
        self.d = len(self.lo)

    def loss(self, node: Node) -> float:
        return as_number(self.checker.seen[node][1])

    def individual(self, levels: list[int]) -> Node:
        node = tuple(levels)
        if self.checker.check(node) is None:
            raise _Stop
        return node

    def random_level(self, j: int) -> int:
        return self.lo[j] + math.floor(self.rng.random() * (self.hi[j] - self.lo[j]) + 0.5)

    def random_individual(self) -> Node:
        return self.individual([self.random_level(j) for j in range(self.d)])

    def sort(self, population: list[Node]) -> None:
        population.sort(key=self.loss)  # stable, as Java's List.sort

    def parents(self, population: list[Node], production: int, count: int) -> list[Node]:
        pool = population[:production]
        losses = np.array([self.loss(n) for n in pool])
        lo, hi = float(losses.min()), float(losses.max())
        fitness = 1.0 - ((losses - lo) / (hi - lo) if hi > lo else np.zeros(len(pool)))
        cumulative = np.cumsum(fitness / fitness.sum())
        picks = np.searchsorted(cumulative, self.rng.random(count), side="right")
        return [pool[min(int(i), len(pool) - 1)] for i in picks]

    def mutant(self, node: Node) -> Node:
        levels = list(node)
        most = math.ceil(self.o["mutation_probability"] * self.d)
        count = int(self.rng.integers(0, most + 1))
        for j in self.rng.permutation(self.d)[:count]:
            levels[int(j)] = self.random_level(int(j))
        return self.individual(levels)

    def generation(self, population: list[Node]) -> None:
        old = list(population)
        k = len(population)
        crossover = math.ceil(self.o["crossover_fraction"] * k)
        elite = math.ceil(self.o["elite_fraction"] * k)
        production = max(1, math.ceil(self.o["production_fraction"] * k))
        first = self.parents(population, production, crossover)
        second = self.parents(population, production, crossover)
        for c in range(crossover):
            coins = self.rng.random(self.d) < 0.5
            child = [first[c][j] if coins[j] else second[c][j] for j in range(self.d)]
            population[k - c - 1] = self.individual(child)
        for m in range(elite, k - crossover):
            population[m] = self.mutant(old[int(self.rng.integers(0, k))])

    def run(self) -> None:
        k = self.d + int(self.o["population_size"])
        one: list[Node] = []
        for i in range(k):
            if i < self.d:
                one.append(self.individual([self.hi[j] if j <= i else self.lo[j] for j in range(self.d)]))
            else:
                one.append(self.random_individual())
        two = [self.random_individual() for _ in range(k)]
        migrants = int(self.o["immigration_fraction"] * k)
        for t in range(int(self.o["iterations"])):
            self.sort(one)
            self.sort(two)
            if t % int(self.o["immigration_interval"]) == 0 and migrants:
                to_two, one[:] = one[:migrants], one[migrants:]
                two.extend(to_two)
                to_one, two[:] = two[:migrants], two[migrants:]
                one.extend(to_one)
                self.sort(one)
                self.sort(two)
            self.generation(one)
            self.generation(two)


def _explain(table: Table, models: list[Criterion], release: Release, options: Mapping[str, object]) -> str | None:
    if release.satisfied:
        return None
    return budget_reason("genetic-search", release.notes.get("stopped"), int(release.notes.get("steps", 0)))


@algorithm("genetic-search", family="lattice", summary="ARX's genetic algorithm over the full-domain lattice "
           "(BEST_EFFORT_GENETIC), seeded, within a time and step limit", randomized=True, explain=_explain,
           label="Genetic")
def genetic(
    table: Table,
    models: Sequence[Criterion],
    *,
    max_suppression: MaxSuppression = DEFAULT_MAX_SUPPRESSION,
    metric: object = None,
    seed: int = FALLBACK_SEED,
    population_size: Annotated[int, Field(ge=1, le=100_000)] = DEFAULT_POPULATION_SIZE,
    iterations: Annotated[int, Field(ge=1, le=1_000_000)] = DEFAULT_ITERATIONS,
    elite_fraction: Fraction = DEFAULT_ELITE_FRACTION,
    crossover_fraction: Fraction = DEFAULT_CROSSOVER_FRACTION,
    production_fraction: Annotated[float, Field(gt=0, le=1)] = DEFAULT_PRODUCTION_FRACTION,
    mutation_probability: Fraction = DEFAULT_MUTATION_PROBABILITY,
    immigration_fraction: Fraction = DEFAULT_IMMIGRATION_FRACTION,
    immigration_interval: Annotated[int, Field(ge=1)] = DEFAULT_IMMIGRATION_INTERVAL,
    time_limit: Annotated[float, Field(gt=0)] | None = DEFAULT_TIME_LIMIT,
    step_limit: Annotated[int, Field(ge=1)] | None = None,
) -> Release:
    """ARX's genetic algorithm, see the module docstring.

    Parameters
    ----------
    max_suppression:
        Share of the records the models may suppress.
    population_size:
        Individuals per sub-population, besides one per quasi-identifier (ARX: 100).
    iterations:
        Generations (ARX: 50).
    elite_fraction:
        Share of each sub-population kept unchanged in a generation (ARX: 0.2).
    crossover_fraction:
        Share replaced by children of two parents in a generation (ARX: 0.2).
    production_fraction:
        Share of the fittest that parents are drawn from (ARX: 0.2).
    mutation_probability:
        Bound on the share of levels a mutation changes (ARX: 0.2).
    immigration_fraction:
        Share of the fittest that move to the other sub-population at a migration (ARX: 0.2).
    immigration_interval:
        Generations between migrations (ARX: 10).
    time_limit:
        Wall-clock seconds after which the search stops (none: no limit).
    step_limit:
        Node checks after which the search stops (none: no limit; ARX's tests use 1,000).

    Returns
    -------
    Release
        The best anonymous transformation checked (``satisfied`` false, with the top node's release,
        if none was). ``notes`` hold ``heuristic`` (True), ``steps`` (checks made), ``stopped``
        (``"time"``, ``"steps"`` or ``"done"``: the generations ran out) and ``seed``.
    """
    started = time.perf_counter()
    search = Search(table, models, max_suppression=max_suppression, metric=metric)
    checker = Checker(search, time_limit, step_limit)
    options = dict(population_size=population_size, iterations=iterations, elite_fraction=elite_fraction,
                   crossover_fraction=crossover_fraction, production_fraction=production_fraction,
                   mutation_probability=mutation_probability, immigration_fraction=immigration_fraction,
                   immigration_interval=immigration_interval)
    with contextlib.suppress(_Stop):  # the budget ran out: the best so far stands
        _Genetic(checker, np.random.default_rng(int(seed)), options).run()
    node = checker.chosen()
    stopped = checker.stopped or STOP_DONE
    rel = search.release("genetic-search", node, heuristic=True, steps=checker.steps, stopped=stopped, seed=int(seed))
    rel.params.update(options, time_limit=time_limit, step_limit=step_limit, seed=int(seed))
    rel.seconds = time.perf_counter() - started
    why = {STOP_TIME: "stopped at the time limit", STOP_STEPS: "stopped at the step limit"}.get(
        stopped, f"{iterations} generations")
    if node is None and stopped in (STOP_TIME, STOP_STEPS):
        rel.message = str(budget_reason("genetic-search", stopped, checker.steps))
    else:
        rel.message += f"; best-effort genetic search (seed {int(seed)}, {why}, {checker.steps} checks), " \
                       "not guaranteed optimal"
    return rel


__all__ = ["FALLBACK_SEED", "genetic"]
