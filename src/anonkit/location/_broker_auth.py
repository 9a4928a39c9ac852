"""Who may call the broker: the operator's token and the subjects' tokens (HTTP bearer tokens).

* **The operator token** is one secret: ``secrets.token_urlsafe(32)`` written to a file the broker
  creates with mode 0600 when it does not exist (or the operator's own, at least
  :data:`MIN_TOKEN_CHARS` characters, in a file no one else can read). It is never logged and never
  sent anywhere. It registers subjects and reads the broker's state (``/health``, ``/metrics``, any
  request's status).
* **A subject's token** is issued at registration (``POST /subjects``, operator only):
  ``s1.<subject, base64url>.<HMAC-SHA256 of the subject, base64url>`` under a key derived from the
  operator token. The broker checks it with :func:`hmac.compare_digest` and keeps no table of
  tokens, so tokens survive a restart with the same token file; replacing the token file revokes
  every token. A subject's token moves only that subject and reads only its own requests.

Why not open registration: a client that can mint subjects can surround a victim with fake
subjects and shrink the victim's cloaked box (k subjects, k − 1 of them the attacker's). Only the
operator, who knows who the subjects are, registers them.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import os
import secrets
import stat
from pathlib import Path

from anonkit.errors import InputError

__all__ = ["MIN_TOKEN_CHARS", "TOKEN_FILE", "Tokens", "operator_token"]

#: the operator token file's name in the broker's state folder
TOKEN_FILE = "anonkit-broker.token"
#: the shortest operator token accepted (characters): ``secrets.token_urlsafe(32)`` gives 43
MIN_TOKEN_CHARS = 32
#: the subject tokens' prefix (a version: another scheme would get another prefix)
SUBJECT_PREFIX = "s1"
_KEY_CONTEXT = b"anonkit-broker subject tokens v1"
_OWNER_CONTEXT = b"anonkit-broker request owner v1\0"


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Tokens:
    """Checks the operator's and the subjects' bearer tokens (constant-time comparisons)."""

    def __init__(self, operator: str) -> None:
        if not isinstance(operator, str) or len(operator) < MIN_TOKEN_CHARS or not operator.isprintable() \
                or any(c.isspace() for c in operator):
            raise InputError(f"the operator token must be at least {MIN_TOKEN_CHARS} printable characters "
                             "without spaces", key="token")
        self._operator = operator.encode("utf-8")
        self._key = hmac.new(self._operator, _KEY_CONTEXT, hashlib.sha256).digest()

    def is_operator(self, token: str) -> bool:
        return hmac.compare_digest(token.encode("utf-8"), self._operator)

    def issue(self, subject: str) -> str:
        """The bearer token of ``subject`` (the same subject always gets the same token)."""
        mac = hmac.new(self._key, subject.encode("utf-8"), hashlib.sha256).digest()
        return f"{SUBJECT_PREFIX}.{_b64(subject.encode('utf-8'))}.{_b64(mac)}"

    def subject(self, token: str) -> str | None:
        """The subject a token was issued to, or ``None`` for a token the broker did not issue."""
        prefix, _, rest = token.partition(".")
        name, _, mac = rest.partition(".")
        if prefix != SUBJECT_PREFIX or not name or not mac:
            return None
        try:
            subject = _unb64(name).decode("utf-8")
        except (binascii.Error, ValueError):
            return None
        return subject if hmac.compare_digest(self.issue(subject).encode(), token.encode()) else None

    def owner(self, subject: str) -> str:
        """An opaque key of a subject for the request journal (no subject id goes to disk)."""
        return hmac.new(self._key, _OWNER_CONTEXT + subject.encode("utf-8"), hashlib.sha256).hexdigest()[:32]


def operator_token(path: Path) -> tuple[str, bool]:
    """The operator token in ``path``; when the file does not exist, a new token written to it with
    mode 0600 (created exclusively, so two brokers never race). Returns the token and whether it was
    created. Refuses (``InputError``) a file others may read or write, a symlink, or a short token."""
    shown = str(path)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    except FileExistsError:
        pass
    except OSError as exc:
        raise InputError(f"cannot create the operator token file: {exc.strerror or exc}", file=shown) from None
    else:
        token = secrets.token_urlsafe(32)
        with os.fdopen(fd, "w", encoding="ascii") as fh:
            fh.write(token + "\n")
        return token, True
    info = path.lstat()
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISREG(info.st_mode):
        raise InputError("the operator token file must be a regular file (not a link)", file=shown)
    if os.name == "posix" and info.st_mode & 0o077:
        raise InputError(f"the operator token file may be read by others (mode {stat.S_IMODE(info.st_mode):o}): "
                         "chmod 600 it", file=shown)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read the operator token file: {exc}", file=shown) from None
    token = text.strip()
    if len(token) < MIN_TOKEN_CHARS or "\n" in token or any(c.isspace() for c in token):
        raise InputError(f"the operator token file must hold one token of at least {MIN_TOKEN_CHARS} characters "
                         "(delete the file to have the broker write a new one)", file=shown)
    return token, False
