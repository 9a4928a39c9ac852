"""The two attacks of paper B §4.3 on a location broker's forwarded requests, simulated.

Paper B (a survey of k-anonymity, §4.3, after Gruteser & Grunwald, MobiSys 2003) names the attacks
that spatial and temporal cloaking defend a location-based service's users against:

* **restricted-space identification** — the adversary knows that a place belongs to one person
  (Bob's flat): a message sent from there is Bob's;
* **observation identification** — the adversary saw subject S at L: a message sent from L at that
  time is S's.

Both are simulated here against a stream of forwarded requests, and against the same requests
*uncloaked* (each as its exact point ``[x, x] × [y, y]`` and time ``[t, t]``: the baseline). The
private link :attr:`anonkit.location.Forwarded.request` names each forwarded request's input
request, hence its true sender; it is used only to *score* an attack, never by the adversary.

The released form
-----------------
:class:`Released` holds, per forwarded request, the box ``[x0, x1) × [y0, y1)`` (half-open, as the
cloaker's areas; a *degenerate* side ``x0 == x1`` is the single coordinate ``x0``, so an uncloaked
request is a point), the closed interval ``[t0, t1]``, and the true sender (ground truth).

What an attack reports
----------------------
For every released request the adversary forms a set of candidates ``C`` and links the request to
one of them chosen uniformly, so it links the true sender with probability ``1/|C|`` when the
sender is in ``C`` and 0 otherwise. :class:`AttackResult` gives

* ``linked`` — the expected number of correct links, ``Σ 1/|C|`` over the requests whose sender
  is in ``C``; ``linked_share = linked / requests`` (requests = forwarded requests);
* ``unique_linked`` — the requests with exactly one candidate, who is the sender (an adversary
  that only attacks when it is sure); ``unique_share = unique_linked / requests``;
* ``attacked`` (``|C| ≥ 1``), ``exposed`` (sender in ``C``), ``max_probability`` and, per request,
  ``probability`` and ``candidates``.

Restricted-space identification (:func:`restricted_space_identification`)
-------------------------------------------------------------------------
The adversary knows every home and so, at its resolution ``cell`` (the side of the squares
``[i·cell, (i+1)·cell) × [j·cell, (j+1)·cell)`` it thinks of as buildings), which homes are *alone*
in their square: those places belong to one person. Two rules (the time is not used: homes are
static knowledge):

* ``"within"`` (the default, the attack as the paper states it): the request is attributed to the
  resident of a lone home when its **whole box lies within that home's square** — the place it was
  sent from belongs to that person. An uncloaked request sent from a lone home's square is
  attributed to its resident (correctly when the resident sent it, wrongly when a passer-by did).
  A cloaked box holds at least k subjects; it lies within a lone home's square only when k
  subjects were in that square together, so when lone homes are private (only their resident in
  the square) the attack never fires on a cloaked stream.
* ``"contains"`` (a weaker adversary's guess): the request is attributed to the resident of a lone
  home when its box **contains exactly one lone home's point** (the home's position itself). This
  is a heuristic with no guarantee: a cloaked box that covers one lone home and k − 1 passers-by
  is attributed to the resident whenever the resident is the one who sent it.

So ``|C|`` is 0 or 1 and ``linked`` counts the correct attributions.

Observation identification (:func:`observation_identification`)
----------------------------------------------------------------
The adversary observes the true positions (``track``: ``t, subject, x, y``) of a random share
``subject_share`` of the subjects at a random share ``time_share`` of the times (the sets are
``round(share · n)`` subjects and times drawn without replacement, seeded): it sees every position
``(subject, t)`` with an observed subject *and* an observed time. For a released request the
candidates are the observed subjects seen inside the box at an observed time of ``[t0, t1]``.

**The guarantee.** With complete observation (both shares 1) of the positions the broker knows,
the candidates include every subject the broker counted in the box: at least k for a spatial box
at ``[t, t]`` (the subjects in the cell) and for a temporal box (the k distinct subjects that
visited the cell during the interval). So every request's link probability is at most ``1/k`` and
so is the linked share. With partial observation a single request can have fewer candidates, yet
in expectation over the adversary's random sample it is no better off: if ``m ≥ k`` subjects are
in a spatial box, each subject is observed with probability ``p_s`` and the time with probability
``p_t``, the sender is linked with probability
``p_t · p_s · E[1/(1 + Binomial(m − 1, p_s))] = p_t · (1 − (1 − p_s)^m) / m ≤ 1/k`` (the sampler
draws exact shares without replacement, which is close to independent draws for many subjects),
against ``p_t · p_s`` for the same request uncloaked (a point usually holds only its sender).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import pandas as pd

from anonkit.errors import InputError

__all__ = [
    "AttackResult",
    "Released",
    "forwarded_requests",
    "observation_identification",
    "restricted_space_identification",
    "uncloaked_requests",
]

#: how many (request, observation) comparisons one vectorized block holds
_BLOCK = 4_000_000

Rule = Literal["within", "contains"]


def _array(values: object, dtype: object) -> np.ndarray:
    return np.asarray(values, dtype=dtype).reshape(-1)  # type: ignore[call-overload]


@dataclass(frozen=True, eq=False)  # array fields: compare them yourself
class Released:
    """Released requests as the adversary sees them (box, interval), with the true sender.

    Attributes
    ----------
    x0, y0, x1, y1:
        The box ``[x0, x1) × [y0, y1)`` (a side with ``x0 == x1`` is the single coordinate).
    t0, t1:
        The closed interval ``[t0, t1]``.
    sender:
        The true sender of each request (ground truth, for scoring only).
    request:
        Each one's number among the input's requests (0-based), ``-1`` when unknown.
    """

    x0: np.ndarray
    y0: np.ndarray
    x1: np.ndarray
    y1: np.ndarray
    t0: np.ndarray
    t1: np.ndarray
    sender: np.ndarray
    request: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.int64))

    def __post_init__(self) -> None:
        for name in ("x0", "y0", "x1", "y1", "t0", "t1"):
            object.__setattr__(self, name, _array(getattr(self, name), np.float64))
        object.__setattr__(self, "sender", _array(self.sender, object))
        n = len(self.x0)
        request = _array(self.request, np.int64)
        object.__setattr__(self, "request", request if len(request) else np.full(n, -1, dtype=np.int64))
        sizes = {name: len(getattr(self, name)) for name in ("y0", "x1", "y1", "t0", "t1", "sender", "request")}
        bad = [name for name, size in sizes.items() if size != n]
        if bad:
            raise InputError("released requests: every field needs one value per request", key=bad[0])
        if n and ((self.x1 < self.x0).any() or (self.y1 < self.y0).any() or (self.t1 < self.t0).any()):
            raise InputError("released requests: a box or interval ends before it starts")

    def __len__(self) -> int:
        return len(self.x0)

    @property
    def area(self) -> np.ndarray:
        """Each box's area (0 for a point)."""
        return (self.x1 - self.x0) * (self.y1 - self.y0)


def _requests_frame(requests: pd.DataFrame) -> pd.DataFrame:
    missing = [c for c in ("t", "subject", "x", "y") if c not in requests.columns]
    if missing:
        raise InputError("the requests need columns t, subject, x, y", column=missing[0])
    if "kind" in requests.columns and (requests["kind"] != "request").any():
        requests = requests[requests["kind"] == "request"]
    return requests.reset_index(drop=True)


def uncloaked_requests(requests: pd.DataFrame) -> Released:
    """The baseline: every request released as its exact point and time.

    ``requests`` has columns ``t, subject, x, y`` (a whole stream is accepted: only the rows of
    ``kind == "request"`` are used), in the input's order.
    """
    req = _requests_frame(requests)
    x, y, t = req["x"].to_numpy(float), req["y"].to_numpy(float), req["t"].to_numpy(float)
    return Released(x, y, x, y, t, t, req["subject"].to_numpy(object), np.arange(len(req)))


def forwarded_requests(forwarded: Iterable[object], requests: pd.DataFrame) -> Released:
    """The cloaked stream as released: the box and interval of every forwarded request, its sender
    found through the private link ``Forwarded.request`` into ``requests`` (the input's requests in
    order, or a whole stream: its ``kind == "request"`` rows).

    ``forwarded`` is an iterable of :class:`~anonkit.location.Forwarded` (what :func:`cloak` yields)
    or a :class:`~anonkit.location.BatchResult` (its arrays are used as they are).
    """
    req = _requests_frame(requests)
    if isinstance(getattr(forwarded, "request", None), np.ndarray):  # a BatchResult: arrays already

        def col(name: str) -> np.ndarray:
            return np.asarray(getattr(forwarded, name), dtype=np.float64)

        number = np.asarray(forwarded.request, dtype=np.int64)  # type: ignore[attr-defined]
    else:
        rows = list(forwarded)

        def col(name: str) -> np.ndarray:
            return np.array([float(getattr(f, name)) for f in rows], dtype=np.float64)

        number = np.array([int(f.request) for f in rows], dtype=np.int64)  # type: ignore[attr-defined]
    if len(number) and (number.min() < 0 or number.max() >= len(req)):
        raise InputError("a forwarded request links to no input request", key="request",
                         value=int(number.max() if number.max() >= len(req) else number.min()))
    return Released(col("x0"), col("y0"), col("x1"), col("y1"), col("t0"), col("t1"),
                    req["subject"].to_numpy(object)[number], number)


@dataclass(frozen=True, eq=False)  # array fields: compare them yourself
class AttackResult:
    """What an attack achieved on a released stream (see the module docstring)."""

    attack: str
    requests: int
    attacked: int
    exposed: int
    linked: float
    unique: int
    unique_linked: int
    max_probability: float
    probability: np.ndarray = field(repr=False)
    candidates: np.ndarray = field(repr=False)

    @property
    def linked_share(self) -> float:
        """Expected correct links per released request (0 when nothing was released)."""
        return self.linked / self.requests if self.requests else 0.0

    @property
    def unique_share(self) -> float:
        """Sure and correct links (one candidate, the sender) per released request."""
        return self.unique_linked / self.requests if self.requests else 0.0

    def summary(self) -> dict[str, float | int | str]:
        """The scalar fields and shares (for a table row)."""
        return {"attack": self.attack, "requests": self.requests, "attacked": self.attacked,
                "exposed": self.exposed, "linked": self.linked, "linked_share": self.linked_share,
                "unique": self.unique, "unique_linked": self.unique_linked, "unique_share": self.unique_share,
                "max_probability": self.max_probability}


def _result(attack: str, candidates: np.ndarray, exposed: np.ndarray) -> AttackResult:
    candidates = candidates.astype(np.int64)
    probability = np.where(exposed, 1.0 / np.maximum(candidates, 1), 0.0)
    return AttackResult(
        attack=attack, requests=len(candidates), attacked=int((candidates > 0).sum()), exposed=int(exposed.sum()),
        linked=float(probability.sum()), unique=int((candidates == 1).sum()),
        unique_linked=int((exposed & (candidates == 1)).sum()),
        max_probability=float(probability.max(initial=0.0)), probability=probability, candidates=candidates,
    )


def _inside(lo: np.ndarray, hi: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``v`` in ``[lo, hi)``, or ``v == lo`` on a degenerate side (broadcasting)."""
    return (lo <= v) & ((v < hi) | ((lo == hi) & (v == lo)))


def restricted_space_identification(released: Released, homes: pd.DataFrame, *, cell: float,
                                    rule: Rule = "within") -> AttackResult:
    """Restricted-space identification (see the module docstring for both rules).

    Parameters
    ----------
    released:
        The released requests (:func:`forwarded_requests` or :func:`uncloaked_requests`).
    homes:
        Every home the adversary knows: columns ``subject, x, y`` (e.g. :attr:`City.homes`).
    cell:
        The adversary's resolution: the side of the squares in which a home is alone or not.
    rule:
        ``"within"`` (the box lies within a lone home's square) or ``"contains"`` (the box contains
        exactly one lone home's point).
    """
    if rule not in ("within", "contains"):
        raise InputError("rule must be 'within' or 'contains'", key="rule", value=rule)
    if not cell > 0:
        raise InputError("cell must be above 0", key="cell", value=cell)
    missing = [c for c in ("subject", "x", "y") if c not in homes.columns]
    if missing:
        raise InputError("the homes need columns subject, x, y", column=missing[0])
    hx, hy = homes["x"].to_numpy(float), homes["y"].to_numpy(float)
    cx, cy = np.floor(hx / cell).astype(np.int64), np.floor(hy / cell).astype(np.int64)
    # the square holding each box's lower-left corner: the only one the box can lie within
    bx, by = np.floor(released.x0 / cell).astype(np.int64), np.floor(released.y0 / cell).astype(np.int64)
    low = min(cx.min(initial=0), bx.min(initial=0)), min(cy.min(initial=0), by.min(initial=0))
    span = int(max(cy.max(initial=0), by.max(initial=0)) - low[1] + 1)

    def key(ix: np.ndarray, iy: np.ndarray) -> np.ndarray:
        return (ix - low[0]) * span + (iy - low[1])

    cells, first, counts = np.unique(key(cx, cy), return_index=True, return_counts=True)
    lone_cells, lone_rows = cells[counts == 1], first[counts == 1]
    resident = homes["subject"].to_numpy(object)[lone_rows]
    n = len(released)
    candidates = np.zeros(n, dtype=np.int64)
    named = np.empty(n, dtype=object)
    if rule == "within":
        within = (released.x1 <= (bx + 1) * cell) & (released.y1 <= (by + 1) * cell)
        box_key = key(bx, by)
        where = np.minimum(np.searchsorted(lone_cells, box_key), max(len(lone_cells) - 1, 0))
        found = within & (len(lone_cells) > 0)
        found[found] = lone_cells[where[found]] == box_key[found]
        candidates[found] = 1
        named[found] = resident[where[found]]
    else:
        px, py = hx[lone_rows], hy[lone_rows]
        step = max(1, _BLOCK // max(len(px), 1))
        for start in range(0, n, step):
            s = slice(start, min(start + step, n))
            hit = (_inside(released.x0[s, None], released.x1[s, None], px[None, :])
                   & _inside(released.y0[s, None], released.y1[s, None], py[None, :]))
            count = hit.sum(axis=1)
            candidates[s] = count
            one = np.flatnonzero(count == 1)
            named[start + one] = resident[hit[one].argmax(axis=1)]
        # more than one lone home in the box: no single place, no attribution
        candidates[candidates > 1] = 0
    exposed = (candidates == 1) & (named == released.sender)
    return _result(f"restricted-space ({rule})", candidates, exposed)


def _share(rng: np.random.Generator, values: np.ndarray, share: float) -> np.ndarray:
    count = round(share * len(values))
    return values[rng.permutation(len(values))[:count]]


def observation_identification(released: Released, track: pd.DataFrame, *, subject_share: float = 0.5,
                               time_share: float = 0.5, seed: int = 0) -> AttackResult:
    """Observation identification (see the module docstring).

    Parameters
    ----------
    released:
        The released requests.
    track:
        The true positions the adversary may observe: columns ``t, subject, x, y`` (e.g.
        :meth:`City.track`, or a stream's own rows).
    subject_share, time_share:
        The shares of the subjects and of the distinct times observed (1 and 1: complete
        observation, the case the k-anonymity guarantee speaks of).
    seed:
        Seeds the observed subjects and times.
    """
    for name, share in (("subject_share", subject_share), ("time_share", time_share)):
        if isinstance(share, bool) or not isinstance(share, int | float) or not 0 <= share <= 1:
            raise InputError(f"{name} must be between 0 and 1", key=name, value=share)
    missing = [c for c in ("t", "subject", "x", "y") if c not in track.columns]
    if missing:
        raise InputError("the track needs columns t, subject, x, y", column=missing[0])
    rng = np.random.default_rng(seed)
    subjects = pd.unique(track["subject"].to_numpy(object))  # in order of first appearance
    times = np.unique(track["t"].to_numpy())
    seen_subjects = _share(rng, subjects, subject_share)
    seen_times = _share(rng, times, time_share)
    obs = track[track["subject"].isin(seen_subjects) & track["t"].isin(seen_times)]
    codes = pd.Index(pd.unique(np.concatenate([subjects, released.sender])))
    o_s = codes.get_indexer(obs["subject"].to_numpy(object)).astype(np.int64)
    o_t, o_x, o_y = obs["t"].to_numpy(float), obs["x"].to_numpy(float), obs["y"].to_numpy(float)
    order = np.argsort(o_t, kind="stable")
    o_s, o_t, o_x, o_y = o_s[order], o_t[order], o_x[order], o_y[order]
    sender = codes.get_indexer(released.sender).astype(np.int64)
    width = np.int64(len(codes) + 1)
    pairs: list[np.ndarray] = []
    stamps, starts = np.unique(o_t, return_index=True)
    ends = np.append(starts[1:], len(o_t))[: len(starts)]
    for tau, lo, hi in zip(stamps, starts, ends, strict=True):
        live = np.flatnonzero((released.t0 <= tau) & (tau <= released.t1))
        if not len(live):
            continue
        sx, sy, ss = o_x[lo:hi], o_y[lo:hi], o_s[lo:hi]
        step = max(1, _BLOCK // max(hi - lo, 1))
        for start in range(0, len(live), step):
            r = live[start:start + step]
            hit = (_inside(released.x0[r, None], released.x1[r, None], sx[None, :])
                   & _inside(released.y0[r, None], released.y1[r, None], sy[None, :]))
            ri, oi = np.nonzero(hit)
            pairs.append(r[ri].astype(np.int64) * width + ss[oi])
    joined = np.unique(np.concatenate(pairs)) if pairs else np.empty(0, dtype=np.int64)
    candidates = np.bincount(joined // width, minlength=len(released)).astype(np.int64)
    exposed = np.isin(np.arange(len(released), dtype=np.int64) * width + sender, joined) & (sender >= 0)
    return _result("observation", candidates, exposed)
