"""What a column's values are, read from the values themselves: their type, and whether they are
direct identifiers of the kinds HIPAA's Safe Harbor method lists (45 CFR §164.514(b)(2)): names,
postal addresses, telephone numbers, e-mail addresses, web addresses, IP addresses, social security,
record and account numbers, and dates (of birth) — recognised by content, not by the column's name
(a column called ``contact`` full of e-mail addresses is found; a column called ``email`` holding
yes/no is not flagged).

A kind is recognised when at least :data:`CONTENT_SHARE` of the column's distinct non-missing values
look like it, on a sample of at most :data:`SAMPLE_VALUES` distinct values (deterministic: the first
ones). Names need more: text of two to four capitalised words, and a column whose values are mostly
different (a column of city names repeats them; a column of people's names does not).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from anonkit._values import factorize_text, read_dates
from anonkit.errors import InputError

#: share of the distinct values that must look like a kind for the column to be of that kind
CONTENT_SHARE = 0.8
#: at most this many distinct values are looked at per column
SAMPLE_VALUES = 2000
#: a column of names has at least this share of distinct values among its records (unless its name
#: says it holds names: :func:`names_people`)
NAME_DISTINCT_SHARE = 0.5
#: column-name words that say the column holds people's names
NAME_WORDS = ("name", "names", "fullname", "surname", "surnames", "forename", "forenames", "firstname", "lastname")
#: the other words a column of people's names may have in its name (``full_name``, ``patient_last_name``)
PERSON_NAME_WORDS = ("full", "first", "last", "given", "family", "middle", "maiden", "birth", "person", "patient",
                     "employee", "client", "customer", "member", "participant", "respondent", "student", "staff",
                     "contact", "display")
#: column-name words that say digits of one length are postal codes (masked, not cut into intervals)
CODE_WORDS = ("zip", "zipcode", "postcode", "postcodes", "postal", "plz", "postleitzahl")

_EMAIL = re.compile(r"^[A-Za-z0-9._%+'-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}$")
_URL = re.compile(r"^(https?://|www\.)\S+$", re.IGNORECASE)
_IPV4 = re.compile(r"^(25[0-5]|2[0-4]\d|1?\d?\d)(\.(25[0-5]|2[0-4]\d|1?\d?\d)){3}$")
_SSN = re.compile(r"^\d{3}-\d{2}-\d{4}$")
_PHONE = re.compile(r"^(\+|00)?[\d\s().\-/]{7,20}$")
_IBAN = re.compile(r"^[A-Z]{2}\d{2}[A-Z0-9 ]{10,32}$")
_RECORD = re.compile(r"^[A-Za-z]{0,5}[-_/#]?\d{5,}[A-Za-z]{0,2}$")
_STREET = re.compile(
    r"^\d+[A-Za-z]?,?\s+.*\b(street|st|road|rd|avenue|ave|lane|ln|drive|dr|boulevard|blvd|way|court|ct|place|pl|"
    r"square|sq|terrace|highway|hwy|parkway|pkwy)\b\.?", re.IGNORECASE)
_STREET_AFTER = re.compile(r"\b(strasse|straße|str\.|weg|gasse|platz|allee|rue|via|calle|avenida|laan|straat)\b.*\d",
                           re.IGNORECASE)
_NAME = re.compile(r"^[A-Z][a-zà-ÿ'’\-]+\.?(\s+[A-Z][A-Za-zà-ÿ'’\-]*\.?){1,3}$")
_DATE_LIKE = re.compile(r"^\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}([ T]\d{1,2}:\d{2}(:\d{2})?)?$|^\d{8}$|"
                        r"^\d{1,2} [A-Za-z]{3,9} \d{4}$|^[A-Za-z]{3,9} \d{1,2},? \d{4}$")


@dataclass(frozen=True)
class Kind:
    """A kind of direct identifier: its name, as a reason says it, and what Safe Harbor calls it."""

    name: str
    safe_harbor: str


#: the kinds recognised, in the order they are tried (the first that fits wins)
KINDS: dict[str, Kind] = {
    "email": Kind("e-mail addresses", "electronic mail addresses"),
    "url": Kind("web addresses", "web universal resource locators"),
    "ip": Kind("IP addresses", "internet protocol addresses"),
    "ssn": Kind("social security numbers", "social security numbers"),
    "iban": Kind("bank account numbers (IBAN)", "account numbers"),
    "address": Kind("postal addresses", "geographic subdivisions smaller than a state: street addresses"),
    "phone": Kind("telephone numbers", "telephone numbers"),
    "record": Kind("record or account numbers", "medical record, health plan, account and other numbers"),
    "name": Kind("people's names", "names"),
}


def sample_texts(values: pd.Series) -> np.ndarray:
    """The distinct non-missing texts of a column, stripped, the first :data:`SAMPLE_VALUES` of them."""
    _, labels = factorize_text(values)
    texts = [str(t).strip() for t in labels[:SAMPLE_VALUES * 2]]
    return np.asarray([t for t in texts if t][:SAMPLE_VALUES], dtype=object)


def _share(texts: np.ndarray, pattern: re.Pattern[str]) -> float:
    return float(np.mean([bool(pattern.search(t)) for t in texts])) if texts.size else 0.0


def _phone_like(text: str) -> bool:
    """Seven to fifteen digits written as a number is written to be dialled: with a ``+``, or with
    separators between groups (``555-0142``, ``(030) 1234567``); a bare run of digits is a number."""
    if not _PHONE.match(text) or _DATE_LIKE.match(text):  # 1967-01-10 is a date, not a number to dial
        return False
    digits = sum(c.isdigit() for c in text)
    return 7 <= digits <= 15 and (text.startswith(("+", "00", "(")) or any(c in text for c in " -./)"))


def name_words(name: object) -> set[str]:
    """The words of a column name (``date_of_birth``, ``DateOfBirth``, ``marital-status``), lower case."""
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", str(name))
    return {w for w in re.split(r"[^A-Za-z0-9]+", spaced.lower()) if w}


def names_people(column: object) -> bool:
    """Whether a column's name says it holds people's names (``full_name``, ``surname``, ``patient
    name``): a word of :data:`NAME_WORDS` and nothing else but words of a person's name
    (``city_name`` or ``hospital_name`` name places, not people)."""
    words = name_words(column)
    return bool(words & set(NAME_WORDS)) and words <= set(NAME_WORDS) | set(PERSON_NAME_WORDS)


def identifier_kind(values: pd.Series, *, name: object = None) -> str | None:
    """The key in :data:`KINDS` of the direct identifiers the column holds, or ``None``.

    Names are recognised by content when most values look like "First Last" and are mostly distinct;
    when the column's ``name`` says it holds people's names (:func:`names_people`), looking like names
    is enough: a staff list may repeat a name, and a name is a direct identifier however often it
    occurs."""
    texts = sample_texts(values)
    if texts.size == 0:
        return None
    for key, pattern in (("email", _EMAIL), ("url", _URL), ("ip", _IPV4), ("ssn", _SSN), ("iban", _IBAN)):
        if _share(texts, pattern) >= CONTENT_SHARE:
            return key
    street = np.mean([bool(_STREET.search(t) or _STREET_AFTER.search(t)) for t in texts])
    if street >= CONTENT_SHARE:
        return "address"
    if np.mean([_phone_like(t) for t in texts]) >= CONTENT_SHARE:
        return "phone"
    n = int(values.notna().sum())
    distinct_share = texts.size / n if n else 0.0
    if _share(texts, _RECORD) >= CONTENT_SHARE and distinct_share >= NAME_DISTINCT_SHARE \
            and any(c.isdigit() for t in texts[:50] for c in t) and not _all_numbers(texts):
        return "record"
    if _share(texts, _NAME) >= CONTENT_SHARE and (distinct_share >= NAME_DISTINCT_SHARE or names_people(name)):
        return "name"
    return None


def _all_numbers(texts: np.ndarray) -> bool:
    return bool(pd.to_numeric(pd.Series(texts, dtype=object), errors="coerce").notna().all())


def infer_type(values: pd.Series, *, name: object = None) -> tuple[str, str | None]:
    """The config type of a column (``numeric``, ``date`` or ``categorical``) and its shape when that
    matters for the hierarchy: ``"code"`` for codes written with digits that all have one length
    (ZIP codes, ``02139``: generalized by masking, not as numbers), ``"integer"`` for whole numbers.

    Digits of one length are a code when one of them starts with 0, or when the column's ``name``
    says it holds postal codes (:data:`CODE_WORDS`: ``10115`` in a ``postcode`` column is masked to
    ``1011*``, not cut into intervals of numbers)."""
    texts = sample_texts(values)
    if texts.size == 0:
        return "categorical", None
    numbers = pd.to_numeric(pd.Series(texts, dtype=object), errors="coerce")
    if numbers.notna().all() and np.isfinite(numbers.to_numpy(dtype=float)).all():
        lengths = {len(t) for t in texts}
        if len(lengths) == 1 and texts.size > 1 and all(t.isdigit() for t in texts) and next(iter(lengths)) > 1 \
                and (any(t.startswith("0") for t in texts) or name_words(name) & set(CODE_WORDS)):
            return "categorical", "code"
        whole = bool((numbers == numbers.round()).all())
        return "numeric", "integer" if whole else None
    if np.mean([bool(_DATE_LIKE.match(t)) for t in texts]) >= CONTENT_SHARE:
        try:
            read_dates(texts, None)
        except InputError:
            return "categorical", None
        return "date", None
    lengths = {len(t) for t in texts}
    if len(lengths) == 1 and next(iter(lengths)) >= 3 and texts.size > 1 and all(t.isalnum() for t in texts) \
            and all(any(c.isdigit() for c in t) for t in texts):
        return "categorical", "code"
    return "categorical", None
