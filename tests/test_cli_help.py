"""A CLI that explains itself (issue 26 item 4): ``--version``; every command's ``--help`` readable at
80 columns (wrapped between words, nothing cut, no ``<bool>``); the listings readable at 80 columns;
output paths printed whole and several output files one per line.

Every command is found by walking the app, so a command added later is covered without a change here.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
import typer
import yaml
from rich.console import Console
from typer.testing import CliRunner

from anonkit.algorithms.describe import describe_all, markdown_table
from anonkit.cli import app, console
from anonkit.cli.helptext import HelpGroup, summary, wrap
from support import toy_config, toy_dir

WIDTH = 80
runner = CliRunner()


def flat(text: str) -> str:
    """``text`` with every run of whitespace (line breaks and indentation included) as one space."""
    return " ".join(text.split())


def commands(command, path: tuple[str, ...] = ()):  # type: ignore[no-untyped-def]
    """Every command and sub-command of a click command tree, with the words that call it."""
    yield path, command
    for name, sub in (getattr(command, "commands", None) or {}).items():
        if not sub.hidden:
            yield from commands(sub, (*path, name))


def texts_shown(command) -> list[str]:  # type: ignore[no-untyped-def]
    """What a command's ``--help`` must show whole: each paragraph of its help, each parameter's help
    and each sub-command's summary."""
    texts = [p for p in (command.help or "").partition("\f")[0].split("\n\n") if p.strip()]
    texts += [p.help for p in command.params if getattr(p, "help", None) and not p.hidden]
    texts += [summary(sub) for sub in (getattr(command, "commands", None) or {}).values() if not sub.hidden]
    return texts


def help_problems(output: str, texts: list[str], width: int = WIDTH) -> list[str]:
    """What makes a rendered ``--help`` unreadable at ``width`` columns: a line too long, a word cut
    (an ellipsis, or a text not shown whole: a word broken or a summary shortened), a flag shown
    with ``<bool>``."""
    problems = [f"longer than {width}: {line!r}" for line in output.splitlines() if len(line) > width]
    problems += [f"cut: {line!r}" for line in output.splitlines() if "…" in line]
    problems += [f"cut: {line!r}" for line in output.splitlines()
                 if "..." in line and not line.startswith("Usage:")]
    problems += [f"a flag with a type: {line!r}" for line in output.splitlines() if "<bool>" in line]
    shown = flat(output)
    problems += [f"not shown whole: {flat(text)!r}" for text in texts if flat(text) not in shown]
    return problems


def render_help(args: list[str], target=app, width: int = WIDTH) -> str:  # type: ignore[no-untyped-def]
    res = runner.invoke(target, [*args, "--help"], env={"COLUMNS": str(width)}, prog_name="anonkit")
    assert res.exit_code == 0, res.output
    return res.stdout


TREE = list(commands(typer.main.get_command(app)))


def test_version_prints_the_package_version() -> None:
    from anonkit._version import __version__

    res = runner.invoke(app, ["--version"], prog_name="anonkit")
    assert res.exit_code == 0, res.output
    assert res.stdout == f"anonkit {__version__}\n"


def test_the_walk_finds_every_command_and_sub_command() -> None:
    """Control: the walk reaches the experiment sub-commands, so every command below is checked."""
    found = {" ".join(path) for path, _ in TREE}
    assert {"", "anonymize", "check", "analyze", "algorithms", "audit", "experiment", "experiment uhra",
            "experiment angelization"} <= found


@pytest.mark.parametrize(("path", "command"), TREE, ids=[" ".join(p) or "anonkit" for p, _ in TREE])
def test_every_help_reads_whole_at_80_columns(path: tuple[str, ...], command) -> None:  # type: ignore[no-untyped-def]
    output = render_help(list(path))
    assert help_problems(output, texts_shown(command)) == []


def test_flags_read_as_click_shows_them() -> None:
    output = render_help(["anonymize"])
    lines = [line.split() for line in output.splitlines()]
    assert ["--json", "Print", "one", "JSON", "summary", "object."] in lines
    assert any(line[:2] == ["--seed", "<str>"] for line in lines if line)  # an option with a value keeps its type


def test_the_checker_sees_a_cut_summary_and_a_bool_flag() -> None:
    """Control: typer's own group cuts a long summary with "..." and its rich help shows
    ``--json <bool>``; the checker reports both, and the same commands under HelpGroup read whole."""
    long_doc = ("Do a thing with a rather long summary that goes well past the width of the command column, "
                "so that a list that cuts summaries would cut this one.")

    def build(cls, markup):  # type: ignore[no-untyped-def]
        demo = typer.Typer(cls=cls, rich_markup_mode=markup)

        @demo.command("thing", help=long_doc)
        def thing(as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None: ...

        @demo.command("other")
        def other() -> None:
            """Another."""

        return demo

    cut = render_help([], build(typer.core.TyperGroup, None))
    assert any("cut" in p or "not shown whole" in p for p in help_problems(cut, [long_doc]))
    boxed = render_help(["thing"], build(typer.core.TyperGroup, "rich"))
    assert any("<bool>" in p for p in help_problems(boxed, []))
    assert help_problems(render_help([], build(HelpGroup, None)), [long_doc]) == []
    assert help_problems(render_help(["thing"], build(HelpGroup, None)), ["Print JSON."]) == []


def test_wrap_breaks_between_words_only() -> None:
    text = "see --population-table and NAME-qit.csv " + "x" * 30 + " end\n\nsecond paragraph"
    lines = wrap(text, 12)
    assert "--population-table" in lines and "x" * 30 in lines  # longer than the line: whole on its own
    assert lines[-2:] == ["", "second"] or lines[-3:] == ["", "second", "paragraph"]
    assert flat(" ".join(lines)) == flat(text)
    assert all(len(line) <= 12 for line in lines if line not in ("--population-table", "x" * 30))
    assert wrap("a b c", 3, indent="> ", hang="  ") == ["> a", "  b", "  c"]


def narrow(monkeypatch: pytest.MonkeyPatch, width: int = WIDTH) -> Console:
    """Standard output (and error) as consoles ``width`` columns wide, as a terminal of that width."""
    out = Console(file=io.StringIO(), width=width, color_system=None)
    monkeypatch.setattr(console, "out", out)
    monkeypatch.setattr(console, "err", Console(file=io.StringIO(), width=width, color_system=None))
    return out


def test_algorithms_read_whole_at_80_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    out = narrow(monkeypatch)
    assert runner.invoke(app, ["algorithms"]).exit_code == 0
    text = out.file.getvalue()
    assert [line for line in text.splitlines() if len(line) > WIDTH] == []
    shown = flat(text)
    for a in describe_all():
        assert flat(a["summary"]) in shown and flat(a["enforces_text"]) in shown, a["name"]
        for o in a["options"]:
            assert flat(f"{o['name']}: {o['type']}") in shown, (a["name"], o["name"])


def test_algorithms_stay_a_table_on_a_wide_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """Control: where every word fits its column, the listing is the table (one row per algorithm)."""
    out = narrow(monkeypatch, 240)
    assert runner.invoke(app, ["algorithms"]).exit_code == 0
    text = out.file.getvalue()
    shown = [text for a in describe_all() for text in (a["summary"], a["enforces_text"], *map(str, a["options"]))]
    assert "┃ name" in text and text.count("…") <= sum(s.count("…") for s in shown)


def test_models_read_whole_at_80_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    from anonkit.models.registry import describe_all as models

    out = narrow(monkeypatch)
    assert runner.invoke(app, ["models"]).exit_code == 0
    text = out.file.getvalue()
    assert [line for line in text.splitlines() if len(line) > WIDTH] == []
    for m in models():
        assert flat(m["summary"]) in flat(text), m["name"]


def test_the_markdown_table_is_unchanged() -> None:
    res = runner.invoke(app, ["algorithms", "--markdown"])
    assert res.exit_code == 0 and res.stdout == markdown_table() + "\n"


def test_a_long_output_path_is_printed_whole(tmp_path: Path) -> None:
    """The real command in a terminal 80 columns wide: a 150+ character output path on one line."""
    folder = toy_dir(tmp_path, toy_config())
    target = folder / ("d" * 60) / ("e" * 60) / "the-release-with-a-long-name.csv"
    target.parent.mkdir(parents=True)
    assert len(str(target)) >= 150
    env = {**os.environ, "COLUMNS": str(WIDTH)}
    done = subprocess.run([sys.executable, "-m", "anonkit", "anonymize", str(folder / "c.yaml"), "--output",
                           str(target)], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    assert target.is_file()
    assert f"written: {target}" in done.stdout.splitlines()


def test_two_tables_are_listed_one_per_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = toy_config(privacy=[{"model": "l-diversity", "attribute": "Disease", "l": 2}], algorithm={"name": "anatomy"})
    cfg["attributes"]["Salary"] = {"role": "identifier"}  # anatomy publishes one sensitive attribute
    folder = toy_dir(tmp_path, cfg)
    out = narrow(monkeypatch)
    res = runner.invoke(app, ["anonymize", str(folder / "c.yaml")])
    assert res.exit_code == 0, res.output
    lines = out.file.getvalue().splitlines()
    assert f"written: {folder / 'out-qit.csv'}" in lines and f"written: {folder / 'out-st.csv'}" in lines, lines
    assert not any("'" in line and "out-qit.csv" in line for line in lines)  # never a Python list
    assert yaml.safe_load((folder / "c.yaml").read_text())["output"]["path"] == "out.csv"
