"""The fenced code blocks of the documentation, and how the docs test runs each (tests/test_docs.py).

A page's blocks run in order in one work directory (a copy of ``examples/``), so a block may use
what an earlier one wrote. The rules, also written for contributors in docs/contributing.md:

* ``bash``: run with ``bash -e``; it must exit 0.
* ``console``: each ``$ command`` runs; the lines after it are the expected output (doctest's
  ``...`` matches anything, whitespace is normalised); a last shown line ``[exit N]`` is the expected
  exit code, else 0.
* ``python``: exec'd, one namespace per page; its printed output is compared when an output block
  follows.
* ``yaml``: parsed as anonkit reads configs; a whole config (``input``, ``attributes``, ``privacy``)
  is written to ``examples/`` and run by ``anonkit anonymize`` (exit 0).
* ``json``: parsed.
* ``text title="output"`` right after a block: that block's expected output.
* ``text`` and blocks without a language: shown, not run.
* ``<!-- not-run: reason -->`` on the line before a block: not run, counted.
"""

from __future__ import annotations

import contextlib
import doctest
import io
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
FENCE = re.compile(r"^(?P<indent> *)(?P<fence>`{3,})(?P<info>[^\n`]*)\n(?P<body>.*?)^(?P=indent)(?P=fence)[ \t]*$",
                   re.S | re.M)
NOT_RUN = re.compile(r"<!--\s*not-run:\s*(?P<reason>.+?)\s*-->\s*$")
SLOW = "<!-- docs-test: slow -->"
#: languages whose blocks run, and the ones only shown
RUN = ("bash", "console", "python", "yaml", "json")
SHOWN = ("", "text")
#: the time one block may take before the docs test gives up on it
BLOCK_TIMEOUT = 600
CHECKER = doctest.OutputChecker()
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


@dataclass
class Block:
    """One fenced block: where it is, its language and attributes, its text, whether it is marked."""

    page: str
    line: int
    lang: str
    info: str
    body: str
    not_run: str | None = None
    output: Block | None = field(default=None, repr=False)

    @property
    def is_output(self) -> bool:
        return self.lang == "text" and 'title="output"' in self.info

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"


def pages() -> list[Path]:
    """Every page with examples: README.md and docs/**/*.md."""
    return [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]


def page_id(path: Path) -> str:
    """The page's path from the repository's root (or its own name outside it)."""
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else path.name


def blocks(path: Path) -> list[Block]:
    """The page's fenced blocks in order, each output block attached to the block before it."""
    text = path.read_text(encoding="utf-8")
    found: list[Block] = []
    previous_end = 0
    for m in FENCE.finditer(text):
        info = m.group("info").strip()
        lang = info.split()[0].lower() if info else ""
        before = text[previous_end:m.start()].rstrip().splitlines()
        marker = NOT_RUN.search(before[-1]) if before else None
        body = "\n".join(line[len(m.group("indent")):] for line in m.group("body").splitlines()) + "\n"
        block = Block(page_id(path), text.count("\n", 0, m.start()) + 1, lang, info, body,
                      marker.group("reason") if marker else None)
        between = text[previous_end:m.start()]
        if block.is_output and found and not between.strip():
            found[-1].output = block
        found.append(block)
        previous_end = m.end()
    return found


def is_slow(path: Path) -> bool:
    return SLOW in path.read_text(encoding="utf-8")


def work_dir(tmp: Path) -> Path:
    """A fresh directory holding a copy of ``examples/``, where a page's blocks run."""
    shutil.copytree(ROOT / "examples", tmp / "examples", ignore=shutil.ignore_patterns("*-anonymized*"))
    return tmp


def _env() -> dict[str, str]:
    env = dict(os.environ, COLUMNS="80", NO_COLOR="1", TERM="dumb", PYTHONHASHSEED="0")
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return env


def _shell(command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "-e", "-o", "pipefail", "-c", command], cwd=cwd, env=_env(), text=True,
                          capture_output=True, timeout=BLOCK_TIMEOUT)


def same_output(expected: str, got: str) -> bool:
    """doctest's comparison: ``...`` matches anything, whitespace normalised."""
    return CHECKER.check_output(expected.strip() + "\n", got.strip() + "\n", FLAGS)


def _compare(block: Block, got: str) -> None:
    if block.output is not None:
        assert same_output(block.output.body, got), (
            f"{block.output.where}: shown output differs\n--- shown\n{block.output.body}--- printed\n{got}")


def console_steps(body: str) -> list[tuple[str, str, int]]:
    """``(command, expected output, expected exit code)`` for each ``$ command`` of a console block."""
    steps: list[tuple[str, list[str]]] = []
    for line in body.splitlines():
        if line.startswith("$ "):
            steps.append((line[2:], []))
        elif steps:
            steps[-1][1].append(line)
    out = []
    for command, lines in steps:
        code = 0
        if lines and re.fullmatch(r"\[exit \d+\]", lines[-1].strip()):
            code = int(lines.pop().strip()[6:-1])
        out.append((command, "\n".join(lines), code))
    return out


def run_block(block: Block, cwd: Path, scope: dict) -> None:
    """Run one block as its language says (see the module's docstring); fail with where it is."""
    if block.lang == "bash":
        done = _shell(block.body, cwd)
        assert done.returncode == 0, f"{block.where}: exit {done.returncode}\n{done.stdout}\n{done.stderr}"
        _compare(block, done.stdout)
    elif block.lang == "console":
        for command, expected, code in console_steps(block.body):
            done = _shell(command, cwd)
            assert done.returncode == code, f"{block.where}: `{command}` exit {done.returncode}\n{done.stderr}"
            if expected.strip():
                got = done.stdout + done.stderr
                assert same_output(expected, got), f"{block.where}: `{command}` printed\n{got}\nnot\n{expected}"
    elif block.lang == "python":
        printed = io.StringIO()
        here = Path.cwd()
        os.chdir(cwd)
        try:
            with contextlib.redirect_stdout(printed):
                exec(compile(block.body, block.where, "exec"), scope)
        finally:
            os.chdir(here)
        _compare(block, printed.getvalue())
    elif block.lang == "yaml":
        run_yaml(block, cwd)
    elif block.lang == "json":
        json.loads(block.body)


def is_config(data: object) -> bool:
    return isinstance(data, dict) and {"input", "attributes", "privacy"} <= set(data)


def run_yaml(block: Block, cwd: Path) -> None:
    """Parse a YAML block as anonkit reads configs; run a whole config from ``examples/``."""
    from anonkit._config_yaml import read_yaml

    data = read_yaml(block.body, source=block.where)
    if not is_config(data):
        return
    path = cwd / "examples" / f"_docs_{block.line}.yaml"
    path.write_text(block.body, encoding="utf-8")
    done = _shell(f"anonkit anonymize {path.relative_to(cwd)}", cwd)
    assert done.returncode == 0, f"{block.where}: the config exits {done.returncode}\n{done.stdout}\n{done.stderr}"
