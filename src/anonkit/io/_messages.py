"""Text fit for a one-line :class:`~anonkit.errors.InputError`: a location with its secrets masked
(:mod:`anonkit._secrets`), a location to record without its password, an exception on one line."""

from __future__ import annotations

import importlib
import re
from types import ModuleType
from urllib.parse import urlsplit, urlunsplit

from anonkit._secrets import mask_secrets
from anonkit.errors import InputError
from anonkit.io._locations import _PG_PREFIXES


def _optional(module: str, extra: str, what: str, action: str, loc: str) -> ModuleType:
    """The optional package ``module`` of a format; an InputError naming the extra if it is missing
    (``action`` ``"reading"``/``"writing"``, ``what`` the files, e.g. ``"Excel files"``)."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise InputError(
            f'{action} {what} needs the optional {module} package: pip install "anonkit[{extra}]"', file=loc
        ) from None


def _shown(loc: str) -> str:
    """``loc`` fit for a message: every password and token in it masked (``***``), by the one masking
    function (:func:`anonkit._secrets.mask_secrets`)."""
    return mask_secrets(loc)


def _password_rewritten(loc: str, mask: str | None) -> str:
    """``loc`` with a PostgreSQL URI's password — in the userinfo or a ``password=`` parameter —
    replaced by ``mask``, or removed when ``mask`` is ``None``. Any other location as it is."""
    if not loc.lower().startswith(_PG_PREFIXES):
        return loc
    try:
        parts = urlsplit(loc)
        netloc = parts.netloc
        if parts.password is not None:
            userinfo, _, host = netloc.rpartition("@")
            user = userinfo.split(":", 1)[0]
            netloc = f"{user}@{host}" if mask is None else f"{user}:{mask}@{host}"
        if mask is None:
            query = "&".join(p for p in parts.query.split("&") if not p.lower().startswith("password="))
        else:
            query = re.sub(r"(?i)(password=)[^&]*", rf"\g<1>{mask}", parts.query)
        return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))
    except ValueError:
        return "<PostgreSQL URI>"


def _one_line(exc: BaseException, limit: int = 300) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= limit else text[: limit - 3] + "..."
