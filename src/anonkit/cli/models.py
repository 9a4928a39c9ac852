"""``anonkit models``: the privacy models as they are declared (:mod:`anonkit.models.registry`), as a
table or JSON: their config keys, parameters with types, ranges and defaults, the statistics they
need and their monotonicity."""

from __future__ import annotations

from typing import Annotated

import typer

from anonkit.cli import console
from anonkit.cli.printers.listings import print_models


def list_models(
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object per model, in a list.")] = False,
) -> None:
    """List the privacy models a config may name.

    For each: the config entry, what it guarantees, its parameters with types and defaults, the
    statistics it needs and whether it is monotonic (lattice searches may prune)."""
    from anonkit.models.registry import describe_all

    if as_json:
        console.print_json(describe_all())
        return
    print_models(describe_all())
