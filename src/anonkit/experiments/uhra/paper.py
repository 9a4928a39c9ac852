"""The paper's reported figures (Tables 3–5 and its qualitative claims), bundled as ``paper_a.json``
in :mod:`anonkit.experiments`."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

PAPER_FILE = "paper_a.json"


def load_paper() -> dict[str, Any]:
    """Paper A's reported figures (Tables 3–5 and its qualitative claims), from ``paper_a.json``."""
    text = resources.files("anonkit.experiments").joinpath(PAPER_FILE).read_text(encoding="utf-8")
    return json.loads(text)
