"""Text fit for a one-line :class:`~anonkit.errors.InputError`: a location with its secrets masked
(:func:`shown`, public as :func:`anonkit.io.shown`), an exception on one line, the error for a missing
optional package."""

from __future__ import annotations

import importlib
from types import ModuleType

from anonkit._secrets import mask_secrets
from anonkit.errors import InputError


def _optional(module: str, extra: str, what: str, action: str, loc: str) -> ModuleType:
    """The optional package ``module`` of a format; an InputError naming the extra if it is missing
    (``action`` ``"reading"``/``"writing"``, ``what`` the files, e.g. ``"Excel files"``)."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise InputError(
            f'{action} {what} needs the optional {module} package: pip install "anonkit[{extra}]"', file=loc
        ) from None


def shown(loc: str) -> str:
    """``loc`` fit for a message or a page: every password and token in it masked (``***``), by the one
    masking function (:func:`anonkit._secrets.mask_secrets`). Use it wherever a location a user gave
    (a file path, a database URI) is shown."""
    return mask_secrets(loc)


def _one_line(exc: BaseException, limit: int = 300) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= limit else text[: limit - 3] + "..."
