"""What to change when ``anonkit anonymize`` ends with a failing audit: the changes that pass, each
found by running it (:func:`anonkit.fixes.propose_fixes`, with a progress bar), printed as the line to
type (``set privacy.0.k: 10``) and, for the first, as the YAML sections to paste into the config.

The proposals go to standard output after the verdict; the exit code is the run's (0 for a written
release whose verdict fails, 1 for ``audit.required``'s refusal). ``--no-fixes`` skips the search;
Ctrl-C stops it as it stops any job (exit 130)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

import typer
from rich.markup import escape

from anonkit.cli import console

__all__ = ["SHOWN", "NoFixes", "print_fixes"]

#: the ``--no-fixes`` option of ``anonkit anonymize``
NoFixes = Annotated[bool, typer.Option("--no-fixes", help="When the audit fails, do not try changes to the config "
                                       "(by default each candidate change is run and audited, up to 12 runs, and "
                                       "those that pass are printed).")]
#: the proposals printed at most (passing ones; or, when none passes, the closest that do not)
SHOWN = 3


def _failed(summary: Mapping[str, Any]) -> bool:
    verdict = summary.get("verdict")
    return isinstance(verdict, dict) and not verdict.get("ok", True)


def _config_text(plan: Any) -> dict[str, Any]:
    """The config as the user wrote it (the file's mapping), else the plan's declaration."""
    import yaml

    from anonkit.config import read_yaml
    from anonkit.errors import InputError

    if plan.config_file is not None:
        try:  # read once already by the run; changed since, the declaration says the same
            data = read_yaml(plan.config_file.read_text(encoding="utf-8"), source=str(plan.config_file))
        except (OSError, UnicodeDecodeError, InputError, yaml.YAMLError):
            data = None
        if isinstance(data, dict):
            return data
    return plan.declaration()


def print_fixes(plan: Any, current: Any, *, skip: bool = False) -> None:
    """Under a failing verdict (``current``: the run's :class:`~anonkit.runner.result.Result` or the
    summary its refusal carries), try changes and print those that pass; nothing for a passing run."""
    from anonkit.analytics.cover import lasting_reading
    from anonkit.cli.running import with_steps
    from anonkit.errors import InputError
    from anonkit.fixes import apply_fix, propose_fixes, yaml_sections

    summary = current if isinstance(current, Mapping) else current.summary
    if skip or not _failed(summary):
        return
    try:
        with lasting_reading():  # the trials audit releases of one input: its columns are read once
            fixes = with_steps(lambda step: propose_fixes(plan, result=current if not isinstance(current, Mapping)
                                                          else summary, progress=step))
    except InputError as exc:
        console.err.print(f"note: no change tried: {escape(str(exc))}", highlight=False, soft_wrap=True)
        return
    passing = [f for f in fixes if f.passes]
    runs = f"{len(fixes)} change{'s' if len(fixes) != 1 else ''} tried by running {'them' if len(fixes) != 1 else 'it'}"
    out = console.out
    if not passing:
        out.print(f"  no change tried passes ({runs}); closest:", highlight=False)
        for f in fixes[:SHOWN]:
            out.print(f"    {escape(f.words)}", highlight=False, soft_wrap=True)
        accept = (summary.get("verdict") or {}).get("advice")
        if isinstance(accept, dict) and not accept.get("holds") and accept.get("key"):
            what = str(accept["gives"]).split("; ")[-1]  # the threshold's part (the reruns' is said above)
            out.print(f"  or accept it: {escape(what)} (set {escape(str(accept['key']))})",
                      highlight=False, soft_wrap=True)
        return
    out.print(f"What to change ({runs}; {len(passing)} pass{'es' if len(passing) == 1 else ''}):", highlight=False)
    for n, f in enumerate(passing[:SHOWN]):
        lead = "to pass" if n == 0 else "or"
        out.print(f"  {lead}: set {escape(f.setting)} ({escape(f.measured)})", highlight=False, soft_wrap=True)
    raw = _config_text(plan)
    try:
        apply_fix(raw, passing[0])
    except InputError:
        raw = plan.declaration()
    where = plan.config_file.name if plan.config_file is not None else "the config"
    out.print(f"  the first, as it reads in {escape(where)} (paste over the section):", highlight=False)
    for line in yaml_sections(raw, passing[0].change).splitlines():
        out.print(f"    {escape(line)}", highlight=False, soft_wrap=True)
