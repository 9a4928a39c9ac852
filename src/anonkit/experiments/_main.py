"""The ``python -m anonkit.experiments.NAME`` entry point the experiments share."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from pathlib import Path

from anonkit.errors import InputError


def quick_main(module_file: str, doc: str, cli_run: Callable[..., str], default_out: str,
               argv: Sequence[str] | None = None, *, persons: bool = False) -> int:
    """Parse ``[--out DIR] [--quick] [--seed N]`` (and ``[--persons N]`` with ``persons``), print
    ``cli_run(out, quick=, seed=[, persons=])``; 2 with a one-line error on bad input. ``module_file``
    is the experiment's ``__file__`` (its stem names the command)."""
    name = Path(module_file).stem.replace("_", "-")
    parser = argparse.ArgumentParser(prog=f"anonkit experiment {name}", description=doc.splitlines()[0])
    parser.add_argument("--out", default=default_out)
    parser.add_argument("--quick", action="store_true")
    if persons:
        parser.add_argument("--persons", type=int, default=None)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    options = {"quick": args.quick, "seed": args.seed}
    if persons:
        options["persons"] = args.persons
    try:
        print(cli_run(args.out, **options))
    except InputError as exc:
        print(f"error: {exc}")
        return 2
    return 0
