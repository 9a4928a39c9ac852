"""numpy's ``Generator.integers(n)``, draw for draw, without a numpy call per draw: for the Python loop of rank
swapping (:func:`anonkit.algorithms.perturb.rank_swap.pair_ranks_numpy`), where one call (about 2 µs) cost more
than the rest of the loop's step.

For a bound ``n ≤ 2³²`` numpy draws one 32-bit word ``u`` from the bit generator (``next_uint32``: the low
half of a 64-bit output, its high half kept for the next 32-bit draw) and returns ``(u · n) >> 32`` (Lemire's
method), drawing again while the low 32 bits of ``u · n`` fall below ``(2³² − n) mod n``; ``n = 1`` draws
nothing. :class:`BoundedDraws` reads the 64-bit outputs in blocks (``random_raw``), splits them into their
32-bit halves (low first) and applies the same rule in Python integers; :meth:`BoundedDraws.close` puts the
bit generator where numpy's draws would have left it (the state before, advanced by the outputs used, with the
unused high half kept), so the draws that follow are numpy's too. Only PCG64 (``default_rng``'s) on a
little-endian machine is read so; any other generator is drawn from by ``integers`` itself.
``tests/test_perturb_speed_paths.py`` holds both equal, values and state.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

import numpy as np

_LOW = 0xFFFFFFFF
_WORDS = 1 << 32


class BoundedDraws:
    """``draw(n)`` = ``rng.integers(n)`` for ``n ≥ 1``; call :meth:`close` once the loop is done."""

    def __init__(self, rng: np.random.Generator, expected: int) -> None:
        self._bg = rng.bit_generator
        self._before = self._bg.state
        self._words: list[int] = [self._before["uinteger"]] if self._before["has_uint32"] else []
        self._buffered = len(self._words)  # a high half numpy had kept: drawn first, not from the blocks
        self._at = 0
        self._read(expected)

    def _read(self, words: int) -> None:
        self._words.extend(self._bg.random_raw(max(1, (words + 1) // 2)).view(np.uint32).tolist())

    def draw(self, n: int) -> int:
        """A uniform integer in ``[0, n)``, numpy's next one."""
        if n == 1:
            return 0
        words = self._words
        if self._at >= len(words):
            self._read(len(words) + 16)
        m = words[self._at] * n
        self._at += 1
        if (m & _LOW) < n:
            threshold = (_WORDS - n) % n
            while (m & _LOW) < threshold:
                if self._at >= len(words):
                    self._read(len(words) + 16)
                m = words[self._at] * n
                self._at += 1
        return m >> 32

    def close(self) -> None:
        """Leave the bit generator as numpy's draws would have: advanced by the 64-bit outputs whose halves
        were used, the high half of a half-used one kept for the next 32-bit draw."""
        used = max(self._at - self._buffered, 0)
        self._bg.state = self._before
        if self._at == 0:
            return
        if used:
            self._bg.advance((used + 1) // 2)
        state = self._bg.state
        if used % 2:
            state["has_uint32"], state["uinteger"] = 1, self._words[self._at]
        else:
            state["has_uint32"], state["uinteger"] = 0, self._words[self._at - 1]
        self._bg.state = state


def bounded_draws(rng: np.random.Generator, expected: int) -> tuple[Callable[[int], int], Callable[[], None]]:
    """``(draw, close)``: :class:`BoundedDraws` for PCG64 on a little-endian machine, else ``rng.integers``
    itself (and nothing to close). ``expected``: about how many draws the caller will make (read ahead)."""
    if type(rng.bit_generator) is np.random.PCG64 and sys.byteorder == "little":
        draws = BoundedDraws(rng, expected)
        return draws.draw, draws.close
    return (lambda n: int(rng.integers(n))), (lambda: None)
