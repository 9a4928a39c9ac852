"""A 1:M table (several diagnosis records per person) built on Adult's persons, for paper D.

Paper D: R. Fazal, R. Khan, A. Anjum, M. H. Syed, A. Khan, S. Rehman, "Improved angelization
technique against background knowledge attack for 1:M microdata", *PeerJ Computer Science*
9:e1255, 2023 (spec ``algorithms.md`` §1.5, §2.7, §4.5–§4.7). The paper derives its 1:M data from
UCI Adult but does not publish how it attaches the diagnoses, so :func:`make_one_to_many` does it
with the documented, seeded distributions below.

Columns (every cell is text)
----------------------------
``person``           the person's id, ``p000001``, ``p000002``, … (zero-padded to 6 digits, or
                     more when there are more than 999,999 persons); unique per person.
``age`` … ``workclass``  the quasi-identifiers :data:`QI_COLUMNS` = age, sex, race,
                     marital-status, education, native-country, workclass, copied from the
                     person's Adult record to every row of the person (identical on all of them).
``diagnosis``        one diagnosis of :data:`DIAGNOSES` per row (the sensitive attribute).

Rows are grouped by person, persons in id order; a person's rows are in the order their
diagnoses were drawn (see below). The index is ``0 … rows − 1``.

Persons
-------
``persons=None`` takes every one of Adult's 30,162 records, in Adult's order, as one person.
An integer ``n`` takes a seeded sample of ``n`` Adult records: without replacement (kept in
Adult's order) when ``n ≤ 30,162``, with replacement (uniform, in draw order) when ``n > 30,162``;
either way the ids ``p000001 … p{n}`` are unique, so the same Adult record may stand for several
persons of a large sample.

Records per person
------------------
``m = min(1 + Poisson(2), 10)``, drawn independently per person: at least one record, mean
``3 − E[max(0, Poisson(2) − 9)] ≈ 2.99994``, so 100,000 persons give about 300,000 records
(the benchmark size). Distribution: P(m = 1, 2, 3, 4, 5, 6, 7) ≈ 0.135, 0.271, 0.271, 0.180,
0.090, 0.036, 0.012; P(m ≥ 8) ≈ 0.005.

Diagnoses
---------
A person's ``m`` diagnoses are distinct (``m ≤ 10`` < 26 diagnoses, and every weight is
positive, so no repeat is ever needed): they are drawn one after another *without replacement*,
each draw choosing among the diagnoses not yet drawn with probability proportional to its weight
``w(d, age band, sex) = AGE_WEIGHT[d][band] · SEX_FACTOR[d][sex]``. (Implemented with exponential
races: each (person, diagnosis) pair gets ``E / w`` with ``E ~ Exp(1)``; the ``m`` smallest, in
increasing order, are exactly such a successive draw.) Age bands: ``<30`` (17–29), ``30-44``,
``45-59``, ``60+`` (60–90). Category: :data:`ONE_TO_MANY_CATEGORIES`, ordered by
:data:`CATEGORY_ORDER` (spec §4.5 step 1: Asymptomatic 0 < Low 1 < Mild 2 < High 3 < Severe 4,
consistent with the spec's worked example Cold 0, Flu 1, Bronchitis/Gastritis 2,
Pneumonia/Diabetes 3, Cancer/HIV 4). Chronic diagnoses (:data:`CHRONIC`, marked ``*``) rise
steeply with age; a few weights depend on sex (migraine, anemia, depression, arthritis and
osteoporosis are more frequent among women; gout, heart disease, HIV, hepatitis and ulcer among
men). The table (relative weights; a weight is the age-band weight times the sex factor)::

    diagnosis          category      <30   30-44  45-59  60+    female  male
    Cold               Asymptomatic  30    25     20     15     1       1
    Allergy            Asymptomatic  15    12     10     8      1.1     0.9
    Dermatitis         Asymptomatic  10    8      6      5      1.1     0.9
    High cholesterol*  Asymptomatic  2     6      12     16     0.9     1.1
    Flu                Low           25    22     20     20     1       1
    Migraine           Low           12    12     8      4      1.8     0.6
    Sinusitis          Low           10    10     9      7      1.1     0.9
    Anemia             Low           6     6      5      7      2       0.5
    Back pain          Low           8     12     14     14     1       1
    Bronchitis         Mild          10    8      8      10     1       1
    Gastritis          Mild          8     9      9      9      1       1
    Asthma             Mild          10    8      7      7      1       1
    Ulcer              Mild          3     5      6      7      0.8     1.2
    Arthritis*         Mild          1     3      10     18     1.4     0.8
    Gout*              Mild          0.5   2      4      6      0.3     1.6
    Pneumonia          High          3     3      5      10     1       1
    Diabetes*          High          1     3      8      14     1       1.1
    Hypertension*      High          2     6      15     25     0.9     1.1
    Depression         High          8     8      7      6      1.6     0.7
    Osteoporosis*      High          0.3   0.8    3      10     2.5     0.4
    Hepatitis          High          2     3      3      2      0.8     1.3
    Cancer*            Severe        0.5   1.5    4      8      1       1
    HIV                Severe        1     1.5    1      0.5    0.5     1.5
    Heart disease*     Severe        0.5   2      6      14     0.7     1.3
    Stroke*            Severe        0.2   0.8    2.5    7      1       1
    Kidney failure*    Severe        0.3   0.8    2      5      1       1

Category counts: Asymptomatic 4, Low 5, Mild 6, High 6, Severe 5 (26 diagnoses).

Randomness
----------
Everything is drawn from one ``numpy.random.default_rng(seed)`` in a fixed order (the sample of
persons, if any; the record counts; then the races, in blocks of :data:`_BLOCK` persons), so a
seed and ``persons`` determine the frame exactly. Generation is vectorized (no Python loop over
persons or records); 100,000 persons take well under a second.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from anonkit.datasets.adult import load_adult
from anonkit.errors import InputError

__all__ = [
    "AGE_BANDS",
    "AGE_WEIGHT",
    "CATEGORY_ORDER",
    "CHRONIC",
    "DIAGNOSES",
    "MAX_RECORDS",
    "ONE_TO_MANY_CATEGORIES",
    "QI_COLUMNS",
    "SEX_FACTOR",
    "make_one_to_many",
]

#: the five categories of paper D, by increasing severity (code = position)
CATEGORY_ORDER: tuple[str, ...] = ("Asymptomatic", "Low", "Mild", "High", "Severe")

#: the Adult columns copied to every row of a person, in column order
QI_COLUMNS: tuple[str, ...] = ("age", "sex", "race", "marital-status", "education", "native-country", "workclass")

#: age bands as (label, lowest age); a band runs to the next band's lowest age − 1
AGE_BANDS: tuple[tuple[str, int], ...] = (("<30", 0), ("30-44", 30), ("45-59", 45), ("60+", 60))

MAX_RECORDS = 10  # records per person: min(1 + Poisson(POISSON_MEAN), MAX_RECORDS)
POISSON_MEAN = 2.0
_BLOCK = 100_000  # persons per block of random keys (bounds memory; part of the seeded stream)
_ID_WIDTH = 6

# name, category, weights per age band (<30, 30-44, 45-59, 60+), sex factors (female, male), chronic
_TABLE: tuple[tuple[str, str, tuple[float, float, float, float], tuple[float, float], bool], ...] = (
    ("Cold", "Asymptomatic", (30, 25, 20, 15), (1, 1), False),
    ("Allergy", "Asymptomatic", (15, 12, 10, 8), (1.1, 0.9), False),
    ("Dermatitis", "Asymptomatic", (10, 8, 6, 5), (1.1, 0.9), False),
    ("High cholesterol", "Asymptomatic", (2, 6, 12, 16), (0.9, 1.1), True),
    ("Flu", "Low", (25, 22, 20, 20), (1, 1), False),
    ("Migraine", "Low", (12, 12, 8, 4), (1.8, 0.6), False),
    ("Sinusitis", "Low", (10, 10, 9, 7), (1.1, 0.9), False),
    ("Anemia", "Low", (6, 6, 5, 7), (2, 0.5), False),
    ("Back pain", "Low", (8, 12, 14, 14), (1, 1), False),
    ("Bronchitis", "Mild", (10, 8, 8, 10), (1, 1), False),
    ("Gastritis", "Mild", (8, 9, 9, 9), (1, 1), False),
    ("Asthma", "Mild", (10, 8, 7, 7), (1, 1), False),
    ("Ulcer", "Mild", (3, 5, 6, 7), (0.8, 1.2), False),
    ("Arthritis", "Mild", (1, 3, 10, 18), (1.4, 0.8), True),
    ("Gout", "Mild", (0.5, 2, 4, 6), (0.3, 1.6), True),
    ("Pneumonia", "High", (3, 3, 5, 10), (1, 1), False),
    ("Diabetes", "High", (1, 3, 8, 14), (1, 1.1), True),
    ("Hypertension", "High", (2, 6, 15, 25), (0.9, 1.1), True),
    ("Depression", "High", (8, 8, 7, 6), (1.6, 0.7), False),
    ("Osteoporosis", "High", (0.3, 0.8, 3, 10), (2.5, 0.4), True),
    ("Hepatitis", "High", (2, 3, 3, 2), (0.8, 1.3), False),
    ("Cancer", "Severe", (0.5, 1.5, 4, 8), (1, 1), True),
    ("HIV", "Severe", (1, 1.5, 1, 0.5), (0.5, 1.5), False),
    ("Heart disease", "Severe", (0.5, 2, 6, 14), (0.7, 1.3), True),
    ("Stroke", "Severe", (0.2, 0.8, 2.5, 7), (1, 1), True),
    ("Kidney failure", "Severe", (0.3, 0.8, 2, 5), (1, 1), True),
)

#: every diagnosis, in table order
DIAGNOSES: tuple[str, ...] = tuple(row[0] for row in _TABLE)
#: diagnosis → its category in :data:`CATEGORY_ORDER`
ONE_TO_MANY_CATEGORIES: dict[str, str] = {row[0]: row[1] for row in _TABLE}
#: diagnosis → relative weight per age band of :data:`AGE_BANDS`
AGE_WEIGHT: dict[str, tuple[float, ...]] = {row[0]: tuple(float(w) for w in row[2]) for row in _TABLE}
#: diagnosis → (female factor, male factor)
SEX_FACTOR: dict[str, tuple[float, float]] = {row[0]: (float(row[3][0]), float(row[3][1])) for row in _TABLE}
#: the chronic diagnoses (rising steeply with age)
CHRONIC: frozenset[str] = frozenset(row[0] for row in _TABLE if row[4])

_SEXES = ("Female", "Male")  # Adult's spelling; index = column of the sex factors


def _weights() -> np.ndarray:
    """Weight matrix of shape (age bands · 2 sexes, diagnoses); row = band · 2 + sex."""
    age = np.array([AGE_WEIGHT[d] for d in DIAGNOSES]).T  # (bands, D)
    sex = np.array([SEX_FACTOR[d] for d in DIAGNOSES]).T  # (2, D)
    return (age[:, None, :] * sex[None, :, :]).reshape(len(AGE_BANDS) * 2, len(DIAGNOSES))


def _check(persons: object, seed: object) -> None:
    if persons is not None and (isinstance(persons, bool) or not isinstance(persons, int | np.integer) or persons < 1):
        raise InputError("persons must be None or an integer ≥ 1", key="persons", value=persons)
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise InputError("seed must be an integer ≥ 0", key="seed", value=seed)


def make_one_to_many(persons: int | None = None, seed: int = 0) -> pd.DataFrame:
    """A 1:M table: Adult persons, each with 1–10 diagnosis records (see the module docstring).

    Columns ``person``, :data:`QI_COLUMNS`, ``diagnosis``; every cell a ``str``. ``persons=None``
    uses all 30,162 Adult persons; an integer takes a seeded sample of that many (with replacement
    above 30,162). The same arguments always give the same frame.

    Raises
    ------
    InputError
        If ``persons`` is neither ``None`` nor a positive integer, or ``seed`` is not a
        non-negative integer.
    """
    _check(persons, seed)

    adult, _ = load_adult()
    size = len(adult)
    rng = np.random.default_rng(int(seed))
    if persons is None:
        source = np.arange(size)
    elif persons <= size:
        source = np.sort(rng.choice(size, size=int(persons), replace=False))
    else:
        source = rng.integers(0, size, size=int(persons))
    n = len(source)

    counts = np.minimum(1 + rng.poisson(POISSON_MEAN, size=n), MAX_RECORDS)

    age = adult["age"].to_numpy()[source].astype(np.int64)
    band = np.searchsorted(np.array([low for _, low in AGE_BANDS[1:]]), age, side="right")
    sex_values = adult["sex"].to_numpy()[source]
    sex = (sex_values == _SEXES[1]).astype(np.int64)
    unknown = ~np.isin(sex_values, _SEXES)
    if unknown.any():  # the bundled Adult has only these two; guard against a changed file
        raise InputError("unexpected sex in Adult", column="sex", value=sex_values[unknown][0])
    group = band * 2 + sex
    table = _weights()

    # exponential races: the m smallest E/w of a person are a successive weighted draw without repeats
    top = np.empty((n, MAX_RECORDS), dtype=np.int64)
    for start in range(0, n, _BLOCK):
        stop = min(start + _BLOCK, n)
        keys = rng.standard_exponential(size=(stop - start, len(DIAGNOSES))) / table[group[start:stop]]
        top[start:stop] = np.argsort(keys, axis=1, kind="stable")[:, :MAX_RECORDS]
    taken = np.arange(MAX_RECORDS)[None, :] < counts[:, None]
    diagnosis = top[taken]  # row-major: person by person, in draw order
    owner = np.repeat(np.arange(n), counts)

    width = max(_ID_WIDTH, len(str(n)))
    ids = np.char.add("p", np.char.zfill(np.arange(1, n + 1).astype(str), width)).astype(object)
    columns: dict[str, np.ndarray] = {"person": ids[owner]}
    for c in QI_COLUMNS:
        columns[c] = adult[c].to_numpy(dtype=object)[source][owner]
    columns["diagnosis"] = np.asarray(DIAGNOSES, dtype=object)[diagnosis]
    return pd.DataFrame(columns, dtype=object)
