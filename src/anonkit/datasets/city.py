"""A simulated city: random-waypoint movers emitting the message stream a location broker cloaks.

Paper B (a survey of k-anonymity, §4.3) describes location cloaking against two attacks on users of
location-based services: *restricted-space identification* (a message sent from a place that belongs
to one known person — Bob's flat — identifies Bob) and *observation identification* (an adversary
who saw subject S at L learns that S sent the message from L). It publishes no data, so
:func:`simulate_city` builds a population with both weaknesses, by the seeded distributions below;
:func:`make_city` returns its message stream (what ``anonkit cloak`` reads as CSV) and
:func:`city_homes` its homes (the restricted-space adversary's knowledge and the attacks' ground
truth, :mod:`anonkit.location.attacks`).

Space and time
--------------
The area is the square ``[0, side)²`` of **metres** on an integer grid (``side`` = 1,024 by default,
a power of two so that the quadtree cells of the cloaker, ``side / 2^d``, fall on the home cells);
``x`` and ``y`` are integers ``0 … side − 1`` (a mover's exact position rounded down). Time is the
integer **step** ``t = 0 … steps − 1``; every subject has a position at every step.

Districts
---------
``districts`` (4) dense districts: centres uniform on ``[side/8, 7·side/8)²``, each drawn once per
city. A *district point* picks a district uniformly and adds ``Normal(0, district_sd²)`` (40 m) to
each coordinate of its centre; a *uniform point* is uniform on the area. Every point is rounded down
and clipped into the area.

Homes
-----
Each subject has a home with probability ``home_share`` (0.4), independently. A home is a point:
a district point with probability ``home_district_share`` (0.3), else a uniform point (so district
homes are crowded and suburban ones often alone). The area is tiled by **home cells** of side
``home_cell`` (16 m, "buildings"); a home is *alone* when no other home lies in its cell — the
places that belong to one specific person, which restricted-space identification exploits.

Movement (random waypoint)
--------------------------
A subject with a home starts at home, pausing there ``Uniform{0 … home_pause[1]}`` steps; the others
start at a waypoint (below) with no pause. A moving subject walks straight towards its waypoint at
its leg's speed, ``Uniform[speed[0], speed[1])`` m per step (5–30, drawn per leg); a step that would
reach or pass the waypoint ends on it. On arrival it pauses ``Uniform{0 … pause_max}`` steps
(``pause_max`` = 3), or ``Uniform{home_pause[0] … home_pause[1]}`` (5–20) when the waypoint is its
home, then leaves for the next waypoint: its home with probability ``return_home`` (0.3) for a
subject with a home, else a district point with probability ``district_share`` (0.7), else a uniform
point. Each next waypoint and speed is drawn when the subject arrives.

Messages
--------
At every step, in this order:

* ``update``: each subject reports its position with probability ``update_rate`` (1: every step;
  at step 0 every subject reports, so the broker knows everyone from the start). Payload ``""``.
* ``request``: each subject sends a service request with probability ``request_rate`` (0.02), times
  ``home_request_factor`` (2) while it is at home (at its home point, a resident at rest or
  arriving); payload ``q0000`` … ``q9999`` (uniform), the query text. A request carries the
  position too.

Columns ``t`` (int), ``subject`` (``s00001`` … zero-padded to 5 digits or more), ``x``, ``y`` (int
metres), ``kind`` (``update`` / ``request``), ``payload`` (str). Rows are in time order; within a
step the updates come first (subjects in id order), then the requests (id order), so a request
always finds every subject's position of its step known to the broker. The index is ``0 … rows − 1``.

Randomness
----------
One ``numpy.random.default_rng(seed)``, drawn in a fixed order (districts, homes, starts, then each
step's arrivals and messages with arrays of fixed size ``subjects``), so ``(subjects, steps, seed,
options)`` determine the city exactly. Generation is vectorized over subjects (a Python loop over
steps only): 10,000 subjects × 100 steps (about a million messages) take about a second.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from anonkit.errors import InputError

__all__ = ["CITY_COLUMNS", "DEFAULT_OPTIONS", "City", "city_homes", "make_city", "simulate_city"]

#: the stream's columns, in order
CITY_COLUMNS: tuple[str, ...] = ("t", "subject", "x", "y", "kind", "payload")

DEFAULT_SUBJECTS = 1_000
DEFAULT_STEPS = 100

#: every option of :func:`simulate_city` and its default (see the module docstring)
DEFAULT_OPTIONS: dict[str, object] = {
    "side": 1024,
    "districts": 4,
    "district_sd": 40.0,
    "district_share": 0.7,
    "home_share": 0.4,
    "home_district_share": 0.3,
    "home_cell": 16,
    "return_home": 0.3,
    "pause_max": 3,
    "home_pause": (5, 20),
    "speed": (5.0, 30.0),
    "request_rate": 0.02,
    "home_request_factor": 2.0,
    "update_rate": 1.0,
}

_ID_WIDTH = 5
_PAYLOADS = 10_000


@dataclass(frozen=True, eq=False)  # array fields: compare them yourself
class City:
    """One simulated city: the message stream and the ground truth behind it.

    Attributes
    ----------
    stream:
        The messages (:data:`CITY_COLUMNS`), in time order (what :func:`make_city` returns).
    homes:
        One row per subject with a home: ``subject``, ``x``, ``y`` (the home point), ``cell_x``,
        ``cell_y`` (its home cell, ``x // home_cell``), ``residents`` (homes in that cell) and
        ``alone`` (``residents == 1``).
    positions:
        True positions, shape ``(steps, subjects, 2)`` (int metres), subject ``i`` being
        ``subjects[i]``.
    at_home:
        ``(steps, subjects)``: the subject is at its home point.
    subjects:
        The subject ids in order.
    districts:
        ``(districts, 2)`` district centres.
    options:
        Every option used (defaults filled in).
    """

    stream: pd.DataFrame
    homes: pd.DataFrame
    positions: np.ndarray = field(repr=False)
    at_home: np.ndarray = field(repr=False)
    subjects: np.ndarray = field(repr=False)
    districts: np.ndarray
    options: dict

    @property
    def side(self) -> int:
        return int(self.options["side"])  # type: ignore[call-overload]

    @property
    def home_cell(self) -> int:
        return int(self.options["home_cell"])  # type: ignore[call-overload]

    def requests(self) -> pd.DataFrame:
        """The stream's requests in stream order (request ``i`` is :attr:`Forwarded.request` ``i``)."""
        return self.stream[self.stream["kind"] == "request"].reset_index(drop=True)

    def track(self) -> pd.DataFrame:
        """Every subject's true position at every step: ``t, subject, x, y`` (an observer's world)."""
        steps, n = self.positions.shape[:2]
        return pd.DataFrame({
            "t": np.repeat(np.arange(steps, dtype=np.int64), n),
            "subject": np.tile(self.subjects, steps),
            "x": self.positions[:, :, 0].ravel(),
            "y": self.positions[:, :, 1].ravel(),
        })

    def lone_homes(self) -> pd.DataFrame:
        """The homes alone in their home cell (``subject, x, y, cell_x, cell_y``)."""
        lone = self.homes[self.homes["alone"]]
        return lone[["subject", "x", "y", "cell_x", "cell_y"]].reset_index(drop=True)


def _number(name: str, value: object, *, low: float, high: float | None = None, integer: bool = False) -> float:
    kinds = (int, np.integer) if integer else (int, float, np.integer, np.floating)
    ok = isinstance(value, kinds) and not isinstance(value, bool) and bool(np.isfinite(value))  # type: ignore[arg-type]
    if not ok or not (low <= value and (high is None or value <= high)):  # type: ignore[operator]
        bound = f"between {low} and {high}" if high is not None else f"≥ {low}"
        raise InputError(f"{name} must be {'an integer' if integer else 'a number'} {bound}", key=name, value=value)
    return value  # type: ignore[return-value]


def _pair(name: str, value: object, *, low: float, integer: bool = False) -> tuple[float, float]:
    if not isinstance(value, tuple | list) or len(value) != 2:
        raise InputError(f"{name} must be a pair (low, high)", key=name, value=value)
    a = _number(name, value[0], low=low, integer=integer)
    b = _number(name, value[1], low=low, integer=integer)
    if a > b:
        raise InputError(f"{name} must be a pair with low ≤ high", key=name, value=tuple(value))
    return a, b


def _options(subjects: object, steps: object, seed: object, options: dict) -> dict:
    _number("subjects", subjects, low=1, integer=True)
    _number("steps", steps, low=1, integer=True)
    _number("seed", seed, low=0, integer=True)
    unknown = sorted(set(options) - set(DEFAULT_OPTIONS))
    if unknown:
        raise InputError(f"unknown city option (known: {', '.join(DEFAULT_OPTIONS)})", key=unknown[0])
    opts = {**DEFAULT_OPTIONS, **options}
    _number("side", opts["side"], low=2, integer=True)
    _number("districts", opts["districts"], low=1, integer=True)
    _number("district_sd", opts["district_sd"], low=0)
    _number("home_cell", opts["home_cell"], low=1, high=opts["side"], integer=True)  # type: ignore[arg-type]
    _number("pause_max", opts["pause_max"], low=0, integer=True)
    _number("home_request_factor", opts["home_request_factor"], low=0)
    for share in ("district_share", "home_share", "home_district_share", "return_home", "request_rate"):
        _number(share, opts[share], low=0, high=1)
    _number("update_rate", opts["update_rate"], low=0, high=1)
    if opts["update_rate"] == 0:
        raise InputError("update_rate must be above 0", key="update_rate", value=opts["update_rate"])
    opts["home_pause"] = tuple(int(v) for v in _pair("home_pause", opts["home_pause"], low=0, integer=True))
    opts["speed"] = tuple(float(v) for v in _pair("speed", opts["speed"], low=0))
    if opts["speed"][1] <= 0:  # type: ignore[index]
        raise InputError("speed must allow moving (high above 0)", key="speed", value=opts["speed"])
    return opts


def _points(rng: np.random.Generator, n: int, centres: np.ndarray, sd: float, district: np.ndarray,
            side: int) -> np.ndarray:
    """``n`` points: a district point where ``district`` is true, else a uniform point (one draw each)."""
    which = rng.integers(0, len(centres), size=n)
    near = centres[which] + rng.normal(0.0, sd, size=(n, 2))
    anywhere = rng.uniform(0.0, side, size=(n, 2))
    pts = np.where(district[:, None], near, anywhere)
    return np.clip(np.floor(pts), 0, side - 1)


def simulate_city(subjects: int = DEFAULT_SUBJECTS, steps: int = DEFAULT_STEPS, seed: int = 0,
                  **options: object) -> City:
    """The city of ``subjects`` random-waypoint movers over ``steps`` steps (see the module docstring).

    ``options`` override :data:`DEFAULT_OPTIONS` (``side``, ``districts``, ``district_sd``,
    ``district_share``, ``home_share``, ``home_district_share``, ``home_cell``, ``return_home``,
    ``pause_max``, ``home_pause``, ``speed``, ``request_rate``, ``home_request_factor``,
    ``update_rate``). The same arguments always give the same city.

    Raises
    ------
    InputError
        On a bad size, seed or option (naming it).
    """
    opts = _options(subjects, steps, seed, options)
    n, steps = int(subjects), int(steps)
    side = int(opts["side"])  # type: ignore[call-overload]
    sd = float(opts["district_sd"])  # type: ignore[arg-type]
    cell = int(opts["home_cell"])  # type: ignore[call-overload]
    lo_speed, hi_speed = opts["speed"]  # type: ignore[misc]
    lo_home, hi_home = opts["home_pause"]  # type: ignore[misc]
    pause_max = int(opts["pause_max"])  # type: ignore[call-overload]
    rng = np.random.default_rng(int(seed))

    centres = np.floor(rng.uniform(side / 8, 7 * side / 8, size=(int(opts["districts"]), 2)))  # type: ignore[call-overload]

    has_home = rng.random(n) < float(opts["home_share"])  # type: ignore[arg-type]
    home = _points(rng, n, centres, sd, rng.random(n) < float(opts["home_district_share"]), side)  # type: ignore[arg-type]
    home[~has_home] = -1.0

    # starts: residents at home (pausing), the others at a waypoint
    start = _points(rng, n, centres, sd, rng.random(n) < float(opts["district_share"]), side)  # type: ignore[arg-type]
    pos = np.where(has_home[:, None], home, start)
    pause = np.where(has_home, rng.integers(0, hi_home + 1, size=n), 0)
    way, speed = pos.copy(), np.zeros(n)

    def next_leg(mask: np.ndarray) -> None:
        """New waypoint and speed for the subjects in ``mask`` (draws for all subjects: fixed stream)."""
        to_home = has_home & (rng.random(n) < float(opts["return_home"]))  # type: ignore[arg-type]
        target = _points(rng, n, centres, sd, rng.random(n) < float(opts["district_share"]), side)  # type: ignore[arg-type]
        target = np.where(to_home[:, None], home, target)
        legs = rng.uniform(lo_speed, hi_speed, size=n)
        way[mask] = target[mask]
        speed[mask] = legs[mask]

    next_leg(np.ones(n, dtype=bool))
    positions = np.empty((steps, n, 2), dtype=np.int64)
    at_home = np.empty((steps, n), dtype=bool)
    requests = np.empty((steps, n), dtype=bool)
    updates = np.empty((steps, n), dtype=bool)
    payload = np.empty((steps, n), dtype=np.int64)
    rate = float(opts["request_rate"])  # type: ignore[arg-type]
    home_rate = min(1.0, rate * float(opts["home_request_factor"]))  # type: ignore[arg-type]
    for t in range(steps):
        positions[t] = pos  # waypoints and homes are whole metres; walking positions are rounded down
        here = has_home & (pos == home).all(axis=1)
        at_home[t] = here
        updates[t] = (rng.random(n) < float(opts["update_rate"])) | (t == 0)  # type: ignore[arg-type]
        requests[t] = rng.random(n) < np.where(here, home_rate, rate)
        payload[t] = rng.integers(0, _PAYLOADS, size=n)
        # move to step t + 1
        resting = pause > 0
        pause[resting] -= 1
        moving = ~resting
        delta = way - pos
        dist = np.hypot(delta[:, 0], delta[:, 1])
        arrive = moving & (dist <= speed)
        walk = moving & ~arrive
        pos[walk] += delta[walk] * (speed[walk] / dist[walk])[:, None]
        pos[arrive] = way[arrive]
        home_arrival = arrive & has_home & (way == home).all(axis=1)
        new_pause = np.where(home_arrival, rng.integers(lo_home, hi_home + 1, size=n),
                             rng.integers(0, pause_max + 1, size=n))
        pause[arrive] = new_pause[arrive]
        next_leg(arrive)

    width = max(_ID_WIDTH, len(str(n)))
    labels = np.char.add("s", np.char.zfill(np.arange(1, n + 1).astype(str), width)).astype(object)
    stream = _stream(positions, updates, requests, payload, labels)
    homes = _homes(home, has_home, labels, cell, side)
    return City(stream=stream, homes=homes, positions=positions, at_home=at_home, subjects=labels,
                districts=centres.astype(np.int64), options=opts)


def _stream(positions: np.ndarray, updates: np.ndarray, requests: np.ndarray, payload: np.ndarray,
            labels: np.ndarray) -> pd.DataFrame:
    n = updates.shape[1]
    tu, su = np.nonzero(updates)
    tr, sr = np.nonzero(requests)
    t = np.concatenate([tu, tr])
    s = np.concatenate([su, sr])
    kind = np.concatenate([np.zeros(len(tu), dtype=np.int64), np.ones(len(tr), dtype=np.int64)])
    order = np.argsort((t * 2 + kind) * n + s, kind="stable")
    t, s, kind = t[order], s[order], kind[order]
    texts = np.array([""] + [f"q{i:04d}" for i in range(_PAYLOADS)], dtype=object)
    return pd.DataFrame({
        "t": t.astype(np.int64),
        "subject": labels[s],
        "x": positions[t, s, 0],
        "y": positions[t, s, 1],
        "kind": np.array(["update", "request"], dtype=object)[kind],
        "payload": texts[np.where(kind == 1, payload[t, s] + 1, 0)],
    })


def _homes(home: np.ndarray, has_home: np.ndarray, labels: np.ndarray, cell: int, side: int) -> pd.DataFrame:
    idx = np.flatnonzero(has_home)
    xy = home[idx].astype(np.int64)
    cx, cy = xy[:, 0] // cell, xy[:, 1] // cell
    key = cx * (side // cell + 1) + cy
    _, inverse, counts = np.unique(key, return_inverse=True, return_counts=True)
    residents = counts[inverse]
    return pd.DataFrame({"subject": labels[idx], "x": xy[:, 0], "y": xy[:, 1], "cell_x": cx, "cell_y": cy,
                         "residents": residents.astype(np.int64), "alone": residents == 1})


def make_city(subjects: int = DEFAULT_SUBJECTS, steps: int = DEFAULT_STEPS, seed: int = 0,
              **options: object) -> pd.DataFrame:
    """The city's message stream: columns ``t, subject, x, y, kind, payload`` in time order.

    See the module docstring for every distribution; :func:`simulate_city` gives the same stream
    with its ground truth, :func:`city_homes` the homes.
    """
    return simulate_city(subjects, steps, seed, **options).stream


def city_homes(subjects: int = DEFAULT_SUBJECTS, steps: int = DEFAULT_STEPS, seed: int = 0,
               **options: object) -> pd.DataFrame:
    """The homes of the city :func:`make_city` builds with the same arguments (:attr:`City.homes`)."""
    return simulate_city(subjects, steps, seed, **options).homes
