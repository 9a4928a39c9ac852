"""A smart-health table shaped like Table 1 of paper C, and a seeded generator of the same shape.

Paper C: M. Arca and R. Hewett, "Analytics on Anonymity for Privacy Retention in Smart Health Data",
*Future Internet* 13(11):274, 2021 (spec ``algorithms.md`` §2.6 and §4.4, ``paper-results.md`` C).
The text of the paper we have lost its tables, and the prose describes Table 1 only in part, so
:func:`make_smart_health` rebuilds it from every fact the prose gives and fills the rest with
documented choices (below). :func:`smart_health_hierarchies` gives Figure 2-like taxonomies.

Columns (every cell is text)
----------------------------
``Sex``   ``F`` / ``M``.
``AC``    alcohol consumption: ``None``, ``Low``, ``Med``, ``High`` (Table 1 uses the last three).
``Age``   integer years, ``20`` … ``85``.
``Zip``   five-digit zip code.
``BP``    systolic blood pressure in mmHg (the paper's "143"), ``90`` … ``199``.
``Race``  ``White``, ``Black``, ``Hispanic``, ``Asian``, ``Other``.
``Risk``  genetic risk, ``Yes`` / ``No``: the disclosed (sensitive) attribute of the paper.

What the paper fixes (Sections 3.1–3.3)
---------------------------------------
* 22 unique rows with a count column, 60 individuals, 27 F and 33 M; the female rows are rows
  1, 2, 8–10, 12–14, 16, 19, 22 and the male rows 3–7, 11, 15, 17, 18, 20, 21 (Section 3.1), so
  the normalized Longpre leakage of Sex is H(27/60, 33/60) / log2 60 = 0.168.
* Row 2 is (F, Low, 35, 52000, 143, Black, No) with 3 records; rows 1, 4, 10 and 13 have one record;
  row 1 is a female with Med AC, age 35, zip 52000 (Table 3a).
* Age leaks the most, then Zip, then Race (Table 2).
* The IAB illustration (Section 3.3.2, Figure 3) with the requirement ⟨{AC, Age, Zip}, 3⟩: rows
  1, 4, 9, 10, 13, 14 violate it; generalizing the root T(6, 22) on Zip, Age, AC gives T1(2, 21),
  T2(4, 21), T3(0, 18); expanding T1 gives T4(2, 21), T5(0, 21), T6(0, 17); T5 is optimal. In T1
  rows 1 and 9 merge into one row with shield (Med, 35, 5200*); rows 4 and 14 get the same shield
  values with 3 records together but stay two rows; rows 10 and 13 still violate.

T(n, m) counts ``n`` violating rows among ``m`` distinct rows (rows are full rows: all seven
columns); a row violates when the records sharing its (AC, Age, Zip) values number fewer than 3.
Successors follow the sibling-set rule of spec §4.4: for attribute A, every row of the whole table
whose A-value is a child of a parent of some violating row's A-value gets that parent.

The rebuilt Table 1 (rows in this order; ``make_smart_health()`` repeats each row ``count`` times)
------------------------------------------------------------------------------------------------
====  ===  ====  ===  =====  ===  ========  ====  =====  ========================================
row   Sex  AC    Age  Zip    BP   Race      Risk  count  role in the IAB illustration
====  ===  ====  ===  =====  ===  ========  ====  =====  ========================================
1     F    Med   35   52000  143  Black     No    1      violates; merges with 9 on Zip, 2 on AC
2     F    Low   35   52000  143  Black     No    3      the paper's example row
3     M    High  35   52001  128  White     Yes   3      fixes row 9 on AC (same age and zip)
4     M    Low   35   52010  120  White     No    1      violates; (Low, 35, 5201*) with row 14
5     M    Med   35   52010  120  White     No    3      merges with row 4 on AC
6     M    High  30   54000  120  White     No    3      merges with row 7 on Age (the merge of T2)
7     M    High  40   54000  120  White     No    3      merges with row 6 on Age
8     F    High  35   52012  128  Asian     No    3      merges with row 14 on AC
9     F    Med   35   52001  143  Black     No    2      violates; merges with row 1 on Zip
10    F    High  70   53001  160  White     Yes   1      violates; fixed by row 11 on Age
11    M    High  65   53001  160  Black     Yes   3      fixes row 10 on Age
12    F    Med   70   53001  160  White     Yes   3      merges with row 10 on AC
13    F    Low   50   53012  143  Hispanic  No    1      violates; fixed by row 17 on Age
14    F    Low   35   52012  128  Asian     No    2      violates; (Low, 35, 5201*) with row 4
15    M    Med   50   53012  143  Hispanic  Yes   3      fixes row 13 on AC (no merge: Sex)
16    F    Low   25   55001  120  Other     No    4      filler
17    M    Low   55   53012  120  Hispanic  No    3      fixes row 13 on Age
18    M    Med   58   56002  143  Other     No    4      filler
19    F    High  48   55001  143  Asian     Yes   4      filler
20    M    Low   78   55001  120  Black     Yes   4      filler
21    M    High  62   56002  160  Asian     No    3      filler
22    F    Med   80   56002  160  Hispanic  Yes   3      filler
====  ===  ====  ===  =====  ===  ========  ====  =====  ========================================

Resulting search (checked by ``tests/test_smart_health.py`` with an independent reference):
T(6, 22) → Zip: T1(2, 21) [rows 1 + 9 merge; rows 4 and 14 share (Low, 35, 5201*)], Age: T2(4, 21)
[rows 6 + 7 merge; rows 10 and 13 fixed], AC: T3(0, 18) [merges 1 + 2, 4 + 5, 8 + 14, 10 + 12];
T1 → Zip: T4(2, 21) [the zips 5300* and 5301* of rows 10–13, 15, 17 become 530**], Age: T5(0, 21)
[every age in [45-59] and [60-74] becomes its range; no row merges; rows 10 and 13 are fixed],
AC: T6(0, 17). The search stops at T5: no other table left has more than 21 rows.
Normalized leakage (entropy / log2 60): Age 0.572 > Zip 0.520 > Race 0.385 > BP 0.325 > AC 0.267
> Sex 0.168 (Risk, the disclosed attribute: 0.164).

Choices where the paper is silent or inconsistent
-------------------------------------------------
* Columns: the paper's row (F, Low, 35, 52000, 143, Black, No) suggests Sex, AC, Age, Zip, a
  measurement, Race and a yes/no attribute; we name the last three BP (systolic blood pressure),
  Race and Risk (genetic risk, the paper's example of the disclosed attribute).
* Every value except row 2's and row 1's shield is ours, chosen so that the search above holds.
* Rows 4 and 14: the paper prints their merged shield as (Low, 35, 5200*) with 3 records. With row
  2 = (F, Low, 35, 52000) × 3, masking zips 5200x would join row 2 to that group (6 records), so rows 4
  and 14 live in zips 52010 and 52012 and their shared shield is (Low, 35, 5201*) with exactly
  3 records (1 + 2), as the paper's count says. They differ on Sex (row 4 is male, row 14 female).
* Rows 1 and 9: the paper says they merge into [(Med, 35, 5200*), 4]; both violate ⟨·, 3⟩, so they
  hold at most 1 + 2 = 3 records. Row 9 has 2 records and the merged row has 3.
* Table 3 (the illustration on rows 1, 2, 5, 6, 9, 10) contradicts Table 1 (its rows 5 and 6 are
  female and its row 5, a 75-year-old with High AC, has one record, while Table 1's rows 5 and 6 are
  male and row 9 must merge with row 1); it is not reproduced.
* Hierarchies (Figure 2): AC None → No; Low, Med, High → Yes; → ``*`` (generalizing Med and Low
  gives the paper's "Yes"). Age: the leaf → one of four ranges [20-44], [45-59], [60-74], [75-85]
  (35 → [20-44] as in the paper) → ``*`` (the whole [20-85], reached in two steps as in the
  paper; the paper's one-step "[45-85]" does not fit four ranges and is not used). Zip: masked
  digit by digit from the right ("52000" → "5200*" → "520**" … → "*****") over the domain
  :data:`ZIPS`. Sex, Race and Risk are flat (→ ``*``); BP: the leaf → the clinical class
  (``<120``, ``120-129``, ``130-139``, ``>=140``) → ``*``.

The random table (``make_smart_health(n, seed)``)
-------------------------------------------------
``n`` independent records drawn from one ``numpy.random.default_rng(seed)`` in this order, column
by column (so a seed determines the frame exactly):

* Sex: ``F`` with probability 0.45 (27/60), else ``M``;
* AC: None 0.15, Low 0.35, Med 0.30, High 0.20;
* Age: uniform on 20 … 85;
* Zip: uniform on the 150 zips of :data:`ZIPS` (areas 520, 530, 540, 550, 560; fourth digit 0–2;
  last digit 0–9);
* BP: ``round(N(105 + 0.6·(age − 20) + 5·[M] + 8·[AC = High], 12²))`` clipped to 90 … 199;
* Race: White 0.55, Black 0.20, Hispanic 0.15, Asian 0.07, Other 0.03;
* Risk: ``Yes`` with probability 0.10 + 0.20·[BP ≥ 140] + 0.10·[age ≥ 60] + 0.10·[AC = High].
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from anonkit.errors import InputError
from anonkit.hierarchy import Hierarchy
from anonkit.hierarchy.builders import masking

__all__ = [
    "AC_VALUES",
    "AGE_RANGES",
    "COLUMNS",
    "RACES",
    "SHIELD",
    "TABLE1",
    "ZIPS",
    "make_smart_health",
    "smart_health_hierarchies",
]

#: Column order of every table this module makes.
COLUMNS: tuple[str, ...] = ("Sex", "AC", "Age", "Zip", "BP", "Race", "Risk")
#: The shield (quasi-identifiers) of the paper's anonymity requirement ⟨{AC, Age, Zip}, 3⟩.
SHIELD: tuple[str, ...] = ("AC", "Age", "Zip")
AC_VALUES: tuple[str, ...] = ("None", "Low", "Med", "High")
RACES: tuple[str, ...] = ("White", "Black", "Hispanic", "Asian", "Other")
#: The four age ranges of Figure 2 (inclusive bounds).
AGE_RANGES: tuple[tuple[int, int], ...] = ((20, 44), (45, 59), (60, 74), (75, 85))
AGE_MIN, AGE_MAX = 20, 85
BP_MIN, BP_MAX = 90, 199
#: The zip domain: areas 520, 530, 540, 550, 560, fourth digit 0–2, last digit 0–9.
ZIPS: tuple[str, ...] = tuple(
    f"{area}{d4}{d5}" for area in (520, 530, 540, 550, 560) for d4 in range(3) for d5 in range(10)
)

#: The rebuilt Table 1: ``((Sex, AC, Age, Zip, BP, Race, Risk), count)`` per row, in row order.
TABLE1: tuple[tuple[tuple[str, ...], int], ...] = (
    (("F", "Med", "35", "52000", "143", "Black", "No"), 1),
    (("F", "Low", "35", "52000", "143", "Black", "No"), 3),
    (("M", "High", "35", "52001", "128", "White", "Yes"), 3),
    (("M", "Low", "35", "52010", "120", "White", "No"), 1),
    (("M", "Med", "35", "52010", "120", "White", "No"), 3),
    (("M", "High", "30", "54000", "120", "White", "No"), 3),
    (("M", "High", "40", "54000", "120", "White", "No"), 3),
    (("F", "High", "35", "52012", "128", "Asian", "No"), 3),
    (("F", "Med", "35", "52001", "143", "Black", "No"), 2),
    (("F", "High", "70", "53001", "160", "White", "Yes"), 1),
    (("M", "High", "65", "53001", "160", "Black", "Yes"), 3),
    (("F", "Med", "70", "53001", "160", "White", "Yes"), 3),
    (("F", "Low", "50", "53012", "143", "Hispanic", "No"), 1),
    (("F", "Low", "35", "52012", "128", "Asian", "No"), 2),
    (("M", "Med", "50", "53012", "143", "Hispanic", "Yes"), 3),
    (("F", "Low", "25", "55001", "120", "Other", "No"), 4),
    (("M", "Low", "55", "53012", "120", "Hispanic", "No"), 3),
    (("M", "Med", "58", "56002", "143", "Other", "No"), 4),
    (("F", "High", "48", "55001", "143", "Asian", "Yes"), 4),
    (("M", "Low", "78", "55001", "120", "Black", "Yes"), 4),
    (("M", "High", "62", "56002", "160", "Asian", "No"), 3),
    (("F", "Med", "80", "56002", "160", "Hispanic", "Yes"), 3),
)

SEX_P = {"F": 0.45, "M": 0.55}
AC_P = {"None": 0.15, "Low": 0.35, "Med": 0.30, "High": 0.20}
RACE_P = {"White": 0.55, "Black": 0.20, "Hispanic": 0.15, "Asian": 0.07, "Other": 0.03}


def age_range(age: int) -> str:
    """The Figure 2 range of an age, e.g. ``35`` → ``"[20-44]"``."""
    for lo, hi in AGE_RANGES:
        if lo <= age <= hi:
            return f"[{lo}-{hi}]"
    raise InputError("age outside 20–85", column="Age", value=age)


def bp_class(bp: int) -> str:
    """The clinical class of a systolic blood pressure."""
    if bp < 120:
        return "<120"
    if bp < 130:
        return "120-129"
    if bp < 140:
        return "130-139"
    return ">=140"


def _table1() -> pd.DataFrame:
    records = [row for row, count in TABLE1 for _ in range(count)]
    return pd.DataFrame(records, columns=list(COLUMNS), dtype=object)


def _random(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    sex = rng.choice(np.array(list(SEX_P), dtype=object), size=n, p=list(SEX_P.values()))
    ac = rng.choice(np.array(list(AC_P), dtype=object), size=n, p=list(AC_P.values()))
    age = rng.integers(AGE_MIN, AGE_MAX + 1, size=n)
    zips = np.asarray(ZIPS, dtype=object)[rng.integers(0, len(ZIPS), size=n)]
    mu = 105.0 + 0.6 * (age - AGE_MIN) + 5.0 * (sex == "M") + 8.0 * (ac == "High")
    bp = np.clip(np.rint(rng.normal(mu, 12.0)), BP_MIN, BP_MAX).astype(np.int64)
    race = rng.choice(np.array(list(RACE_P), dtype=object), size=n, p=list(RACE_P.values()))
    p_risk = 0.10 + 0.20 * (bp >= 140) + 0.10 * (age >= 60) + 0.10 * (ac == "High")
    risk = np.where(rng.random(n) < p_risk, "Yes", "No").astype(object)
    frame = pd.DataFrame(
        {
            "Sex": sex,
            "AC": ac,
            "Age": age.astype(str).astype(object),
            "Zip": zips,
            "BP": bp.astype(str).astype(object),
            "Race": race,
            "Risk": risk,
        }
    )
    return frame.astype(object)


def make_smart_health(n: int | None = None, seed: int = 0) -> pd.DataFrame:
    """A smart-health table with the columns :data:`COLUMNS`, every cell a ``str``.

    With ``n=None``: the rebuilt Table 1 of paper C (Arca & Hewett 2021): its 22 unique rows (see the
    module docstring) repeated by their counts, in row order, 60 records (27 F, 33 M). With an
    integer ``n``: ``n`` records drawn with ``numpy.random.default_rng(seed)`` from the documented
    distributions over the same value domains (the same arguments give the same frame).

    Raises
    ------
    InputError
        If ``n`` is neither ``None`` nor a positive integer, or ``seed`` is not a non-negative integer.
    """
    if n is None:
        return _table1()
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 1:
        raise InputError("n must be None or an integer ≥ 1", key="n", value=n)
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise InputError("seed must be an integer ≥ 0", key="seed", value=seed)
    return _random(int(n), int(seed))


def smart_health_hierarchies() -> dict[str, Hierarchy]:
    """Figure 2-like hierarchies of every column, covering every value either table can hold.

    * ``Sex``: F, M → ``*``;
    * ``AC``: None → No; Low, Med, High → Yes; → ``*``;
    * ``Age`` (20–85): the age → ``[20-44]``, ``[45-59]``, ``[60-74]`` or ``[75-85]`` → ``*``;
    * ``Zip`` (:data:`ZIPS`): masked digit by digit from the right, ``52000`` → ``5200*`` → ``520**``
      → ``52***`` → ``5****`` → ``*****``;
    * ``BP`` (90–199): the value → ``<120``, ``120-129``, ``130-139`` or ``>=140`` → ``*``;
    * ``Race`` and ``Risk``: flat (→ ``*``).
    """
    ac_rows = [["None", "No", "*"]] + [[v, "Yes", "*"] for v in AC_VALUES[1:]]
    return {
        "Sex": Hierarchy.flat(["F", "M"], name="Sex"),
        "AC": Hierarchy(ac_rows, name="AC"),
        "Age": Hierarchy([[str(a), age_range(a), "*"] for a in range(AGE_MIN, AGE_MAX + 1)], name="Age"),
        "Zip": masking(list(ZIPS), name="Zip"),
        "BP": Hierarchy([[str(b), bp_class(b), "*"] for b in range(BP_MIN, BP_MAX + 1)], name="BP"),
        "Race": Hierarchy.flat(list(RACES), name="Race"),
        "Risk": Hierarchy.flat(["Yes", "No"], name="Risk"),
    }
