"""Errors that anonkit reports to a user.

Every problem with the user's input (data, hierarchy, config) is raised as an
:class:`InputError` whose message is one line naming the column, value and row
(or file and key) at fault. The CLI prints that line and exits with code 2.
"""

from __future__ import annotations


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
        self.column = column
        self.value = value
        self.row = row
        self.file = file
        self.key = key
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
        super().__init__(" ".join(text.split()))


class UnsatisfiableError(AnonkitError):
    """The configured privacy models cannot be met on this input."""
