"""The report as one self-contained HTML page, and writing it.

The page has no script and fetches nothing: the figures are inline SVG, the style is one inline
``<style>``, and a ``Content-Security-Policy`` meta tag forbids every other source, so a browser
would refuse a request even if one slipped in. The same inputs give the same bytes.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from anonkit.errors import InputError
from anonkit.io import atomic_write as _atomic_write
from anonkit.io import write_target as _target
from anonkit.report import sections
from anonkit.report._markup import Page, esc
from anonkit.report.data import Redactor, hidden_values, release_frames, released_labels, roles
from anonkit.report.evaluation import evaluation as evaluation_section

__all__ = ["build_report", "write_report"]

#: nothing but the page's own inline style (and data: images) may load
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"

CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; color: #1d1d1f;
       margin: 0; background: #fafafa; line-height: 1.45; }
main { max-width: 60rem; margin: 0 auto; padding: 1.5rem 1.25rem 3rem; background: #fff; }
h1 { font-size: 1.6rem; margin: 0 0 .25rem; }
h2 { font-size: 1.3rem; border-bottom: 2px solid #ddd; padding-bottom: .2rem; margin-top: 2.2rem; }
h3 { font-size: 1.05rem; margin: 1.4rem 0 .4rem; }
nav ol { padding-left: 1.2rem; margin: .3rem 0 0; } nav li { display: inline; margin-right: 1rem; }
table { border-collapse: collapse; margin: .4rem 0 .8rem; font-size: .9rem; }
th, td { border: 1px solid #ddd; padding: .2rem .5rem; text-align: left; vertical-align: top; }
thead th { background: #f0f0f0; }
table.facts th { background: #f7f7f7; font-weight: 600; white-space: nowrap; }
table.runs { font-size: .8rem; }
code { font-size: .8rem; word-break: break-all; }
pre.config { background: #f5f5f5; padding: .6rem; overflow-x: auto; font-size: .8rem; }
figure { margin: .6rem 0 1.2rem; } figure svg { width: 100%; height: auto; }
figcaption { font-size: .85rem; color: #555; }
.note { color: #444; font-size: .9rem; }
.ok { color: #2e7d32; font-weight: 600; } .fail { color: #c62828; font-weight: 600; } .unknown { color: #777; }
.verdict { border: 2px solid; border-radius: 6px; padding: .4rem 1rem .6rem; margin: 1rem 0; }
.verdict h2 { border: none; margin: .2rem 0; font-size: 1.1rem; }
.verdict .headline { font-size: 1.1rem; font-weight: 600; margin: .2rem 0; }
.verdict-pass { border-color: #2e7d32; background: #edf7ee; }
.verdict-fail { border-color: #c62828; background: #fdecea; }
.verdict-open { border-color: #e08a00; background: #fff6e5; }
""".strip()


def build_report(
    summary: Mapping[str, Any],
    *,
    original: pd.DataFrame | None,
    release: pd.DataFrame | Mapping[str, pd.DataFrame] | None,
    config_text: str | None = None,
    audit: Mapping[str, Any] | None = None,
    explore: pd.DataFrame | None = None,
    show_values: bool = False,
    evaluation: Mapping[str, Any] | None = None,
) -> str:
    """The report of a run as one self-contained HTML page.

    Parameters
    ----------
    summary:
        What ``anonkit anonymize --json`` prints (its ``run`` section names the files; a summary
        without it is reported with what it holds).
    original:
        The input frame. Its values never appear unless ``show_values``: the report draws the
        shape of their distributions only and removes them from free text (warnings, the config).
        Without it the report cannot know which values to hide.
    release:
        The released frame, or the released tables by name (two linked tables).
    config_text:
        The config as YAML text (shown; its ``attributes`` give the sensitive attributes' roles).
    audit:
        The audit of the release (:mod:`anonkit.audit`): risk models, attacks, verdicts.
    explore:
        An exploration's runs (``run, algorithm, <parameters>, loss, risk, meets, pareto, …``; its
        ``attrs`` name the ``risk`` and ``loss`` measures): the risk-utility map and the runs.
    show_values:
        Show the input's values too (for a reader entitled to see the input).
    evaluation:
        The release's utility for classification (:func:`anonkit.evaluate.evaluate_frames`' result):
        section 5, its table and figure (:mod:`anonkit.report.evaluation`); none without it.
    """
    frames = release_frames(release)
    hidden = set() if show_values else hidden_values(original, released_labels(frames))
    page = Page(redact=Redactor(hidden), show_values=show_values)
    declared = roles(config_text)
    qi = list(summary.get("generalization") or summary.get("transformation") or
              [n for n, r in declared.items() if r == "quasi"])
    others = _others(declared, qi, original, frames)
    title = "anonkit report: " + ("exploration" if explore is not None and not summary.get("algorithm")
                                  else f"{summary.get('algorithm', 'release')}")
    parts = [
        sections.verdict(page, summary, audit, explore),
        sections.done(page, summary, config_text, audit),
        sections.privacy(page, summary, audit, frames, qi),
        sections.utility(page, summary, original, frames, qi, others),
        sections.explored(page, explore),
        evaluation_section(page, evaluation),
    ]
    nav = ('<nav><ol><li><a href="#done">What was done</a></li><li><a href="#privacy">Privacy</a></li>'
           '<li><a href="#utility">Utility</a></li><li><a href="#explore">Explored runs</a></li>'
           + ('<li><a href="#evaluation">Utility for classification</a></li>' if evaluation is not None else "")
           + '</ol></nav>')
    started = (summary.get("run") or {}).get("started")
    subtitle = f"Run started {started} (UTC). " if started else ""
    subtitle += ("Input values are shown." if show_values else
                 "Input values are hidden; released labels are shown.")
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8" />'
        f'<meta http-equiv="Content-Security-Policy" content="{esc(CSP)}" />'
        '<meta name="viewport" content="width=device-width, initial-scale=1" />'
        f"<title>{page.text(title)}</title><style>\n{CSS}\n</style></head>\n"
        f'<body><main><header><h1>{page.text(title)}</h1><p class="note">{page.text(subtitle)}</p>{nav}</header>\n'
        + "\n".join(parts)
        + "\n</main></body></html>\n"
    )


def _others(declared: Mapping[str, str], qi: list[str], original: pd.DataFrame | None,
            frames: Mapping[str, pd.DataFrame]) -> list[tuple[str, str]]:
    """The other attributes whose distributions are drawn, with their role: the sensitive ones a
    config declares, else every released column of the input that is not a quasi-identifier."""
    sensitive = [(n, "sensitive") for n, r in declared.items() if r == "sensitive" and n not in qi]
    if sensitive or declared:
        return sensitive
    released = [c for f in frames.values() for c in f.columns]
    names = dict.fromkeys(c for c in released if c not in qi and (original is None or c in original.columns))
    return [(str(n), "published") for n in names]


def write_report(html: str, path: str | os.PathLike[str], *, refuse: Iterable[str | os.PathLike[str]] = ()) -> None:
    """Write the report atomically (a temporary file in the same folder moved into place).

    ``refuse``: files the report must never replace (the run's input, config and outputs); a path
    naming one of them, after resolving links, is an :class:`~anonkit.errors.InputError`.
    """
    loc = os.fspath(path)
    target = _target(loc)
    for other in refuse:
        other_loc = os.fspath(other)
        if "://" in other_loc:
            continue
        o = Path(other_loc)
        try:
            same = target.exists() and o.exists() and target.samefile(o)
        except OSError:
            same = False
        if same or os.path.realpath(target) == os.path.realpath(o):
            raise InputError("the report would overwrite a file of the run; write it elsewhere", file=loc)
    data = html.encode("utf-8")
    _atomic_write(target, loc, lambda tmp: Path(tmp).write_bytes(data))
