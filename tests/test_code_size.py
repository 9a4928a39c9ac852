"""Small modules and simple functions (issue 24): no module of ``src/anonkit`` over MAX_LINES lines, no
function over cyclomatic complexity MAX_COMPLEXITY as radon counts it (``radon cc``), numba kernels apart.

A numba kernel is one plain Python loop numba compiles (``_kernels.compiled``); splitting it would put
calls in the hot loop, so a kernel over the limit is allowed when NUMBA_KERNELS names it with a reason and
the test sees it compiled. What is over a limit today is KNOWN_DEBT, with its measured figure: a figure
may fall but not rise, and an item back within its limit fails the test until it leaves the list.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"


def _modules(src: Path, package: str) -> dict[str, Path]:
    """Every module of ``src/package`` by dotted name (a package by its own name)."""
    return {".".join(p.relative_to(src).with_suffix("").parts).removesuffix(".__init__"): p
            for p in sorted((src / package).rglob("*.py")) if "__pycache__" not in p.parts}


MAX_LINES = 600
MAX_COMPLEXITY = 30  # cyclomatic (McCabe), as `radon cc` counts it
#: numba kernels over MAX_COMPLEXITY (``module:function`` → why one long loop): numba compiles one plain
#: Python function to one loop, and splitting it would cost calls in the hot loop. The test checks each is
#: really compiled by numba (decorated with ``njit``/``jit``, or passed to ``compiled``/``tiered``/``njit``).
NUMBA_KERNELS = {
    "anonkit.location._batch_kernel:_run_py": "the batch cloaker: every message through cloak.py's semantics",
    "anonkit.algorithms.bucket._theta_kernels:_repair_py": "θ-cut's repair: moves records until every bucket holds",
}
#: over the limits today (module → lines, ``module:function`` → complexity), as measured: a listed figure
#: may fall but not rise, and an item back under its limit must leave the list (it only shrinks)
KNOWN_DEBT: dict[str, int] = {}
_NUMBA = {"njit", "jit", "compiled", "tiered"}


def _callee(node: ast.expr) -> str:
    node = node.func if isinstance(node, ast.Call) else node
    return node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""


def _numba_kernels(tree: ast.AST) -> set[str]:
    """Functions of a module compiled by numba: decorated with ``njit``/``jit``, or passed (by name, first)
    to ``compiled``, ``tiered``, ``njit`` or ``jit`` (``nb.njit(…)(f)`` too, and a name bound to one)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and any(_callee(d) in ("njit", "jit") for d in node.decorator_list):
            out.add(node.name)
        elif (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Name)
              and (_callee(node) in _NUMBA or (isinstance(node.func, ast.Call) and _callee(node.func) in _NUMBA))):
            out.add(node.args[0].id)
    return out


def _complexities(text: str) -> dict[str, int]:
    """Every function's cyclomatic complexity (radon), methods as ``Class.name``, closures as
    ``outer.inner`` (radon does not add a closure's branches to its outer function's)."""
    from radon.complexity import cc_visit

    out: dict[str, int] = {}

    def walk(blocks: list, prefix: str) -> None:  # type: ignore[type-arg]
        for b in blocks:
            if hasattr(b, "methods"):  # a class
                walk([*b.methods, *b.inner_classes], f"{prefix}{b.name}.")
            else:
                out[f"{prefix}{b.name}"] = b.complexity
                walk(b.closures, f"{prefix}{b.name}.")

    walk(cc_visit(text), "")
    return out


def _over_limits(modules: dict[str, Path]) -> tuple[dict[str, int], dict[str, int]]:
    """``(item over a limit → its figure, numba kernel over the complexity limit → its figure)``."""
    over, kernels = {}, {}
    for name, path in modules.items():
        text = path.read_text(encoding="utf-8")
        if (lines := len(text.splitlines())) > MAX_LINES:
            over[name] = lines
        compiled = _numba_kernels(ast.parse(text))
        for function, cc in _complexities(text).items():
            if cc > MAX_COMPLEXITY:
                (kernels if function in compiled else over)[f"{name}:{function}"] = cc
    return over, kernels


def _debt_errors(measured: dict[str, int], known: dict[str, int]) -> list[str]:
    errors = [f"{k} is {v} (over the limit): split it" for k, v in sorted(measured.items()) if k not in known]
    errors += [f"{k} is no longer over the limit: remove it from KNOWN_DEBT" for k in sorted(known)
               if k not in measured]
    errors += [f"{k} grew from {known[k]} to {v}" for k, v in sorted(measured.items()) if k in known and v > known[k]]
    return errors


def test_modules_and_functions_stay_small() -> None:
    """No module over MAX_LINES lines; no function over MAX_COMPLEXITY but the numba kernels listed."""
    over, kernels = _over_limits(_modules(SRC, "anonkit"))
    assert set(kernels) == set(NUMBA_KERNELS), (
        f"numba kernels over the limit {sorted(kernels)} must be NUMBA_KERNELS {sorted(NUMBA_KERNELS)}, each with "
        "its reason (a listed name numba does not compile, or one within the limit, leaves the list)")
    errors = _debt_errors(over, KNOWN_DEBT)
    assert not errors, "\n".join(errors)


def test_the_limits_are_measured(tmp_path: Path) -> None:
    branches = "".join(f"    if x == {i}:\n        return {i}\n" for i in range(MAX_COMPLEXITY))
    text = (f"import numba\n\n\ndef big(x):\n{branches}    return -1\n\n\n@numba.njit(cache=True)\n"
            f"def kernel(x):\n{branches}    return -1\n\n\ndef _loop_py(x):\n{branches}    return -1\n\n\n"
            "def small(x):\n    return x\n\n\nLOOP = compiled(_loop_py)\n")
    assert _complexities(text) == {"big": MAX_COMPLEXITY + 1, "kernel": MAX_COMPLEXITY + 1,
                                   "_loop_py": MAX_COMPLEXITY + 1, "small": 1}
    (tmp_path / "m.py").write_text(text + "\n" * MAX_LINES)
    over, kernels = _over_limits({"m": tmp_path / "m.py"})
    assert over == {"m": len(text.splitlines()) + MAX_LINES, "m:big": MAX_COMPLEXITY + 1}
    assert kernels == {"m:kernel": MAX_COMPLEXITY + 1, "m:_loop_py": MAX_COMPLEXITY + 1}
    assert _debt_errors({"a": 700}, {"a": 700}) == [] and _debt_errors({"a": 650}, {"a": 700}) == []
    assert _debt_errors({}, {"a": 700}) == ["a is no longer over the limit: remove it from KNOWN_DEBT"]
    assert _debt_errors({"a": 701}, {"a": 700}) == ["a grew from 700 to 701"]
    assert _debt_errors({"b": 650}, {}) == ["b is 650 (over the limit): split it"]


def test_no_module_reaches_into_another_packages_private_parts() -> None:
    """A ``_private`` module or name is its package's own: no module outside that package imports it
    (the root package's private modules, such as ``anonkit._values``, serve the whole package).
    What another package needs is made public and documented where it lives."""
    found = []
    for name, path in _modules(SRC, "anonkit").items():
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        for node in ast.walk(ast.parse(path.read_text())):
            if not (isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("anonkit")):
                continue
            parts = node.module.split(".")
            private = next((i for i, part in enumerate(parts) if i and part.startswith("_")), None)
            if private is not None:
                owners = [".".join(parts[:private])]
            else:
                is_package = (SRC / Path(*parts) / "__init__.py").exists()
                owner = node.module if is_package else node.module.rsplit(".", 1)[0]
                owners = [owner] if any(a.name.startswith("_") and not a.name.startswith("__")
                                        for a in node.names) else []
            for owner in owners:
                if package != owner and not package.startswith(owner + "."):
                    found.append(f"{name}:{node.lineno} imports {node.module} "
                                 f"({', '.join(a.name for a in node.names)})")
    assert not found, "private parts of another package (make them public where they live):\n" + "\n".join(found)
