"""Survey columns that are carried, not generalized: sampling weights, household ids, pseudonyms, new ids.

Four column roles (:class:`anonkit.schema.Role`) hold values a release carries without
generalizing them, each under its own rule:

* **weight** — a survey's sampling weight, one finite number > 0 per record. It is published
  unchanged beside the release (sdcMicro keeps the weights in a release: the population estimates a
  user makes from the release need them) and kept as :attr:`anonkit.table.Table.survey_weight` for
  the population-dependent risk measures. A missing, non-numeric, non-positive or non-finite weight
  is refused, naming the row: a risk estimated from a wrong weight would be wrong silently.
* **household** — a household (cluster) id shared by several records. Like a person id it links
  people, so it is never published as it is: it is dropped, or with ``publish: renumbered``
  replaced by new ids ``1 … H`` assigned in a seeded random order (sdcMicro's ``createNewID``), so
  households stay linkable within the release and not to the input. The codes are kept as
  :attr:`anonkit.table.Table.household` for household risk.
* **pseudonym** — a direct identifier replaced by a keyed pseudonym (ARX issues #110, #266): the
  first :data:`PSEUDONYM_CHARS` characters of the base32 text of HMAC-SHA256(key, value as UTF-8).
  The same key and value give the same pseudonym in every run, so linked tables and later releases
  carry a stable person id that cannot be reversed without the key; another key gives unrelated
  pseudonyms. The key (at least :data:`MIN_KEY_BYTES` bytes) is read from a file or an environment
  variable, held in memory only and never written (no summary, manifest, report, log or message
  holds it). Without a key the run is refused: a random key would give ids no later release can
  match, which is what ``publish: renumbered`` gives, honestly named. Collision bound: pseudonyms
  are 130-bit values (26 base32 characters), so n distinct values collide with probability at most
  n²/2¹³¹ (below 10⁻²¹ for a billion values).
* **new-id** — an id (a person or record id) replaced by random tokens drawn from the run's seed
  (sdcMicro's ``createNewID``): every row that had the same original value gets the same token (a
  person's rows stay linked within the release), each distinct value its own (a bijection), and the
  token is never derived from the value. The token is :data:`NEW_ID_CHARS` lower-case hexadecimal
  digits (64 random bits): fixed-width, so its length says nothing, and not sequential — numbers
  1 … n given in input order would publish the input order, which every release hides by shuffling
  its rows. The same seed gives the same tokens (the run is reproducible); another seed draws
  unrelated ones, so two releases cannot be linked through this column (unlike a keyed pseudonym,
  which is meant to link them). A token drawn twice is redrawn (the column stays a bijection).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import math
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from anonkit._values import factorize_text
from anonkit.errors import InputError

#: the shortest pseudonym key accepted, in bytes (HMAC-SHA256's block of security: 256 bits)
MIN_KEY_BYTES = 32
#: the characters of a published pseudonym (base32, 5 bits each: 130 bits of the HMAC)
PSEUDONYM_CHARS = 26
#: how a household or pseudonym column is published unless ``publish`` says otherwise
PUBLISH_CHOICES = {"household": ("drop", "renumbered"), "pseudonym": ("hmac", "renumbered")}
#: the seed of a renumbering unless the attribute gives ``seed``
DEFAULT_RENUMBER_SEED = 0
#: the characters of a new id (role new-id): lower-case hexadecimal, 4 bits each (64 random bits)
NEW_ID_CHARS = 16


def read_key(column: str, *, key_file: str | os.PathLike[str] | None, key_env: str | None) -> bytes:
    """The pseudonym key of ``column``: the bytes of ``key_file`` (one trailing line break removed),
    or the UTF-8 bytes of the environment variable ``key_env``; exactly one of them. Refused in one
    line (never quoting the key) when both or neither is given, the file is missing or unreadable,
    the variable is unset, or the key is shorter than :data:`MIN_KEY_BYTES` bytes."""
    if (key_file is None) == (key_env is None):
        raise InputError("a pseudonym needs its key from exactly one of key_file (a file) or key_env (an environment "
                         "variable); a random key would make ids no later release can match: use publish: renumbered "
                         "for those", column=column, key="key_file")
    if key_env is not None:
        if not isinstance(key_env, str) or not key_env:
            raise InputError("key_env must name an environment variable", column=column, key="key_env")
        text = os.environ.get(key_env)
        if text is None:
            raise InputError(f"the environment variable {key_env} holding the pseudonym key is not set", column=column,
                             key="key_env")
        key, where = text.encode("utf-8"), f"environment variable {key_env}"
    else:
        path = Path(key_file)  # type: ignore[arg-type]
        try:
            key = path.read_bytes()
        except FileNotFoundError:
            raise InputError("the pseudonym key file does not exist", column=column, key="key_file",
                             file=str(path)) from None
        except OSError as e:
            raise InputError(f"the pseudonym key file cannot be read ({e.strerror or type(e).__name__})", column=column,
                             key="key_file", file=str(path)) from None
        key, where = key.removesuffix(b"\n").removesuffix(b"\r"), f"key file {path}"
    if len(key) < MIN_KEY_BYTES:
        raise InputError(f"the pseudonym key in {where} is {len(key)} bytes; it must be at least {MIN_KEY_BYTES} "
                         "random bytes (e.g. `head -c 32 /dev/urandom > key`)", column=column,
                         key="key_env" if key_env is not None else "key_file")
    return key


def pseudonym(key: bytes, value: str) -> str:
    """The pseudonym of ``value`` under ``key``: base32 of HMAC-SHA256(key, UTF-8 of value), the first
    :data:`PSEUDONYM_CHARS` characters, lower case."""
    mac = hmac.new(key, value.encode("utf-8"), hashlib.sha256).digest()
    return base64.b32encode(mac).decode("ascii")[:PSEUDONYM_CHARS].lower()


def renumbered(codes: np.ndarray, n: int, seed: int) -> np.ndarray:
    """New ids ``1 … n`` for codes ``0 … n−1``, in a random order drawn from ``seed`` (sdcMicro's
    ``createNewID``): the same codes and seed give the same ids; the ids say nothing of the input's."""
    return (np.random.default_rng(seed).permutation(n) + 1)[codes]


def new_ids(n: int, seed: int, column: str) -> np.ndarray:
    """``n`` distinct tokens of :data:`NEW_ID_CHARS` hexadecimal digits drawn from ``seed`` and the
    column's name (two new-id columns of one run draw different tokens): token ``i`` stands for the
    ``i``-th distinct value. Only ``n`` reaches the draw, never a value."""
    stream = int.from_bytes(hashlib.sha256(column.encode("utf-8")).digest()[:8], "big")
    rng = np.random.default_rng([seed, stream])
    bits = rng.integers(0, 2**64, size=n, dtype=np.uint64)
    while n and len(np.unique(bits)) < n:  # a repeat (about n²/2⁶⁵): redraw the later copies
        _, first = np.unique(bits, return_index=True)
        again = np.setdiff1d(np.arange(n), first)
        bits[again] = rng.integers(0, 2**64, size=len(again), dtype=np.uint64)
    return np.asarray([format(int(b), f"0{NEW_ID_CHARS}x") for b in bits], dtype=object)


def _codes(column: pd.Series, name: str, what: str) -> tuple[np.ndarray, np.ndarray]:
    """Codes and texts of an id column; a record without a value is refused (naming the row).

    A numpy integer column (household ids read from a CSV) is numbered on its values and its distinct values
    turned into text by numpy at once: distinct integers have distinct texts, never empty, none to strip, and
    its cells cannot be missing — the codes and texts :func:`~anonkit._values.factorize_text` gives (first
    appearance), without a Python step per distinct value (86,000 households: 85 → 19 ms CPU)."""
    dtype = column.dtype
    if isinstance(dtype, np.dtype) and dtype.kind in "iu":
        codes, uniques = pd.factorize(column.to_numpy())
        return codes.astype(np.int64, copy=False), np.asarray(uniques).astype(str).astype(object)
    codes, texts = factorize_text(column)
    stripped, labels = pd.factorize(pd.Series([str(v).strip() for v in texts], dtype=object))
    codes, labels = stripped[codes], np.asarray(labels, dtype=object)
    if (labels == "").any():
        i = int(np.flatnonzero(np.isin(codes, np.flatnonzero(labels == "")))[0])
        raise InputError(f"a record without a {what} (the cell is empty)", column=name, row=i + 1)
    return codes, labels


def survey_weights(column: pd.Series, name: str) -> np.ndarray:
    """The sampling weights of ``column`` as floats; a missing, non-numeric, non-finite or below-1
    weight is refused naming its row: a sampling weight is the inverse of an inclusion probability,
    so at least 1 (sdcMicro's risk estimators assume it; a population estimate from less would be
    smaller than the sample)."""
    text = column.astype(object).map(lambda v: v.strip() if isinstance(v, str) else v)
    values = pd.to_numeric(text, errors="coerce").to_numpy(dtype=np.float64)
    bad = ~np.isfinite(values) | (values < 1)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        cell = column.iloc[i]
        kind = ("missing" if cell is None or (isinstance(cell, float) and math.isnan(cell)) or str(cell).strip() == ""
                else "not a number" if math.isnan(values[i]) else "not finite" if not math.isfinite(values[i])
                else "below 1")
        raise InputError(f"a survey weight is {kind}; every record needs a finite weight of at least 1 (the "
                         "inverse of its inclusion probability)", column=name,
                         row=i + 1, value=None if kind == "missing" else str(cell))
    return values


@dataclass
class SurveyColumns:
    """What :func:`survey_columns` gives: the frame to encode (household dropped or renumbered,
    pseudonyms in place of identifiers), the sampling weights, the households (codes and count) and
    the sentences the summary shows about them."""

    frame: pd.DataFrame
    weight: np.ndarray | None
    household: np.ndarray | None
    n_households: int
    notes: list[str]


def survey_columns(frame: pd.DataFrame, schema: object) -> SurveyColumns:
    """Apply the weight, household and pseudonym roles of ``schema`` (a resolved
    :class:`anonkit.schema.Schema`) to ``frame`` (a new frame; the input is left unchanged)."""
    weight_col, household_col = schema.weight, schema.household  # type: ignore[attr-defined]
    out, notes = frame, []
    weight = household = None
    n_households = 0
    if weight_col is not None:
        weight = survey_weights(frame[weight_col], weight_col)
        notes.append(f"survey weight {weight_col} is published unchanged beside the release (as sdcMicro keeps "
                     "weights); it is never generalized")
    if household_col is not None:
        household, labels = _codes(frame[household_col], household_col, "household")
        n_households = len(labels)
        attr = schema[household_col]  # type: ignore[index]
        if attr.publish == "renumbered":
            out = out.copy(deep=False)
            out[household_col] = renumbered(household, n_households, attr.seed)
            notes.append(f"household {household_col} is published as new ids 1…{n_households} in a seeded random "
                         "order (createNewID): linkable within the release, not to the input")
    for name in schema.pseudonyms:  # type: ignore[attr-defined]
        attr = schema[name]  # type: ignore[index]
        codes, labels = _codes(frame[name], name, "value to pseudonymize")
        if attr.publish == "renumbered":
            values = renumbered(codes, len(labels), attr.seed)
            notes.append(f"{name} is published as new ids in a seeded random order (not stable across releases)")
        else:
            key = attr.key()
            values = np.asarray([pseudonym(key, v) for v in labels], dtype=object)[codes]
            notes.append(f"{name} is published as keyed pseudonyms (HMAC-SHA256, {PSEUDONYM_CHARS} base32 characters): "
                         "stable for the same key, not reversible without it")
        out = out.copy(deep=False) if out is frame else out
        out[name] = values
    for name in schema.new_ids:  # type: ignore[attr-defined]
        codes, labels = _codes(frame[name], name, "value to replace by a new id")
        out = out.copy(deep=False) if out is frame else out
        out[name] = new_ids(len(labels), schema[name].seed, name)[codes]  # type: ignore[index]
        notes.append(f"{name} is published as new random ids ({NEW_ID_CHARS} hexadecimal digits) drawn from the "
                     "run's seed: the same id for the same value within this release, unrelated to the value and "
                     "to other releases")
    return SurveyColumns(out, weight, household, n_households, notes)
