"""The paper's reported figures (Tables 3–5 and its qualitative claims), bundled as ``paper_a.json``
beside this module."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

PAPER_FILE = "paper_a.json"


def load_paper() -> dict[str, Any]:
    """Paper A's reported figures (Tables 3–5 and its qualitative claims), from ``paper_a.json``."""
    text = Path(__file__).with_name(PAPER_FILE).read_text(encoding="utf-8")
    return json.loads(text)
