"""Full-domain lattice algorithms: OLA, Incognito, Flash (optimal) and Datafly (heuristic).

Golden values: the spec §5 toy — Age (exact → decade → *), Sex (exact → *); records (21,M), (23,M),
(25,F), (32,F), (35,F), (38,M); k = 2. Property tests compare the optimal algorithms with a brute
force enumeration of every node (spec §7 item 3).
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import event, given, note, settings
from hypothesis import strategies as st

from anonkit import Hierarchy, Schema, Table
from anonkit.algorithms import evaluate_node, get_algorithm
from anonkit.algorithms.lattice._brute import brute_force, brute_scores, level_ranges, minimal_nodes, same_score
from anonkit.algorithms.lattice._search import Search, bounds_clearly_worse
from anonkit.algorithms.lattice._space import ANONYMOUS, INFERRED_ANONYMOUS, UNKNOWN
from anonkit.algorithms.lattice.fixed import fixed
from anonkit.algorithms.lattice.incognito import Projections, subset_property_sound
from anonkit.algorithms.lattice.ola import k_minimal
from anonkit.errors import InputError
from anonkit.metrics import SearchMetric, score
from anonkit.models import DistinctLDiversity, KAnonymity, TCloseness
from anonkit.verifier import verify
from lattice_problems import MANY, SETTINGS, Problem, near_best, node_of, problems

OPTIMAL = ("flash", "ola", "incognito")
AGES = [21, 23, 25, 32, 35, 38]
SEXES = ["M", "M", "F", "F", "F", "M"]


def toy_table(order: tuple[str, ...] = ("Age", "Sex")) -> Table:
    h_age = Hierarchy([[str(a), "20-29" if a < 30 else "30-39", "*"] for a in AGES], name="Age")
    h_sex = Hierarchy([["M", "*"], ["F", "*"]], name="Sex")
    frame = pd.DataFrame({"Age": [str(a) for a in AGES], "Sex": SEXES})[list(order)]
    return Table(frame, Schema.of(quasi=list(order), hierarchies={"Age": h_age, "Sex": h_sex}))


def flash_k_minimal(release) -> list[tuple[int, ...]]:
    """Flash's k-minimal nodes read off its tags (complete when it pruned nothing)."""
    assert release.search.counts["pruned"] == 0
    return k_minimal(release.search.lattice, release.search.status)


# ---------------------------------------------------------------------------- the toy (spec §5)
@pytest.mark.parametrize("name", OPTIMAL)
def test_toy_k_minimal_and_optimum(name):
    table = toy_table()
    release = get_algorithm(name)(table, [KAnonymity(2)], metric=SearchMetric("precision"))
    k_min = flash_k_minimal(release) if name == "flash" else release.notes["k_minimal"]
    assert set(k_min) == {(1, 1), (2, 0)}
    assert release.satisfied
    assert release.transformation == {"Age": 2, "Sex": 0}
    assert release.search.score == pytest.approx(0.5, abs=1e-12)
    assert release.n_suppressed == 0
    # every node ends up classified (Flash: none is pruned here, (1,1) lies on its first path),
    # consistently with the lattice listing of the spec
    status, lattice = release.search.status, release.search.lattice
    anonymous = {n for n in itertools.product(range(3), range(2))
                 if status[lattice.id(n)] in (ANONYMOUS, INFERRED_ANONYMOUS)}
    assert anonymous == {(1, 1), (2, 0), (2, 1)}


def test_toy_precision_values():
    table = toy_table()
    metric = SearchMetric("precision")
    assert score(table, fixed(table, [KAnonymity(2)], levels=[2, 0]), metric) == pytest.approx(0.5)
    assert score(table, fixed(table, [KAnonymity(2)], levels=[1, 1]), metric) == pytest.approx(0.75)


@pytest.mark.parametrize(("name", "checks"), [("flash", 4), ("ola", 4), ("incognito", 3)])
def test_toy_check_counts(name, checks):
    """OLA and Flash need 4 checks (spec §5); Incognito 3 on the full lattice after its subset
    round prunes the age-level-0 nodes (spec §5.2 example)."""
    release = get_algorithm(name)(toy_table(), [KAnonymity(2)], metric=SearchMetric("precision"))
    assert release.search.counts["checked"] == checks
    if name == "incognito":
        assert release.notes["pruned_by_subsets"] == 2  # (0,0) and (0,1)
        assert release.notes["subset_checks"] == 3  # Age 0 fails, Age 1 passes, Sex 0 passes


def test_toy_with_two_records_suppression():
    # (1,0) qualifies with MaxSup = 2 records; under Precision it is the optimum (0.25)
    for name in OPTIMAL:
        release = get_algorithm(name)(toy_table(), [KAnonymity(2)], max_suppression=2 / 6,
                                      metric=SearchMetric("precision"))
        assert node_of(release) == (1, 0)
        assert release.n_suppressed == 2


def test_toy_datafly():
    table = toy_table()
    # Sweeney's rule S = k = 2: Age (6 distinct) > Sex (2) → Age to 1; 2 bad records ≤ 2 → stop
    default = get_algorithm("datafly")(table, [KAnonymity(2)])
    assert default.transformation == {"Age": 1, "Sex": 0}
    assert default.satisfied
    assert default.n_suppressed == 2
    assert {(AGES[i], SEXES[i]) for i in np.flatnonzero(default.suppressed)} == {(25, "F"), (38, "M")}
    assert default.notes["path"] == [(0, 0), (1, 0)]
    assert default.notes["suppression_allowance"] == 2
    assert get_algorithm("datafly")(table, [KAnonymity(2)], suppression_allowance=2).transformation == {
        "Age": 1, "Sex": 0}
    # S = 0: then Age 2 = Sex 2 distinct, the tie goes to Age (listed first) → (2,0)
    for kwargs in ({"suppression_allowance": 0}, {"max_suppression": 0.0}):
        strict = get_algorithm("datafly")(table, [KAnonymity(2)], **kwargs)
        assert strict.transformation == {"Age": 2, "Sex": 0}
        assert strict.satisfied
        assert strict.n_suppressed == 0
        assert strict.notes["path"] == [(0, 0), (1, 0), (2, 0)]
    # the tie rule matters: with Sex listed first the tie goes to Sex → Age 1, Sex 1
    swapped = get_algorithm("datafly")(toy_table(("Sex", "Age")), [KAnonymity(2)], suppression_allowance=0)
    assert swapped.transformation == {"Sex": 1, "Age": 1}
    assert swapped.n_suppressed == 0


def test_datafly_allowance_too_small_is_not_satisfied():
    # one record allowed at (1,0) where two fail: go on to (2,0)
    release = get_algorithm("datafly")(toy_table(), [KAnonymity(2)], max_suppression=1 / 6)
    assert release.transformation == {"Age": 2, "Sex": 0}
    with pytest.raises(InputError, match="suppression_allowance"):
        get_algorithm("datafly")(toy_table(), [KAnonymity(2)], suppression_allowance=-1)


def test_unsatisfiable_everywhere():
    """A sensitive attribute with one value can never be 2-diverse: no algorithm finds a solution,
    every record is withheld, and Datafly stops at the top node."""
    h_age = Hierarchy([[str(a), "20-29" if a < 30 else "30-39", "*"] for a in AGES], name="Age")
    frame = pd.DataFrame({"Age": [str(a) for a in AGES], "S": ["x"] * 6})
    table = Table(frame, Schema.of(quasi=["Age"], sensitive=["S"], hierarchies={"Age": h_age}))
    models = [DistinctLDiversity("S", 2)]
    for name in (*OPTIMAL, "datafly"):
        release = get_algorithm(name)(table, models, max_suppression=0.5)
        assert not release.satisfied, name
        assert release.n_suppressed == 6
        assert node_of(release) == (2,)


def test_single_quasi_identifier():
    h_age = Hierarchy([[str(a), "20-29" if a < 30 else "30-39", "*"] for a in AGES], name="Age")
    table = Table(pd.DataFrame({"Age": [str(a) for a in AGES]}), Schema.of(quasi=["Age"], hierarchies={"Age": h_age}))
    for name in OPTIMAL:
        release = get_algorithm(name)(table, [KAnonymity(3)])
        assert node_of(release) == (1,)
        if name != "flash":
            assert release.notes["k_minimal"] == [(1,)]


def test_bottom_anonymous_through_suppression():
    """MaxSup large enough to make the bottom node anonymous (spec §7.1)."""
    for name in OPTIMAL:
        release = get_algorithm(name)(toy_table(), [KAnonymity(2)], max_suppression=1.0,
                                      metric=SearchMetric("height"))
        assert node_of(release) == (0, 0)
        assert release.n_suppressed == 6
        if name != "flash":
            assert release.notes["k_minimal"] == [(0, 0)]


# ---------------------------------------------------------------------------- random problems
# (drawn by lattice_problems.problems)
ANON = (ANONYMOUS, INFERRED_ANONYMOUS)


def assert_tags_agree(name: str, lat, status, anonymous: set) -> None:
    for nid in np.flatnonzero(status != UNKNOWN):
        node = lat.node(int(nid))
        assert (int(status[nid]) in ANON) == (node in anonymous), (name, node, int(status[nid]))


def check_against_brute_force(problem: Problem, names: tuple[str, ...] = OPTIMAL) -> None:
    table, models, metric = problem.table, problem.models, problem.metric
    scores = brute_scores(table, models, max_suppression=problem.max_suppression, metric=metric)
    anonymous = set(scores)
    best = min(scores.values()) if scores else None
    best_nodes = {node for node, value in scores.items() if same_score(value, best)}
    minimal = minimal_nodes(anonymous)
    size = int(np.prod([len(r) for r in level_ranges(table)]))
    event(f"lattice size {'<8' if size < 8 else '<27' if size < 27 else '≥27'}")
    share = len(anonymous) / size
    event(f"anonymous nodes: {'none' if not anonymous else 'all' if share == 1 else 'some'}")
    mono_anonymous = None
    for name in names:
        release = get_algorithm(name)(table, models, max_suppression=problem.max_suppression, metric=metric)
        search = Search(table, models, max_suppression=problem.max_suppression, metric=metric)  # its properties
        if name == names[0]:
            event("monotone" if search.fully_monotone else "not monotone")
        # every tag (checked or inferred) agrees with the brute force
        assert_tags_agree(name, release.search.lattice, release.search.status, anonymous)
        if not search.fully_monotone and search.has_traversal:
            # ... and so does the classification by the monotonic models alone
            if mono_anonymous is None:
                mono_models = [m for m in models if m.qis is None and search.monotone(m)]
                mono_anonymous = set(brute_scores(table, mono_models, max_suppression=problem.max_suppression,
                                                  metric=SearchMetric("height")))
            assert_tags_agree(name, release.search.lattice, release.search.traversal_status, mono_anonymous)
        if best is None:
            assert not release.satisfied, name
            continue
        assert release.satisfied, name
        node = node_of(release)
        assert node in anonymous, (name, node)
        assert same_score(release.search.score, scores[node]), (name, release.search.score, scores[node])
        assert near_best(scores[node], best, metric), (name, node, scores[node], best, best_nodes)
        if name == "flash":
            assert_only_pruned_unknown(search, release)
        elif search.fully_monotone:
            assert set(release.notes["k_minimal"]) == minimal, name


def assert_only_pruned_unknown(search: Search, release) -> None:
    """Flash classifies every node except those whose lower bound is clearly worse than the optimum
    (so they can neither be optimal nor tie with it): those it may leave unknown."""
    status = release.search.traversal_status
    unknown = np.flatnonzero(status == UNKNOWN)
    assert release.search.counts["pruned"] == unknown.size
    if unknown.size:
        assert release.satisfied
        worse = bounds_clearly_worse(search.bounds, release.search.score if search.bounds.ndim == 1
                                     else tuple(release.search.score))
        assert worse[unknown].all()


@settings(max_examples=60, **SETTINGS)
@given(problem=problems())
def test_optimal_algorithms_match_brute_force(problem: Problem) -> None:
    check_against_brute_force(problem)


@settings(max_examples=60, **SETTINGS)
@given(problem=problems(variants=True))
def test_optimal_algorithms_match_brute_force_variants(problem: Problem) -> None:
    check_against_brute_force(problem)


@pytest.mark.slow
@settings(max_examples=MANY, **SETTINGS)
@given(problem=problems())
def test_optimal_algorithms_match_brute_force_many(problem: Problem) -> None:
    check_against_brute_force(problem)


@pytest.mark.slow
@settings(max_examples=MANY, **SETTINGS)
@given(problem=problems(variants=True))
def test_optimal_algorithms_match_brute_force_variants_many(problem: Problem) -> None:
    check_against_brute_force(problem)


@st.composite
def weighted_loss_problems(draw) -> Problem:
    """A random problem (either kind) scored by Loss with any aggregate, rank most often, and random
    attribute weights (ARX's ``setAttributeWeight``; normalized by the largest, all 0 = all 1)."""
    problem = draw(problems(variants=draw(st.booleans())))
    aggregate = draw(st.sampled_from(["rank", "rank", "rank", "geometric", "sum", "max", "arithmetic"]))
    metric = SearchMetric("loss", draw(st.sampled_from([0.5, 0.5, 0.2, 0.8, 0.0, 1.0])), aggregate)
    weights = {q: draw(st.sampled_from([0.0, 0.25, 0.5, 1.0, 3.0])) for q in problem.table.qi}
    for q, w in weights.items():
        problem.table.schema[q].weight = w
    note(f"weights={weights}")
    return Problem(problem.table, problem.models, problem.max_suppression, metric)


@settings(max_examples=40, **SETTINGS)
@given(problem=weighted_loss_problems())
def test_optimal_algorithms_match_brute_force_weighted_loss(problem: Problem) -> None:
    """Lower-bound pruning stays sound with unequal weights (ARX's TestUtilityMetricsLoss weights
    its attributes in half of its cases)."""
    check_against_brute_force(problem)


@pytest.mark.slow
@settings(max_examples=MANY, **SETTINGS)
@given(problem=weighted_loss_problems())
def test_optimal_algorithms_match_brute_force_weighted_loss_many(problem: Problem) -> None:
    check_against_brute_force(problem)


@settings(max_examples=40, **SETTINGS)
@given(problem=problems(variants=True))
def test_datafly_returns_a_verified_lattice_node(problem: Problem) -> None:
    table, models = problem.table, problem.models
    allowance = int(problem.max_suppression * table.n + 1e-9)
    release = get_algorithm("datafly")(table, models, max_suppression=problem.max_suppression, metric=problem.metric)
    node = node_of(release)
    assert all(lv in r for lv, r in zip(node, level_ranges(table), strict=True))
    ev = evaluate_node(table, node, models, problem.max_suppression)
    assert release.satisfied == ev.anonymous == (ev.suppressed <= allowance)
    assert release.n_suppressed == ev.suppressed + int(table.presuppressed.sum())  # + missing values
    # it stopped at the first node of its path within the allowance, or at the top
    path = release.notes["path"]
    assert path[0] == tuple(r.start for r in level_ranges(table)) and path[-1] == node
    for a, b in itertools.pairwise(path):
        assert sum(b) - sum(a) == 1 and all(y >= x for x, y in zip(a, b, strict=True))
    for earlier in path[:-1]:
        assert evaluate_node(table, earlier, models, problem.max_suppression).suppressed > allowance
    if not release.satisfied:
        assert node == tuple(r.stop - 1 for r in level_ranges(table))
    else:
        reference = {s: table.frame[s] for s in table.sensitive}
        assert verify(release.to_frame(), table.schema, models, reference=reference).ok


@settings(max_examples=30, **SETTINGS)
@given(problem=problems(variants=True))
def test_optimal_releases_pass_the_verifier(problem: Problem) -> None:
    table, models = problem.table, problem.models
    reference = {s: table.frame[s] for s in table.sensitive}
    for name in OPTIMAL:
        release = get_algorithm(name)(table, models, max_suppression=problem.max_suppression, metric=problem.metric)
        if release.satisfied:
            presuppressed = int(table.presuppressed.sum())  # missing values, outside the limit
            assert release.n_suppressed - presuppressed <= int(problem.max_suppression * table.n + 1e-9)
            assert verify(release.to_frame(), table.schema, models, reference=reference).ok


# ---------------------------------------------------------------------------- Incognito's subset property
@settings(max_examples=40, **SETTINGS)
@given(problem=problems(variants=True))
def test_subset_property_holds_where_incognito_prunes(problem: Problem) -> None:
    """Wherever Incognito prunes, a full node that is anonymous has anonymous projections."""
    search = Search(problem.table, problem.models, max_suppression=problem.max_suppression, metric=problem.metric)
    if not subset_property_sound(search):
        return
    proj = Projections(search)
    table = problem.table
    d = len(table.qi)
    for node in itertools.product(*level_ranges(table)):
        if not evaluate_node(table, node, problem.models, problem.max_suppression).anonymous:
            continue
        for size in range(1, d):
            for subset in itertools.combinations(range(d), size):
                assert proj.anonymous(subset, tuple(node[j] for j in subset)), (node, subset)


def test_subset_property_fails_for_t_closeness_with_suppression():
    """Why Incognito does not prune with t-closeness and suppression: the full node keeps a t-close
    class and suppresses the rest within the limit, but on A alone that class is merged with
    failing records into classes that are not t-close, and every record is suppressed."""
    frame = pd.DataFrame({
        "A": ["a"] * 4 + ["b"] * 4,
        "B": ["x", "x", "y", "y", "z", "z", "z", "z"],
        "S": ["0", "1", "0", "0", "1", "1", "0", "1"],
    })
    table = Table(frame, Schema.of(quasi=["A", "B"], sensitive=["S"]))
    models = [TCloseness("S", 0.1)]
    limit = 6 / 8
    # full node (0,0): classes ax {0,1} (t-close: the reference is 1/2, 1/2), ay {0,0}, bz {1,1,0,1}
    ev = evaluate_node(table, (0, 0), models, limit)
    assert ev.anonymous and ev.suppressed == 6
    search = Search(table, models, max_suppression=limit)
    assert not search.fully_monotone
    assert not subset_property_sound(search)
    # the projection on A: a {0,1,0,0} and b {1,1,0,1}, both 1/4 from the reference: 8 suppressed
    assert not Projections(search, models).anonymous((0,), (0,))
    # Incognito (no pruning here) finds the brute-force optimum
    best, best_nodes, _ = brute_force(table, models, max_suppression=limit, metric=SearchMetric("height"))
    release = get_algorithm("incognito")(table, models, max_suppression=limit, metric=SearchMetric("height"))
    assert best_nodes == {(0, 0)}
    assert node_of(release) == (0, 0) and release.search.score == best == 0.0


def test_projections_are_judged_on_their_own_classes():
    """A projection groups the records by the subset only, which is coarser than lifting the other
    attributes to their top level when that level has several values."""
    h_a = Hierarchy([["1", "lo"], ["2", "lo"], ["3", "hi"], ["4", "hi"]], name="A")
    h_b = Hierarchy([["x", "*"], ["y", "*"]], name="B")
    frame = pd.DataFrame({"A": ["1", "2", "3", "4"], "B": ["x", "y", "x", "y"]})
    table = Table(frame, Schema.of(quasi=["A", "B"], hierarchies={"A": h_a, "B": h_b}))
    proj = Projections(Search(table, [KAnonymity(2)]))
    assert proj.anonymous((1,), (0,))  # B alone: x ×2, y ×2
    assert not evaluate_node(table, (1, 0), [KAnonymity(2)], 0.0).anonymous  # A lifted to its top
    assert not proj.anonymous((0,), (0,))
    assert proj.anonymous((0,), (1,))
    for name in OPTIMAL:
        release = get_algorithm(name)(table, [KAnonymity(2)], metric=SearchMetric("height"))
        assert node_of(release) == (1, 1)
        assert release.satisfied


# ---------------------------------------------------------------------------- determinism
@settings(max_examples=15, **SETTINGS)
@given(problem=problems(variants=True))
def test_deterministic(problem: Problem) -> None:
    frame = problem.table.frame
    for name in (*OPTIMAL, "datafly"):
        runs = []
        for _ in range(2):
            table = Table(frame.copy(), problem.table.schema, missing=problem.table.missing)
            release = get_algorithm(name)(table, problem.models, max_suppression=problem.max_suppression,
                                          metric=problem.metric)
            runs.append((release.transformation, release.satisfied, release.search.score,
                         release.record_class.tolist()))
        assert runs[0] == runs[1], name


# ---------------------------------------------------------------------------- regressions: records suppressed up front
@pytest.mark.parametrize("name", OPTIMAL)
def test_bug_nonmonotonic_entropy_with_presuppressed_records(name):
    # the two records with a missing A are suppressed up front; their B values 0, 1 cost
    # 2 bits of suppression entropy at B level 0 and nothing at B level 1
    frame = pd.DataFrame({"A": ["", "", "x", "x"], "B": ["0", "1", "0", "1"]})
    table = Table(frame, Schema.of(quasi=["A", "B"]), missing="suppress")
    metric = SearchMetric("entropy", monotonic=False, gs=1.0)
    best, best_nodes, _ = brute_force(table, [KAnonymity(1)], metric=metric)
    assert best == 0.0 and best_nodes == {(0, 1), (1, 1)}
    release = get_algorithm(name)(table, [KAnonymity(1)], metric=metric)
    assert release.search.score == best  # got (0, 0) scoring 2.0: only minimal nodes were considered


def test_bug_dm_star_with_presuppressed_records():
    frame = pd.DataFrame({"A": ["a"] * 5 + [""]})
    table = Table(frame, Schema.of(quasi=["A"]), missing="suppress")
    search = Search(table, [KAnonymity(1)], metric=SearchMetric("dm*"))
    ev = search.evaluate((0,))
    reported = score(table, fixed(table, [KAnonymity(1)], levels=[0]), SearchMetric("dm*"))
    assert reported == 26.0  # 5² for the released class, 1² for the suppressed record
    assert search.scorer.exact(ev) == reported  # the search ranks nodes by 25.0
