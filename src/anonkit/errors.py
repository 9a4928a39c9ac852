"""Errors that anonkit reports to a user.

Every problem with the user's input (data, hierarchy, config) is raised as an
:class:`InputError` whose message is one line naming the column, value and row
(or file and key) at fault. The CLI prints that line and exits with code 2.
"""

from __future__ import annotations

import contextlib

from anonkit._secrets import mask_secrets


class AnonkitError(Exception):
    """Base class of every error anonkit raises on purpose."""


class InputError(AnonkitError, ValueError):
    """Bad input: a column, value, row, file or config key the user must fix.

    Parameters
    ----------
    message:
        What is wrong, in one sentence.
    column, value, row, file, key:
        Where it is wrong; each given part is appended to the message.
    """

    def __init__(
        self,
        message: str,
        *,
        column: str | None = None,
        value: object = None,
        row: int | None = None,
        file: str | None = None,
        key: str | None = None,
    ) -> None:
        if hasattr(value, "item") and not isinstance(value, str | bytes):
            with contextlib.suppress(TypeError, ValueError):
                value = value.item()  # a numpy scalar is shown as the plain number
        self.column = column
        self.value = value
        self.row = row
        self.file = file
        self.key = key
        self.message = message
        parts = [message]
        if file is not None:
            parts.append(f"file {file!s}")
        if key is not None:
            parts.append(f"key {key!r}")
        if column is not None:
            parts.append(f"column {column!r}")
        if value is not None:
            parts.append(f"value {value!r}")
        if row is not None:
            parts.append(f"row {row}")
        text = parts[0] if len(parts) == 1 else parts[0] + " (" + ", ".join(parts[1:]) + ")"
        super().__init__(mask_secrets(" ".join(text.split())))  # no password or token leaves in a message


class UnsatisfiableError(AnonkitError):
    """The privacy models cannot be met on this input: nothing is published.

    Raised by :func:`anonkit.anonymize` (the CLI exits with code 1). The message is one line that
    names the cause where it can be computed (``l`` larger than the distinct values of the sensitive
    attribute, records that fail even at the top of every hierarchy, …) and what to change.

    Attributes
    ----------
    summary:
        What ``anonkit anonymize --json`` prints for the run (``satisfied`` false, the cause, the
        counts; no utility figures: there is no release to measure).
    release:
        The unpublished :class:`~anonkit.release.Release` for inspection, or ``None`` when the models
        were found impossible before any work was done. It fails its models: never publish it.
    """

    def __init__(self, message: str, *, summary: dict | None = None, release: object = None) -> None:
        super().__init__(mask_secrets(" ".join(message.split())))
        self.summary = summary if summary is not None else {}
        self.release = release


class Interrupted(AnonkitError):
    """The run was stopped (Ctrl-C) before anything was written."""
