"""The shape of the code: one registry, layers that point down, no import cycles.

* Every algorithm is declared once, beside its code: its config name appears as a string literal
  only in its own module and the registry, and its option defaults are written only in its own
  signature (not again in the config, the pipeline or another algorithm).
* Layers point down: nothing under ``models/``, ``metrics/``, ``hierarchy/``, ``io/`` or in
  ``table.py`` imports the algorithms, the pipeline, the config or the CLI; module-level imports
  form no cycle.
* The README's algorithm table is the registry's (``anonkit algorithms --markdown``).
"""

from __future__ import annotations

import ast
import io
import itertools
import re
import tokenize
from pathlib import Path

from anonkit.algorithms.describe import BEGIN, END, markdown_table
from anonkit.algorithms.registry import algorithms

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
PACKAGE = SRC / "anonkit"
#: where an algorithm's config name may also stand, and why: the experiments are named after the
#: algorithm their paper proposes (``anonkit experiment uhra``, ``stack-and-deal``, ``iab``)
EXPERIMENT_NAMES = {
    ("anonkit/cli.py", "uhra"), ("anonkit/cli.py", "stack-and-deal"), ("anonkit/cli.py", "iab"),
    ("anonkit/experiments/__init__.py", "uhra"), ("anonkit/experiments/__init__.py", "stack-and-deal"),
    ("anonkit/experiments/__init__.py", "iab"),
    # paper D's comparison names the three algorithms it runs (and is named after the first)
    ("anonkit/cli.py", "angelization"), ("anonkit/experiments/__init__.py", "angelization"),
    ("anonkit/experiments/angelization.py", "angelization"), ("anonkit/experiments/angelization.py", "theta-sensitive"),
    ("anonkit/experiments/angelization.py", "kl-diversity"),
}


def _modules() -> dict[str, Path]:
    return {str(p.relative_to(SRC)): p for p in PACKAGE.rglob("*.py")}


def _module_name(rel: str) -> str:
    name = rel.removesuffix(".py").replace("/", ".")
    return name.removesuffix(".__init__")


def _string_literals(path: Path) -> list[tuple[int, str]]:
    out = []
    for tok in tokenize.generate_tokens(io.StringIO(path.read_text()).readline):
        if tok.type == tokenize.STRING:
            try:
                value = ast.literal_eval(tok.string)
            except (ValueError, SyntaxError):  # f-strings
                continue
            if isinstance(value, str):
                out.append((tok.start[0], value))
    return out


def _own_module(spec) -> str:  # type: ignore[no-untyped-def]
    return spec.run.__module__.replace(".", "/") + ".py"


def test_algorithm_names_are_written_once() -> None:
    own = {name: _own_module(spec) for name, spec in algorithms().items()}
    found = []
    for rel, path in _modules().items():
        if rel == "anonkit/algorithms/registry.py":
            continue
        for line, value in _string_literals(path):
            if value in own and own[value] != rel and (rel, value) not in EXPERIMENT_NAMES:
                found.append(f"{rel}:{line} {value!r}")
    assert not found, "an algorithm's config name outside its module (read it from the registry):\n" + "\n".join(found)


def _defaults_written(tree: ast.AST) -> list[tuple[str, object, int]]:
    """``(name, constant default, line)`` of every parameter default, keyword default in a call, and
    annotated class attribute with a constant value in a module."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            args = node.args
            positional = args.posonlyargs + args.args
            pairs = list(zip(positional[len(positional) - len(args.defaults):], args.defaults, strict=True))
            pairs += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d is not None]
            out += [(a.arg, d.value, d.lineno) for a, d in pairs if isinstance(d, ast.Constant)]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            value = node.value
            if isinstance(value, ast.Call) and value.args and isinstance(value.args[0], ast.Constant):
                value = value.args[0]  # Field(default, …)
            if isinstance(value, ast.Constant):
                out.append((node.target.id, value.value, node.lineno))
    return out


def test_option_defaults_are_written_once() -> None:
    """An option's default value is written, as the default of a parameter or attribute of that
    name, in one module at most (the others import its constant): the config, the pipeline and
    other algorithms never repeat it."""
    defaults = {
        (str(o["name"]), o["default"])
        for spec in algorithms().values()
        for o in spec.option_docs()
        if not o["required"] and o["default"] is not None and not isinstance(o["default"], bool)
    }
    written: dict[tuple[str, object], list[str]] = {}
    for rel, path in _modules().items():
        for name, value, line in _defaults_written(ast.parse(path.read_text())):
            if (name, value) in defaults:
                written.setdefault((name, value), []).append(f"{rel}:{line}")
    found = [f"{name} = {value!r} in {', '.join(places)}" for (name, value), places in written.items()
             if len({p.split(':')[0] for p in places}) > 1]
    assert not found, "an option default written in several modules (import one constant):\n" + "\n".join(found)


def _imports(path: Path, *, top_level_only: bool) -> set[str]:
    """The ``anonkit`` modules a module imports (module level only, or anywhere)."""
    tree = ast.parse(path.read_text())
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    out = set()
    for node in nodes:
        if isinstance(node, ast.If) and top_level_only:  # `if TYPE_CHECKING:` imports do not run
            continue
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("anonkit"):
            for a in node.names:  # `from pkg import module` imports the module; `from m import name`, m
                sub = f"{node.module}.{a.name}"
                out.add(sub if _is_module(sub) else node.module)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("anonkit"))
    return out


def _is_module(name: str) -> bool:
    base = SRC / name.replace(".", "/")
    return base.with_suffix(".py").exists() or (base / "__init__.py").exists()


LOWER = ("anonkit/models/", "anonkit/metrics/", "anonkit/hierarchy/", "anonkit/io/", "anonkit/table.py",
         "anonkit/stats.py", "anonkit/schema.py", "anonkit/_values.py", "anonkit/distance.py",
         # the verifiers judge releases independently: they never import the algorithms that make them
         "anonkit/verifier.py", "anonkit/_verify_rows.py", "anonkit/verify_buckets.py",
         # imported by every layer, so they import nothing above themselves
         "anonkit/_secrets.py", "anonkit/errors.py", "anonkit/interrupt.py")
UPPER = ("anonkit.algorithms", "anonkit.pipeline", "anonkit.config", "anonkit.cli", "anonkit.experiments")


def test_layers_point_down() -> None:
    found = []
    for rel, path in _modules().items():
        if rel.startswith(LOWER):
            bad = sorted(m for m in _imports(path, top_level_only=False) if m.startswith(UPPER))
            found += [f"{rel} imports {m}" for m in bad]
    assert not found, "\n".join(found)


def test_no_import_cycles() -> None:
    modules = {_module_name(rel): path for rel, path in _modules().items()}
    graph = {
        name: {m for m in _imports(path, top_level_only=True) if m in modules and m != name}
        for name, path in modules.items()
    }
    # a package's __init__ imports its modules; a module importing its own package's name is fine
    # only when the package does not import it back (checked by the cycle search below)
    state: dict[str, int] = {}
    stack: list[str] = []
    cycles = []

    def visit(name: str) -> None:
        state[name] = 1
        stack.append(name)
        for nxt in sorted(graph[name]):
            if state.get(nxt) == 1:
                cycles.append(" → ".join([*stack[stack.index(nxt):], nxt]))
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[name] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name)
    # importing a submodule runs its package's __init__ first: that is not a cycle of ours
    real = [c for c in cycles if not _only_package_inits(c)]
    assert not real, "import cycles:\n" + "\n".join(real)


def _only_package_inits(cycle: str) -> bool:
    parts = cycle.split(" → ")
    return all(a.startswith(b + ".") or b.startswith(a + ".") for a, b in itertools.pairwise(parts))


def test_readme_algorithm_table_is_the_registry() -> None:
    text = (ROOT / "README.md").read_text()
    start, end = text.index(BEGIN), text.index(END) + len(END)
    assert text[start:end] == markdown_table(), "run `anonkit algorithms --markdown` and paste it into README.md"


def test_algorithms_command_lists_every_algorithm() -> None:
    import json

    from typer.testing import CliRunner

    from anonkit.cli import app

    res = CliRunner().invoke(app, ["algorithms", "--json"])
    assert res.exit_code == 0, res.output
    listed = json.loads(res.stdout)
    assert [a["name"] for a in listed] == list(algorithms())
    flash = next(a for a in listed if a["name"] == "flash")
    assert flash["default"] is True and {"name", "type", "default"} <= set(flash["options"][0])
    assert re.search(r"heuristic_threshold", json.dumps(flash))
    res = CliRunner().invoke(app, ["algorithms"])
    assert res.exit_code == 0 and "anatomy" in res.stdout


def test_import_anonkit_and_the_cli_stay_lean() -> None:
    """``import anonkit`` and ``anonkit --help`` load no pandas, scipy, scikit-learn, matplotlib or
    numba (issue 16: a lean process); the public names load on first use."""
    import subprocess
    import sys

    heavy = ("pandas", "scipy", "sklearn", "matplotlib", "numba", "pyspark")
    code = ("import sys, anonkit, anonkit.cli; "
            f"print(','.join(m for m in {heavy!r} if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
    code = "import anonkit; f = anonkit.verify; import anonkit.verifier; print(callable(anonkit.verify))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True"  # no public name is rebound by importing a submodule
