"""The taxonomy builders: a hierarchy written by hand, as nested dicts or as a child → parent map.

These stand for a hand-written ARX ``DefaultHierarchy`` (ARX compatibility notes §2.6): the taxonomy
is given, not derived from the data. Leaves at different depths are repeated downward so that every
row has the same height. The conventions shared by all builders are described in
:mod:`anonkit.hierarchy.builders`.
"""

from __future__ import annotations

from collections.abc import Mapping

from anonkit._values import cell_text
from anonkit.errors import InputError
from anonkit.hierarchy._core import Hierarchy
from anonkit.hierarchy.builders._shared import TOP


def _tree_rows(paths: list[list[str]]) -> list[list[str]]:
    """Rows from leaf-to-root paths; shorter paths repeat their leaf downward to the full height."""
    height = max(len(p) for p in paths)
    return [[p[0]] * (height - len(p)) + p for p in paths]


def _check_unique_leaves(paths: list[list[str]], name: str | None, what: str) -> None:
    """An error naming the first leaf (first entry of a path) that occurs twice."""
    seen: set[str] = set()
    for p in paths:
        if p[0] in seen:
            raise InputError(f"leaf occurs twice in the {what}", column=name, value=p[0])
        seen.add(p[0])


def _children(node: object) -> list[tuple[object, object]]:
    """The ``(label, subtree)`` children of a taxonomy node's value."""
    if node is None:
        return []
    if isinstance(node, Mapping):
        return list(node.items())
    if isinstance(node, (list, tuple, set, frozenset)):
        out: list[tuple[object, object]] = []
        for item in node:
            if isinstance(item, Mapping):
                out.extend(item.items())
            else:
                out.append((item, None))
        return out
    return [(node, None)]


def nested(mapping: Mapping[object, object], *, name: str | None = None) -> Hierarchy:
    """A taxonomy written as nested dicts and lists, like a hand-written ARX ``DefaultHierarchy``.

    Example: ``{"*": {"Europe": ["France", "Germany"], "Asia": {"East": ["China"]}}}``. A dict maps
    a node to its children (a dict, a list of leaves and/or dicts, or a single leaf); a key whose
    value is ``None`` or empty is a leaf. A mapping with one key is rooted at that key; with several
    keys, ``*`` is added as the root.

    Leaves at different depths: every row must have the same height, so a shallow leaf is repeated
    downward — it keeps its own value on the extra lowest levels (``{"*": {"Asia": {"East":
    ["China"]}, "Other": None}}`` gives ``China;East;Asia;*`` and ``Other;Other;Other;*``). The leaf
    is thus generalized only when the level of its parent is reached, as in the tree.

    Raises
    ------
    InputError
        If the taxonomy is empty, a leaf occurs twice, or a node has two different parents on one
        level (the mapping would not be functional).
    """
    if not isinstance(mapping, Mapping) or not mapping:
        raise InputError("taxonomy must be a non-empty dict", column=name)
    root: tuple[object, object] = next(iter(mapping.items())) if len(mapping) == 1 else (TOP, mapping)
    paths: list[list[str]] = []
    stack: list[tuple[object, object, list[str]]] = [(root[0], root[1], [])]
    while stack:
        node, sub, above = stack.pop()
        path = [cell_text(node), *above]
        kids = _children(sub)
        if not kids:
            paths.append(path)
        stack.extend((k, v, path) for k, v in reversed(kids))
    if len(paths) == 1 and len(paths[0]) == 1:
        raise InputError("taxonomy has no leaves below its root", column=name, value=paths[0][0])
    _check_unique_leaves(paths, name, "taxonomy")
    return Hierarchy(_tree_rows(paths), name=name, source="(nested)")


def from_parent_map(parent: Mapping[object, object], *, name: str | None = None) -> Hierarchy:
    """A taxonomy given as ``child → parent`` pairs (e.g. two columns of a lookup table).

    Leaves are the children that are nobody's parent, in the mapping's order. Nodes without a parent
    are roots; with several roots, ``*`` is added above them. Shallow leaves are repeated downward
    as in :func:`nested`.

    Raises
    ------
    InputError
        If the map is empty, has a cycle (or a value that is its own parent), or the resulting
        hierarchy is not functional.
    """
    if not isinstance(parent, Mapping) or not parent:
        raise InputError("parent map must be a non-empty dict", column=name)
    up = {cell_text(c): cell_text(p) for c, p in parent.items()}
    if len(up) != len(parent):
        raise InputError("parent map names a child twice (as different values with the same text)", column=name)
    depth: dict[str, int] = {}
    for child in up:
        chain: list[str] = []
        node = child
        on_chain: set[str] = set()
        while node in up and node not in depth:
            if node in on_chain:
                raise InputError("parent map has a cycle", column=name, value=node)
            on_chain.add(node)
            chain.append(node)
            node = up[node]
        d = depth.get(node, 0)
        for c in reversed(chain):
            d += 1
            depth[c] = d
    parents = set(up.values())
    roots = {p for p in parents if p not in up}
    leaves = [c for c in up if c not in parents]
    paths = []
    for leaf in leaves:
        path = [leaf]
        while path[-1] in up:
            path.append(up[path[-1]])
        if len(roots) > 1:
            path.append(TOP)
        paths.append(path)
    _check_unique_leaves(paths, name, "parent map")
    return Hierarchy(_tree_rows(paths), name=name, source="(parent map)")
