"""One compiled pass judging a node's classes by k-anonymity, distinct l-diversity and equal-distance t-closeness.

A lattice search judges thousands of nodes; with these three models (ARX's ``KLT`` configurations)
the general path (:func:`~anonkit.algorithms.transform._judge_classes`) spends most of a node's time
in numpy calls on a few hundred classes: a subset of the histograms per model, a distribution, an
absolute difference, a row sum. Here one kernel reads each class's size and sensitive histogram once
and gives the index of the first model (in judging order) the class fails — its *stage* — from which
the caller rebuilds exactly what the general path returns (which classes are released, the records the
monotone models alone suppress, whether it stopped settled), with the same numpy sums in the same order.

Every verdict is the general path's bit for bit: the class size is compared with ``k``, the number of
non-zero histogram cells with ``⌈l⌉``, and the EMD ``½ Σ |hᵢ/n − qᵢ|`` with ``t + 1e-12``, its row sums
taken in numpy's pairwise order (``_stages_py``), so even a distance on the bound is judged alike.
Like every tiered kernel it has a numpy version with the same results (``tests/test_node_kernel.py``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from anonkit._kernels import tiered
from anonkit.models import Criterion, DistinctLDiversity, KAnonymity, TCloseness
from anonkit.models.tcloseness import T_SLACK
from anonkit.stats import ClassStats

#: the model kinds the fused kernel judges (a model's code in ``kinds``)
K_SIZE, L_DISTINCT, T_EQUAL = 0, 1, 2
#: below this total, sums of whole class sizes are exact in any order (2⁵³)
_EXACT = float(2**53)
#: numpy's block in pairwise summation (``PW_BLOCKSIZE``): longer histogram rows (numpy halves them) take
#: the general path
_PW_BLOCK = 128


def fused_plan(ordered: Sequence[Criterion], stats: ClassStats,
               models: tuple[np.ndarray, np.ndarray, str] | bool | None = False
               ) -> tuple[np.ndarray, np.ndarray, str] | None:
    """``(kinds, bounds, sensitive)`` when every model in ``ordered`` is one the kernel judges — k-anonymity
    on all quasi-identifiers, distinct l-diversity, equal-distance t-closeness — on one sensitive attribute
    whose histogram ``stats`` holds (and t-closeness's reference); ``None`` sends the node down the general
    path. ``bounds``: ``k``, ``⌈l⌉`` or ``t + T_SLACK``. ``models``: :func:`fused_models` of ``ordered``
    when the caller (a search, at every node) computed it once; only the checks of ``stats`` are then made."""
    plan = fused_models(ordered) if models is False else models
    if plan is None:
        return None
    sensitive = plan[2]
    hist = stats.hist.get(sensitive)
    if (hist is None or sensitive not in stats.domains or hist.shape[1] > _PW_BLOCK
            or not hist.flags.c_contiguous):
        return None
    return plan  # type: ignore[return-value]


def fused_models(ordered: Sequence[Criterion]) -> tuple[np.ndarray, np.ndarray, str] | None:
    """The part of :func:`fused_plan` that depends on the models alone: ``(kinds, bounds, sensitive)`` when
    every model of ``ordered`` is one the kernel judges and those of a sensitive attribute share one (at
    least one model is of one), else ``None``. :func:`fused_plan` adds the checks of a node's statistics
    (the histogram held, its width and layout, the domain), which are the same for every model of the
    one sensitive attribute, so checking them once after the loop is checking them at each model."""
    kinds: list[int] = []
    bounds: list[float] = []
    sensitive: str | None = None
    for m in ordered:
        kind = type(m)
        if kind is KAnonymity and m.attributes is None:
            kinds.append(K_SIZE)
            bounds.append(float(m.k))
            continue
        if kind is DistinctLDiversity:
            kinds.append(L_DISTINCT)
            bounds.append(float(math.ceil(m.l)))
        elif kind is TCloseness and m.distance == "equal":
            kinds.append(T_EQUAL)
            bounds.append(m.t + T_SLACK)
        else:
            return None
        if sensitive not in (None, m.sensitive):
            return None
        sensitive = m.sensitive
    if sensitive is None:  # k-anonymity alone: the general path judges the sizes without a histogram
        return None
    return np.asarray(kinds, dtype=np.int64), np.asarray(bounds, dtype=np.float64), sensitive


def sizes_plan(ordered: Sequence[Criterion], mono: Sequence[bool]) -> list[float] | None:
    """The ``k`` of every model in ``ordered`` when each is k-anonymity on all quasi-identifiers and monotone
    (as k-anonymity always is: :func:`judge_sizes` then reports no records of non-monotone models); ``None``
    otherwise. These models read the class sizes alone, class by class, so :func:`judge_sizes` judges them
    on the whole size array without selecting the survivors' statistics model by model."""
    ks: list[float] = []
    for m, is_mono in zip(ordered, mono, strict=True):
        if type(m) is not KAnonymity or m.attributes is not None or not is_mono:
            return None
        ks.append(float(m.k))
    return ks if ks else None


def judge_sizes(sizes: np.ndarray, ks: Sequence[float], settle_above: int | None) -> tuple[np.ndarray, None, bool]:
    """What :func:`~anonkit.algorithms.transform._judge_classes` returns for the k-anonymity models of
    ``ks`` (:func:`sizes_plan`; all monotone, so no records of non-monotone models: ``None``). The general
    path judges the non-empty classes that passed the models before, model by model: a class fails model
    ``j`` when it is non-empty, passed the models before and ``size < k`` (the negation of ``size >= k``: sizes
    are never NaN here, a NaN would be neither non-empty nor failing), which is what ``fail`` selects on the
    whole array; the records failed so far are summed over the same classes in the same order (class
    order), so the settling comparison is the general path's bit for bit."""
    live = sizes > 0
    if len(ks) == 1 and ks[0] > 0:  # one k ≥ 1: passing implies non-empty, no class left to narrow
        ok = sizes >= ks[0]
        if settle_above is not None and float(sizes[live & ~ok].sum()) > settle_above:
            return ok, None, True
        return ok, None, False
    ok = live
    failed = 0.0
    for k in ks:
        fail = ok & (sizes < k)
        if fail.any():
            failed += float(sizes[fail].sum())
            ok = ok & ~fail
            if settle_above is not None and failed > settle_above:
                return ok, None, True
    return ok, None, False


def judge_fused(stats: ClassStats, plan: tuple[np.ndarray, np.ndarray, str], mono: Sequence[bool],
                settle_above: int | None) -> tuple[np.ndarray, int | None, bool]:
    """What :func:`~anonkit.algorithms.transform._judge_classes` returns, from the classes' stages:
    (released per class, the records the monotone models alone suppress — ``None`` when every model is
    monotone —, whether it stopped settled). ``mono``: per model of the plan, whether it is monotone."""
    kinds, bounds, sensitive = plan
    sizes = stats.sizes
    hist, reference = stats.hist[sensitive], stats.domains[sensitive].reference
    stage, tally, whole = tiered(_stages_py, _stages_np, np.ascontiguousarray(sizes, dtype=np.float64),
                                np.ascontiguousarray(hist, dtype=np.float64),
                                np.ascontiguousarray(reference, dtype=np.float64), kinds, bounds)
    if whole:
        return _replay_sums(stage, tally, len(kinds), mono, settle_above)
    return _replay(sizes, stage, len(kinds), mono, settle_above)


def _replay_sums(stage: np.ndarray, tally: np.ndarray, n_models: int, mono: Sequence[bool],
                 settle_above: int | None) -> tuple[np.ndarray, int | None, bool]:
    """:func:`_replay` from the records and classes at each stage (``tally[0|1, stage + 1]``), when every
    class size is a whole number: every sum of them is then exact, in any order."""
    mono_suppressed = None
    failed = 0.0
    before = float(tally[0, 0])  # records of the classes out before model j (the empty ones first)
    alive = float(tally[1, 1:].sum())
    for j in range(n_models):
        if mono_suppressed is None and not mono[j]:
            mono_suppressed = int(before)
        if not alive:
            break
        if tally[1, j + 1]:
            failed += float(tally[0, j + 1])
            before += float(tally[0, j + 1])
            alive -= float(tally[1, j + 1])
            if settle_above is not None and failed > settle_above:
                return stage > j, mono_suppressed, True
    return stage == n_models, mono_suppressed, False


def _replay(sizes: np.ndarray, stage: np.ndarray, n_models: int, mono: Sequence[bool],
            settle_above: int | None) -> tuple[np.ndarray, int | None, bool]:
    """The general path's model-by-model loop over the stages (``-1``: an empty class, never judged;
    ``n_models``: passed every model), with its sums taken over the same classes in the same order."""
    judged = stage >= 0
    mono_suppressed = None
    failed = 0.0
    alive = int(judged.sum())
    for j in range(n_models):
        if mono_suppressed is None and not mono[j]:
            mono_suppressed = int(sizes[~(judged & (stage >= j))].sum())
        if not alive:
            break
        out = stage == j
        n_out = int(np.count_nonzero(out))
        if n_out:
            failed += float(sizes[out].sum())
            alive -= n_out
            if settle_above is not None and failed > settle_above:
                return judged & (stage > j), mono_suppressed, True
    return stage == n_models, mono_suppressed, False


def _stages_np(sizes: np.ndarray, hist: np.ndarray, reference: np.ndarray, kinds: np.ndarray,
               bounds: np.ndarray) -> tuple[np.ndarray, np.ndarray, bool]:
    """``_stages_py`` in numpy: the models' verdicts on every class, the first failure kept."""
    n_models = len(kinds)
    stage = np.where(sizes > 0, n_models, -1).astype(np.int64)
    for j in range(n_models - 1, -1, -1):
        kind, bound = kinds[j], bounds[j]
        if kind == K_SIZE:
            passed = sizes >= bound
        elif kind == L_DISTINCT:
            passed = np.count_nonzero(hist, axis=1) >= bound
        else:
            n = hist.sum(axis=1, keepdims=True)
            passed = 0.5 * np.abs(hist / np.where(n > 0, n, 1) - reference).sum(axis=1) <= bound
        stage[(stage >= 0) & ~passed] = j
    tally = np.stack([np.bincount(stage + 1, weights=sizes, minlength=n_models + 2),
                      np.bincount(stage + 1, minlength=n_models + 2).astype(np.float64)])
    return stage, tally, bool((sizes == np.floor(sizes)).all() and np.abs(sizes).sum() < _EXACT)


def _stages_py(sizes: np.ndarray, hist: np.ndarray, reference: np.ndarray, kinds: np.ndarray,
               bounds: np.ndarray) -> tuple[np.ndarray, np.ndarray, bool]:
    """Per class, the index of the first model in ``kinds`` it fails (``len(kinds)``: none, ``-1``: an
    empty class), computed by numba one class at a time: its size, distinct count and EMD once each;
    the records and classes at each stage (``tally[0|1, stage + 1]``), and whether every size is a whole
    number (their sums then exact in any order)."""
    c, s = hist.shape
    n_models = len(kinds)
    stage = np.empty(c, dtype=np.int64)
    row = np.empty(s, dtype=np.float64)
    acc = np.empty(8, dtype=np.float64)
    for i in range(c):
        if not sizes[i] > 0:
            stage[i] = -1
            continue
        stage[i] = n_models
        for j in range(n_models):
            kind = kinds[j]
            if kind == K_SIZE:
                passed = sizes[i] >= bounds[j]
            elif kind == L_DISTINCT:
                distinct = 0
                for v in range(s):
                    if hist[i, v] != 0:
                        distinct += 1
                passed = distinct >= bounds[j]
            else:
                total = 0.0  # the class's size in its histogram, then twice its EMD
                for step in range(2):
                    div = total if total > 0 else 1.0
                    for v in range(s):
                        row[v] = hist[i, v] if step == 0 else abs(hist[i, v] / div - reference[v])
                    # row.sum() in numpy's order (pairwise_sum, rows of at most 128): below 8 values one
                    # running sum, else eight running sums combined pairwise, then the rest
                    if s < 8:
                        total = 0.0
                        for v in range(s):
                            total += row[v]
                        continue
                    for q in range(8):
                        acc[q] = row[q]
                    v = 8
                    while v < s - (s % 8):
                        for q in range(8):
                            acc[q] += row[v + q]
                        v += 8
                    total = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]))
                    while v < s:
                        total += row[v]
                        v += 1
                passed = 0.5 * total <= bounds[j]
            if not passed:
                stage[i] = j
                break
    tally = np.zeros((2, n_models + 2), dtype=np.float64)
    whole = True
    total = 0.0
    for i in range(c):
        tally[0, stage[i] + 1] += sizes[i]
        tally[1, stage[i] + 1] += 1.0
        whole = whole and sizes[i] == np.floor(sizes[i])
        total += abs(sizes[i])
    return stage, tally, whole and total < _EXACT


def monotone_flags(ordered: Sequence[Criterion], monotone: Callable[[Criterion], bool] | None) -> list[bool]:
    """Per model of ``ordered``, whether ``monotone`` selects it (all, without it)."""
    return [True] * len(ordered) if monotone is None else [bool(monotone(m)) for m in ordered]
