"""Top-down set-valued partitioning of transactions (He & Naughton, VLDB 2009, "Partition"), the first
step of (k,l)-diversity for 1:M data (Gong et al., KBS 2017; spec §1.6), vectorized.

Every person is a *transaction*: the set of its sensitive values (items). Items generalize along a
hierarchy of at most three levels: a value → its category (when the attribute has categories) →
``*``; without categories a value → ``*``. A *bucket* is a set of persons that all publish the same
generalized transaction (a set of hierarchy nodes); it always holds at least ``k`` persons, so every
published transaction is shared by at least ``k`` persons (transaction k-anonymity).

The algorithm (as He & Naughton's ``Partition`` and Gong et al.'s ``partition_for_transaction``):

1. All persons start in one bucket that publishes ``{*}``.
2. A bucket *expands* one node of its generalized transaction that it has not tried yet: the one
   with the largest *information gain* ``|leaves(node)| · (items of the bucket's persons below it)``
   (ties: ``*`` first, then the lowest category in ``category_order``). Each person goes to the
   *child* given by the set of node children its items fall under (``*`` → the set of categories,
   or of values without categories; a category → the set of its values the person has).
3. *Balancing*: children with fewer than ``k`` persons are emptied into a *leftover* that keeps the
   bucket's generalization (the expanded node stays general for them). A leftover short of ``k``
   takes persons from children with more than ``k``, fewest items below the node first (ties: the
   lower person), never leaving such a child below ``k``. If that is not enough, the child whose
   remaining persons have the least gain (ties: the lower child) joins the leftover whole and the
   leftover is final. A non-empty leftover is the bucket again, with the node tried.
4. Children and leftovers are expanded again (children start with nothing tried) until no bucket
   has a node left to try. ``*``'s leftover is final: it publishes ``{*}`` — this is the rule for a
   person whose transaction cannot be made k-anonymous within the hierarchy (its set of categories,
   or of values without categories, is shared by fewer than ``k`` persons and balancing did not
   keep it in a child).

The buckets of one round are processed together: one sort per round over the (person, item) pairs;
a round expands every live bucket once, and there are at most ``2 + C·(C + 1)/2`` rounds for ``C``
categories (a bucket's children have one more expanded category, its leftover one more tried one).
Child sets are compared as bit masks of ``⌈width/64⌉`` words per person (``width``: the fan-out of
the expanded node). Everything is deterministic.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from anonkit.algorithms.common import checkpoint


@dataclass
class Partition:
    """The generalized transactions: ``tx[p]`` the id of person ``p``'s published transaction
    (``0 … n_tx − 1``) and, for every id, its nodes (``tx_nodes[tx_start[t]:tx_start[t + 1]]``, in
    display order). Nodes are numbered ``0 … m − 1`` for the values, ``m + g`` for category ``g`` and
    ``root`` (``m + C``) for ``*``. ``counts``: published items per level (``value``, ``category``,
    ``root``) over all persons; ``rounds``: the expansion rounds."""

    tx: np.ndarray
    n_tx: int
    tx_nodes: np.ndarray
    tx_start: np.ndarray
    root: int
    counts: dict[str, int] = field(default_factory=dict)
    rounds: int = 0


def partition(
    person: np.ndarray,
    item: np.ndarray,
    n: int,
    m: int,
    category: np.ndarray | None,
    k: int,
    n_categories: int | None = None,
) -> Partition:
    """Generalize the transactions of ``n`` persons to k-anonymous ones (see the module docstring).

    ``person``/``item``: the distinct (person, value) pairs, values coded ``0 … m − 1``;
    ``category[v]`` the category code of value ``v`` among ``n_categories`` (default: the largest
    code + 1; ``None``: no categories). Needs ``n ≥ k``.
    """
    person = np.asarray(person, dtype=np.int64)
    item = np.asarray(item, dtype=np.int64)
    order = np.lexsort((item, person))
    person, item = person[order], item[order]
    has_cats = category is not None
    if has_cats:
        category = np.asarray(category, dtype=np.int64)
        C = int(n_categories) if n_categories is not None else int(category.max()) + 1
        group = category[item]
        leaves = np.bincount(category, minlength=C)
        by_cat = np.lexsort((np.arange(m), category))
        pos = np.empty(m, dtype=np.int64)  # position of every value among its category's values
        starts = np.concatenate([[0], np.cumsum(leaves)[:-1]])
        pos[by_cat] = np.arange(m) - starts[category[by_cat]]
    else:
        C = 0
        group = item
        leaves = np.zeros(0, dtype=np.int64)
        pos = np.zeros(m, dtype=np.int64)
    size = np.bincount(person, minlength=n)
    leaf = np.zeros(len(person), dtype=bool)  # the pair is published as its value
    root_open = np.zeros(n, dtype=bool)  # the person's ``*`` was expanded

    # round 0: expand ``*`` (every person in bucket 0)
    masks = _masks(person, group, n, C if has_cats else m)
    child, child_parent = _group(np.zeros(n, dtype=np.int64), masks)
    dest, _ = _balance(np.zeros(n, dtype=np.int64), child, child_parent, size, k, 1)  # its leftover: final
    moved = dest >= 0
    root_open[moved] = True
    bucket = np.full(n, -1, dtype=np.int64)
    rounds = 1
    if not has_cats:
        leaf[moved[person]] = True
    else:
        kept, bucket[moved] = np.unique(dest[moved], return_inverse=True)
        tried = np.zeros((len(kept), C), dtype=bool)
        while (bucket >= 0).any():
            checkpoint()
            rounds += 1
            bucket, tried = _expand_categories(person, item, group, pos, leaves, leaf, bucket, tried, k, C)
    out = _generalized(person, item, group, leaf, root_open, n, m, C, category)
    out.rounds = rounds
    return out


def _expand_categories(
    person: np.ndarray,
    item: np.ndarray,
    group: np.ndarray,
    pos: np.ndarray,
    leaves: np.ndarray,
    leaf: np.ndarray,
    bucket: np.ndarray,
    tried: np.ndarray,
    k: int,
    C: int,
) -> tuple[np.ndarray, np.ndarray]:
    """One round: every live bucket (``bucket[p] ≥ 0``, ids ``0 … B − 1``) expands its best untried
    category; ``leaf`` is updated in place. Returns the buckets and tried sets of the next round."""
    B = len(tried)
    live = bucket[person] >= 0
    sel = np.flatnonzero(live & ~leaf)
    key = bucket[person[sel]] * C + group[sel]
    uk, cnt = np.unique(key, return_counts=True)
    ub, uc = uk // C, uk % C
    gain = cnt * leaves[uc]
    fresh = ~tried[ub, uc]
    ub, uc, gain = ub[fresh], uc[fresh], gain[fresh]
    pick = np.full(B, -1, dtype=np.int64)
    if len(ub):
        o = np.lexsort((uc, -gain, ub))
        first = o[np.r_[True, ub[o][1:] != ub[o][:-1]]]
        pick[ub[first]] = uc[first]
    n = len(bucket)
    safe = np.maximum(bucket, 0)
    splitting = (bucket >= 0) & (pick[safe] >= 0)
    members = np.flatnonzero(splitting)
    new_bucket = np.full(n, -1, dtype=np.int64)  # buckets without a category to try are final
    if not len(members):
        return new_bucket, np.zeros((0, C), dtype=bool)
    loc = np.full(n, -1, dtype=np.int64)
    loc[members] = np.arange(len(members))
    inpick = np.flatnonzero(live & (pick[safe[person]] == group) & (loc[person] >= 0))
    width = int(leaves[pick[pick >= 0]].max())
    masks = _masks(loc[person[inpick]], pos[item[inpick]], len(members), width)
    cnt_p = np.bincount(loc[person[inpick]], minlength=len(members))
    parent = bucket[members]
    child, child_parent = _group(parent, masks)
    dest, left_final = _balance(parent, child, child_parent, cnt_p, k, B)
    # the persons that moved to a child publish the picked category's values
    moved_member = dest >= 0
    leaf[inpick[moved_member[loc[person[inpick]]]]] = True
    kept, child_id = np.unique(dest[moved_member], return_inverse=True)
    new_bucket[members[moved_member]] = child_id
    # leftovers: the parent again, the picked category tried (unless final)
    stay = ~moved_member & ~left_final[parent]
    lparents, lid = np.unique(parent[stay], return_inverse=True)
    new_bucket[members[stay]] = len(kept) + lid
    new_tried = np.zeros((len(kept) + len(lparents), C), dtype=bool)
    new_tried[len(kept):] = tried[lparents]
    new_tried[len(kept) + np.arange(len(lparents)), pick[lparents]] = True
    return new_bucket, new_tried


def _masks(rows: np.ndarray, bits: np.ndarray, n_rows: int, width: int) -> np.ndarray:
    """``(n_rows × ⌈width/64⌉)`` bit masks: bit ``bits[i]`` set in row ``rows[i]``."""
    words = max(1, (int(width) + 63) // 64)
    out = np.zeros((n_rows, words), dtype=np.uint64)
    bits = np.asarray(bits, dtype=np.int64)
    np.bitwise_or.at(out, (rows, bits // 64), np.left_shift(np.uint64(1), (bits % 64).astype(np.uint64)))
    return out


def _group(first: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Group rows by ``(first, mask)``: the group of every row, numbered in that sorted order (the mask
    compared as a number), and the ``first`` of every group."""
    n = len(first)
    if n == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    order = np.lexsort([*(masks[:, w] for w in range(masks.shape[1])), first])
    f, mk = first[order], masks[order]
    change = np.ones(n, dtype=bool)
    change[1:] = (f[1:] != f[:-1]) | (mk[1:] != mk[:-1]).any(axis=1)
    gid = np.cumsum(change) - 1
    out = np.empty(n, dtype=np.int64)
    out[order] = gid
    return out, f[change]


def _runs(keys: np.ndarray) -> np.ndarray:
    """The rank of every element of a sorted ``keys`` within its run of equal keys."""
    n = len(keys)
    start = np.ones(n, dtype=bool)
    start[1:] = keys[1:] != keys[:-1]
    idx = np.arange(n)
    return idx - np.maximum.accumulate(np.where(start, idx, 0))


def _balance(
    parent: np.ndarray, child: np.ndarray, child_parent: np.ndarray, gain: np.ndarray, k: int, n_parents: int
) -> tuple[np.ndarray, np.ndarray]:
    """Step 3 of the module docstring for every expanded bucket at once.

    ``parent[i]``, ``child[i]``: the bucket and proposed child of member ``i`` (children numbered by
    parent); ``gain[i]``: its items below the expanded node (ties: the lower member, i.e. person).
    Returns the child every member ends in (−1: the leftover) and, per parent, whether its leftover
    is final (balancing had to merge a whole child).
    """
    nc = len(child_parent)
    csize = np.bincount(child, minlength=nc)
    small = csize < k
    short = np.bincount(child_parent, weights=np.where(small, csize, 0), minlength=n_parents).astype(np.int64)
    need = np.where((short > 0) & (short < k), k - short, 0)
    dest = np.where(small[child], -1, child)
    who = np.arange(len(parent))
    surplus = csize - k
    avail = np.zeros(n_parents, dtype=np.int64)
    idx = np.flatnonzero((need[parent] > 0) & ~small[child] & (surplus[child] > 0))
    if len(idx):
        o = idx[np.lexsort((who[idx], gain[idx], child[idx]))]
        cand = o[_runs(child[o]) < surplus[child[o]]]  # each child's surplus, fewest items first
        o2 = cand[np.lexsort((who[cand], gain[cand], parent[cand]))]
        stolen = o2[_runs(parent[o2]) < need[parent[o2]]]
        dest[stolen] = -1
        avail = np.bincount(parent[cand], minlength=n_parents)
    fail = (need > 0) & (avail < need)
    if fail.any():
        rem = (dest >= 0) & fail[parent]
        total = np.bincount(child[rem], weights=gain[rem], minlength=nc)
        present = np.flatnonzero(np.bincount(child[rem], minlength=nc) > 0)
        o = present[np.lexsort((present, total[present], child_parent[present]))]
        first = o[_runs(child_parent[o]) == 0]
        merge = np.zeros(nc, dtype=bool)
        merge[first] = True
        dest[rem & merge[np.maximum(child, 0)]] = -1
    return dest, fail


def _generalized(
    person: np.ndarray,
    item: np.ndarray,
    group: np.ndarray,
    leaf: np.ndarray,
    root_open: np.ndarray,
    n: int,
    m: int,
    C: int,
    category: np.ndarray | None,
) -> Partition:
    """The published transaction of every person, grouped into distinct ones."""
    root = m + C
    node = np.where(leaf, item, np.where(root_open[person], m + group, root))
    span = np.int64(root + 1)
    uk = np.unique(person * span + node)
    pp, nn = uk // span, uk % span
    tx, _ = _group(np.zeros(n, dtype=np.int64), _masks(pp, nn, n, root + 1))
    n_tx = int(tx.max()) + 1 if n else 0
    rep = np.full(n_tx, n, dtype=np.int64)
    np.minimum.at(rep, tx, np.arange(n))
    is_rep = np.zeros(n, dtype=bool)
    is_rep[rep] = True
    sel = is_rep[pp]
    t_of, t_node = tx[pp[sel]], nn[sel]
    # display order: categories in order, each followed by its values (domain order); ``*`` alone
    if category is not None:
        cat_node = np.concatenate([category, np.arange(C), [0]]).astype(np.int64)
        within = np.concatenate([1 + np.arange(m), np.zeros(C + 1, dtype=np.int64)])
        display = cat_node * (m + 1) + within
    else:
        display = np.arange(root + 1)
    o = np.lexsort((display[t_node], t_of))
    t_of, t_node = t_of[o], t_node[o]
    start = np.searchsorted(t_of, np.arange(n_tx + 1))
    published = np.bincount(np.where(nn < m, 0, np.where(nn < root, 1, 2)), minlength=3)
    counts = {
        "value": int(published[0]),
        "category": int(published[1]),
        "root": int(published[2]),
    }
    return Partition(tx, n_tx, t_node, start, root, counts)
