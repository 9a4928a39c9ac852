"""``anonkit algorithms``: the registry's algorithms, as a table, JSON or the README's Markdown table."""

from __future__ import annotations

from typing import Annotated

import typer

from anonkit.cli import console
from anonkit.cli.printers.listings import print_algorithms


def list_algorithms(
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object per algorithm, in a list.")] = False,
    markdown: Annotated[bool, typer.Option("--markdown", help="Print the README's algorithm table.")] = False,
) -> None:
    """List the algorithms a config may name.

    For each: its family, what it does, its options with types and defaults, the models it enforces,
    what it needs and what it publishes. At 80 columns it is shown one block per algorithm."""
    from anonkit.algorithms.describe import describe_all, markdown_table

    if as_json:
        console.print_json(describe_all())
        return
    if markdown:
        print(markdown_table())
        return
    print_algorithms(describe_all())
