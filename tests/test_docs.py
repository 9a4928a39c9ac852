"""The documentation: every example runs, the site builds strictly and offline, and the reference has
an entry for every command, config key, algorithm and privacy model (issue 26).

* every fenced block of README.md and docs/**/*.md runs as ``docs_blocks`` says (shell, console with
  its shown output, Python, YAML configs), page by page; a block not run is marked
  ``<!-- not-run: reason -->`` and counted;
* ``mkdocs build --strict`` succeeds (no broken link or anchor, no missing reference) and the site
  loads nothing from another host;
* the generated reference pages name every CLI command and option, config key, algorithm and option,
  model and parameter; the algorithms page is the registry's table (moved from the README);
* controls: the runner fails a failing command, a wrong shown output and an unknown language, and the
  reference check reports a name that is not there.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from docs_blocks import RUN, SHOWN, Block, blocks, is_slow, page_id, pages, run_block, same_output, work_dir
from docs_reference import algorithm_entries, cli_entries, config_keys, missing, model_entries, rendered

ROOT = Path(__file__).resolve().parent.parent


def _runnable(path: Path) -> bool:
    return any(b.lang in RUN and b.not_run is None for b in blocks(path))


PAGES = [pytest.param(p, id=page_id(p), marks=[pytest.mark.slow] if is_slow(p) else [])
         for p in pages() if _runnable(p)]


@pytest.mark.parametrize("path", PAGES)
def test_every_example_of_the_page_runs(path: Path, tmp_path: Path) -> None:
    cwd = work_dir(tmp_path)
    scope: dict = {"__name__": "__docs__"}
    for block in blocks(path):
        if block.not_run is None and block.lang in RUN:
            run_block(block, cwd, scope)


def test_every_block_is_run_or_marked() -> None:
    """A block's language is one the test runs or only shows; the blocks not run are counted, each
    with its reason."""
    every = [b for p in pages() for b in blocks(p)]
    unknown = [f"{b.where} ```{b.lang}" for b in every if b.lang not in RUN + SHOWN and b.not_run is None]
    assert not unknown, f"a block the docs test cannot run; mark it <!-- not-run: reason -->: {unknown}"
    skipped = [b for b in every if b.not_run is not None]
    assert all(b.not_run.strip() for b in skipped)
    ran = [b for b in every if b.lang in RUN and b.not_run is None]
    print(f"\n{len(ran)} blocks run, {len(skipped)} not run:")
    for b in skipped:
        print(f"  {b.where}: {b.not_run}")
    assert len(ran) >= 2 * len(skipped), "most examples must run"


# ------------------------------------------------------------------------------------ the runner, controls
def _block(lang: str, body: str, info: str = "") -> Block:
    return Block("control.md", 1, lang, info or lang, body)


def test_the_runner_fails_a_failing_command(tmp_path: Path) -> None:
    run_block(_block("bash", "true\n"), tmp_path, {})
    with pytest.raises(AssertionError, match="exit 3"):
        run_block(_block("bash", "exit 3\n"), tmp_path, {})


def test_the_runner_compares_shown_output(tmp_path: Path) -> None:
    run_block(_block("console", "$ echo hello world\nhello ...\n"), tmp_path, {})
    run_block(_block("console", "$ exit 2\n[exit 2]\n"), tmp_path, {})
    with pytest.raises(AssertionError):
        run_block(_block("console", "$ echo hello\ngoodbye\n"), tmp_path, {})
    with pytest.raises(AssertionError):
        run_block(_block("console", "$ exit 2\n"), tmp_path, {})
    shown = _block("python", "print(6 * 7)\n")
    shown.output = _block("text", "42\n", 'text title="output"')
    run_block(shown, tmp_path, {})
    shown.output = _block("text", "41\n", 'text title="output"')
    with pytest.raises(AssertionError, match="shown output differs"):
        run_block(shown, tmp_path, {})
    assert same_output("a ... c", "a b\nb c") and not same_output("a", "b")


def test_the_runner_runs_a_whole_config_and_refuses_a_bad_one(tmp_path: Path) -> None:
    cwd = work_dir(tmp_path)
    good = ("input: {path: files/test2.csv, separator: ';'}\nattributes:\n  ZIPCode: {role: quasi}\n"
            "  Age: {role: quasi}\n  Salary: {role: insensitive}\n  Disease: {role: sensitive}\n"
            "privacy:\n  - {model: k-anonymity, k: 3}\noutput: {path: control-out.csv}\n")
    run_block(_block("yaml", good), cwd, {})
    assert (cwd / "examples" / "control-out.csv").exists()
    with pytest.raises(AssertionError, match="exits 2"):
        run_block(_block("yaml", good.replace("k: 3", "k: three")), cwd, {})
    run_block(_block("yaml", "privacy:\n  - {model: k-anonymity, k: 3}\n"), cwd, {})  # a fragment: parsed only


def test_blocks_are_read_with_their_markers_and_outputs(tmp_path: Path) -> None:
    page = tmp_path / "p.md"
    page.write_text("# t\n\n<!-- not-run: a server -->\n```bash\nserve\n```\n\n```python\nprint(1)\n```\n\n"
                    '```text title="output"\n1\n```\n\n* item\n\n  ```yaml\n  a: 1\n  ```\n')
    found = blocks(page)
    assert [b.lang for b in found] == ["bash", "python", "text", "yaml"]
    assert found[0].not_run == "a server" and found[1].not_run is None
    assert found[1].output is found[2] and found[3].body == "a: 1\n"


# ---------------------------------------------------------------------------------------------- the site
def test_the_site_builds_strictly_and_offline(tmp_path: Path) -> None:
    site = tmp_path / "site"
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(site)], cwd=ROOT,
                          capture_output=True, text=True, timeout=600, env={**__import__("os").environ,
                                                                             "NO_MKDOCS_2_WARNING": "1"})
    assert done.returncode == 0, done.stdout + done.stderr
    html = [p for p in site.rglob("*.html")]
    assert len(html) > 30
    loads = re.compile(r'<(?:script|img|iframe)[^>]*\ssrc="(?:https?:)?//|<link[^>]*rel="(?:stylesheet|preconnect|'
                       r'preload)"[^>]*href="(?:https?:)?//|<link[^>]*href="(?:https?:)?//[^"]*"[^>]*rel="stylesheet"')
    remote = [str(p.relative_to(site)) for p in html if loads.search(p.read_text(encoding="utf-8"))]
    assert not remote, f"pages loading from another host: {remote}"
    cli = (site / "reference" / "cli" / "index.html").read_text(encoding="utf-8")
    assert "anonkit anonymize" in cli and "<!-- anonkit:" not in cli
    api = (site / "reference" / "python-api" / "index.html").read_text(encoding="utf-8")
    assert "plan_from_config" in api and "KAnonymity" in api


# ----------------------------------------------------------------------------------------- the reference
def test_every_command_and_option_has_a_reference_entry() -> None:
    text = rendered("reference/cli.md")
    entries = cli_entries()
    assert {"anonkit anonymize", "anonkit experiment uhra"} <= set(entries)
    assert not missing(text, list(entries)), missing(text, list(entries))
    for command, options in entries.items():
        heading = re.search(rf"^#+ `{re.escape(command)}`$", text, re.M)
        assert heading, f"no heading for {command}"
        section = text[heading.end():]
        nxt = re.search(r"^#+ `anonkit", section, re.M)
        section = section[: nxt.start()] if nxt else section
        assert not missing(section, options), (command, missing(section, options))


def test_every_config_key_has_a_reference_entry() -> None:
    keys = config_keys()
    assert {"input.separator", "privacy[].k", "attributes.NAME.hierarchy.width", "algorithm.metric.gs",
            "audit.thresholds.highest_risk", "algorithm.max_suppression"} <= set(keys)
    assert not missing(rendered("reference/config.md"), keys)


def test_every_algorithm_and_model_has_a_reference_entry() -> None:
    assert not missing(rendered("reference/algorithms.md"), algorithm_entries())
    assert not missing(rendered("reference/models.md"), model_entries())


def test_the_algorithms_page_is_the_registry() -> None:
    """The algorithm table (the README's until issue 26) is ``anonkit algorithms --markdown``, rendered."""
    from anonkit.algorithms.describe import BEGIN, END, markdown_table

    text = rendered("reference/algorithms.md")
    start, end = text.index(BEGIN), text.index(END) + len(END)
    assert text[start:end] == markdown_table()
    rows = [line for line in text[start:end].splitlines() if line.startswith("| `")]
    assert rows and all(len(re.split(r"(?<!\\)\|", r)) == 8 for r in rows), "every row keeps its 6 cells"


def test_the_reference_check_finds_what_is_missing() -> None:
    assert missing("`a` and `b`", ["a", "b", "c"]) == ["c"]
    text = rendered("reference/config.md")
    assert missing(text, ["input.no_such_key"]) == ["input.no_such_key"]
    assert missing(rendered("reference/cli.md"), ["anonkit no-such-command"]) == ["anonkit no-such-command"]
