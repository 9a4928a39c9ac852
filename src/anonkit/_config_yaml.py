"""Reading a config's YAML safely, and bounding the shape of any config data.

A config is small: a few dozen keys, at most a hierarchy tree or a category mapping inline. YAML
can make a small file stand for an enormous value (an *alias bomb*: ``a: &a [x, x]``,
``b: &b [*a, *a]``, … doubles at every line) or nest lists thousands deep (``[[[[…]]]]``), and
either would hang the validation or end in a ``RecursionError``. So, before anything is built:

* the YAML may nest at most :data:`MAX_CONFIG_DEPTH` levels (checked while the document is
  composed, so a deep document never reaches Python's recursion limit);
* the document, with every alias expanded, may hold at most :data:`MAX_CONFIG_NODES` values
  (counted on the composed node graph, where an alias is the node it names, so counting costs
  one step per distinct node however large the expansion);
* a value may not contain itself (a recursive alias).

:func:`check_shape` applies the same three bounds to config data given from Python (a mapping
that repeats one list a million times, or contains itself). Each refusal is one line naming the
bound and its limit. A key given twice in one mapping is refused too (YAML would keep the last one
silently), and keys YAML read as something other than text (``yes`` → ``True``, ``007`` → ``7``,
``null`` → ``None``) are remembered as written, so an error can say to quote them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import yaml

from anonkit.errors import InputError

#: a config (YAML or Python data) may nest at most this many levels of mappings and lists
MAX_CONFIG_DEPTH = 64
#: a config may hold at most this many values once every YAML alias is expanded
MAX_CONFIG_NODES = 1_000_000


def _bounded(root: object, children: Callable[[Any], Iterable[object]], is_branch: Callable[[Any], bool],
             where: Callable[[Any], str]) -> None:
    """Refuse a graph (YAML nodes or Python containers) deeper than :data:`MAX_CONFIG_DEPTH`, larger
    than :data:`MAX_CONFIG_NODES` once shared parts are counted at every use, or containing itself.

    An iterative depth-first walk (no recursion, whatever the depth): a node is *open* while its
    descendants are walked; meeting an open node again is a cycle. Sizes and depths are memoized per
    node, so a shared node is walked once."""
    size: dict[int, int] = {}
    depth: dict[int, int] = {}
    open_: set[int] = set()
    stack: list[tuple[object, list[object] | None]] = [(root, None)]
    while stack:
        node, kids = stack.pop()
        key = id(node)
        if kids is not None:  # every child walked: the node's own size and depth
            open_.discard(key)
            total, deepest = 1, 0
            for c in kids:
                total += size.get(id(c), 1)  # a leaf (no entry) counts one
                deepest = max(deepest, depth.get(id(c), 1))
            size[key] = min(total, MAX_CONFIG_NODES + 1)
            depth[key] = 1 + deepest
            if depth[key] > MAX_CONFIG_DEPTH:
                raise InputError(f"the config nests more than {MAX_CONFIG_DEPTH} levels of mappings and lists "
                                 f"(MAX_CONFIG_DEPTH){where(node)}; flatten it")
            if size[key] > MAX_CONFIG_NODES:
                raise InputError(f"the config holds more than {MAX_CONFIG_NODES:,} values once its aliases are "
                                 f"expanded (MAX_CONFIG_NODES){where(node)}; a YAML alias repeats its anchor's "
                                 "whole content: write the values out, or give large tables as files")
            continue
        if key in size:
            continue
        kids = list(children(node))
        open_.add(key)
        stack.append((node, kids))
        for child in kids:
            if id(child) in open_:
                raise InputError(f"the config contains itself{where(child)} (an alias inside its own anchor); "
                                 "a config must be a tree of values")
            if id(child) not in size and is_branch(child):
                stack.append((child, None))


def _node_children(node: yaml.Node) -> Iterable[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, yaml.SequenceNode):
        return node.value
    return ()


def _is_collection_node(node: yaml.Node) -> bool:
    return isinstance(node, yaml.CollectionNode)


def _is_container(value: object) -> bool:
    return isinstance(value, dict | list | tuple | set | frozenset)


def _node_line(node: yaml.Node) -> str:
    return f" (line {node.start_mark.line + 1})"


def _data_children(value: object) -> Iterable[object]:
    if isinstance(value, dict):
        return [part for pair in value.items() for part in pair]
    if isinstance(value, list | tuple | set | frozenset):
        return value
    return ()


def check_shape(data: object) -> None:
    """Refuse config data nested deeper than :data:`MAX_CONFIG_DEPTH`, holding more than
    :data:`MAX_CONFIG_NODES` values (a shared list counted at every use) or containing itself."""
    _bounded(data, _data_children, _is_container, lambda _node: "")


class _ConfigLoader(yaml.SafeLoader):
    """YAML's safe loader, bounded in depth while composing, refusing a key given twice in one
    mapping, and remembering how the keys that are not text were written."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0
        #: every key YAML read as something other than text: (the value read, the text written, its line)
        self.odd_keys: list[tuple[object, str, int]] = []

    def compose_node(self, parent: yaml.Node | None, index: object) -> yaml.Node | None:  # type: ignore[override]
        self._depth += 1
        try:
            if self._depth > MAX_CONFIG_DEPTH:
                mark = self.peek_event().start_mark
                raise InputError(f"the config nests more than {MAX_CONFIG_DEPTH} levels of mappings and lists "
                                 f"(MAX_CONFIG_DEPTH) (line {mark.line + 1}); flatten it", file=self._file())
            return super().compose_node(parent, index)  # type: ignore[arg-type]
        finally:
            self._depth -= 1

    def _file(self) -> str | None:
        return self.name if isinstance(self.name, str) and self.name != "<unicode string>" else None

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict:  # type: ignore[override]
        seen: dict[object, int] = {}
        for key_node, _value in node.value:
            key = self.construct_object(key_node, deep=True)
            line = key_node.start_mark.line + 1
            if isinstance(key, str | int | float | bool) and key in seen:
                raise InputError(
                    f"key {key!r} is given twice in one mapping (lines {seen[key]} and {line}); keep one",
                    file=self._file(),
                )
            if isinstance(key, str | int | float | bool):
                seen[key] = line
            if not isinstance(key, str) and isinstance(key_node, yaml.ScalarNode):
                self.odd_keys.append((key, key_node.value, line))
        return super().construct_mapping(node, deep=deep)


def read_yaml_keys(text: str, *, source: str | None = None) -> tuple[Any, list[tuple[object, str, int]]]:
    """Parse YAML text (safe loader, bounded, a repeated key refused); return the data and every key
    YAML read as something other than text, as ``(value read, text written, line)``."""
    loader = _ConfigLoader(text)
    loader.name = source or "<unicode string>"
    try:
        node = loader.get_single_node()
        if node is None:
            return None, []
        try:
            _bounded(node, _node_children, _is_collection_node, _node_line)
        except InputError as exc:
            raise InputError(exc.message, file=source) from None
        return loader.construct_document(node), loader.odd_keys
    finally:
        loader.dispose()


def read_yaml(text: str, *, source: str | None = None) -> Any:
    """Parse YAML text (safe loader, bounded in depth and size; a repeated key is an error naming it
    and its lines)."""
    return read_yaml_keys(text, source=source)[0]
