"""Giving freed memory back to the operating system between the phases of a large run.

numpy's large arrays are returned to the system when freed, but many smaller allocations (pandas'
hash tables, Python objects of the distinct values, numba's compiler) leave glibc's heap with free
pages it keeps; the next phase then peaks on top of them. :func:`give_back` asks glibc to return
them (``malloc_trim(0)``): on the 10 M-row Parquet job of ``benchmarks/bench_io.py`` it returns
70–100 MB between search, publishing and verification. Elsewhere (another C library, another
system) it does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import sys

#: below this many records a run is not worth a trim (it takes milliseconds; small runs hold little)
TRIM_ABOVE = 1_000_000


@functools.cache
def _trim() -> object:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        return libc.malloc_trim
    except (OSError, AttributeError):  # not glibc (musl has no malloc_trim)
        return None


def give_back(records: int) -> None:
    """Return the heap's free pages to the system when a run of ``records`` records is large."""
    if records < TRIM_ABOVE:
        return
    trim = _trim()
    if trim is not None:
        trim(0)  # type: ignore[operator]
