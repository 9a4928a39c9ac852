"""Issue 30, item 1: measures that never dominate, fixed costs, tiering on CPU time — behaviour only
(the durations are ``benchmarks/bench_fixed_costs.py``'s to report; no test here times anything).

* Record linkage's candidates by pattern (:mod:`anonkit.metrics._linkage`) are exactly the pair
  enumeration's, on random local recodings and on the bucket releases that made it necessary.
* ``anonkit --version`` answered before the command line loads prints what the command line prints;
  ``anonkit --help`` loads no numpy, pandas or numba, and no command: it lists the commands from their
  sources, byte for byte the whole command line's help.
* The numpy→numba switch counts CPU time, so waiting (a busy machine) never loads numba.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from anonkit import _kernels as K
from anonkit import anonymize, load_adult
from anonkit.algorithms.local import partition_release
from anonkit.hierarchy import Hierarchy
from anonkit.metrics import risk
from anonkit.metrics._linkage import candidates_by_pattern
from anonkit.metrics.coverage import covered
from anonkit.models import DistinctLDiversity, KAnonymity
from anonkit.release import CUSTOM, Release
from anonkit.schema import Schema
from anonkit.table import Table

# ---------------------------------------------------------------------------------------- record linkage

COLORS = ["red", "green", "blue", "black", "white"]
H_COLOR = Hierarchy([["red", "warm", "*"], ["green", "cold", "*"], ["blue", "cold", "*"],
                     ["black", "dark", "*"], ["white", "dark", "*"]], name="color")
H_SIZE = Hierarchy([["S", "small", "*"], ["M", "small", "*"], ["L", "large", "*"]], name="size")


def local_table(rng: np.random.Generator, n: int, numerics: int) -> Table:
    """``numerics`` numeric QIs (age, then income) published as intervals, and two categorical QIs
    with hierarchies (published at the lowest common node of their class)."""
    frame = pd.DataFrame({"age": rng.integers(20, 40, size=n), "income": rng.integers(0, 6, size=n) * 1000,
                          "color": rng.choice(COLORS, size=n), "size": rng.choice(["S", "M", "L"], size=n)})
    numeric = ["age", "income"][:numerics]
    frame = frame[[*numeric, "color", "size"]]
    schema = Schema.of(quasi=list(frame.columns), types={q: "numeric" for q in numeric},
                       hierarchies={"color": H_COLOR, "size": H_SIZE})
    return Table(frame, schema)


def pairs_reference(table: Table, release: Release) -> np.ndarray:
    """Every class's size added to every distinct tuple it contains, pair by pair in Python: a node
    by the hierarchy, an interval or set by :func:`~anonkit.metrics.coverage.covered`."""
    sizes = release.class_sizes()
    covers = {j: covered(table, release, j) for j in range(len(table.qi))
              if (release.class_levels[:, j] == CUSTOM).any()}
    out = np.zeros(table.distinct.size)
    for t, leaves in enumerate(table.distinct.tuples):
        for c in np.flatnonzero(sizes > 0):
            inside = True
            for j, h in enumerate(table.hierarchies):
                level = int(release.class_levels[c, j])
                if level == CUSTOM:
                    inside = bool(covers[j].contains(np.array([c]), np.array([leaves[j]]))[0])
                else:
                    inside = bool(h.maps[level, leaves[j]] == release.class_nodes[c, j])
                if not inside:
                    break
            if inside:
                out[t] += sizes[c]
    return out


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32 - 1), st.integers(8, 40), st.integers(1, 2), st.integers(1, 4),
       st.sampled_from(["lca", "set"]))
def test_candidates_by_pattern_are_the_pairs_counts(seed: int, n: int, numerics: int, k: int,
                                                    categorical: str) -> None:
    """With one interval QI every class goes by pattern; with two (or sets), by the pair enumeration:
    either way, and together, the counts are the pair-by-pair reference's, bit for bit."""
    rng = np.random.default_rng(seed)
    table = local_table(rng, n, numerics)
    groups = rng.permutation(np.arange(n) % max(1, n // k))
    rel = partition_release(table, groups, [KAnonymity(1)], algorithm="t", categorical=categorical)  # type: ignore[arg-type]
    expected = pairs_reference(table, rel)
    assert np.array_equal(risk.linkage_candidates(table, rel), expected)
    present = np.flatnonzero(rel.class_sizes() > 0)
    out = np.zeros(table.distinct.size)
    rest = candidates_by_pattern(table, rel, present, out)
    one_interval = ((rel.class_levels[present] == CUSTOM).sum(axis=1) <= 1) & (categorical == "lca")
    assert set(present[one_interval]) <= set(present) - set(rest)  # it takes every class it can
    risk._candidates_custom(table, rel, rest, out)
    assert np.array_equal(out, expected)


@pytest.fixture(scope="module")
def adult_releases() -> list[Release]:
    """Anatomy and Stack and Deal on 3,000 Adult records (intervals on age, every other QI a node)."""
    frame, h = load_adult()
    frame = frame.head(3000)
    qis = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass", "salary-class"]
    schema = Schema.of(quasi=qis, sensitive=["occupation"], hierarchies={q: h[q] for q in qis},
                       types={"age": "numeric"})
    return [anonymize(frame, schema, [DistinctLDiversity("occupation", 3)], algorithm="anatomy").release,
            anonymize(frame, schema, [KAnonymity(5)], algorithm="stack-and-deal").release]


def test_bucket_releases_link_as_the_pair_enumeration_says(adult_releases: list[Release]) -> None:
    """The releases whose record linkage cost seconds: every class now goes by pattern, and the
    measure's counts and value are the enumeration's (and the counted release's)."""
    for release in adult_releases:
        for rel in (release, release.counted()):
            table = rel.table
            present = np.flatnonzero(rel.class_sizes() > 0)
            out = np.zeros(table.distinct.size)
            assert candidates_by_pattern(table, rel, present, out).size == 0
            enumerated = np.zeros(table.distinct.size)
            risk._candidates_custom(table, rel, present, enumerated)
            assert np.array_equal(out, enumerated)
            assert np.array_equal(risk.linkage_candidates(table, rel), enumerated)
        assert risk.record_linkage(release.table, release) == risk.record_linkage(release.table, release.counted())


def test_a_difference_table_too_large_goes_to_the_enumeration(monkeypatch: pytest.MonkeyPatch) -> None:
    """When the keys' difference table would be too large (here: any), every class is handed back and
    the counts still come out whole, by the enumeration."""
    import anonkit.metrics._linkage as L

    rng = np.random.default_rng(3)
    table = local_table(rng, 30, 1)
    rel = partition_release(table, rng.permutation(np.arange(30) % 6), [KAnonymity(1)], algorithm="t")
    expected = pairs_reference(table, rel)
    present = np.flatnonzero(rel.class_sizes() > 0)
    assert candidates_by_pattern(table, rel, present, np.zeros(table.distinct.size)).size == 0
    monkeypatch.setattr(L, "TABLE_CELLS", 0)
    assert np.array_equal(candidates_by_pattern(table, rel, present, np.zeros(table.distinct.size)), present)
    assert np.array_equal(risk.linkage_candidates(table, rel), expected)


@pytest.mark.parametrize("n", [5, 64, 70, 130])
def test_an_interval_alone_holds_every_tuple_in_its_range(n: int) -> None:
    """One numeric QI and nothing else: a key without a hierarchy QI holds every tuple (the bit set's
    last word padded with no phantom tuple), its range decides."""
    table = Table(pd.DataFrame({"age": np.arange(2 * n) % (n + 3)}), Schema.of(quasi=["age"], types={"age": "numeric"}))
    rel = partition_release(table, np.arange(2 * n) % 5, [KAnonymity(1)], algorithm="t")
    assert (rel.class_levels == CUSTOM).all()
    assert np.array_equal(risk.linkage_candidates(table, rel), pairs_reference(table, rel))


# ---------------------------------------------------------------------------------------- start-up


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "80"}
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env, timeout=120)


def test_version_fast_path_prints_what_the_command_line_prints() -> None:
    """``anonkit --version`` (the console script's fast path) is byte for byte the command line's
    answer, and loads neither typer nor click; ``--version`` with anything else goes to the command line."""
    from anonkit.cli import app

    typer_answer = CliRunner().invoke(app, ["--version"], prog_name="anonkit")
    assert typer_answer.exit_code == 0
    probe = ("import sys; sys.argv = ['anonkit', '--version']; from anonkit._entry import main; main(); "
             "print(sorted(m for m in ('typer', 'click', 'rich') if m in sys.modules))")
    fast = _run("-c", probe)
    assert fast.returncode == 0, fast.stderr
    assert fast.stdout == typer_answer.stdout + "[]\n"
    both = _run("-m", "anonkit", "--version", "models")
    assert both.returncode == 0 and both.stdout == typer_answer.stdout  # click's eager option, as before


def test_help_loads_no_numpy_pandas_or_numba() -> None:
    """``anonkit --help`` (and a command's) imports nothing of the data stack (``-X importtime`` lists
    every module the process imported)."""
    for args in (["--help"], ["anonymize", "--help"], ["--version"]):
        done = _run("-X", "importtime", "-m", "anonkit", *args)
        assert done.returncode == 0, done.stderr
        imported = {line.split("|")[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
        assert len(imported) > 10  # the probe sees imports at all
        assert not imported & {"numpy", "pandas", "numba", "pyarrow"}, args


def _render(command, args: list[str], width: int, prog: str = "anonkit") -> tuple[object, str]:  # type: ignore[no-untyped-def]
    """What ``command`` prints (stdout and stderr, in order) and its exit code for ``args`` at ``width`` columns."""
    import contextlib
    import io

    out = io.StringIO()
    code: object = None
    was = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = str(width)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            command.main(args, prog_name=prog, standalone_mode=True)
    except SystemExit as done:
        code = done.code
    finally:
        if was is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = was
    return code, out.getvalue()


@pytest.mark.parametrize("width", [80, 52, 120])
@pytest.mark.parametrize("args", [["--help"], []])
def test_the_help_without_commands_is_the_whole_command_lines(args: list[str], width: int) -> None:
    """``anonkit --help`` (and ``anonkit`` alone) listed from the commands' sources, without importing
    one, is byte for byte what the command line with every command registered prints, exit code included."""
    import typer

    import anonkit.cli as cli

    light = cli.help_only_group(cli._root(), cli.COMMANDS)
    assert light is not None
    whole = _render(typer.main.get_command(cli.app), args, width)
    assert _render(light, args, width) == whole
    assert "Commands:" in whole[1] and all(f"  {name} " in whole[1] for name, _ in cli.COMMANDS)


def test_each_declared_help_is_the_registered_commands() -> None:
    """:func:`declared_help` reads from a command's source what Typer registers for it; a target
    whose help the source cannot give (no such name, a decorated function) is ``None``, and then the
    help-only group is not made (the whole command line answers)."""
    import typer

    import anonkit.cli as cli
    from anonkit.cli.helptext import declared_help, help_only_group

    registered = typer.main.get_command(cli.app).commands  # type: ignore[attr-defined]
    assert [name for name, _ in cli.COMMANDS] == list(registered)
    for name, target in cli.COMMANDS:
        assert declared_help(target) == registered[name].help, name
    assert declared_help("anonkit.cli.init:no_such_command") is None
    assert declared_help("anonkit.cli.helptext:HelpGroup") is None  # a class, not a command
    assert declared_help("anonkit.cli.no_such_module:x") is None
    assert help_only_group(cli._root(), [*cli.COMMANDS, ("x", "anonkit.cli.init:no_such_command")]) is None


def _loaded_after(*argv: str) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    """The console script's entry run with ``argv``, and the modules it had loaded when it exited
    (printed by an exit handler after its own output: ``-X importtime`` misses ``importlib.import_module``)."""
    probe = ("import atexit, sys; atexit.register(lambda: print('\\nLOADED', ' '.join(sorted(sys.modules)))); "
             f"sys.argv = ['anonkit', *{list(argv)!r}]; from anonkit._entry import main; main()")
    done = _run("-c", probe)
    text, _, loaded = done.stdout.rpartition("\nLOADED ")
    return subprocess.CompletedProcess(done.args, done.returncode, text, done.stderr), set(loaded.split())


def test_help_imports_no_command_and_prints_the_whole_help() -> None:
    """The process ``anonkit --help`` imports no command module and no rich, and prints what the whole
    command line prints; a command's own ``--help`` (the control) does import its module."""
    import typer

    import anonkit.cli as cli

    commands = {target.partition(":")[0] for _, target in cli.COMMANDS}
    done, loaded = _loaded_after("--help")
    assert done.returncode == 0, done.stderr
    assert "anonkit.cli.helptext" in loaded
    assert not loaded & (commands | {"rich", "anonkit.cli.console", "numpy", "pandas", "numba"})
    assert done.stdout == _render(typer.main.get_command(cli.app), ["--help"], 80)[1]
    control, loaded = _loaded_after("models", "--help")
    assert control.returncode == 0, control.stderr
    assert {"anonkit.cli.models", "rich"} <= loaded


# ---------------------------------------------------------------------------------------- tiering


@pytest.fixture()
def fresh_tier(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """A tier on numpy with a 50 ms budget, restored afterwards."""
    was = K.use_numba()
    K.use_numba(False)
    monkeypatch.setattr(K, "NUMBA_AFTER_SECONDS", 0.05)
    yield
    K.use_numba(was)


def _kernel(x: int) -> int:
    return x + 1


def test_waiting_does_not_spend_the_numba_budget(fresh_tier: None) -> None:
    """A numpy version that waits (as on a machine whose cores are busy) spends no CPU time: the
    tier stays on numpy however long the wait."""
    def waits(x: int) -> int:
        time.sleep(0.06)
        return x + 1

    assert K.tiered(_kernel, waits, 1) == 2
    assert K.tiered(_kernel, waits, 1) == 2
    assert not K.use_numba()


def test_working_spends_the_numba_budget(fresh_tier: None) -> None:
    """The control: a numpy version that works on the CPU for longer than the budget switches the tier."""
    def works(x: int) -> int:
        start = time.thread_time()
        while time.thread_time() - start < 0.06:
            pass
        return x + 1

    assert K.tiered(_kernel, works, 1) == 2
    assert K.use_numba()


# ---------------------------------------------------------------------------------------- no per-record loop


def _lines_run(fn) -> int:  # type: ignore[no-untyped-def]
    """How many lines of anonkit's own code ``fn()`` executes (every Python-level step it takes)."""
    root = os.path.dirname(risk.__file__).rsplit(os.sep, 1)[0]  # src/anonkit
    count = 0

    def tracer(frame, event, arg):  # type: ignore[no-untyped-def]
        nonlocal count
        if not frame.f_code.co_filename.startswith(root):
            return None
        if event == "line":
            count += 1
        return tracer

    sys.settrace(tracer)
    try:
        fn()
    finally:
        sys.settrace(None)
    return count


def test_the_default_measures_take_no_python_step_per_record() -> None:
    """Every measure of the default summary runs in vectorized code: on the same classes and distinct
    tuples with three times the records (each record three times), the measures execute about as
    many lines of Python (a branch may differ) — a loop over records would add at least one line per
    added record. On a full-domain release and on a local recoding."""
    from anonkit.metrics import compute_metrics

    rng = np.random.default_rng(5)
    frame = local_table(rng, 60, 1).frame.reset_index(drop=True)
    tripled = pd.concat([frame] * 3, ignore_index=True)
    schema = Schema.of(quasi=list(frame.columns), types={"age": "numeric"},
                       hierarchies={"color": H_COLOR, "size": H_SIZE})
    groups = rng.permutation(np.arange(60) % 8)
    steps = []
    for data, group in ((frame, groups), (tripled, np.tile(groups, 3))):
        table = Table(data, schema)
        local = partition_release(table, group, [KAnonymity(1)], algorithm="t")
        full = anonymize(data, schema, [KAnonymity(2)], algorithm="fixed", levels=[1, 1, 0],
                         max_suppression=1.0).release
        assert (local.class_levels == CUSTOM).any() and (full.class_levels != CUSTOM).all()
        steps.append([_lines_run(lambda r=r: compute_metrics(r.table, r)) for r in (local, full)])
    added = len(tripled) - len(frame)
    assert all(abs(b - a) < added for a, b in zip(steps[0], steps[1], strict=True)), (steps, added)
    assert min(steps[0]) > 1000  # the tracer sees the measures' code
