"""The columns an algorithm that publishes its own tables carries through: the *insensitive* ones.

A release publishes every column the schema gives a role, except identifiers and the person
column; an algorithm that builds its own tables (Anatomy's QIT, angelization's QT, (k,l)-diversity's
per-person table) must do the same or say why not. The rules, one place for all of them:

* **Insensitive columns are published** (``insensitive: keep``, :data:`DEFAULT_INSENSITIVE`), in the
  table that holds the record's (or person's) quasi-identifiers, unchanged, as every full-domain or
  local-recoding release publishes them. ``insensitive`` is the data holder's statement that the
  column reveals neither who a record is nor its sensitive value; a column correlated with the
  sensitive value (a treatment beside a diagnosis) would narrow that value down in any release, so
  it must be declared ``sensitive`` or ``quasi`` instead. ``insensitive: drop`` (an option of each
  algorithm) leaves them out; ``role: identifier`` leaves out one column.
* **A table of persons** holds one row per person: a person whose records all show the same value
  publishes it; a person whose records differ publishes the set of its values as ``{a;b}`` (distinct
  values in text order, missing ones left out unless all are missing), as the transaction of its
  sensitive values is published.
* **Survey columns are published too** (issue 28): the sampling weight (unchanged, as sdcMicro keeps
  it), a pseudonym column (its keyed pseudonyms or new ids) and a household published ``renumbered``,
  whatever ``insensitive`` says — the run's notes promise them beside the release. In a table of
  persons they follow the rule above (a person's differing weights publish as a set).
* **One sensitive attribute**: these algorithms protect one sensitive attribute; another would be
  published unprotected or dropped, so it is refused, naming the column and what to change.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from anonkit._values import factorize_text
from anonkit.errors import InputError
from anonkit.schema import Role
from anonkit.table import Table

Insensitive = Literal["keep", "drop"]
#: insensitive columns are published unless the algorithm's ``insensitive`` option says ``drop``
DEFAULT_INSENSITIVE: Insensitive = "keep"
#: the separator of a person's several values of an insensitive column (as in a transaction)
SEPARATOR = ";"
#: the survey roles whose columns a release publishes as the table holds them (issue 28): the weight
#: unchanged, a pseudonym as its keyed pseudonym or new id, a household only when renumbered
CARRIED_SURVEY_ROLES = (Role.WEIGHT, Role.PSEUDONYM, Role.NEW_ID, Role.HOUSEHOLD)


def insensitive_columns(table: Table) -> list[str]:
    """The table's insensitive columns, in input order."""
    return [c for c in table.frame.columns if c in table.schema and table.schema[c].role == Role.INSENSITIVE]


def survey_columns(table: Table) -> list[str]:
    """The survey columns the table publishes (:data:`CARRIED_SURVEY_ROLES`: the weight, the pseudonyms and a
    renumbered household — a dropped household is not in the table's frame), in input order."""
    return [c for c in table.frame.columns if c in table.schema and table.schema[c].role in CARRIED_SURVEY_ROLES]


def carried(table: Table, insensitive: str) -> list[str]:
    """The columns to publish beside the quasi-identifiers, in input order: the insensitive ones (all with
    ``keep``, none with ``drop``) and always the survey columns (:func:`survey_columns`)."""
    if insensitive not in ("keep", "drop"):
        raise InputError("must be keep or drop", key="insensitive", value=insensitive)
    chosen = set(insensitive_columns(table) if insensitive == "keep" else []) | set(survey_columns(table))
    return [c for c in table.frame.columns if c in chosen]


def dropped(table: Table, insensitive: str) -> list[str]:
    """The insensitive columns ``insensitive: drop`` leaves out (for the release's notes)."""
    return insensitive_columns(table) if insensitive == "drop" else []


def one_sensitive(table: Table, sensitive: str, algorithm: str) -> None:
    """Refuse a sensitive attribute other than ``sensitive``: the algorithm would drop it silently."""
    for other in table.sensitive:
        if other != sensitive:
            raise InputError(
                f"{algorithm} protects one sensitive attribute, {sensitive!r}, and would not publish {other!r}: "
                f"give {other!r} role identifier to leave it out, or anonymize it in a run of its own",
                column=other,
            )


def person_values(table: Table, column: str, person_of_record: np.ndarray, n_persons: int) -> np.ndarray:
    """Per person ``0 … n_persons − 1`` (``person_of_record[i]``: the person of record ``i``, −1 none)
    the published value of ``column``: its value when its records agree (missing ones aside), else
    ``{a;b}``; a person without a record gets ``None``."""
    who_all = np.asarray(person_of_record, dtype=np.int64)
    keep = np.flatnonzero(who_all >= 0)
    who = who_all[keep]
    cells = table.frame[column].iloc[keep].reset_index(drop=True)
    codes, labels = factorize_text(cells)
    labels = np.asarray(labels, dtype=object)
    present = labels[codes] != ""
    out = np.full(n_persons, None, dtype=object)
    raw = cells.to_numpy(dtype=object)
    # every person's first record, then its first record with a value (which wins)
    for mask in (np.ones(len(who), dtype=bool), present):
        idx = np.flatnonzero(mask)[::-1]
        first = np.full(n_persons, -1, dtype=np.int64)
        first[who[idx]] = idx
        has = first >= 0
        out[has] = raw[first[has]]
    pairs = np.unique(who[present] * np.int64(len(labels)) + codes[present])
    person, code = pairs // len(labels), pairs % len(labels)
    many = np.flatnonzero(np.bincount(person, minlength=n_persons) > 1)
    if many.size:
        starts = np.searchsorted(person, many)
        ends = np.searchsorted(person, many, side="right")
        for p, a, b in zip(many.tolist(), starts.tolist(), ends.tolist(), strict=True):
            out[p] = "{" + SEPARATOR.join(sorted(str(x) for x in labels[code[a:b]])) + "}"
    return out
