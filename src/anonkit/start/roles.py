"""Which role each column should play, with the reason: the first thing a data holder decides.

The rules, in order (fail closed: a column an attacker might know is a quasi-identifier unless
something says otherwise; nothing is published as it is by default but a column that says nothing):

1. **Direct identifiers by content** (:mod:`anonkit.start.detect`: names, e-mail and postal
   addresses, phone, social security, record and account numbers, web and IP addresses — HIPAA Safe
   Harbor's kinds): role ``identifier``, dropped before anything else.
2. **Direct identifiers by uniqueness**: text (or a run of whole numbers, a row number) whose value
   is unique for at least :data:`~anonkit.analytics.leakage.DEFAULT_IDENTIFIER_SHARE` of the records,
   on a table of at least :data:`UNIQUENESS_FROM_RECORDS` records (on fewer, every column is unique).
3. **Dates spanning a lifetime** (:data:`LIFETIME_YEARS`, likely dates of birth): a quasi-identifier
   never published finer than its year (Safe Harbor keeps no element of a date but the year).
4. **Sensitive** by the column's name (diagnosis, income, religion, …: :data:`SENSITIVE_WORDS`, the
   special categories of data of GDPR art. 9 and the usual health and money columns).
5. **Insensitive** when every record holds one value (it says nothing about anyone).

Survey roles (issue 28) come by name and content: a column named like a weight (:data:`WEIGHT_WORDS`)
whose values are numbers ≥ 1, some not whole, is the ``weight`` (checked before rule 2: weights are
often unique); one named like a household id (:data:`HOUSEHOLD_WORDS`) whose values repeat is the
``household`` (checked before the person and record names of rule 2).
6. Every other column is a **quasi-identifier**, ranked by the leakage pre-analytics over
   combinations (:func:`anonkit.analytics.leakage`): the best score of a combination it is part of.

If the rules leave no quasi-identifier, the least unique column taken as an identifier by rule 2
becomes one (a config needs one); if only direct identifiers by content are left, the table holds
nothing to publish and is refused.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from anonkit._values import factorize_text, read_dates
from anonkit.analytics.leakage import DEFAULT_IDENTIFIER_SHARE, DEFAULT_TAU, MAX_COMBINATIONS, leakage
from anonkit.errors import InputError
from anonkit.start.detect import KINDS, identifier_kind, infer_type, name_words, sample_texts

#: below this many records uniqueness says nothing (every column of a small table is unique)
UNIQUENESS_FROM_RECORDS = 20
#: a date column spanning at least this many years is taken for dates of birth
LIFETIME_YEARS = 30.0
#: column-name words that mark a sensitive attribute (matched as whole words of the name)
SENSITIVE_WORDS = (
    "diagnosis", "diagnoses", "disease", "illness", "condition", "icd", "symptom", "symptoms", "treatment",
    "medication", "drug", "drugs", "therapy", "hiv", "health", "disability", "pregnancy", "salary", "income",
    "wage", "wages", "earnings", "debt", "balance", "religion", "religious", "belief", "ethnicity", "ethnic",
    "sexual", "orientation", "political", "party", "union", "criminal", "offence", "offense", "conviction",
    "genetic", "biometric", "outcome", "result", "score", "grade", "affairs", "affair", "ill",
)
#: column-name words that mark a direct identifier when the values are unique too
IDENTIFIER_WORDS = ("id", "identifier", "number", "no", "nr", "num", "account", "record", "mrn", "ssn", "key",
                    "uuid", "code")
#: column-name words that name the person a record is about (a column of several records per person)
PERSON_WORDS = ("person", "patient", "pid", "subject", "participant", "member", "client", "customer", "user",
                "individual", "respondent", "household", "employee", "student")
#: the words of IDENTIFIER_WORDS that name a record or a person by themselves (``code`` or ``number`` may
#: be a ZIP or a diagnosis code)
NAMED_ID_WORDS = ("id", "identifier", "mrn", "ssn", "uuid", "record", "account")
#: a named id column is an identifier when it has at least this share of distinct values per record
NAMED_ID_DISTINCT_SHARE = 0.05
#: column-name words that mark a survey's sampling weight (numbers ≥ 1, some not whole: role weight)
WEIGHT_WORDS = ("weight", "wgt", "wt", "weights", "sampling_weight", "sweight", "pweight", "fweight")
#: column-name words that mark a household id (values shared by a household's records: role household)
HOUSEHOLD_WORDS = ("hh", "household", "hid", "hhid", "household_id")
#: the roles, as the config names them (the survey roles of issue 28 last)
ROLES = ("identifier", "quasi", "sensitive", "insensitive", "person", "weight", "household", "pseudonym", "new-id")
#: what an id column dropped by default could be instead (the default stays identifier: fail closed, nothing of
#: the id is published unless the data holder asks for one of these)
ID_OPTIONS = ("to keep its rows linked in this release give it role new-id; across releases, role pseudonym "
              "with a key")


@dataclass(frozen=True)
class Candidate:
    """One role a column could play, how strongly the data points to it (0 … 1) and why."""

    role: str
    score: float
    reason: str


@dataclass(frozen=True)
class ColumnAdvice:
    """What :func:`suggest_roles` says of one column.

    ``type`` is the config's (numeric, date, categorical; ordinal is for the user to declare),
    ``shape`` what the hierarchy needs to know besides (``code``, ``integer`` or None), ``role`` the
    suggested role and ``reason`` why in one plain sentence, ``kind`` the direct-identifier kind
    found by content (a key of :data:`anonkit.start.detect.KINDS`, ``dob`` for dates of birth),
    ``candidates`` every role ranked (the suggested one first), ``min_level`` the lowest level it
    may be published at (dates of birth: the year), ``rank`` its place among the quasi-identifier
    candidates (1 = leaks most in combination), ``leakage`` that score."""

    name: str
    type: str
    role: str
    reason: str
    candidates: tuple[Candidate, ...]
    shape: str | None = None
    kind: str | None = None
    distinct: int = 0
    unique_share: float = 0.0
    min_level: int = 0
    rank: int | None = None
    leakage: float | None = None
    extra: dict = field(default_factory=dict, compare=False, repr=False)


def _span_years(values: pd.Series) -> float:
    texts = sample_texts(values)
    when = read_dates(texts, None)
    return float((when.max() - when.min()) / pd.Timedelta(days=1) / 365.2425)


def _facts(values: pd.Series) -> tuple[int, float]:
    """Distinct values (missing is one) and the share of records whose value nobody else has."""
    codes, labels = factorize_text(values)
    counts = np.bincount(codes, minlength=len(labels)) if len(codes) else np.zeros(0, dtype=np.int64)
    n = max(len(codes), 1)
    return len(labels), float((counts == 1).sum() / n)


def _identifier_by_uniqueness(name: str, values: pd.Series, type_: str, shape: str | None, unique_share: float,
                              n: int) -> str | None:
    """Why the column is a direct identifier by uniqueness, or None."""
    if n < UNIQUENESS_FROM_RECORDS or unique_share < DEFAULT_IDENTIFIER_SHARE:
        return None
    share = f"{unique_share:.0%} of the records have a value no other record has"
    if type_ == "categorical":
        return f"{share}: it names the record (an identifier), so it is dropped ({ID_OPTIONS})"
    if type_ == "numeric" and shape == "integer":
        nums = pd.to_numeric(values, errors="coerce").dropna()
        run = nums.nunique() / max(float(nums.max() - nums.min() + 1), 1.0)
        if run >= 0.9 or name_words(name) & set(IDENTIFIER_WORDS):
            return f"{share} and they count up like record numbers: an identifier, so it is dropped ({ID_OPTIONS})"
    return None


def _person_algorithms() -> str:
    """The algorithms that count persons, as the registry declares them."""
    from anonkit.algorithms import registry

    return ", ".join(a.name for a in registry.algorithms().values() if a.persons) or "none yet"


def _named_identifier(name: str, type_: str, distinct: int, n: int) -> str | None:
    """Why a column whose name says it names a person or a record (``patient_id``, ``person``, ``mrn``)
    is an identifier even though its values repeat (several records per person), or None."""
    words = name_words(name)
    said = sorted(words & set(PERSON_WORDS)) or sorted(words & set(NAMED_ID_WORDS))
    if not said or type_ != "categorical" or distinct < max(2, NAMED_ID_DISTINCT_SHARE * n):
        return None
    return (f"its name says {said[0]!r} and it has {distinct:,} different values: it names a person or a record "
            "(an identifier), so it is dropped; when a person has several records, give it role person instead "
            f"({ID_OPTIONS})")


def _said(name: str, words: tuple[str, ...]) -> list[str]:
    """The words of ``words`` the column's name holds (whole words, or the whole name)."""
    low = name.strip().lower()
    return sorted((name_words(name) | {low}) & set(words))


def _weight(name: str, values: pd.Series) -> str | None:
    """Why the column is a survey's sampling weight, or None: its name says so and its values are numbers
    ≥ 1 of which some are not whole (a count of people would be whole; a weight is an estimate)."""
    said = _said(name, WEIGHT_WORDS)
    if not said:
        return None
    nums = pd.to_numeric(values.astype("string").str.strip(), errors="coerce")
    if nums.isna().any() or not len(nums) or (nums < 1).any() or (nums == nums.round()).all():
        return None
    return (f"its name says {said[0]!r} and every value is a number >= 1, some not whole: a sampling weight (the "
            "population units each record stands for), published unchanged; sdcMicro's risk measures use it")


def _household(name: str, distinct: int, n: int) -> str | None:
    """Why the column is a household id, or None: its name says so and some households hold several records."""
    said = _said(name, HOUSEHOLD_WORDS)
    if not said or distinct < 2 or distinct >= n:
        return None
    return (f"its name says {said[0]!r} and {distinct:,} values are shared by {n:,} records: a household id, never "
            "published as it is (dropped; publish: renumbered keeps households linkable); household risk uses it")


def _one(name: str, values: pd.Series, n: int) -> ColumnAdvice:
    """The advice on one column before the quasi-identifiers are ranked."""
    type_, shape = infer_type(values, name=name)
    distinct, unique_share = _facts(values)
    kind = identifier_kind(values, name=name)
    if kind is not None:
        k = KINDS[kind]
        why = (f"its values look like {k.name} ({k.safe_harbor} are direct identifiers under HIPAA Safe Harbor): "
               "dropped before anything else")
        return ColumnAdvice(name, type_, "identifier", why, (Candidate("identifier", 1.0, why),), shape, kind,
                            distinct, unique_share)
    survey = _weight(name, values)
    if survey is not None:
        return ColumnAdvice(name, type_, "weight", survey, (Candidate("weight", 0.9, survey),
                            Candidate("insensitive", 0.3, "if it is not a sampling weight, published as it is")),
                            shape, None, distinct, unique_share)
    unique = _identifier_by_uniqueness(name, values, type_, shape, unique_share, n)
    if unique is not None:
        cands = (Candidate("identifier", unique_share, unique),
                 Candidate("quasi", 1 - unique_share, "if the values mean something beyond the record, generalize it"))
        return ColumnAdvice(name, type_, "identifier", unique, cands, shape, None, distinct, unique_share,
                            extra={"by_uniqueness": True})
    household = _household(name, distinct, n)
    if household is not None:
        return ColumnAdvice(name, type_, "household", household, (Candidate("household", 0.9, household),
                            Candidate("identifier", 0.5, "drop it without household risk")), shape, None, distinct,
                            unique_share)
    named = _named_identifier(name, type_, distinct, n)
    if named is not None:
        cands = (Candidate("identifier", 0.9, named),
                 Candidate("person", 0.6, "if each value is one person with several records: role person, with an "
                                          f"algorithm that counts persons ({_person_algorithms()})"))
        return ColumnAdvice(name, type_, "identifier", named, cands, shape, "record", distinct, unique_share)
    if type_ == "date" and _span_years(values) >= LIFETIME_YEARS:
        why = (f"dates spanning over {LIFETIME_YEARS:.0f} years look like dates of birth: an attacker may know them; "
               "published at most to the year (HIPAA Safe Harbor keeps no element of a date but the year)")
        return ColumnAdvice(name, type_, "quasi", why, (Candidate("quasi", 0.9, why),
                            Candidate("identifier", 0.5, "drop it if the year is not needed either")), shape, "dob",
                            distinct, unique_share)
    words = name_words(name) & set(SENSITIVE_WORDS)
    if words and distinct > 1:
        why = (f"its name says {sorted(words)[0]!r}: what the release must not let anyone learn about a person "
               "(sensitive); protected by the privacy models, never generalized away")
        return ColumnAdvice(name, type_, "sensitive", why, (Candidate("sensitive", 0.8, why),
                            Candidate("quasi", 0.3, "if an attacker could know it, make it a quasi-identifier")),
                            shape, None, distinct, unique_share)
    if distinct <= 1:
        why = "every record holds the same value: it says nothing about anyone, published as it is"
        return ColumnAdvice(name, type_, "insensitive", why, (Candidate("insensitive", 1.0, why),), shape, None,
                            distinct, unique_share)
    return ColumnAdvice(name, type_, "quasi", "", (), shape, None, distinct, unique_share)


def _combination_size(n_columns: int) -> int:
    """Combinations of up to 3 columns where that stays within the measuring budget, else pairs."""
    triples = sum(math.comb(n_columns, s) for s in (2, 3))
    return 3 if triples <= MAX_COMBINATIONS // 20 else 2 if math.comb(n_columns, 2) <= MAX_COMBINATIONS else 1


def suggest_roles(frame: pd.DataFrame) -> list[ColumnAdvice]:
    """Every column's inferred type, suggested role, reason and ranked candidates (see the module)."""
    if not isinstance(frame, pd.DataFrame) or frame.shape[1] == 0:
        raise InputError("no columns to suggest roles for; give a table with a header row")
    if len(frame) == 0:
        raise InputError("the table has no records; roles are suggested from the values")
    n = len(frame)
    advice = [_one(str(c), frame[c], n) for c in frame.columns]
    quasi = [a.name for a in advice if a.role == "quasi"]
    if not quasi:
        demoted = sorted((a for a in advice if a.extra.get("by_uniqueness")), key=lambda a: a.unique_share)
        if not demoted:
            raise InputError("every column is a direct identifier (or holds one value): there is nothing to "
                             "publish; remove the identifiers and keep the columns the release is for")
        advice = [_as_quasi(a) if a is demoted[0] else a for a in advice]
        quasi = [demoted[0].name]
    return _ranked(frame, advice, quasi)


def _as_quasi(a: ColumnAdvice) -> ColumnAdvice:
    return ColumnAdvice(a.name, a.type, "quasi", "", a.candidates, a.shape, None, a.distinct, a.unique_share)


def _ranked(frame: pd.DataFrame, advice: list[ColumnAdvice], quasi: list[str]) -> list[ColumnAdvice]:
    """The quasi-identifiers ranked by the leakage of the combinations they take part in, with reasons."""
    report = leakage(frame, quasi, max_size=_combination_size(len(quasi)), tau=DEFAULT_TAU, identifier_share=1.1)
    best: dict[str, tuple[float, list[str], float]] = {
        a: (f["leakage"], [a], f["unique_share"]) for a, f in report["attributes"].items()}
    for c in report["combinations"]:
        for a in c["attributes"]:
            if c["leakage"] > best[a][0]:
                best[a] = (c["leakage"], c["attributes"], c["unique_share"])
    order = sorted(quasi, key=lambda a: (-best[a][0], quasi.index(a)))
    out = []
    for a in advice:
        if a.role != "quasi" or a.kind == "dob":
            out.append(a if a.role != "quasi" else _with_rank(a, order, best))
            continue
        score, combo, unique = best[a.name]
        others = [x for x in combo if x != a.name]
        with_ = f"known together with {' and '.join(others)}, " if others else "known alone, "
        why = (f"an attacker may know it from elsewhere (as age, sex or place are); {with_}it singles out "
               f"{unique:.1%} of the records (leakage {score:.2f}; {DEFAULT_TAU:g} and above is vulnerable): "
               f"quasi-identifier candidate #{order.index(a.name) + 1} of {len(order)}, generalized by its hierarchy")
        cands = (Candidate("quasi", score, why),
                 Candidate("insensitive", 1 - score, "only if no attacker can know it: then it is published as it is"),
                 Candidate("sensitive", 0.1, "if it is what must not be learnt about a person"))
        out.append(ColumnAdvice(a.name, a.type, "quasi", why, cands, a.shape, None, a.distinct, a.unique_share,
                                rank=order.index(a.name) + 1, leakage=score))
    return out


def _with_rank(a: ColumnAdvice, order: list[str], best: dict[str, tuple[float, list[str], float]]) -> ColumnAdvice:
    return ColumnAdvice(a.name, a.type, a.role, a.reason, a.candidates, a.shape, a.kind, a.distinct, a.unique_share,
                        a.min_level, order.index(a.name) + 1, best[a.name][0])
