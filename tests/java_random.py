"""Java's ``java.util.Random``, as its documentation specifies it, to rebuild ARX's random test inputs.

A 48-bit linear congruential generator (Knuth, TAOCP vol. 2, §3.2.1):

* ``Random(seed)`` keeps ``(seed ^ 0x5DEECE66D) & (2⁴⁸ − 1)`` (the seed is a Java ``long``: an
  ``int`` literal such as ``0xDEADBEEF`` is negative and sign-extended first; :func:`java_int`);
* ``next(bits)``: ``seed = (seed · 0x5DEECE66D + 0xB) mod 2⁴⁸``, returning the top ``bits`` bits as a
  signed 32-bit ``int``;
* ``nextInt(bound)``: a power of two takes the high bits, ``(bound · next(31)) >> 31``; any other
  bound rejects the draws ``u`` with ``u − u % bound + (bound − 1)`` beyond 2³¹ − 1 (an ``int``
  overflow in Java) and returns ``u % bound``;
* ``nextInt()`` is ``next(32)``; ``nextLong()`` is ``(next(32) << 32) + next(32)`` as a ``long``;
  ``nextBoolean()`` is ``next(1) != 0``; ``nextFloat()`` is ``next(24) / 2²⁴``;
* ``nextDouble()`` is ``((next(26) << 27) + next(27)) · 2⁻⁵³``.

``tests/test_java_random.py`` holds it to values a Java program printed.
"""

from __future__ import annotations

MULTIPLIER = 0x5DEECE66D
ADDEND = 0xB
MASK = (1 << 48) - 1
INT_MAX = (1 << 31) - 1


def java_int(value: int) -> int:
    """``value`` wrapped to a Java ``int`` (two's complement, 32 bits)."""
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value >= 1 << 31 else value


def java_long(value: int) -> int:
    """``value`` wrapped to a Java ``long`` (two's complement, 64 bits)."""
    value &= (1 << 64) - 1
    return value - (1 << 64) if value >= 1 << 63 else value


class JavaRandom:
    """``java.util.Random`` seeded with a Java ``long``."""

    def __init__(self, seed: int) -> None:
        self.seed = (java_long(seed) ^ MULTIPLIER) & MASK

    def next(self, bits: int) -> int:
        """The generator's step: the top ``bits`` (1–32) bits of the new seed, as a Java ``int``."""
        self.seed = (self.seed * MULTIPLIER + ADDEND) & MASK
        return java_int(self.seed >> (48 - bits))

    def next_int(self, bound: int | None = None) -> int:
        """``nextInt()`` (any ``int``) or ``nextInt(bound)`` (uniform in ``[0, bound)``)."""
        if bound is None:
            return self.next(32)
        if bound <= 0:
            raise ValueError("bound must be positive")
        r = self.next(31)
        m = bound - 1
        if bound & m == 0:  # a power of two: the high bits
            return java_int((bound * r) >> 31)
        u = r
        while True:
            r = u % bound
            if u - r + m <= INT_MAX:  # Java: u - r + m < 0 after int overflow
                return r
            u = self.next(31)

    def next_long(self) -> int:
        return java_long((self.next(32) << 32) + self.next(32))

    def next_boolean(self) -> bool:
        return self.next(1) != 0

    def next_float(self) -> float:
        return self.next(24) / float(1 << 24)

    def next_double(self) -> float:
        return ((self.next(26) << 27) + self.next(27)) * 2.0**-53
