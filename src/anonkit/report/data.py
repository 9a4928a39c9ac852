"""What the report's figures and tables are drawn from, gathered from the frames.

Cells are compared as text, the way anonkit matches data and hierarchies
(:func:`anonkit._values.factorize_text`): ``39`` and ``"39"`` are one value, a missing cell is ``""``.

The report hides the input's raw values unless asked to show them. :func:`hidden_values` is the
set it must not print: every value of the input that is not also a released label (what the
release publishes may be shown). :class:`Redactor` removes those values from free text that comes
from the summary, the audit or the config (warnings name values in quotes, a nested hierarchy in a
config lists them).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd
import yaml

from anonkit._values import factorize_text, labels_look_numeric

__all__ = [
    "HIDDEN",
    "Redactor",
    "Tally",
    "class_sizes",
    "column",
    "hidden_values",
    "release_frames",
    "released_labels",
    "roles",
    "tally",
]

#: what a hidden value becomes in free text
HIDDEN = "‹hidden›"

#: the class-size bins of the class-size histogram: (lowest, highest) sizes, ``None`` open-ended
SIZE_BINS: tuple[tuple[int, int | None], ...] = (
    (1, 1), (2, 2), (3, 3), (4, 4), (5, 5), (6, 10), (11, 20), (21, 50), (51, 100), (101, 200),
    (201, 500), (501, 1000), (1001, None),
)

#: how a config spells each role, mapped to the role's name
_ROLES = {"id": "identifier", "individual": "person", "qi": "quasi", "quasi-identifier": "quasi",
          "other": "insensitive"}


def release_frames(release: pd.DataFrame | Mapping[str, pd.DataFrame] | None) -> dict[str, pd.DataFrame]:
    """The released table(s) by name: ``{}`` for none, ``{"release": frame}`` for one frame."""
    if release is None:
        return {}
    if isinstance(release, pd.DataFrame):
        return {"release": release}
    return {str(k): v for k, v in release.items()}


def column(frames: Mapping[str, pd.DataFrame], name: str) -> pd.Series | None:
    """The column ``name`` of the first released table that has it."""
    for frame in frames.values():
        if name in frame.columns:
            return frame[name]
    return None


def _texts(frame: pd.DataFrame) -> set[str]:
    out: set[str] = set()
    for name in frame.columns:
        out.update(str(t) for t in factorize_text(frame[name])[1])
    return out


def released_labels(frames: Mapping[str, pd.DataFrame]) -> set[str]:
    """Every distinct cell text of the released table(s): what may appear in the report."""
    out: set[str] = set()
    for frame in frames.values():
        out |= _texts(frame)
    return out


def hidden_values(original: pd.DataFrame | None, labels: set[str]) -> set[str]:
    """The input's distinct cell texts that are not released labels (and not empty)."""
    if original is None:
        return set()
    return {t for t in _texts(original) if t and t not in labels}


class Redactor:
    """Replaces hidden values in free text by :data:`HIDDEN`.

    A value without a letter (a number, a code, an interval), or shorter than three characters, is
    replaced only where it stands in quotes (``'39'``, ``"M"``: how anonkit's messages name
    values), so that counts and parameters in the same text survive; any other value wherever it
    stands as a whole word.
    """

    def __init__(self, hidden: Iterable[str]) -> None:
        self._quoted = {v for v in hidden if v}
        words = {v: re.findall(r"\w+", v) for v in self._quoted if len(v) >= 3 and _LETTER.search(v)}
        seen = Counter(t for tokens in words.values() for t in set(tokens))
        # each value is looked up by its rarest word, so that a text's words find few candidates
        self._words: dict[str, list[str]] = {}
        for value, tokens in words.items():
            self._words.setdefault(min(tokens, key=lambda t: (seen[t], -len(t), t)), []).append(value)

    def __bool__(self) -> bool:
        return bool(self._quoted)

    def __call__(self, text: str) -> str:
        if not self._quoted or not text:
            return text
        text = _QUOTED.sub(lambda m: m.group(1) + (HIDDEN if m.group(2) in self._quoted else m.group(2)) + m.group(1),
                           text)
        found = {v for t in set(re.findall(r"\w+", text)) for v in self._words.get(t, ()) if v in text}
        for value in sorted(found, key=lambda v: (-len(v), v)):
            text = re.sub(rf"(?<!\w){re.escape(value)}(?!\w)", HIDDEN, text)
        return text


#: a letter of any script
_LETTER = re.compile(r"[^\W\d_]")
#: a quoted stretch of text, as messages name values: 'x' or "x"
_QUOTED = re.compile(r"(?<!\w)(['\"])([^'\"\n]*)\1(?!\w)")


@dataclass(frozen=True)
class Tally:
    """One column's distinct values and their counts, most frequent first (ties by text).

    ``numbers`` holds every non-missing cell as a float when all of them are plain numbers
    (:func:`anonkit._values.labels_look_numeric`), else ``None``.
    """

    labels: tuple[str, ...]
    counts: tuple[int, ...]
    missing: int
    numbers: np.ndarray | None

    @property
    def total(self) -> int:
        return int(sum(self.counts)) + self.missing

    @property
    def distinct(self) -> int:
        return len(self.labels)


def tally(values: pd.Series) -> Tally:
    """The distinct values of ``values`` with their counts; numbers when the column is numeric."""
    codes, labels = factorize_text(values)
    counts = np.bincount(codes, minlength=len(labels))
    texts = np.asarray([str(t) for t in labels], dtype=object)
    empty = texts == ""
    missing = int(counts[empty].sum())
    keep = np.flatnonzero(~empty)
    order = sorted(keep.tolist(), key=lambda i: (-int(counts[i]), texts[i]))
    numbers = None
    if len(keep) and labels_look_numeric(texts[keep]):
        numbers = np.repeat(texts[keep].astype(float), counts[keep])
    return Tally(tuple(texts[i] for i in order), tuple(int(counts[i]) for i in order), missing, numbers)


def roles(config_text: str | None) -> dict[str, str]:
    """Each attribute's role as a config declares it (``{}`` when there is no readable config)."""
    if not config_text:
        return {}
    try:
        data = yaml.safe_load(config_text)
    except yaml.YAMLError:
        return {}
    attributes = data.get("attributes") if isinstance(data, dict) else None
    if not isinstance(attributes, dict):
        return {}
    out = {}
    for name, spec in attributes.items():
        role = spec.get("role") if isinstance(spec, dict) else spec if isinstance(spec, str) else None
        if isinstance(role, str):
            out[str(name)] = _ROLES.get(role, role)
    return out


def class_sizes(frame: pd.DataFrame, qi: list[str]) -> list[dict[str, int]]:
    """The audit's ``class_sizes`` computed from a released frame: rows with equal quasi-identifiers
    form a class; ``[{"size": s, "classes": c, "records": s * c}, …]`` by size."""
    cols = [q for q in qi if q in frame.columns]
    if not cols or frame.empty:
        return []
    codes = np.zeros(len(frame), dtype=np.int64)
    for name in cols:  # a mixed-radix key of the columns' text codes, renumbered after each column
        c, labels = factorize_text(frame[name])
        codes = pd.factorize(codes * np.int64(len(labels)) + c)[0]
    sizes = np.bincount(codes)
    size, classes = np.unique(sizes, return_counts=True)
    return [{"size": int(s), "classes": int(c), "records": int(s * c)} for s, c in zip(size, classes, strict=True)]
