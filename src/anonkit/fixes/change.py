"""A change to a config, written as dotted keys (``{"privacy.0.k": 10}``): applied to a config
mapping (:func:`apply_change`), shown as the line to type (:func:`setting_text`) and as the YAML
sections to paste (:func:`yaml_sections`).

The rule of a dotted key: each part names a mapping key, or — where the value is a list — an index
(``privacy.1``); an index one past the end appends (``privacy.2`` on a two-model config adds a
model). A key that names nothing the config has is refused in one line naming it (never a silent
new branch in a list). Mappings missing on the way (``algorithm`` in a config without one) are made.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

import yaml

from anonkit.errors import InputError

__all__ = ["apply_change", "merge_changes", "setting_text", "yaml_sections"]


def _index(part: str, items: list[Any], key: str, *, append: bool) -> int:
    if not part.isdigit():
        raise InputError(f"'{part}' is not a position in a list (0, 1, …)", key=key)
    i = int(part)
    if i > len(items) or (i == len(items) and not append):
        raise InputError(f"the config's list has {len(items)} entries, no position {i}", key=key)
    return i


def _set(root: dict[str, Any], dotted: str, value: Any) -> None:
    parts = dotted.split(".")
    if not dotted or any(not p for p in parts):
        raise InputError("an empty part in a dotted config key", key=dotted)
    node: Any = root
    for depth, part in enumerate(parts):
        last = depth == len(parts) - 1
        if isinstance(node, list):
            i = _index(part, node, dotted, append=last)
            if last:
                if i == len(node):
                    node.append(copy.deepcopy(value))
                else:
                    node[i] = copy.deepcopy(value)
                return
            node = node[i]
        elif isinstance(node, dict):
            if last:
                node[part] = copy.deepcopy(value)
                return
            if node.get(part) is None:
                node[part] = {}
            node = node[part]
        else:
            raise InputError(f"'{'.'.join(parts[:depth])}' is a value, not a section", key=dotted)


def apply_change(config: Mapping[str, Any], change: Mapping[str, Any]) -> dict[str, Any]:
    """A new config mapping: ``config`` (left untouched: deep-copied) with each dotted key of
    ``change`` set, in the change's order.

    Raises
    ------
    InputError
        A key that names no place in the config (naming the key).
    """
    if not isinstance(config, Mapping):
        raise InputError("a config is a mapping of keys to values", key="config")
    out = copy.deepcopy(dict(config))
    for key, value in change.items():
        _set(out, str(key), value)
    return out


def merge_changes(base: Mapping[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    """One change doing ``base`` then ``extra``; a key of ``extra`` inside a value ``base`` sets
    (``privacy.2.t`` after ``privacy.2: {…}``) is folded into that value, so each place is set once."""
    out = copy.deepcopy(dict(base))
    for key, value in extra.items():
        parent = next((b for b in out if key.startswith(f"{b}.")), None)
        if parent is None:
            out[key] = copy.deepcopy(value)
        else:
            out[parent] = apply_change({"v": out[parent]}, {f"v.{key[len(parent) + 1:]}": value})["v"]
    return out


def _flow(value: Any) -> str:
    """A value as YAML on one line (``{model: k-anonymity, k: 10}``)."""
    text = yaml.safe_dump(value, default_flow_style=True, sort_keys=False, allow_unicode=True, width=10_000)
    return text.strip().removesuffix("...").strip()  # a lone scalar ends its document with "..."


def setting_text(change: Mapping[str, Any]) -> str:
    """The change as the line a person types: ``privacy.0.k: 10`` (``; ``-separated when it sets
    several keys)."""
    return "; ".join(f"{k}: {_flow(v)}" for k, v in change.items())


def yaml_sections(config: Mapping[str, Any], change: Mapping[str, Any]) -> str:
    """The top-level sections of ``config`` that ``change`` touches, as they read once it is applied:
    YAML a person pastes over the same sections of their file (list entries one per line)."""
    changed = apply_change(config, change)
    tops = list(dict.fromkeys(str(k).split(".")[0] for k in change))
    return yaml.safe_dump({t: changed[t] for t in tops}, default_flow_style=None, sort_keys=False,
                          allow_unicode=True, width=10_000)
