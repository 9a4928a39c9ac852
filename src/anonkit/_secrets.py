"""Passwords and tokens never leave: the one masking function every output goes through.

A run can hold secrets in the locations it is given — a PostgreSQL URI's password (in the userinfo,
maybe percent-encoded, or a ``password=`` parameter), a libpq connection string's ``password=…``, a
query string's ``token=``, ``secret=``, ``api_key=``. Whatever reaches a user or a file — an error
line, a JSON summary, the HTML report and the config text it copies, notes and warnings — passes
through :func:`mask_secrets` first, which replaces each secret by :data:`MASK`.

The rules, applied to any text (not only to things that look like URIs, so a secret quoted inside a
driver's message or a YAML comment is masked too):

* ``scheme://user:PASSWORD@host`` — the userinfo password of any URI (up to the last ``@`` of the
  word, so an unescaped ``@`` or ``/`` in the password does not leave a tail behind);
* ``KEY=VALUE`` where KEY ends in ``password``, ``passwd``, ``pwd``, ``token``, ``secret`` or
  ``api_key``/``apikey``/``api-key`` (``PGPASSWORD=…``, ``?password=…``, ``&access_token=…``,
  ``client_secret=…``), ignoring case; VALUE is a quoted string or runs to a space, ``&``, ``#`` or a
  comma and space (how a message goes on after a location);
* every other spelling of a secret found by those rules — as written, percent-decoded and
  percent-encoded — wherever else it stands in the text, when it is at least :data:`MIN_SECRET`
  characters long (shorter ones would mask ordinary words; they are masked where they stand), and
  every spelling of a secret of ``also`` (the locations a message is about) whatever its length.

It errs towards masking: a ``user:x@host``-looking word that is no URI loses its middle. This module
sits below every layer (it imports nothing of anonkit), so ``errors``, ``io``, the pipeline and the
report all call the same function.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from urllib.parse import quote, unquote

__all__ = ["MASK", "MIN_SECRET", "mask_secrets", "mask_tree", "secret_spellings"]

#: what a secret is replaced by
MASK = "***"
#: secrets shorter than this are masked only where a rule finds them, not wherever the text repeats them
MIN_SECRET = 4

#: ``scheme://user:password@`` — group 1 the scheme and user, 2 the password (to the word's last ``@``)
_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.\-]*://[^\s:/?#@'\"<>]*):([^\s'\"<>]*)@")
#: ``key=value`` pairs naming a secret — group 1 the key and ``=``, 2 the value
_PAIR = re.compile(
    r"(?i)(?<![a-z0-9])([a-z0-9_\-]*(?:password|passwd|pwd|token|secret|api[_\-]?key)\s*=\s*)"
    r"('[^']*'|\"[^\"]*\"|(?:[^\s&#'\"<>,]|,(?!\s))+)"
)


def _found(text: str) -> list[str]:
    """The secrets the rules find in ``text`` (as written there)."""
    out = [m.group(2) for m in _USERINFO.finditer(text)]
    out += [m.group(2).strip("'\"") for m in _PAIR.finditer(text)]
    return [s for s in out if s and s != MASK]


def secret_spellings(*texts: str) -> list[str]:
    """Every spelling of every secret the rules find in ``texts`` — as written, percent-decoded and
    percent-encoded — longest first (so a longer spelling is masked before a part of it)."""
    found: set[str] = set()
    for text in texts:
        for secret in _found(text):
            found.update({secret, unquote(secret), quote(secret, safe=""), quote(unquote(secret), safe="")})
    return sorted((s for s in found if s and s != MASK), key=lambda s: (-len(s), s))


def mask_secrets(text: str, also: Iterable[str] = ()) -> str:
    """``text`` with every password and token masked (:data:`MASK`), by the module's rules; ``also``
    are more texts (URIs, connection strings) whose secrets must not appear in ``text`` either."""
    if not isinstance(text, str) or not text:
        return text
    if not also and "@" not in text and "=" not in text:
        # nothing to mask: a userinfo password needs an "@" and a key=value pair an "=", so neither rule
        # finds a secret, and without ``also`` there is no other spelling to look for (a summary's ~900
        # texts, ~6 ms, took every rule each)
        return text
    known = set(secret_spellings(*also))  # given to be secrets: masked whatever their length
    spellings = [s for s in secret_spellings(text, *also) if s in known or len(s) >= MIN_SECRET]
    masked = _USERINFO.sub(lambda m: f"{m.group(1)}:{MASK}@", text)
    masked = _PAIR.sub(lambda m: m.group(1) + MASK, masked)
    for secret in spellings:
        masked = masked.replace(secret, MASK)
    return masked


def mask_tree(value: object, also: Iterable[str] = ()) -> object:
    """``value`` (a JSON-like tree of dicts, lists and scalars) with every text in it — keys and
    values — masked by :func:`mask_secrets`; other values as they are."""
    also = also if isinstance(also, list) else list(also)
    if isinstance(value, str):
        return mask_secrets(value, also)
    if isinstance(value, Mapping):
        return {mask_tree(k, also) if isinstance(k, str) else k: mask_tree(v, also) for k, v in value.items()}
    if isinstance(value, list | tuple):
        out = [mask_tree(v, also) for v in value]
        return out if isinstance(value, list) else tuple(out)
    return value
