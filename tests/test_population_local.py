"""k-map and δ-presence under local recoding (issue 27, item 1: Mondrian and the clustering family).

* Hand-counted toys: Mondrian's cut is allowed only when both children's published boxes still
  cover k population records (δ within dmax); MDAV merges a cluster until its interval covers k.
* The verifier's recount for any release shape (``cover_counts``) equals the full-domain recount
  (``level_counts``) on flash releases, and a brute-force recount (every population row tested
  against every class's published cells) on Mondrian and MDAV releases.
* Hypothesis: random tables with a random research subset; every release of Mondrian (strict,
  relaxed) and MDAV under k-map or δ-presence passes the verifier and the brute-force recount, and
  a tampered release (the published cells replaced by the research records' own values) is caught.
* Refusals: the algorithms that cannot count the population name those that can; dmin > 0 and MDAV's
  centroids under a population model are refused before any work.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonkit import anonymize
from anonkit._verify_population import cover_counts, level_counts, population_counts
from anonkit.errors import InputError, UnsatisfiableError
from anonkit.hierarchy import Hierarchy
from anonkit.models import DeltaPresence, EstimatedKMap, KAnonymity, KMap
from anonkit.schema import Schema
from anonkit.verifier import group_rows, verify

INTERVAL = re.compile(r"^\[(-?[\d.]+)-(-?[\d.]+)\]$")
LETTERS = Hierarchy([["a", "ab", "*"], ["b", "ab", "*"], ["c", "cd", "*"], ["d", "cd", "*"]], name="g")


# ------------------------------------------------------------------------------------ a brute-force recount
def _covers(cell: str, value: str, h: Hierarchy | None) -> bool:
    """Whether a published cell covers an original value, read the plain way (no shared code)."""
    m = INTERVAL.match(cell)
    if m:
        return float(m.group(1)) <= float(value) <= float(m.group(2))
    if cell == value or cell == "*":
        return True
    if h is None:
        try:
            return float(cell) == float(value)
        except ValueError:
            return False
    rows = {str(r[0]): [str(x) for x in r] for r in h.rows()}
    return cell in rows.get(value, [])


def _brute(release: pd.DataFrame, population: pd.DataFrame, qis: list[str],
           hierarchies: dict[str, Hierarchy]) -> dict[tuple[str, ...], tuple[int, int]]:
    """Per published class (its cells): (its released records, the population rows its cells cover)."""
    out = {}
    for cells, group in release.groupby(qis, sort=False):
        cells = cells if isinstance(cells, tuple) else (cells,)
        covered = sum(all(_covers(str(c), str(row[q]), hierarchies.get(q)) for c, q in zip(cells, qis, strict=True))
                      for _, row in population.iterrows())
        out[tuple(str(c) for c in cells)] = (len(group), covered)
    return out


# ------------------------------------------------------------------------------------ hand-counted toys
def _ages(values: list[int], researched: list[int]) -> tuple[pd.DataFrame, Schema, np.ndarray]:
    frame = pd.DataFrame({"age": [str(v) for v in values], "d": ["x"] * len(values)})
    subset = np.zeros(len(values), dtype=bool)
    for v in researched:  # the first not-yet-chosen person of that age
        subset[next(i for i, a in enumerate(values) if a == v and not subset[i])] = True
    return frame, Schema.of(quasi=["age"], insensitive=["d"]), subset


def test_mondrian_cuts_only_when_both_boxes_cover_k_population_records() -> None:
    # ten people aged 20…29, four researched (20, 21, 28, 29); the median cut gives [20-21] and [28-29],
    # each covering 2 people: allowed under 2-map, not under 3-map (one class [20-29] covering 10)
    frame, schema, subset = _ages(list(range(20, 30)), [20, 21, 28, 29])
    two = anonymize(frame, schema, [KMap(2)], algorithm="mondrian", subset=subset)
    assert sorted(set(two.frame["age"])) == ["[20-21]", "[28-29]"]
    assert _brute(two.frame, frame, ["age"], {}) == {("[20-21]",): (2, 2), ("[28-29]",): (2, 2)}
    three = anonymize(frame, schema, [KMap(3)], algorithm="mondrian", subset=subset)
    assert set(three.frame["age"]) == {"[20-29]"}
    assert verify(three.frame, three.schema, [KMap(10)], population=frame).ok
    assert not verify(three.frame, three.schema, [KMap(11)], population=frame).ok
    # k-anonymity alone cuts as 2-map does (the control: the population changes the decision)
    assert set(anonymize(frame, schema, [KAnonymity(2)], algorithm="mondrian", subset=subset).frame["age"]) == \
        {"[20-21]", "[28-29]"}


def test_mondrian_delta_presence_by_hand() -> None:
    # two people of each of 20, 21, 28, 29 and one of 25; one of each age researched: the root's δ is 4/9;
    # the children [20-21] and [28-29] hold 2 of 4 each (δ = 0.5), every single age 1 of 2
    frame, schema, subset = _ages([20, 20, 21, 21, 25, 28, 28, 29, 29], [20, 21, 28, 29])
    res = anonymize(frame, schema, [DeltaPresence(0.5)], algorithm="mondrian", subset=subset)
    assert _brute(res.frame, frame, ["age"], {}) == {(a,): (1, 2) for a in ("20", "21", "28", "29")}
    pairs = anonymize(frame, schema, [KAnonymity(2), DeltaPresence(0.5)], algorithm="mondrian", subset=subset)
    assert _brute(pairs.frame, frame, ["age"], {}) == {("[20-21]",): (2, 4), ("[28-29]",): (2, 4)}
    one = anonymize(frame, schema, [DeltaPresence(0.45)], algorithm="mondrian", subset=subset)
    assert _brute(one.frame, frame, ["age"], {}) == {("[20-29]",): (4, 9)}  # 4/9 ≤ 0.45 < 0.5
    with pytest.raises(UnsatisfiableError):  # 4/9 > 0.4: the whole table fails
        anonymize(frame, schema, [DeltaPresence(0.4)], algorithm="mondrian", subset=subset)


def test_mondrian_counts_a_categorical_box_by_its_lowest_common_ancestor() -> None:
    # the research records hold a and b only: their box is the node "ab", which covers the population's
    # a and b (5 people), not c or d
    frame = pd.DataFrame({"g": list("aabbbccdd"), "d": ["x"] * 9})
    schema = Schema.of(quasi=["g"], insensitive=["d"], hierarchies={"g": LETTERS})
    subset = np.array([1, 0, 1, 0, 0, 0, 0, 0, 0], dtype=bool)
    res = anonymize(frame, schema, [KMap(5)], algorithm="mondrian", subset=subset)
    assert set(res.frame["g"]) == {"ab"}
    assert _brute(res.frame, frame, ["g"], {"g": LETTERS}) == {("ab",): (2, 5)}
    with pytest.raises(UnsatisfiableError):  # the box "ab" covers 5 < 6
        anonymize(frame, schema, [KMap(6)], algorithm="mondrian", subset=subset)


def test_mdav_merges_a_cluster_until_its_interval_covers_k() -> None:
    frame, schema, subset = _ages(list(range(20, 30)), [20, 21, 28, 29])
    two = anonymize(frame, schema, [KMap(2)], algorithm="mdav", subset=subset, output="intervals")
    assert sorted(set(two.frame["age"])) == ["[20-21]", "[28-29]"]
    assert two.release.notes["population_merges"] == 0
    three = anonymize(frame, schema, [KMap(3)], algorithm="mdav", subset=subset, output="intervals")
    assert set(three.frame["age"]) == {"[20-29]"} and three.release.notes["population_merges"] == 1
    assert _brute(three.frame, frame, ["age"], {}) == {("[20-29]",): (4, 10)}


def test_estimated_k_map_is_decided_from_class_sizes_by_mondrian_and_mdav() -> None:
    frame, schema, _ = _ages(list(range(20, 40)), list(range(20, 40)))
    model = EstimatedKMap(3, population_size=40, estimator="poisson")
    k = model.for_records(20).derived_k
    assert k >= 2  # the bound below can fail
    for algorithm, options in (("mondrian", {}), ("mdav", {"output": "intervals"})):
        res = anonymize(frame, schema, [model], algorithm=algorithm, **options)
        assert res.frame.groupby("age").size().min() >= k


# ------------------------------------------------------------------------------------ the recount's two ways
def _release_counts(frame: pd.DataFrame, schema: Schema, population: pd.DataFrame, how) -> np.ndarray:
    qis = list(schema.quasi)
    cls, n = group_rows(frame.reset_index(drop=True), qis)
    return how(frame.reset_index(drop=True), cls, n, qis, schema, population)


@st.composite
def _problem(draw):
    n = draw(st.integers(6, 14))
    ages = draw(st.lists(st.integers(20, 30), min_size=n, max_size=n))
    letters = draw(st.lists(st.sampled_from("abcd"), min_size=n, max_size=n))
    chosen = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    chosen[draw(st.integers(0, n - 1))] = True
    frame = pd.DataFrame({"age": [str(a) for a in ages], "g": letters, "d": ["x"] * n})
    return frame, np.array(chosen, dtype=bool)


def _schema() -> Schema:
    return Schema.of(quasi=["age", "g"], insensitive=["d"], hierarchies={"g": LETTERS})


def _age_hierarchy() -> Hierarchy:
    return Hierarchy([[str(a), f"{a // 5 * 5}-{a // 5 * 5 + 4}", "*"] for a in range(20, 31)], name="age")


@settings(max_examples=15, deadline=None)
@given(_problem(), st.integers(1, 4))
def test_the_cover_recount_equals_the_full_domain_recount_on_flash_releases(problem, k) -> None:
    frame, subset = problem
    schema = Schema.of(quasi=["age", "g"], insensitive=["d"], hierarchies={"g": LETTERS, "age": _age_hierarchy()})
    try:
        res = anonymize(frame, schema, [KMap(k)], algorithm="flash", subset=subset, max_suppression=1.0)
    except UnsatisfiableError:
        return
    released = res.frame[~(res.frame[["age", "g"]] == "*").all(axis=1)]
    if released.empty:
        return
    full = _release_counts(released, res.schema, frame, level_counts)
    assert np.array_equal(full, _release_counts(released, res.schema, frame, cover_counts))
    assert np.array_equal(full, _release_counts(released, res.schema, frame, population_counts))


ALGORITHMS = [("mondrian", {"mode": "strict"}), ("mondrian", {"mode": "relaxed"}), ("mdav", {"output": "intervals"})]


@settings(max_examples=12, deadline=None)
@given(_problem(), st.sampled_from(ALGORITHMS), st.sampled_from([KMap(2), KMap(4), DeltaPresence(0.5),
                                                                 DeltaPresence(0.8)]))
def test_every_local_release_passes_the_recount_and_a_tampered_one_is_caught(problem, algorithm, model) -> None:
    frame, subset = problem
    name, options = algorithm
    schema = _schema()
    try:
        res = anonymize(frame, schema, [model], algorithm=name, subset=subset, max_suppression=1.0, **options)
    except UnsatisfiableError:
        return
    released = res.frame[~(res.frame[["age", "g"]] == "*").all(axis=1)]
    assert verify(res.frame, res.schema, [model], population=frame).ok
    for size, covered in _brute(released, frame, ["age", "g"], {"g": LETTERS}).values():
        assert (covered >= model.k) if isinstance(model, KMap) else (size / covered <= model.dmax)
    assert np.array_equal(_release_counts(released, res.schema, frame, cover_counts),
                          [covered for _, covered in [_brute(released.iloc[[i]], frame, ["age", "g"], {"g": LETTERS})
                                                      .popitem()[1] for i in _first_rows(released)]])
    # tampered: the research records' own values published, and a k above what a single tuple can cover
    raw = frame[subset].reset_index(drop=True)
    most = int(frame.groupby(["age", "g"]).size().max())
    assert not verify(raw, schema, [KMap(most + 1)], population=frame).ok
    assert verify(raw, schema, [KMap(1)], population=frame).ok  # the control


def _first_rows(frame: pd.DataFrame) -> list[int]:
    cls, n = group_rows(frame.reset_index(drop=True), ["age", "g"])
    return [int(np.flatnonzero(cls == c)[0]) for c in range(n)]


def test_the_cover_recount_never_builds_a_population_by_classes_matrix() -> None:
    # 2,000 population rows, 400 classes: the join is per distinct tuple (11 ages × 4 letters)
    rng = np.random.default_rng(1)
    population = pd.DataFrame({"age": rng.integers(20, 31, 2000).astype(str), "g": rng.choice(list("abcd"), 2000)})
    released = pd.DataFrame({"age": [f"[{a}-{a + 1}]" for a in rng.integers(20, 30, 400)], "g": ["ab"] * 400})
    counts = _release_counts(released, _schema(), population, cover_counts)
    lo = released["age"].str.slice(1, 3).astype(int).to_numpy()
    ages = population["age"].astype(int).to_numpy()
    want = [int(((ages >= a) & (ages <= a + 1) & population["g"].isin(["a", "b"]).to_numpy()).sum()) for a in lo]
    cls, n = group_rows(released, ["age", "g"])
    assert np.array_equal(counts, np.array(want)[[int(np.flatnonzero(cls == c)[0]) for c in range(n)]])


# ------------------------------------------------------------------------------------ refusals
def test_algorithms_that_cannot_count_the_population_name_those_that_can() -> None:
    frame, schema, subset = _ages(list(range(20, 30)), [20, 21, 28, 29])
    for name in ("kaca", "anatomy", "kl-diversity"):
        with pytest.raises(InputError, match=r"cannot enforce 2-map.*mdav, mondrian"):
            anonymize(frame, schema, [KMap(2)], algorithm=name, subset=subset)
    with pytest.raises(InputError, match=r"dmin > 0"):
        anonymize(frame, schema, [DeltaPresence(0.5, dmin=0.1)], algorithm="mondrian", subset=subset)
    with pytest.raises(InputError, match=r"output: intervals"):
        anonymize(frame, schema, [KMap(2)], algorithm="mdav", subset=subset)
    # the controls: dmin = 0 and intervals run
    anonymize(frame, schema, [DeltaPresence(0.5, dmin=0.0)], algorithm="mondrian", subset=subset)
    anonymize(frame, schema, [KMap(2)], algorithm="mdav", subset=subset, output="intervals")
