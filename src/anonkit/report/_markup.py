"""The report's markup: escaping, tables, inline SVG figures, and the page context.

The page is *polyglot* HTML5: every element is closed, void elements are written ``<meta … />``,
attributes are quoted and text is escaped with XML's five entities only, so the same bytes parse
as HTML in a browser and as XML (the tests parse them with :mod:`xml.etree.ElementTree`).
"""

from __future__ import annotations

import html
import io
import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from matplotlib import rc_context
from matplotlib.figure import Figure

from anonkit.report.figures import STYLE

MISSING = "—"


def esc(value: object) -> str:
    """``value`` as HTML/XML text."""
    return html.escape(str(value), quote=True)


def svg(fig: Figure, ident: str) -> str:
    """``fig`` as an inline ``<svg>`` element: no XML prolog, no metadata, and every ``id`` (and
    reference to one) prefixed with ``ident`` so that several figures share a page. The same
    figure gives the same bytes (:data:`~anonkit.report.figures.STYLE` fixes ``svg.hashsalt``; the
    date is left out)."""
    buf = io.StringIO()
    with rc_context(STYLE):
        fig.savefig(buf, format="svg", metadata={"Date": None})
    text = buf.getvalue()
    text = text[text.index("<svg"):]
    text = re.sub(r"<metadata>.*?</metadata>\s*", "", text, count=1, flags=re.S)
    text = re.sub(r'\bid="([^"]+)"', rf'id="{ident}-\1"', text)
    text = re.sub(r"url\(#([^)]+)\)", rf"url(#{ident}-\1)", text)
    text = re.sub(r'href="#([^"]+)"', rf'href="#{ident}-\1"', text)
    return text.replace("<svg ", f'<svg role="img" aria-labelledby="{ident}-caption" ', 1).strip()


def number(value: object) -> str:
    """A number for a table: integers with thousands separators, other floats to 4 significant digits."""
    if value is None:
        return MISSING
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        if math.isnan(value):
            return MISSING
        return f"{value:,.0f}" if value.is_integer() and abs(value) < 1e15 else f"{value:.4g}"
    return str(value)


def share(value: object) -> str:
    """A share in [0, 1] as a percentage."""
    if value is None or not isinstance(value, int | float) or isinstance(value, bool):
        return MISSING
    x = float(value)
    return "0 %" if x == 0 else f"{100 * x:.3g} %"


def mark(holds: object) -> str:
    """A verdict cell: holds / fails / unknown."""
    if holds is None:
        return f'<span class="unknown">{MISSING}</span>'
    return '<span class="ok">holds</span>' if holds else '<span class="fail">fails</span>'


@dataclass
class Page:
    """What every section needs: the redaction of free text and the figures drawn so far."""

    redact: Callable[[str], str]
    show_values: bool
    figures: list[str] = field(default_factory=list)

    def text(self, value: object) -> str:
        """Free text from a summary, audit or config: hidden values removed, then escaped."""
        return esc(self.redact(str(value)))

    def figure(self, ident: str, fig: Figure, caption: str) -> str:
        """A ``<figure>`` with ``fig`` inline as SVG and an escaped caption."""
        self.figures.append(ident)
        return (f'<figure id="{ident}">{svg(fig, ident)}'
                f'<figcaption id="{ident}-caption">{esc(caption)}</figcaption></figure>')


def table(header: Sequence[str], rows: Iterable[Sequence[str]], *, cls: str = "") -> str:
    """A table; ``header`` is escaped, cells are markup already (escape them with :func:`esc`)."""
    head = "".join(f"<th>{esc(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    attr = f' class="{cls}"' if cls else ""
    return f"<table{attr}><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def facts(rows: Iterable[tuple[str, str]]) -> str:
    """A two-column table of labelled facts; labels are escaped, values are markup."""
    body = "".join(f'<tr><th scope="row">{esc(k)}</th><td>{v}</td></tr>' for k, v in rows)
    return f'<table class="facts"><tbody>{body}</tbody></table>'


def note(text: str) -> str:
    """A short paragraph of escaped text."""
    return f'<p class="note">{esc(text)}</p>'


def plain(value: Any) -> str:
    """A JSON-like value as one line of text (for parameters and details)."""
    if isinstance(value, dict):
        return ", ".join(f"{k}: {plain(v)}" for k, v in value.items())
    if isinstance(value, list | tuple):
        return "[" + ", ".join(plain(v) for v in value) + "]"
    return number(value) if isinstance(value, int | float) else str(value)
