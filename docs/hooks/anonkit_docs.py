"""The MkDocs hook that writes the reference pages at build time (``hooks:`` in ``mkdocs.yml``).

A page holds a marker ``<!-- anonkit:NAME -->`` where generated text goes: ``cli`` (every command
and option, from the Typer app), ``config`` (every config key, from the config's declarations),
``algorithms`` (the registry's table) and ``models`` (the privacy models' declarations). The text
is made from the code on every build, so the reference cannot drift from it; an unknown marker
fails the build.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from reference_cli import cli_markdown
from reference_config import config_markdown
from reference_tables import algorithms_markdown, models_markdown

#: marker name → the function writing what replaces it
GENERATORS: dict[str, Callable[[], str]] = {
    "cli": cli_markdown, "config": config_markdown, "algorithms": algorithms_markdown, "models": models_markdown,
}
MARKER = re.compile(r"<!-- anonkit:([a-z-]+) -->")


def expand(markdown: str) -> str:
    """``markdown`` with every marker replaced by its generated text (an unknown marker is an error)."""
    def one(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in GENERATORS:
            raise ValueError(f"unknown reference marker {name!r}; known: {', '.join(GENERATORS)}")
        return GENERATORS[name]()

    return MARKER.sub(one, markdown)


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """MkDocs event: expand the markers of every page."""
    return expand(markdown)
