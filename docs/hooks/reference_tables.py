"""The algorithms and privacy-models reference tables, generated at build time from their registries.

``algorithms_markdown`` is ``anonkit algorithms --markdown`` (the registry's table,
:func:`anonkit.algorithms.describe.markdown_table`) with the pipes inside its option cells escaped so
that the table renders; ``models_markdown`` is ``anonkit models`` from the models' declarations
(:func:`anonkit.models.registry.describe_all`).
"""

from __future__ import annotations

#: the columns of the algorithms table (``markdown_table``'s header)
ALGORITHM_COLUMNS = 6
#: the column holding the options, the only one whose text may hold ``|`` (``mapping | list``)
OPTIONS_COLUMN = 3


def escape_row(line: str, columns: int = ALGORITHM_COLUMNS, free: int = OPTIONS_COLUMN) -> str:
    """A table row whose ``free`` cell holds unescaped ``|`` (``(keep | drop; …)``), escaped, so the
    row keeps ``columns`` cells; other lines unchanged."""
    if not line.startswith("| ") or not line.endswith(" |"):
        return line
    cells = line[2:-2].split(" | ")
    extra = len(cells) - columns
    if extra <= 0:
        return line
    merged = " \\| ".join(cells[free:free + extra + 1])
    return "| " + " | ".join([*cells[:free], merged, *cells[free + extra + 1:]]) + " |"


def algorithms_markdown() -> str:
    """The registry's algorithm table, rendered as a table (the markers of the old README kept)."""
    from anonkit.algorithms.describe import markdown_table

    return "\n".join(escape_row(line) for line in markdown_table().splitlines())


def _cell(text: object) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def models_markdown() -> str:
    """One entry per privacy model: its config form, what it guarantees, parameters, needs, monotonicity."""
    from anonkit.models.registry import describe_all

    lines: list[str] = []
    for m in describe_all():
        config = m["config"]
        form = f"`model: {config['model']}`"  # type: ignore[index]
        other = config.get("or")  # type: ignore[union-attr]
        if other:
            form += " (or `" + ", ".join(f"{k}: {v}" for k, v in other.items()) + "`)"
        mono = m["monotonic"]
        monotonic = ("yes" if all(mono.values()) else  # type: ignore[union-attr]
                     ", ".join(k for k, v in mono.items() if v) + " only" if any(mono.values()) else "no")  # type: ignore[union-attr]
        lines += [f"## {m['label']}", "", f"{form}: {m['summary']}.", "",
                  "| parameter | takes | default | what it is |", "| --- | --- | --- | --- |"]
        for p in m["params"]:  # type: ignore[union-attr]
            default = "required" if p["required"] else ("—" if p["default"] is None else f"`{p['default']}`")
            kind = p["type"] + (" (" + ", ".join(map(str, p["choices"])) + ")" if p["choices"] else "")
            lines.append(f"| `{p['key']}` | {_cell(kind)} | {_cell(default)} | {_cell(p['description'])} |")
        lines += ["", f"Needs: {', '.join(m['needs'])}. Record level: {'yes' if m['record_level'] else 'no'}. "  # type: ignore[arg-type]
                  f"Monotonic: {monotonic}.", ""]
    return "\n".join(lines)
