"""``anonkit ui``: the whole workflow in a browser, for data holders who do not program (issue 25).

A Shiny for Python application (the ``ui`` extra) served on this machine only: :mod:`~anonkit.ui.server`
starts it (private folder, token, socket, browser), :mod:`~anonkit.ui.security` keeps it private
(loopback, a per-start token on every request, bounded uploads, nothing loaded from outside),
:mod:`~anonkit.ui.app` lays out the steps — :mod:`~anonkit.ui.data`, :mod:`~anonkit.ui.hierarchies`,
:mod:`~anonkit.ui.privacy`, :mod:`~anonkit.ui.run`, :mod:`~anonkit.ui.results` (with
:mod:`~anonkit.ui.rumap` and :mod:`~anonkit.ui.repair`), :mod:`~anonkit.ui.export` — over one
:class:`~anonkit.ui.workspace.Workspace` per session, whose config is what the CLI runs.

Importing this package loads nothing heavy; :func:`serve` imports Shiny when called.
"""

from __future__ import annotations

from typing import Any

__all__ = ["serve"]


def serve(*args: Any, **kwargs: Any) -> None:
    """Start the application (:func:`anonkit.ui.server.serve`)."""
    from anonkit.ui.server import serve as _serve

    _serve(*args, **kwargs)
