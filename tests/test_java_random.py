"""``tests/java_random.py`` against ``java.util.Random``: the values below were printed by a small
Java program (OpenJDK 17) calling each method in the same order from the same seed."""

from __future__ import annotations

import pytest

from java_random import JavaRandom, java_int


def draw(seed: int, n: int, call: str, *args: int) -> list:
    r = JavaRandom(seed)
    return [getattr(r, call)(*args) for _ in range(n)]


def test_an_int_literal_seed_is_sign_extended_as_in_java() -> None:
    """``new Random(0xDEADBEEF)``: the literal is the int −559038737, then widened to a long."""
    assert java_int(0xDEADBEEF) == -559038737
    assert draw(java_int(0xDEADBEEF), 5, "next_int", 20000) == [9335, 1336, 14476, 3301, 13513]
    assert draw(0xDEADBEEF, 5, "next_int", 20000) != [9335, 1336, 14476, 3301, 13513]  # control: unsigned differs


def test_one_sequence_through_every_method() -> None:
    r = JavaRandom(42)
    assert [r.next_int() for _ in range(3)] == [-1170105035, 234785527, -1360544799]
    assert [r.next_long() for _ in range(3)] == [884324181205335268, -1068554554583376509, -5391787952107853122]
    assert [r.next_double() for _ in range(3)] == [0.09132461105841794, 0.4512572194454507, 0.3816430907807956]
    assert [f"{r.next_float():.8g}" for _ in range(3)] == ["0.69042575", "0.46365356", "0.76209015"]
    assert [r.next_boolean() for _ in range(4)] == [True, True, True, False]
    assert [r.next_int(1024) for _ in range(4)] == [446, 450, 767, 952]  # a power of two: the high bits


def test_the_rejection_loop_of_next_int() -> None:
    """A bound just above 2³⁰ rejects about half of the draws: skipping the loop gives other values."""
    bound = (1 << 30) + 1
    assert draw(-1, 6, "next_int", bound) == [577549913, 943952225, 26349579, 894294477, 857465478, 121412731]
    plain = JavaRandom(-1)
    assert [plain.next(31) % bound for _ in range(6)] != [577549913, 943952225, 26349579, 894294477, 857465478,
                                                          121412731]
    assert draw(0, 3, "next_int", 7) == [5, 2, 4]


def test_arx_subset_draws() -> None:
    """TestAnonymizationSubset's ``getSubset(size)``: distinct rows and their sum, as Java's HashSet holds them."""
    for size, distinct, total in ((20000, 12620, 125495021), (10000, 6315, 31496630), (30000, 19015, 284929456),
                                  (9000, 5681, 25383225)):
        rows = set(draw(java_int(0xDEADBEEF), size, "next_int", size))
        assert (len(rows), sum(rows)) == (distinct, total)


def test_a_bound_must_be_positive() -> None:
    with pytest.raises(ValueError, match="positive"):
        JavaRandom(1).next_int(0)
