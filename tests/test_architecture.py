"""The shape of the code: one registry, layers that point down, no import cycles, small modules.

* Every algorithm is declared once, beside its code: its config name appears as a string literal
  only in its own module and the registry, and its option defaults are written only in its own
  signature (not again in the config, the pipeline or another algorithm).
* Layers point down (LAYERS, bottom → top) and imports form no cycle, counting the imports inside
  functions, ``import_module`` strings and ``module:function`` strings; a package's ``__init__`` is a
  module of the graph (the rules are written above :func:`import_graph`).
* No test module imports another test module (helpers live in non-``test_`` modules and conftest).
* The size of modules and functions is ``tests/test_code_size.py``'s.
* Today's exceptions are listed (KNOWN_IMPORT_DEBT, KNOWN_TEST_IMPORTS) and the lists only
  shrink: a listed item that no longer breaks its rule fails the test until it is removed.
* The algorithm table (``anonkit algorithms --markdown``) is generated into the docs' reference page
  at build time; ``tests/test_docs.py`` holds it to the registry.
"""

from __future__ import annotations

import ast
import fnmatch
import io
import itertools
import re
import tokenize
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from anonkit.algorithms.registry import algorithms
from anonkit.algorithms.spec import FAMILIES

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
PACKAGE = SRC / "anonkit"
#: where an algorithm's config name may also stand, and why: the experiments are named after the
#: algorithm their paper proposes (``anonkit experiment uhra``, ``stack-and-deal``, ``iab``)
EXPERIMENT_NAMES = {
    ("anonkit/cli/experiments.py", "uhra"), ("anonkit/cli/experiments.py", "stack-and-deal"),
    ("anonkit/cli/experiments.py", "iab"),
    ("anonkit/experiments/__init__.py", "uhra"), ("anonkit/experiments/__init__.py", "stack-and-deal"),
    ("anonkit/experiments/__init__.py", "iab"),
    # paper D's comparison names the three algorithms it runs (and is named after the first)
    ("anonkit/cli/experiments.py", "angelization"), ("anonkit/experiments/__init__.py", "angelization"),
    ("anonkit/experiments/angelization.py", "angelization"), ("anonkit/experiments/angelization.py", "theta-sensitive"),
    ("anonkit/experiments/angelization.py", "kl-diversity"),
    # a word of column names that marks a sensitive attribute ("genetic test"), not the algorithm
    ("anonkit/start/roles.py", "genetic"),
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


# ------------------------------------------------------------------------------------------ the import graph
#
# An edge ``a → b`` says module ``a`` imports module ``b``. Every import that can run counts: at module
# level and inside functions, classes and ``try:`` blocks, but not in the body of ``if TYPE_CHECKING:``
# (it never runs; its ``else:`` does). A package is a module (its ``__init__.py``); ``from pkg import
# name`` is an edge to ``pkg.name`` when that is a module, else to ``pkg``. Importing ``pkg.mod`` runs
# ``pkg/__init__`` first; that implicit step is NOT an edge (else every module would import all its
# ancestors). So the package rule is exact: a ``pkg/__init__`` that imports ``pkg.mod`` (to re-export it)
# is in a cycle when, and only when, ``pkg.mod`` or a module it imports names ``pkg`` itself back
# (``from pkg import X``, ``import pkg``, ``resources.files("pkg")``); re-exporting from modules that
# import only their siblings (``pkg.other``) is no cycle.
# Strings count too: a string that is exactly a module's dotted name, or ``module:function``, is resolved
# by an import (``importlib.import_module``, a lazy table, ``runners=``, ``ENGINE_RUNNERS``,
# ``resources.files``), so it is an edge from the module that writes it (the bare ``"anonkit"``, an app
# name or a key, is not). An import whose name is computed at run time is declared in DYNAMIC_IMPORTS.

#: modules whose import names are computed → (packages whose public modules they import, or none when the
#: names are strings counted where they are written; why)
DYNAMIC_IMPORTS: dict[str, tuple[tuple[str, ...], str]] = {
    "anonkit.algorithms.registry": (tuple(f"anonkit.algorithms.{f}" for f in FAMILIES),
                                    "walks the family packages and imports their public modules"),
    "anonkit._lazy": ((), "a package's lazy table (`_LAZY`), whose strings count where they are written"),
    "anonkit.runner": ((), "ENGINE_RUNNERS' module:function strings, counted in the module"),
    "anonkit.runner.anonymize": ((), "an algorithm's own runner (`runners=`), counted at its declaration"),
    "anonkit.io._messages": ((), "a format's optional third-party package (openpyxl, duckdb, …)"),
}
_REFERENCE = re.compile(r"(\w+(?:\.\w+)+)(?::\w+)?")


@dataclass(frozen=True)
class Graph:
    """The modules of a package (dotted name → file) and their imports (importer → imported → line)."""

    modules: dict[str, Path]
    edges: dict[str, dict[str, int]]
    dynamic: dict[str, int]  # module → line of an import whose name is computed


def _type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _running(node: ast.AST) -> Iterator[ast.AST]:
    """Every node under ``node`` that can run (``if TYPE_CHECKING:`` bodies left out)."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.If) and _type_checking(child.test):
            for stmt in child.orelse:
                yield stmt
                yield from _running(stmt)
        else:
            yield child
            yield from _running(child)


def _dynamic_call(node: ast.AST) -> bool:
    """An ``import_module(x)`` / ``__import__(x)`` whose ``x`` is not a literal."""
    if not isinstance(node, ast.Call) or not node.args:
        return False
    f = node.func
    name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
    return name in ("import_module", "__import__") and not isinstance(node.args[0], ast.Constant)


def _imports_of(name: str, path: Path, modules: dict[str, Path], package: str) -> tuple[dict[str, int], int]:
    """``(imported module → first line, line of a computed import or 0)`` of one module."""
    here = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: dict[str, int] = {}
    dynamic = 0
    for node in _running(ast.parse(path.read_text(encoding="utf-8"))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = here.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            ref = _REFERENCE.fullmatch(node.value)
            targets = [ref.group(1)] if ref and ref.group(1) in modules else []
        elif _dynamic_call(node):
            dynamic = dynamic or node.lineno  # type: ignore[attr-defined]
        for t in targets:
            if (t == package or t.startswith(package + ".")) and t != name:
                found.setdefault(t, node.lineno)  # type: ignore[attr-defined]
    return found, dynamic


def import_graph(src: Path, package: str, dynamic: dict[str, tuple[tuple[str, ...], str]]) -> Graph:
    """The import graph of ``src/package`` (see the rules above); a declared computed import is an edge
    to each package it names and to that package's public modules (``_private`` ones are skipped)."""
    modules = {}
    for p in sorted((src / package).rglob("*.py")):
        if "__pycache__" not in p.parts:
            modules[".".join(p.relative_to(src).with_suffix("").parts).removesuffix(".__init__")] = p
    edges, computed = {}, {}
    for name, path in modules.items():
        edges[name], line = _imports_of(name, path, modules, package)
        if line:
            computed[name] = line
            for pkg in dynamic.get(name, ((), ""))[0]:
                for m in modules:
                    parent, _, last = m.rpartition(".")
                    if m == pkg or (parent == pkg and not last.startswith("_")):
                        edges[name].setdefault(m, line)
    return Graph(modules, edges, computed)


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """One shortest cycle ``[a, b, …, a]`` per strongly connected component of more than one module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    components: list[set[str]] = []

    def strong(v: str) -> None:  # Tarjan
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while not component or v not in component:
                component.add(stack.pop())
            if len(component) > 1:
                components.append(component)

    for v in sorted(edges):
        if v not in index:
            strong(v)
    out = []
    for component in components:
        start = min(component)
        paths, seen = [[start]], {start}
        while paths:  # breadth first, inside the component, back to start
            path = paths.pop(0)
            nxt = sorted(w for w in edges[path[-1]] if w in component)
            if start in nxt:
                out.append([*path, start])
                break
            paths += [[*path, w] for w in nxt if w not in seen]
            seen.update(nxt)
    return sorted(out)


# ------------------------------------------------------------------------------------------------ the layers
#: bottom → top: (name, what it is, module patterns). A module belongs to the layer of its most specific
#: pattern (``p`` matches ``p`` and ``p.*``; ``*`` globs; the root package matches only itself). Imports
#: point down or stay in their layer. From docs/architecture.md and shared/guides/architecture.md, with
#: one change the code shows: the privacy models import the adversary's knowledge (priors for β-likeness
#: and the knowledge-based models), so ``knowledge/`` sits below ``models/``, not beside ``metrics/``.
LAYERS: list[tuple[str, str, frozenset[str]]] = [
    ("base", "what every layer raises, checks, masks and compiles: errors, Ctrl-C, secrets, cell text, kernels",
     frozenset({"anonkit.errors", "anonkit.interrupt", "anonkit._secrets", "anonkit._values", "anonkit._kernels",
                "anonkit._lazy", "anonkit._memory", "anonkit._arrow_memory", "anonkit._version"})),
    ("data", "files and databases, hierarchies, column roles and pseudonyms, the bundled data sets",
     frozenset({"anonkit.io", "anonkit.hierarchy", "anonkit.schema", "anonkit.pseudonyms", "anonkit.datasets"})),
    ("encoding", "the input encoded once, class statistics, the §0.3 distance, the adversary's knowledge",
     frozenset({"anonkit.table", "anonkit.stats", "anonkit.distance", "anonkit.knowledge"})),
    ("models", "privacy models judging class statistics, and the release they judge",
     frozenset({"anonkit.models", "anonkit.release"})),
    ("judges", "the independent verifiers, measures, risk models and attacks on a release",
     frozenset({"anonkit.verifier", "anonkit.verify_buckets", "anonkit._verify_*", "anonkit.metrics",
                "anonkit.risk", "anonkit.analytics"})),
    ("algorithms", "how releases are made: algorithms, the engines that run row-level work, location cloaking",
     frozenset({"anonkit.algorithms", "anonkit.engines", "anonkit.location"})),
    ("config", "the YAML config and the Python API's arguments, validated",
     frozenset({"anonkit.config", "anonkit._config_*", "anonkit._api_checks"})),
    ("plan", "a config validated once into an immutable Plan; every place a run reads and writes",
     frozenset({"anonkit.plan"})),
    ("audit", "a release read and judged, whoever made it",
     frozenset({"anonkit.audit"})),
    ("runner", "run(plan) on any engine, and the one summary",
     frozenset({"anonkit.runner"})),
    ("advice", "what a user is told to try: a starting config guessed from the data, the smallest change that passes",
     frozenset({"anonkit.start", "anonkit.fixes", "anonkit.evaluate"})),
    ("faces", "what people call: the package's public names, the facade, CLI, report, explore, experiments, "
     "the location services",
     frozenset({"anonkit", "anonkit.__main__", "anonkit._entry", "anonkit.pipeline", "anonkit.cli",
                "anonkit.report", "anonkit.explore", "anonkit.experiments", "anonkit.ui", "anonkit.location.stream",
                "anonkit.location.broker", "anonkit.location._broker_*"})),
]

#: imports that break a rule today: (importer, imported) → what to change. Any other upward import or
#: cycle fails, and so does a listed import that is gone or breaks no rule any more (the list only shrinks).
KNOWN_IMPORT_DEBT: dict[tuple[str, str], str] = {
}


def _matches(name: str, pattern: str) -> bool:
    return fnmatch.fnmatchcase(name, pattern) or ("." in pattern and fnmatch.fnmatchcase(name, pattern + ".*"))


def _layer_of(name: str, layers: list[tuple[str, str, frozenset[str]]]) -> int | None:
    """The index of ``name``'s layer (its most specific pattern's), or None (no pattern, or a tie)."""
    best = sorted(((len(p), i) for i, (_, _, ps) in enumerate(layers) for p in ps if _matches(name, p)), reverse=True)
    if not best or (len(best) > 1 and best[1][0] == best[0][0] and best[1][1] != best[0][1]):
        return None
    return best[0][1]


def _upward(graph: Graph, layers: list[tuple[str, str, frozenset[str]]]) -> dict[tuple[str, str], str]:
    """Every import that points up a layer → ``"a (layer) imports b (layer) at file:line"``."""
    out = {}
    for a, imported in graph.edges.items():
        for b, line in imported.items():
            la, lb = _layer_of(a, layers), _layer_of(b, layers)
            if la is not None and lb is not None and lb > la:
                out[(a, b)] = f"{a} ({layers[la][0]}) imports {b} ({layers[lb][0]}) at line {line}"
    return out


def _reaches(edges: dict[str, set[str]], start: str, goal: str) -> bool:
    seen, todo = {start}, [start]
    while todo:
        for w in edges.get(todo.pop(), ()):
            if w == goal:
                return True
            if w not in seen:
                seen.add(w)
                todo.append(w)
    return False


def _import_errors(graph: Graph, layers: list[tuple[str, str, frozenset[str]]],
                   known: dict[tuple[str, str], str]) -> list[str]:
    """Every upward import and cycle not in ``known``, and every stale entry of ``known``."""
    edges = {a: set(b) for a, b in graph.edges.items()}
    upward = _upward(graph, layers)
    errors = [f"upward import: {text}" for key, text in sorted(upward.items()) if key not in known]
    rest = {a: {b for b in bs if (a, b) not in known} for a, bs in edges.items()}
    for cycle in _cycles(rest):
        errors.append("import cycle: " + " → ".join(f"{m}:{graph.edges[m][n]}" for m, n in itertools.pairwise(cycle))
                      + f" → {cycle[-1]}")
    for a, b in sorted(known):
        if b not in edges.get(a, ()):
            errors.append(f"{a} no longer imports {b}: remove it from KNOWN_IMPORT_DEBT")
        elif (a, b) not in upward and not _reaches(edges, b, a):
            errors.append(f"{a} → {b} is neither upward nor in a cycle any more: remove it from KNOWN_IMPORT_DEBT")
    return errors


@cache
def _graph() -> Graph:
    return import_graph(SRC, "anonkit", DYNAMIC_IMPORTS)


def test_every_module_has_one_layer() -> None:
    graph = _graph()
    unplaced = [m for m in graph.modules if _layer_of(m, LAYERS) is None]
    assert not unplaced, "modules in no layer (or two at once): add them to LAYERS:\n" + "\n".join(unplaced)
    stale = [p for _, _, ps in LAYERS for p in ps if not any(_matches(m, p) for m in graph.modules)]
    assert not stale, f"LAYERS names no module: {stale}"
    unknown = [f"{a} imports {b} (line {n})" for a, bs in graph.edges.items() for b, n in bs.items()
               if b not in graph.modules]
    assert not unknown, "imports of modules that do not exist:\n" + "\n".join(unknown)


def test_computed_imports_are_declared() -> None:
    graph = _graph()
    undeclared = [f"{m}:{line}" for m, line in graph.dynamic.items() if m not in DYNAMIC_IMPORTS]
    assert not undeclared, "an import of a computed name: declare what it imports in DYNAMIC_IMPORTS:\n" + \
        "\n".join(undeclared)
    assert set(DYNAMIC_IMPORTS) <= set(graph.dynamic), "DYNAMIC_IMPORTS lists a module with no computed import"


def test_layers_point_down() -> None:
    """No import points up a layer (imports inside functions count; ``if TYPE_CHECKING:`` ones do not)."""
    errors = [e for e in _import_errors(_graph(), LAYERS, KNOWN_IMPORT_DEBT) if not e.startswith("import cycle")]
    assert not errors, "\n".join(errors)


def test_no_import_cycles() -> None:
    """No cycle of imports, a package's ``__init__`` counting as a module (see the rules above)."""
    errors = [e for e in _import_errors(_graph(), LAYERS, KNOWN_IMPORT_DEBT) if e.startswith("import cycle")]
    assert not errors, "\n".join(errors)


def _package(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def test_the_graph_reads_every_import_that_runs(tmp_path: Path) -> None:
    src = _package(tmp_path, {
        "pkg/__init__.py": "from pkg.a import f\n",
        "pkg/a.py": ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg import c\nelse:\n"
                     "    import pkg.d\n\n\ndef f():\n    from . import b\n    return 'pkg.e:run'\n"),
        "pkg/b.py": "", "pkg/c.py": "", "pkg/d.py": "",
        "pkg/e.py": "import importlib\nX = importlib.import_module('pkg.b')\nNAME = 'pkg'\n",
        "pkg/f.py": "import importlib\n\n\ndef g(n):\n    return importlib.import_module(n)\n",
        "pkg/fam/__init__.py": "", "pkg/fam/x.py": "", "pkg/fam/_y.py": "",
    })
    graph = import_graph(src, "pkg", {"pkg.f": (("pkg.fam",), "walks a family")})
    assert graph.edges["pkg"] == {"pkg.a": 1}
    assert graph.edges["pkg.a"] == {"pkg.d": 5, "pkg.b": 9, "pkg.e": 10}  # not pkg.c: TYPE_CHECKING
    assert graph.edges["pkg.e"] == {"pkg.b": 2}  # the bare package name is no import
    assert graph.edges["pkg.f"] == {"pkg.fam": 5, "pkg.fam.x": 5} and graph.dynamic == {"pkg.f": 5}


def test_a_package_init_is_a_module_of_the_cycles(tmp_path: Path) -> None:
    files = {"pkg/__init__.py": "from pkg.a import f\n", "pkg/a.py": "from pkg.b import g\n\n\ndef f():\n    g()\n",
             "pkg/b.py": "def g():\n    pass\n"}
    layers = [("all", "", frozenset({"pkg"}))]
    assert _import_errors(import_graph(_package(tmp_path / "1", files), "pkg", {}), layers, {}) == []
    files["pkg/b.py"] = "def g():\n    from pkg import f\n"  # back to the package, inside a function
    errors = _import_errors(import_graph(_package(tmp_path / "2", files), "pkg", {}), layers, {})
    assert errors == ["import cycle: pkg:1 → pkg.a:1 → pkg.b:2 → pkg"]
    known = {("pkg.b", "pkg"): "why"}
    assert _import_errors(import_graph(_package(tmp_path / "2", files), "pkg", {}), layers, known) == []
    stale = _import_errors(import_graph(_package(tmp_path / "1", {**files, "pkg/b.py": ""}), "pkg", {}), layers, known)
    assert stale == ["pkg.b no longer imports pkg: remove it from KNOWN_IMPORT_DEBT"]


def test_an_upward_import_is_found(tmp_path: Path) -> None:
    src = _package(tmp_path, {"pkg/__init__.py": "", "pkg/low.py": "def f():\n    from pkg.high import g\n",
                              "pkg/high.py": "from pkg.low import f\n\n\ndef g():\n    pass\n"})
    layers = [("low", "", frozenset({"pkg.low"})), ("high", "", frozenset({"pkg", "pkg.high"}))]
    graph = import_graph(src, "pkg", {})
    assert _upward(graph, layers) == {("pkg.low", "pkg.high"): "pkg.low (low) imports pkg.high (high) at line 2"}
    assert _layer_of("pkg", layers) == 1 and _layer_of("pkg.low", layers) == 0
    assert _layer_of("pkg.other", [("a", "", frozenset({"pkg.other"})), ("b", "", frozenset({"pkg.other"}))]) is None


# ------------------------------------------------------------------------------------------- the test suite
TESTS = ROOT / "tests"
#: a test module imports helper modules (no ``test_`` prefix: support, bad_input_kit, cases_*, pg_server),
#: never another test module nor conftest. Today's exceptions, (importer, imported) → what to move where;
#: the list only shrinks.
KNOWN_TEST_IMPORTS: dict[tuple[str, str], str] = {}


def _names_imported(node: ast.AST) -> list[str]:
    """The top-level module names an ``import``, a ``from … import`` or an ``import_module("…")`` loads."""
    if isinstance(node, ast.Import):
        return [a.name.split(".")[0] for a in node.names]
    if isinstance(node, ast.ImportFrom) and node.module and not node.level:
        return [node.module.split(".")[0]]
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute | ast.Name) and node.args
            and getattr(node.func, "attr", getattr(node.func, "id", "")) == "import_module"
            and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
        return [node.args[0].value.split(".")[0]]
    return []


def _test_imports(tests: Path) -> set[tuple[str, str]]:
    """(importer, imported) for every module of the test folder that imports a test module or conftest."""
    local = {p.stem for p in tests.glob("*.py")}
    out = set()
    for path in sorted(tests.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            out |= {(path.stem, n) for n in _names_imported(node)
                    if n in local and (n.startswith("test_") or n == "conftest") and n != path.stem}
    return out


def test_no_test_module_imports_another() -> None:
    found = _test_imports(TESTS)
    new = sorted(found - set(KNOWN_TEST_IMPORTS))
    gone = sorted(set(KNOWN_TEST_IMPORTS) - found)
    assert not new, "a test module imports a test module (move what it shares to a helper or conftest):\n" + \
        "\n".join(f"{a} imports {b}" for a, b in new)
    assert not gone, f"remove from KNOWN_TEST_IMPORTS (no longer imported): {gone}"


def test_the_test_import_rule_is_read(tmp_path: Path) -> None:
    _package(tmp_path, {"test_a.py": "import support\nfrom cases_x import CASES\n", "support.py": "",
                        "cases_x.py": "", "test_b.py": "def f():\n    from test_a import g\n",
                        "test_c.py": "import importlib\nM = importlib.import_module('conftest')\n", "conftest.py": ""})
    assert _test_imports(tmp_path) == {("test_b", "test_a"), ("test_c", "conftest")}


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


def test_the_version_is_written_once_and_matches_the_package() -> None:
    """``anonkit._version`` holds the version (every layer imports it there); ``pyproject.toml`` must say the same."""
    import tomllib

    import anonkit
    from anonkit._version import __version__

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert anonkit.__version__ == __version__ == project["version"]
