"""The algorithms and privacy-models reference tables, generated at build time from their registries.

``algorithms_markdown`` is ``anonkit algorithms --markdown`` (the registry's table,
:func:`anonkit.algorithms.describe.markdown_table`, which escapes its cells); ``models_markdown`` is
``anonkit models`` from the models' declarations
(:func:`anonkit.models.registry.describe_all`).
"""

from __future__ import annotations


def algorithms_markdown() -> str:
    """The registry's algorithm table (its cells escaped by ``markdown_table`` itself)."""
    from anonkit.algorithms.describe import markdown_table

    return markdown_table()


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
