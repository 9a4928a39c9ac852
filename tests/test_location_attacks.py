"""The attacks of paper B §4.3 (:mod:`anonkit.location.attacks`): exact linked shares on hand-built
streams, the 1/k_min guarantee of cloaking on random populations, the baseline far above it."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anonkit.errors import InputError
from anonkit.location.attacks import (
    Released,
    forwarded_requests,
    observation_identification,
    restricted_space_identification,
    uncloaked_requests,
)

# A lone in (0, 0); B and C share (2, 2); D lone in (6, 0) — squares of 16
HOMES = pd.DataFrame({"subject": ["A", "B", "C", "D"], "x": [5, 40, 45, 100], "y": [5, 40, 45, 3]})


def test_restricted_space_on_an_uncloaked_stream() -> None:
    requests = pd.DataFrame({"t": [0, 0, 1, 1, 2], "subject": ["A", "E", "B", "D", "F"],
                             "x": [5, 6, 40, 20, 16], "y": [5, 7, 40, 20, 5]})
    released = uncloaked_requests(requests)
    within = restricted_space_identification(released, HOMES, cell=16)
    # A from home: linked; E in A's square: attributed to A, wrongly; B's home is shared; D and F
    # (on the square's edge, x = 16 is the next square) are not in a lone home's square
    assert within.candidates.tolist() == [1, 1, 0, 0, 0]
    assert within.probability.tolist() == [1, 0, 0, 0, 0]
    assert (within.linked, within.linked_share, within.attacked, within.unique_linked) == (1, 1 / 5, 2, 1)
    contains = restricted_space_identification(released, HOMES, cell=16, rule="contains")
    assert contains.candidates.tolist() == [1, 0, 0, 0, 0] and contains.linked_share == 1 / 5


def test_restricted_space_on_cloaked_boxes() -> None:
    released = Released(x0=[0, 0, 0, 96], y0=[0, 0, 0, 0], x1=[32, 16, 128, 104], y1=[32, 16, 128, 8],
                        t0=[0] * 4, t1=[0, 0, 3, 0], sender=["A", "E", "D", "D"])
    within = restricted_space_identification(released, HOMES, cell=16)
    # [0,32)² spans four squares; [0,16)² is A's square (E attributed to A, wrongly); [96,104)×[0,8)
    # lies within D's square
    assert within.candidates.tolist() == [0, 1, 0, 1] and within.probability.tolist() == [0, 0, 0, 1]
    assert within.linked_share == 1 / 4
    contains = restricted_space_identification(released, HOMES, cell=16, rule="contains")
    # [0,32)² holds one lone home (A's): attributed to A, rightly; [0,128)² holds two: no attribution
    assert contains.candidates.tolist() == [1, 1, 0, 1] and contains.probability.tolist() == [1, 0, 0, 1]
    assert contains.linked_share == 2 / 4 and contains.max_probability == 1
    # the adversary's resolution decides who lives alone: at 64 m A, B, C share a square, D is alone
    coarse = restricted_space_identification(released, HOMES, cell=64)
    assert coarse.candidates.tolist() == [0, 0, 0, 1]


TRACK = pd.DataFrame({
    "t": [0] * 4 + [1] * 4 + [2] * 4,
    "subject": list("ABCD") * 3,
    "x": [1, 2, 10, 50, 3, 20, 2, 50, 5, 21, 30, 3],
    "y": [1, 2, 10, 50, 3, 20, 1, 50, 5, 21, 30, 3],
})
OBSERVED = Released(x0=[0, 0, 10, 0, 40, 100], y0=[0, 0, 10, 0, 40, 100], x1=[4, 4, 10, 8, 64, 200],
                    y1=[4, 4, 10, 8, 64, 200], t0=[0, 0, 0, 2, 0, 0], t1=[0, 1, 0, 2, 2, 0],
                    sender=["A", "A", "C", "D", "B", "Z"])


def test_observation_with_complete_observation() -> None:
    res = observation_identification(OBSERVED, TRACK, subject_share=1, time_share=1)
    # {A, B}; {A, B} at 0 and {A, C} at 1; {C} (a point); {A, D}; {D} without the sender B; nobody
    assert res.candidates.tolist() == [2, 3, 1, 2, 1, 0]
    assert res.probability.tolist() == pytest.approx([1 / 2, 1 / 3, 1, 1 / 2, 0, 0])
    assert res.linked == pytest.approx(7 / 3) and res.linked_share == pytest.approx(7 / 18)
    assert (res.attacked, res.exposed, res.unique, res.unique_linked) == (5, 4, 2, 1)
    assert res.unique_share == pytest.approx(1 / 6)


def test_partial_observation_sees_subsets() -> None:
    full = observation_identification(OBSERVED, TRACK, subject_share=1, time_share=1)
    assert observation_identification(OBSERVED, TRACK, subject_share=1, time_share=0).linked == 0
    assert observation_identification(OBSERVED, TRACK, subject_share=0, time_share=1).linked == 0
    for seed in range(20):
        part = observation_identification(OBSERVED, TRACK, subject_share=0.5, time_share=0.67, seed=seed)
        assert (part.candidates <= full.candidates).all()
        assert part.exposed <= full.exposed
        again = observation_identification(OBSERVED, TRACK, subject_share=0.5, time_share=0.67, seed=seed)
        assert (again.probability == part.probability).all()
    # only B observed, at every time: request 5's box holds D, unseen, so nothing; request 2 sees B alone
    only_b = observation_identification(OBSERVED, TRACK[TRACK["subject"] == "B"], subject_share=1, time_share=1)
    assert only_b.candidates.tolist() == [1, 1, 0, 0, 0, 0] and only_b.linked == 0


def test_forwarded_requests_follow_the_private_link() -> None:
    requests = pd.DataFrame({"t": [0, 1, 1, 2], "subject": ["s1", "s2", "s3", "s1"], "x": [1, 2, 3, 4],
                             "y": [1, 2, 3, 4], "kind": ["request"] * 4})
    stream = pd.concat([requests.assign(kind="update"), requests], ignore_index=True).sort_values("t", kind="stable")
    fwd = [SimpleNamespace(t=2, x0=0, y0=0, x1=8, y1=8, t0=1, t1=2, payload="q", request=2),
           SimpleNamespace(t=2, x0=0, y0=0, x1=4, y1=4, t0=2, t1=2, payload="q", request=3)]
    rel = forwarded_requests(fwd, stream)  # a whole stream: its requests, in order
    assert rel.sender.tolist() == ["s3", "s1"] and rel.request.tolist() == [2, 3]
    assert rel.area.tolist() == [64, 16] and rel.t0.tolist() == [1, 2]
    base = uncloaked_requests(stream)
    assert len(base) == 4 and base.sender.tolist() == ["s1", "s2", "s3", "s1"] and (base.area == 0).all()
    with pytest.raises(InputError):
        forwarded_requests([SimpleNamespace(t=2, x0=0, y0=0, x1=8, y1=8, t0=1, t1=2, request=4)], requests)


def test_bad_input_is_refused() -> None:
    with pytest.raises(InputError):
        Released(x0=[0, 1], y0=[0], x1=[1], y1=[1], t0=[0], t1=[0], sender=["a"])
    with pytest.raises(InputError):
        Released(x0=[2], y0=[0], x1=[1], y1=[1], t0=[0], t1=[0], sender=["a"])
    with pytest.raises(InputError):
        restricted_space_identification(OBSERVED, HOMES, cell=16, rule="near")  # type: ignore[arg-type]
    with pytest.raises(InputError):
        restricted_space_identification(OBSERVED, HOMES.drop(columns="x"), cell=16)
    with pytest.raises(InputError):
        observation_identification(OBSERVED, TRACK, subject_share=1.5)
    empty = Released(x0=[], y0=[], x1=[], y1=[], t0=[], t1=[], sender=[])
    assert observation_identification(empty, TRACK).linked_share == 0
    assert restricted_space_identification(empty, HOMES, cell=16).linked_share == 0


# --- against the cloaker ---------------------------------------------------------------------------

location = pytest.importorskip("anonkit.location")


def _messages(frame: pd.DataFrame) -> list:
    return [location.Message(t=t, subject=s, x=x, y=y, kind=k, payload=p)
            for t, s, x, y, k, p in zip(frame["t"], frame["subject"], frame["x"], frame["y"], frame["kind"],
                                        frame["payload"], strict=True)]


def _cloak(frame: pd.DataFrame, side: int, policy: object) -> list:
    return list(location.cloak(_messages(frame), location.Area(0, 0, side, side), policy))


#: the largest box a request accepts: a small one sends requests to temporal cloaking
MAX_AREAS = st.sampled_from([None, 1024.0, 256.0, 64.0])


@st.composite
def populations(draw: st.DrawFn) -> tuple[pd.DataFrame, int, object]:
    """Subjects on [0, 64)², every one reporting its position at every step, some requesting."""
    n = draw(st.integers(2, 25))
    steps = draw(st.integers(1, 5))
    seed = draw(st.integers(0, 2**31))
    rng = np.random.default_rng(seed)
    clustered = draw(st.booleans())
    xy = rng.integers(0, 8 if clustered else 64, size=(steps, n, 2)) + (rng.integers(0, 56) if clustered else 0)
    asks = rng.random((steps, n)) < draw(st.floats(0.05, 0.6))
    rows = []
    for t in range(steps):
        rows += [(t, f"u{i:02d}", int(xy[t, i, 0]), int(xy[t, i, 1]), "update", "") for i in range(n)]
        rows += [(t, f"u{i:02d}", int(xy[t, i, 0]), int(xy[t, i, 1]), "request", f"q{i}")
                 for i in range(n) if asks[t, i]]
    frame = pd.DataFrame(rows, columns=["t", "subject", "x", "y", "kind", "payload"])
    k = draw(st.integers(2, 6))
    policy = location.Policy(k=k, max_area=draw(MAX_AREAS), max_delay=float(draw(st.integers(0, 3))),
                             t_back=float(draw(st.integers(0, 2))), on_fail=draw(st.sampled_from(["drop", "hold"])))
    return frame, k, policy


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(populations())
def test_cloaking_bounds_every_link_by_one_over_k(population: tuple) -> None:
    """The adversary who observes every subject the broker knows, at every time, and picks among the
    subjects in the box links no request with probability above 1/k_min, so neither the share."""
    frame, k, policy = population
    fwd = _cloak(frame, 64, policy)
    released = forwarded_requests(fwd, frame)
    track = frame[frame["kind"] == "update"]
    res = observation_identification(released, track, subject_share=1, time_share=1)
    assert (res.candidates >= k).all()
    assert res.max_probability <= 1 / k + 1e-12 and res.linked_share <= 1 / k + 1e-12
    # partial observation: no better than 1/k on average over the adversary's samples
    shares = [observation_identification(released, track, subject_share=0.5, time_share=0.5, seed=s).linked
              for s in range(8)]
    assert np.mean(shares) <= max(len(released), 1) / k * 1.5 + 1


@st.composite
def private_homes(draw: st.DrawFn) -> tuple[pd.DataFrame, pd.DataFrame, int, object]:
    """Subjects on [0, 64)² in squares of 8; a few live alone, and nobody else enters their squares."""
    seed = draw(st.integers(0, 2**31))
    rng = np.random.default_rng(seed)
    n = draw(st.integers(3, 25))
    steps = draw(st.integers(1, 4))
    squares = rng.permutation(64)[: draw(st.integers(1, 4))]
    lone = squares[: min(len(squares), n - 1)]
    home = np.stack([lone // 8 * 8 + rng.integers(0, 8, len(lone)), lone % 8 * 8 + rng.integers(0, 8, len(lone))], 1)
    allowed = np.setdiff1d(np.arange(64), lone)
    rows = []
    for t in range(steps):
        for i in range(n):
            if i < len(lone) and rng.random() < 0.7:
                x, y = home[i]
            else:
                sq = rng.choice(allowed)
                x, y = sq // 8 * 8 + rng.integers(0, 8), sq % 8 * 8 + rng.integers(0, 8)
            rows.append((t, f"u{i:02d}", int(x), int(y), "update", ""))
            if rng.random() < 0.4:
                rows.append((t, f"u{i:02d}", int(x), int(y), "request", "q"))
    frame = pd.DataFrame(rows, columns=["t", "subject", "x", "y", "kind", "payload"])
    frame = frame.sort_values(["t", "kind"], ascending=[True, False], kind="stable").reset_index(drop=True)
    homes = pd.DataFrame({"subject": [f"u{i:02d}" for i in range(len(lone))], "x": home[:, 0], "y": home[:, 1]})
    k = draw(st.integers(2, 5))
    return frame, homes, k, location.Policy(k=k, max_area=draw(MAX_AREAS), max_delay=float(draw(st.integers(0, 2))))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(private_homes())
def test_restricted_space_never_links_a_cloaked_request_when_homes_are_private(case: tuple) -> None:
    frame, homes, k, policy = case
    released = forwarded_requests(_cloak(frame, 64, policy), frame)
    res = restricted_space_identification(released, homes, cell=8)
    assert res.attacked == 0 and res.linked_share == 0 <= 1 / k
    base = restricted_space_identification(uncloaked_requests(frame), homes, cell=8)
    at_home = frame[(frame["kind"] == "request") & frame.merge(homes, on=["subject", "x", "y"], how="left",
                                                                indicator=True)["_merge"].eq("both").to_numpy()]
    assert base.linked == len(at_home)  # uncloaked, every request sent from a lone home is linked


def test_the_contains_rule_has_no_guarantee() -> None:
    """A box of k subjects holding one lone home is attributed to its resident: when the resident is
    the one asking, it is linked, whatever k (why the default rule is "within")."""
    rows = [(0, "A", 5, 5, "update", "")] + [(0, f"v{i}", 20 + i, 20, "update", "") for i in range(4)]
    rows += [(0, "A", 5, 5, "request", "q")]
    frame = pd.DataFrame(rows, columns=["t", "subject", "x", "y", "kind", "payload"])
    homes = pd.DataFrame({"subject": ["A"], "x": [5], "y": [5]})
    released = forwarded_requests(_cloak(frame, 64, location.Policy(k=5)), frame)
    assert len(released) == 1
    assert restricted_space_identification(released, homes, cell=16, rule="contains").linked_share == 1
    assert restricted_space_identification(released, homes, cell=16).linked_share == 0


@pytest.fixture(scope="module")
def city_run() -> tuple:
    from anonkit.datasets.city import simulate_city

    city = simulate_city(800, 30, seed=5)
    policy = location.Policy(k=5, max_delay=3.0)
    released = forwarded_requests(_cloak(city.stream, city.side, policy), city.stream)
    return city, released, uncloaked_requests(city.stream)


def test_the_baseline_is_far_above_the_cloaked_stream(city_run: tuple) -> None:
    city, cloaked, plain = city_run
    assert len(cloaked) > 0.5 * len(plain)
    rs = [restricted_space_identification(r, city.homes, cell=city.home_cell) for r in (cloaked, plain)]
    obs = [observation_identification(r, city.track(), subject_share=0.5, time_share=0.5, seed=1)
           for r in (cloaked, plain)]
    full = [observation_identification(r, city.track(), subject_share=1, time_share=1) for r in (cloaked, plain)]
    assert full[0].max_probability <= 1 / 5 and full[0].linked_share <= 1 / 5
    assert full[1].linked_share > 0.9  # a point and a time name nearly everyone
    for (cloaked_res, plain_res), factor in ((rs, 10), (obs, 3), (full, 5)):
        assert cloaked_res.linked_share <= 1 / 5
        assert plain_res.linked_share > 0.05 and plain_res.linked_share > factor * cloaked_res.linked_share
    # the partial observer (half the subjects at half the steps) links a point with probability 1/4;
    # a box of m subjects with (1 − 2^−m) / (2m) ≤ 1/(2k) (the module docstring's expectation)
    assert obs[1].linked_share == pytest.approx(0.25, abs=0.05) and obs[0].linked_share <= 1 / 10


def test_a_batch_result_is_released_as_the_broker_forwards(city_run: tuple) -> None:
    city, cloaked, _ = city_run
    s = city.stream
    batch = location.cloak_batch(s["t"].to_numpy(float), s["subject"].to_numpy(), s["x"].to_numpy(float),
                                 s["y"].to_numpy(float), (s["kind"] == "request").to_numpy(),
                                 location.Area(0, 0, city.side, city.side), location.Policy(k=5, max_delay=3.0))
    released = forwarded_requests(batch, s)
    for name in ("x0", "y0", "x1", "y1", "t0", "t1", "sender", "request"):
        assert (getattr(released, name) == getattr(cloaked, name)).all(), name
