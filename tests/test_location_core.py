"""Location cloaking's core (spec §4.11; paper B §4.3): the pure spatial and temporal functions, the
streaming broker, the batch kernel, the message files and ``anonkit cloak``."""

from __future__ import annotations

import io
import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anonkit.errors import InputError
from anonkit.location import (
    Area,
    Cloaker,
    Forwarded,
    Grid,
    Message,
    Policy,
    QuadIndex,
    batch_arrays,
    cloak,
    cloak_batch,
    read_forwarded,
    read_messages,
    spatial_cloak,
    temporal_cloak,
    write_forwarded,
)
from anonkit.location.index import morton
from anonkit.location.stream import run_stream

AREA8 = Area(0, 0, 8, 8)
# spec §4.11: (1,1) is the requester
SPEC_SUBJECTS = [(1, 1), (2, 2), (3, 1), (6, 6), (7, 1), (1, 6), (5, 5)]


def _updates(points, t=0.0, prefix="s"):
    return [Message(t, f"{prefix}{i}", float(x), float(y), "update") for i, (x, y) in enumerate(points)]


def _run(msgs, area=AREA8, policy=None):
    c = Cloaker(area, policy or Policy())
    out = list(cloak(msgs, area, policy, cloaker=c))
    return out, c


def _batch(msgs, area=AREA8, policy=None):
    a = batch_arrays(msgs)
    res = cloak_batch(a["t"], a["subject"], a["x"], a["y"], a["is_request"], area, policy or Policy(),
                      k=a["k"], max_area=a["max_area"], max_delay=a["max_delay"], on_fail=a["on_fail"])
    return res, a


# ---------------------------------------------------------------------------------------- worked examples


@pytest.mark.parametrize(("k", "extra", "expected"), [
    (3, [], (0.0, 0.0, 4.0, 4.0)),  # quadrant [0,2)² holds only the requester
    (8, [], None),
    (2, [(0, 1)], (0.0, 0.0, 2.0, 2.0)),
])
def test_spatial_worked_examples(k, extra, expected) -> None:
    pts = np.array(SPEC_SUBJECTS + extra, dtype=float)
    assert spatial_cloak(1, 1, pts, AREA8, k) == expected
    # the broker: the others report first, then the requester asks
    msgs = [*_updates(SPEC_SUBJECTS[1:] + extra), Message(1.0, "me", 1.0, 1.0, "request", "q")]
    out, c = _run(msgs, policy=Policy(k=k))
    if expected is None:
        assert out == [] and c.dropped == [0]
    else:
        (f,) = out
        assert (f.x0, f.y0, f.x1, f.y1) == expected
        assert (f.t, f.t0, f.t1, f.method, f.request) == (1.0, 1.0, 1.0, "spatial", 0)
        assert f.anonymity >= k
    res, a = _batch(msgs, policy=Policy(k=k))
    assert res.forwarded(a["payload"]) == out


def _temporal_stream(t_back: float) -> list[Message]:
    # u2 visits at 4 (and stays there), the request at 10, u3 at 12, u4 at 15: all in the same cell
    return [Message(4.0, "u2", 5.0, 5.0, "update"), Message(10.0, "u1", 1.0, 1.0, "request", "pizza"),
            Message(12.0, "u3", 6.0, 2.0, "update"), Message(15.0, "u4", 2.0, 7.0, "update")]


@pytest.mark.parametrize(("t_back", "expected"), [(0.0, (10.0, 15.0)), (10.0, (4.0, 12.0))])
def test_temporal_worked_examples(t_back, expected) -> None:
    visits = [(10.0, "u1"), (4.0, "u2"), (12.0, "u3"), (15.0, "u4")]
    assert temporal_cloak(10.0, visits, 3, t_back) == expected
    assert temporal_cloak(10.0, visits, 3, t_back, max_delay=expected[1] - 10.0) == expected
    assert temporal_cloak(10.0, visits, 3, t_back, max_delay=expected[1] - 10.5) is None
    assert temporal_cloak(10.0, visits, 5, t_back) is None
    # the broker: spatial cloaking fails (2 subjects in the area at t = 10), temporal on the whole area
    policy = Policy(k=3, t_back=t_back, max_delay=100.0)
    out, c = _run(_temporal_stream(t_back), policy=policy)
    (f,) = out
    assert (f.t0, f.t1) == expected and f.t == expected[1] and f.method == "temporal"
    assert (f.x0, f.y0, f.x1, f.y1) == (0.0, 0.0, 8.0, 8.0) and f.anonymity == 3 and f.payload == "pizza"
    assert c.stats()["delay"]["median"] == expected[1] - 10.0
    res, a = _batch(_temporal_stream(t_back), policy=policy)
    assert res.forwarded(a["payload"]) == out


def test_temporal_deadline_holds_or_drops() -> None:
    # released at 15 would need max_delay ≥ 5
    for on_fail in ("hold", "drop"):
        policy = Policy(k=3, max_delay=4.0, on_fail=on_fail)
        out, c = _run(_temporal_stream(0.0), policy=policy)
        assert out == []
        if on_fail == "hold":
            assert [n for n, _ in c.held] == [0] and c.held[0][1].payload == "pizza" and c.dropped == []
        else:
            assert c.held == [] and c.dropped == [0]
        s = c.stats()
        assert (s["requests"], s["served"], s["pending"], s["k_achieved"]) == (1, 0, 0, None)
        assert s["area"] == {"median": None, "p95": None}
    # the deadline itself is still in time
    out, _ = _run(_temporal_stream(0.0), policy=Policy(k=3, max_delay=5.0))
    assert [(f.t0, f.t1) for f in out] == [(10.0, 15.0)]


def test_no_temporal_cloaking_without_delay() -> None:
    out, c = _run(_temporal_stream(0.0), policy=Policy(k=3))
    assert out == [] and c.dropped == [0]


def test_advance_and_close() -> None:
    c = Cloaker(AREA8, Policy(k=3, max_delay=5.0, on_fail="hold"))
    assert c.push(Message(0.0, "a", 1.0, 1.0, "request")) == []
    assert c.pending() == [0] and c.stats()["pending"] == 1
    assert c.advance(5.0) == [] and c.pending() == [0]  # the deadline itself
    assert c.advance(5.5) == [] and c.pending() == [] and [n for n, _ in c.held] == [0]
    with pytest.raises(InputError, match="earlier"):
        c.advance(1.0)
    c.push(Message(6.0, "b", 1.0, 1.0, "request"))
    assert c.close() == [] and [n for n, _ in c.held] == [0, 1]


def test_requester_revisiting_keeps_the_request_time_in_the_interval() -> None:
    msgs = [Message(10.0, "me", 1.0, 1.0, "request"), Message(11.0, "me", 1.5, 1.5, "update"),
            Message(12.0, "u2", 2.0, 2.0, "update")]
    out, _ = _run(msgs, policy=Policy(k=2, max_delay=10.0, max_area=16.0))
    (f,) = out
    assert (f.t0, f.t1) == (10.0, 12.0)  # the earliest most-recent visit alone would be 11
    assert (f.x0, f.y0, f.x1, f.y1) == (0.0, 0.0, 4.0, 4.0)


def test_max_area_and_temporal_cell() -> None:
    # 3 subjects in [0,4)², none elsewhere: k = 3 gives [0,4)², area 16
    pts = [(1, 1), (2, 2), (3, 3)]
    msgs = [*_updates(pts[1:]), Message(1.0, "me", 1.0, 1.0, "request")]
    out, _ = _run(msgs, policy=Policy(k=3, max_area=16.0))
    assert [(f.x1, f.method) for f in out] == [(4.0, "spatial")]
    out, c = _run(msgs, policy=Policy(k=3, max_area=15.0))
    assert out == [] and c.dropped == [0]
    # the temporal cell is the largest no larger than max_area: [0,2)² for max_area 4..15
    msgs += [Message(2.0, "s0", 1.5, 0.5, "update"), Message(3.0, "s1", 0.5, 1.5, "update")]
    out, _ = _run(msgs, policy=Policy(k=3, max_area=15.0, max_delay=10.0))
    (f,) = out
    assert (f.x0, f.y0, f.x1, f.y1, f.t0, f.t1, f.method) == (0.0, 0.0, 2.0, 2.0, 1.0, 3.0, "temporal")
    # a request's own max_area overrides the policy; leaves larger than max_area: nothing to wait on
    tiny = Message(1.0, "me", 1.0, 1.0, "request", max_area=1e-12, max_delay=10.0)
    out, c = _run([*_updates(pts[1:]), tiny], policy=Policy(k=3))
    assert out == [] and c.dropped == [0]


def test_split_lines_go_up_and_right() -> None:
    # the requester on x = 4 and y = 4: its quadrant is [4,8)²
    msgs = [*_updates([(4, 4), (5, 7), (7.9, 4)]), Message(1.0, "s0", 4.0, 4.0, "request")]
    (f,) = _run(msgs, policy=Policy(k=3))[0]
    assert (f.x0, f.y0, f.x1, f.y1) == (4.0, 4.0, 8.0, 8.0)
    assert spatial_cloak(4, 4, np.array([(4, 4), (5, 7), (7.9, 4)]), AREA8, 3) == (4.0, 4.0, 8.0, 8.0)


def test_resolution_floor() -> None:
    pts = np.array([(0.1, 0.1)] * 5)  # five subjects in one spot
    assert spatial_cloak(0.1, 0.1, pts, AREA8, 5, min_side=2.0) == (0.0, 0.0, 2.0, 2.0)
    assert spatial_cloak(0.1, 0.1, pts, AREA8, 5, min_side=2.5) == (0.0, 0.0, 4.0, 4.0)
    assert Grid(AREA8).depth == 16 and Grid(AREA8, 1.0).depth == 3 and Grid(AREA8, 9.0).depth == 0
    box = spatial_cloak(0.1, 0.1, pts, AREA8, 5)
    assert box[2] - box[0] == box[3] - box[1] == 8 / 2**16 and box[0] <= 0.1 < box[2]  # the default floor
    msgs = [Message(0.0, f"s{i}", 0.1, 0.1, "update") for i in range(4)] + [Message(1.0, "me", 0.1, 0.1, "request")]
    (f,) = _run(msgs, policy=Policy(k=5, min_side=2.0))[0]
    assert (f.x1, f.y1, f.anonymity) == (2.0, 2.0, 5)


def test_rectangular_area_and_awkward_floats() -> None:
    area = Area(0.1, -0.3, 0.7, 1.1)
    grid = Grid(area)
    rng = np.random.default_rng(1)
    xs = area.x0 + rng.random(2000) * area.width
    ys = area.y0 + rng.random(2000) * area.height
    xs[:3] = [area.x0, np.nextafter(area.x1, 0), 0.4]
    ys[:3] = [area.y0, np.nextafter(area.y1, 0), 0.4]
    vx, vy = grid.leaves(xs, ys)
    for j in range(xs.size):
        ix, iy = grid.leaf(xs[j], ys[j])
        assert (ix, iy) == (vx[j], vy[j])
        for d in (0, 3, grid.depth):
            s = grid.depth - d
            x0, y0, x1, y1 = grid.box(d, ix >> s, iy >> s)
            assert x0 <= xs[j] < x1 and y0 <= ys[j] < y1


# ---------------------------------------------------------------------------------------- properties


def _replay_check(msgs: list[Message], out: list[Forwarded], area: Area, policy: Policy) -> None:
    """Every forwarded box holds the requester and ≥ k subjects at its time (spatial) or ≥ k distinct
    visitors during its interval (temporal), and is a quadtree cell of the area."""
    grid = Grid(area, policy.min_side)
    requests = [m for m in msgs if m.kind == "request"]
    positions_at_request: dict[int, dict[str, tuple[float, float]]] = {}
    pos: dict[str, tuple[float, float]] = {}
    n = 0
    for m in msgs:
        pos[m.subject] = (m.x, m.y)
        if m.kind == "request":
            positions_at_request[n] = dict(pos)
            n += 1
    seen = set()
    for f in out:
        assert f.request not in seen
        seen.add(f.request)
        req = requests[f.request]
        k = policy.k if req.k is None else req.k
        assert f.x0 <= req.x < f.x1 and f.y0 <= req.y < f.y1
        assert f.t0 <= req.t <= f.t1 and f.t >= req.t
        d = round(math.log2(area.width / (f.x1 - f.x0)))
        ix, iy = grid.leaf(req.x, req.y)
        assert (f.x0, f.y0, f.x1, f.y1) == grid.box(d, ix >> (grid.depth - d), iy >> (grid.depth - d))
        max_area = policy.max_area if req.max_area is None else req.max_area
        if f.method == "spatial":
            assert f.t == f.t0 == f.t1 == req.t
            inside = [s for s, (x, y) in positions_at_request[f.request].items()
                      if f.x0 <= x < f.x1 and f.y0 <= y < f.y1]
            assert len(inside) == f.anonymity >= k
            assert max_area is None or grid.cell_area(d) <= max_area
        else:
            max_delay = policy.max_delay if req.max_delay is None else req.max_delay
            assert f.t == f.t1 <= req.t + max_delay
            visitors = {m.subject for m in msgs
                        if f.t0 <= m.t <= f.t1 and f.x0 <= m.x < f.x1 and f.y0 <= m.y < f.y1}
            assert len(visitors) >= f.anonymity >= k
            assert max_area is None or grid.cell_area(d) <= max_area
        pub = f.public()
        assert set(pub) == set(Forwarded.PUBLIC_FIELDS)
        assert req.subject not in {str(v) for v in pub.values() if v != req.payload}
        assert (req.x, req.y) not in {(pub["x0"], pub["y0"]), (pub["x1"], pub["y1"])} or f.x1 - f.x0 > 0


@st.composite
def streams(draw):
    side = draw(st.sampled_from([8.0, 10.0, 1.0]))
    area = Area(0.0, 0.0, side, side * draw(st.sampled_from([1.0, 0.5])))
    n_subjects = draw(st.integers(1, 8))
    n = draw(st.integers(1, 60))
    coarse = draw(st.booleans())
    msgs = []
    t = 0.0
    for _ in range(n):
        t += draw(st.sampled_from([0.0, 0.0, 0.5, 1.0, 2.5]))
        if coarse:  # many ties and points on split lines
            x = draw(st.integers(0, 7)) / 8 * area.width
            y = draw(st.integers(0, 7)) / 8 * area.height
        else:
            x = draw(st.floats(0, area.width, exclude_max=True))
            y = draw(st.floats(0, area.height, exclude_max=True))
        kind = draw(st.sampled_from(["update", "request", "request"]))
        overrides = {}
        if kind == "request" and draw(st.integers(0, 3)) == 0:
            overrides = {"k": draw(st.integers(1, 4)),
                         "max_delay": draw(st.sampled_from([None, 0.0, 3.0])),
                         "max_area": draw(st.sampled_from([None, area.width * area.height / 16])),
                         "on_fail": draw(st.sampled_from([None, "hold", "drop"]))}
        msgs.append(Message(t, f"u{draw(st.integers(0, n_subjects - 1))}", x, y, kind, f"p{len(msgs)}", **overrides))
    policy = Policy(
        k=draw(st.integers(1, 4)), t_back=draw(st.sampled_from([0.0, 1.0, 3.0])),
        max_delay=draw(st.sampled_from([0.0, 2.0, 5.0])),
        max_area=draw(st.sampled_from([None, area.width * area.height / 4, area.width * area.height / 64])),
        on_fail=draw(st.sampled_from(["hold", "drop"])), min_side=draw(st.sampled_from([None, side / 8])),
    )
    return msgs, area, policy


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(streams())
def test_streaming_guarantees_and_batch_equality(case) -> None:
    msgs, area, policy = case
    out, c = _run(msgs, area, policy)
    _replay_check(msgs, out, area, policy)
    s = c.stats()
    assert s["served"] == len(out) and s["served"] + s["held"] + s["dropped"] == s["requests"]
    assert s["pending"] == 0
    assert s["k_achieved"] == (min(f.anonymity for f in out) if out else None)
    res, a = _batch(msgs, area, policy)
    assert res.forwarded(a["payload"]) == out
    assert res.held.tolist() == [n for n, _ in c.held] and res.dropped.tolist() == c.dropped
    assert res.stats() == s


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 8, exclude_max=True), st.floats(0, 8, exclude_max=True)), min_size=1,
                max_size=30), st.integers(1, 6), st.sampled_from([None, 4.0, 1.0]))
def test_spatial_index_equals_the_pure_function(points, k, max_area) -> None:
    """The broker's O(depth) index gives spec §4.11's function on the current positions."""
    msgs = [*_updates(points[1:]), Message(1.0, "me", *points[0], "request")]
    out, _ = _run(msgs, policy=Policy(k=k, max_area=max_area))
    expected = spatial_cloak(*points[0], np.array(points), AREA8, k, max_area=max_area)
    assert [(f.x0, f.y0, f.x1, f.y1) for f in out] == ([] if expected is None else [expected])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 255), st.integers(0, 255)), max_size=80))
def test_index_counts_follow_moves(moves) -> None:
    idx = QuadIndex(8)
    where: dict[int, tuple[int, int]] = {}
    for s, ix, iy in moves:
        idx.move(s, morton(ix, iy))
        where[s] = (ix, iy)
    for d in range(9):
        sh = 8 - d
        expected: dict[int, int] = {}
        for ix, iy in where.values():
            key = morton(ix >> sh, iy >> sh)
            expected[key] = expected.get(key, 0) + 1
        assert idx.counts[d] == expected  # no empty cells kept: memory follows the subjects
        for ix, iy in where.values():
            assert idx.count(d, morton(ix, iy)) == expected[morton(ix >> sh, iy >> sh)]


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([0.0, 1.0, 2.0, 3.0, 5.0, 8.0]), st.integers(0, 5)), max_size=12),
       st.sampled_from([2.0, 3.0]), st.integers(1, 4), st.sampled_from([0.0, 1.0, 4.0]))
def test_temporal_function_matches_the_broker(visits, t_req, k, t_back) -> None:
    """The broker's temporal cloaking (on the leaf holding everyone) is spec §4.11's function, when
    spatial cloaking fails (ties at the request's time are taken before the request here)."""
    visits = sorted(visits, key=lambda v: v[0])
    before = [v for v in visits if v[0] <= t_req]
    after = [v for v in visits if v[0] > t_req]
    msgs = [Message(t, f"u{s}", 1.0, 1.0, "update") for t, s in before]
    msgs += [Message(t_req, "me", 1.0, 1.0, "request")]
    msgs += [Message(t, f"u{s}", 1.0, 1.0, "update") for t, s in after]
    leaf = Grid(AREA8).cell_area(Grid(AREA8).depth)
    out, _ = _run(msgs, policy=Policy(k=k, t_back=t_back, max_delay=100.0, max_area=leaf))
    if out and out[0].method == "spatial":
        return
    pure = temporal_cloak(t_req, [(t, f"u{s}") for t, s in before] + [(t_req, "me")]
                          + [(t, f"u{s}") for t, s in after], k, t_back)
    assert [(f.t0, f.t1) for f in out] == ([] if pure is None else [pure])


def test_batch_exercises_growth_paths_and_matches_streaming() -> None:
    """Deep levels in the hash, > 64 pending requests, a visit ring > 1024, slot reuse."""
    rng = np.random.default_rng(7)
    n, subjects = 6000, 200
    t = np.round(np.cumsum(rng.exponential(0.02, n)), 2)
    subj = rng.integers(0, subjects, n).astype(str)
    x, y = rng.random(n) * 100, rng.random(n) * 100
    req = rng.random(n) < 0.4
    area = Area(0, 0, 100, 100)
    for policy in (Policy(k=8, max_area=40.0, max_delay=5.0, t_back=30.0, on_fail="hold"),
                   Policy(k=3, max_area=2.0, max_delay=1.0), Policy(k=4, min_side=1e-6)):
        msgs = [Message(float(t[i]), str(subj[i]), float(x[i]), float(y[i]), "request" if req[i] else "update")
                for i in range(n)]
        out, c = _run(msgs, area, policy)
        res = cloak_batch(t, subj, x, y, req, area, policy)
        assert res.forwarded() == out
        assert res.held.tolist() == [m for m, _ in c.held] and res.dropped.tolist() == c.dropped
        assert res.stats() == c.stats()
    assert c.stats()["spatial"] > 0


def test_batch_refuses_bad_arrays() -> None:
    t = np.array([0.0, 1.0, 0.5])
    xy = np.array([1.0, 1.0, 1.0])
    with pytest.raises(InputError, match=r"time order.*row 2"):
        cloak_batch(t, ["a", "b", "c"], xy, xy, np.array([0, 1, 1], bool), AREA8)
    with pytest.raises(InputError, match=r"outside the area.*row 1"):
        cloak_batch(np.arange(3.0), ["a", "b", "c"], np.array([1.0, 8.0, 1.0]), xy, np.ones(3, bool), AREA8)
    with pytest.raises(InputError, match="one entry per message"):
        cloak_batch(np.arange(3.0), ["a", "b"], xy, xy, np.ones(3, bool), AREA8)
    empty = cloak_batch(np.empty(0), [], np.empty(0), np.empty(0), np.empty(0, bool), AREA8)
    assert len(empty) == 0 and empty.stats()["requests"] == 0


# ---------------------------------------------------------------------------------------- nouns and errors


def test_public_fields_only() -> None:
    msgs = [*_updates(SPEC_SUBJECTS[1:]), Message(1.0, "alice", 1.25, 1.75, "request", "where is lunch")]
    (f,) = _run(msgs, policy=Policy(k=3))[0]
    pub = f.public()
    assert list(pub) == ["t", "x0", "y0", "x1", "y1", "t0", "t1", "payload"]
    text = json.dumps(pub)
    assert "alice" not in text and "1.25" not in text and "1.75" not in text
    assert "request" not in pub and "anonymity" not in pub and "method" not in pub


def test_policy_area_and_push_errors() -> None:
    assert Area.parse("0,0,8,8") == AREA8 and Area.parse(" -1.5, 0 ,2,3e1") == Area(-1.5, 0, 2, 30)
    for bad in ("0,0,8", "a,0,8,8", "0,0,0,8", "0,0,8,nan", "8,0,0,8"):
        with pytest.raises(InputError, match="--area"):
            Area.parse(bad)
    for kwargs, key in (({"k": 0}, "k"), ({"k": 2.5}, "k"), ({"max_area": 0.0}, "max_area"),
                        ({"max_delay": -1.0}, "max_delay"), ({"t_back": math.inf}, "t_back"),
                        ({"on_fail": "keep"}, "on_fail"), ({"min_side": 0}, "min_side")):
        with pytest.raises(InputError, match=key):
            Policy(**kwargs)
    c = Cloaker(AREA8)
    c.push(Message(2.0, "a", 1.0, 1.0, "update"))
    with pytest.raises(InputError, match=r"time order.*'t'"):
        c.push(Message(1.0, "a", 1.0, 1.0, "update"))
    with pytest.raises(InputError, match="outside the area"):
        c.push(Message(3.0, "a", 8.0, 1.0, "update"))
    with pytest.raises(InputError, match="kind"):
        c.push(Message(3.0, "a", 1.0, 1.0, "teleport"))  # type: ignore[arg-type]
    with pytest.raises(InputError, match="k must"):
        c.push(Message(3.0, "a", 1.0, 1.0, "request", k=0))


# ---------------------------------------------------------------------------------------- files


def test_read_messages_formats_and_overrides(tmp_path: Path) -> None:
    csv_text = ("t,subject,x,y,kind,payload,k,max_area,max_delay,on_fail\n"
                "0,a,1,1,update,,,,,\n"
                '1.5,b,2,2,request,"hello, world",3,4,10,hold\n')
    (tmp_path / "m.csv").write_text(csv_text)
    jsonl = ('{"t": 0, "subject": "a", "x": 1, "y": 1, "kind": "update"}\n\n'
             '{"t": 1.5, "subject": "b", "x": 2, "y": 2, "kind": "request", "payload": "hello, world", "k": 3, '
             '"max_area": 4, "max_delay": 10, "on_fail": "hold"}\n')
    (tmp_path / "m.jsonl").write_text(jsonl)
    (tmp_path / "m.stream").write_text(jsonl)
    expected = [Message(0.0, "a", 1.0, 1.0, "update"),
                Message(1.5, "b", 2.0, 2.0, "request", "hello, world", 3, 4.0, 10.0, "hold")]
    for name in ("m.csv", "m.jsonl", "m.stream"):
        assert list(read_messages(tmp_path / name, area=AREA8)) == expected
    assert list(read_messages(io.StringIO(csv_text))) == expected
    assert list(read_messages(io.StringIO(jsonl), format="jsonl")) == expected


@pytest.mark.parametrize(("text", "match"), [
    ("t,subject,x,y,kind\n0,a,1,1,update\n-1,b,1,1,update\n", r"line 3: the timestamp.*'t'"),
    ("t,subject,x,y,kind\n0,a,one,1,update\n", r"line 2: x must be a number.*'one'"),
    ("t,subject,x,y,kind\n0,a,nan,1,update\n", r"line 2: x must be a finite"),
    ("t,subject,x,y,kind\n0,a,1,1,update\n1,a,8,1,update\n", r"line 3: the position \(8.0, 1.0\) is outside"),
    ("t,subject,x,y,kind\n0,a,1,1,walk\n", r"line 2: unknown kind.*'walk'"),
    ("t,subject,x,y,kind\n0,,1,1,update\n", r"line 2: the field 'subject' is missing"),
    ("t,subject,x,kind\n0,a,1,update\n", r"line 1: the header has no column 'y'"),
    ("t,subject,x,y,kind,colour\n0,a,1,1,update,red\n", r"line 1: unknown column.*'colour'"),
    ("t,subject,x,y,kind\n0,a,1,1\n", r"line 2: the row has 4 fields"),
    ("t,subject,x,y,kind,k\n0,a,1,1,request,2.5\n", r"line 2: k must be a whole number"),
    ("t,subject,x,y,kind,on_fail\n0,a,1,1,request,retry\n", r"line 2: on_fail"),
    ("t,subject,x,y,kind,max_area\n0,a,1,1,request,0\n", r"line 2: max_area must be positive"),
    ('{"t": 0, "subject": "a", "x": 1, "y": 1}\n', r"line 1: the field 'kind' is missing"),
    ('{"t": 0, "subject": "a", "x": 1, "y": 1, "kind": "update"}\n{"t": 1,\n', r"line 2: malformed JSON"),
    ('{"t": 0, "subject": "a", "x": true, "y": 1, "kind": "update"}\n', r"line 1: x must be a number"),
    ('[1, 2]\n', r"line 1: a line must be a JSON object"),
    ("", r"empty"),
])
def test_read_messages_errors_name_the_line(text, match) -> None:
    with pytest.raises(InputError, match=match) as err:
        list(read_messages(io.StringIO(text), area=AREA8))
    assert "\n" not in str(err.value)


def test_write_forwarded_round_trips_and_defuses_formulas(tmp_path: Path) -> None:
    rows = [Forwarded(1.0, 0.0, 0.0, 0.1 + 0.2, 4.0, 0.5, 1.0, "=HYPERLINK(\"x\")", 0, "temporal", 3),
            Forwarded(2.0, 0.0, 0.0, 4.0, 4.0, 2.0, 2.0, "-5", 1, "spatial", 3)]
    for fmt in ("csv", "jsonl"):
        target = tmp_path / f"out.{fmt}"
        assert write_forwarded(rows, target, format=fmt) == 2
        back = read_forwarded(target)
        assert [{k: v for k, v in r.items() if k != "payload"} for r in back] == \
               [{k: v for k, v in f.public().items() if k != "payload"} for f in rows]
        assert back[1]["payload"] == "-5"
        assert back[0]["payload"] == ("'=HYPERLINK(\"x\")" if fmt == "csv" else "=HYPERLINK(\"x\")")
        assert list(tmp_path.glob(".out*")) == []  # no temporary file left


def _cli_stream() -> list[Message]:
    rng = np.random.default_rng(3)
    msgs = []
    for i in range(300):
        kind = "request" if i % 3 == 0 else "update"
        msgs.append(Message(i / 10, f"u{rng.integers(0, 30)}", float(rng.random() * 8), float(rng.random() * 8),
                            kind, f"ask {i}, please" if kind == "request" else ""))
    return msgs


def _write_stream(msgs: list[Message], path: Path, fmt: str) -> None:
    fields = ("t", "subject", "x", "y", "kind", "payload")
    if fmt == "csv":
        import csv

        with open(path, "w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(fields)
            for m in msgs:
                w.writerow([repr(m.t), m.subject, repr(m.x), repr(m.y), m.kind, m.payload])
    else:
        path.write_text("".join(json.dumps({f: getattr(m, f) for f in fields}) + "\n" for m in msgs))


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_run_stream_round_trip(tmp_path: Path, fmt: str, capsys) -> None:
    msgs = _cli_stream()
    src = tmp_path / f"in.{fmt}"
    _write_stream(msgs, src, fmt)
    policy = Policy(k=4, max_delay=2.0, t_back=1.0, max_area=4.0)
    expected, c = _run(msgs, policy=policy)
    out = tmp_path / f"out.{fmt}"
    summary = run_stream(src, area=AREA8, policy=policy, output=out)
    assert summary["format"] == fmt and summary["messages"] == 300
    assert {k: summary[k] for k in c.stats()} == c.stats()
    assert summary["served"] > 0 and summary["temporal"] > 0
    assert read_forwarded(out) == [f.public() for f in expected]
    assert (out.read_text().splitlines()[0] == ",".join(Forwarded.PUBLIC_FIELDS)) == (fmt == "csv")
    # to standard output, from a file without a telling suffix (sniffed)
    plain = tmp_path / "in.data"
    plain.write_bytes(src.read_bytes())
    capsys.readouterr()
    run_stream(plain, area=AREA8, policy=policy, json_summary=True)
    captured = capsys.readouterr()
    assert read_forwarded(io.StringIO(captured.out)) == [f.public() for f in expected]
    assert json.loads(captured.err)["served"] == summary["served"]


def test_run_stream_checks_before_work(tmp_path: Path) -> None:
    src = tmp_path / "in.csv"
    _write_stream(_cli_stream(), src, "csv")
    with pytest.raises(InputError, match="the output is the input"):
        run_stream(src, area=AREA8, policy=Policy(), output=src)
    with pytest.raises(InputError, match="does not exist"):
        run_stream(src, area=AREA8, policy=Policy(), output=tmp_path / "no" / "out.csv")
    with pytest.raises(InputError, match="suffix names jsonl"):
        run_stream(src, area=AREA8, policy=Policy(), output=tmp_path / "out.jsonl")
    with pytest.raises(InputError, match="file not found"):
        run_stream(tmp_path / "missing.csv", area=AREA8, policy=Policy())
    # an error on line 50: nothing written, the old output kept
    out = tmp_path / "out.csv"
    out.write_text("old")
    lines = src.read_text().splitlines()
    lines[49] = lines[49].replace("update", "teleport").replace("request", "teleport")
    bad = tmp_path / "bad.csv"
    bad.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError, match="line 50: unknown kind"):
        run_stream(bad, area=AREA8, policy=Policy(), output=out)
    assert out.read_text() == "old" and sorted(p.name for p in tmp_path.iterdir()) == ["bad.csv", "in.csv",
                                                                                      "out.csv"]


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_cli_cloak(tmp_path: Path, fmt: str) -> None:
    from typer.testing import CliRunner

    from anonkit.cli import app

    msgs = _cli_stream()
    src = tmp_path / f"in.{fmt}"
    _write_stream(msgs, src, fmt)
    out = tmp_path / f"out.{fmt}"
    res = CliRunner().invoke(app, ["cloak", str(src), "--area", "0,0,8,8", "--k", "4", "--max-delay", "2",
                                   "--output", str(out), "--json"])
    assert res.exit_code == 0, res.output
    expected, c = _run(msgs, policy=Policy(k=4, max_delay=2.0))
    assert read_forwarded(out) == [f.public() for f in expected]
    assert json.loads(res.stdout)["served"] == c.stats()["served"]
    res = CliRunner().invoke(app, ["cloak", str(src), "--area", "0,0,4,4"])
    assert res.exit_code == 2 and "outside" in res.output and "line" in res.output
