"""ARX's output hash: the number ARX's ``TestAnonymizationLocalRecoding`` asserts for a release.

ARX's ``AbstractAnonymizationTest`` hashes the output handle cell by cell, rows in input order and
columns in the input's order::

    hash = 23; for each row, for each column: hash = 37 * hash + value.hashCode()

in Java's 32-bit signed arithmetic, ``String.hashCode`` being ``s[0]·31^(n−1) + … + s[n−1]`` over the
string's UTF-16 code units. The output ARX hashes shows a quasi-identifier's generalized label, ``*``
for a suppressed record's quasi-identifiers and for every identifying attribute (ARX's default type
for an attribute without a hierarchy in its tests), and the other attributes' values as they are.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

import numpy as np

from anonkit.release import Release

MASK = 0xFFFFFFFF
#: what ARX prints for a suppressed quasi-identifier and for an identifying attribute
STAR = "*"


def java_string_hash(text: str) -> int:
    """Java's ``String.hashCode`` (signed 32 bits), over UTF-16 code units (a character outside the
    Basic Multilingual Plane counts as its two surrogates)."""
    data = text.encode("utf-16-le")
    h = 0
    for i in range(0, len(data), 2):
        h = (31 * h + (data[i] | data[i + 1] << 8)) & MASK
    return h - (1 << 32) if h >= 1 << 31 else h


def arx_output_hash(rows: Iterable[Sequence[str]]) -> int:
    """ARX's test's hash of an output given as rows of cell texts (see the module docstring)."""
    memo: dict[str, int] = {}
    h = 23
    for row in rows:
        for value in row:
            code = memo.get(value)
            if code is None:
                code = memo[value] = java_string_hash(value)
            h = (37 * h + code) & MASK
    return h - (1 << 32) if h >= 1 << 31 else h


def arx_output_rows(release: Release, columns: Sequence[str], identifiers: Iterable[str] = ()) -> Iterator[list[str]]:
    """The output ARX would show for ``release``: every input record in input order (suppressed ones
    marked), ``columns`` in that order, ``*`` for the ``identifiers``. Read from the published frame
    (``Release.to_frame``) and put back in input order with ``published_rows``."""
    frame = release.to_frame(suppressed="mark")
    order = np.argsort(release.published_rows(suppressed="mark"), kind="stable")
    hidden = set(identifiers)
    cells = {c: (None if c in hidden else frame[c].astype(str).to_numpy()[order]) for c in columns}
    n = len(order)
    for i in range(n):
        yield [STAR if cells[c] is None else str(cells[c][i]) for c in columns]

