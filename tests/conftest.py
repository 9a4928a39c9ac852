"""Shared fixtures: the test data of ``tests/data``, the bundled Adult files and tables built from them.

How the test folder shares code (issue 24: "no test module imports another"):

* A fixture used by several test modules is defined here, once, with the widest scope that is safe:
  session scope for what no test changes (``adult``, ``adult9``, ``ncp_table``, the frames of
  ``tests/data``). ``adult`` checks at the end of the session that no test changed it. A test module may
  still define a fixture of the same name for its own, different value (``adult`` in test_flash,
  test_lightning, test_mondrian, test_report, test_spark_engine and test_two_cores is a table or a run
  of that file's own); the nearest definition wins.
* Helpers that are not fixtures live in helper modules, which have no ``test_`` prefix and hold no
  tests: ``support.py`` (tables, the CLI runner, toy configs), ``bad_input_kit.py`` (the bad-input
  catalogue's kit: a ``Case`` and the changes it makes), ``cases_*.py`` (the catalogue's cases, data
  modules read by ``test_bad_input.py``) and ``pg_server.py`` (a throw-away PostgreSQL server). They
  stay plain modules rather than fixtures because cases are built at collection time (parametrize
  reads ``CASES``), before any fixture exists. A test module imports helper modules only: never another
  ``test_`` module, never this file (``tests/test_architecture.py`` checks it; today's exceptions are
  its ``KNOWN_TEST_IMPORTS``, which only shrinks).
* Helper modules named for the data they hold, each shared by the test modules its docstring names:
  ``suite_inputs.py`` (the common suite's random table, models and drawn options), ``one_to_many_tables.py``
  (random 1:M tables), ``anatomy_links.py`` (an Anatomy release's private link), ``clinic_tables.py``
  (KACA's and MDAV's clinic tables), ``lattice_problems.py`` (random lattice problems and the optimum
  test), ``synthetic_run.py`` (a hand-made run for the HTML report), ``mondrian_tables.py`` (Mondrian's
  random tables and Adult). The ``spark`` session below is the one of both Spark test modules.
"""

from __future__ import annotations

import gc
import hashlib
import sys
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pandas as pd
import pytest
import typer.testing as typer_testing
from hypothesis import settings

from anonkit._entry import GC_THRESHOLDS

# The workers collect garbage cycles as the console script does (anonkit._entry.GC_THRESHOLDS): the
# suite makes millions of short-lived objects and few cycles, and Python's default thresholds cost it
# about a seventh of its CPU time (the lattice, batch, weighted-table and Mondrian modules: 137 → 117
# CPU-s). No test depends on when a cycle is collected; the memory tests measure the same peaks.
gc.set_threshold(*GC_THRESHOLDS)

# CI and a plain ``pytest`` run the same examples every time (the project's runs are deterministic);
# ``--hypothesis-profile=explore`` draws new ones to look for fresh failures. No deadline: a test's
# speed is no property of the code under test, and a loaded machine would fail it at random.
settings.register_profile("default", derandomize=True, deadline=None)
settings.register_profile("explore", derandomize=False, deadline=None)
settings.load_profile("default")


def pytest_configure(config: pytest.Config) -> None:
    """Before any test (in the controlling process only): anonkit's modules compiled to bytecode, as
    ``pip install .`` leaves them. The suite starts a few hundred Python processes that import anonkit (the
    examples, the docs' commands, Ctrl-C, the services); with ``PYTHONDONTWRITEBYTECODE`` set, as on
    this project's machines, an editable install has no bytecode, and each of them compiled about 190
    modules again (about 0.2 CPU-s). A bytecode file that is older than its source is never read."""
    if hasattr(config, "workerinput"):  # an xdist worker: its controller has compiled them
        return
    import compileall

    import anonkit

    compileall.compile_dir(Path(anonkit.__file__).parent, quiet=1)


def _command_built_once(get_command):  # type: ignore[no-untyped-def]
    """typer's test runner, invoking an app, builds its click command anew on every call (about 20 ms for
    anonkit's: every parameter of every command read from its signature, string annotations evaluated);
    the console script builds it once per process. The tests' runner builds it once per app object as
    the console script does, which is most of the cost of the bad-input catalogue's 1,100 cases.

    The cache holds the app itself beside its command, so an app's identity cannot be reused by another;
    a command reads its options' values at each invocation, so caching it changes no outcome."""
    built: dict[int, tuple[object, object]] = {}

    def cached(app):  # type: ignore[no-untyped-def]
        hit = built.get(id(app))
        if hit is None or hit[0] is not app:
            hit = built[id(app)] = (app, get_command(app))
        return hit[1]

    return cached


typer_testing._get_command = _command_built_once(typer_testing._get_command)

#: the tests that start Spark (a JVM: tens of CPU-seconds to start and warm up on 2 cores): the two Spark
#: modules and the Spark example of test_fail_closed (which reuses the session its worker already has)
SPARK_TESTS = ("tests/test_spark_engine.py::", "tests/test_spark_mondrian.py::", "[adult-spark.yaml]")


def _spark_or_own(nodeid: str) -> str:
    """The scheduling unit of a test: ``"spark"`` for the tests that start Spark, else the test itself."""
    return "spark" if any(part in nodeid for part in SPARK_TESTS) else nodeid


def pytest_xdist_make_scheduler(config, log):  # type: ignore[no-untyped-def]
    """With ``-n`` (the README's command, pytest-xdist's ``load``): every test that starts Spark runs on
    one worker, so one JVM starts and warms up rather than one per worker; every other test is handed out
    one at a time, as ``load`` does. xdist's own ``--dist loadgroup`` would do this from a mark, but it
    renames test ids through a field pytest 9 no longer reads. Any other ``--dist`` is xdist's own."""
    if config.getvalue("dist") != "load":
        return None
    from xdist.scheduler import LoadGroupScheduling

    class SparkOnOneWorker(LoadGroupScheduling):  # the largest unit (Spark's) is handed out first
        def _split_scope(self, nodeid: str) -> str:
            return _spark_or_own(nodeid)

    return SparkOnOneWorker(config, log)


@pytest.fixture(autouse=True)
def _no_encoding_kept_from_another_test() -> Iterator[None]:
    """Each test starts with no encoding kept by ``anonymize()`` (anonkit.runner._encoding_reuse) and nothing
    kept by the hierarchies' content (anonkit.stats.content_memo), no shuffle kept by the publisher
    (anonkit.release): a test's outcome never depends on which tests its worker ran before it."""
    reuse = sys.modules.get("anonkit.runner._encoding_reuse")
    if reuse is not None:
        reuse.clear()
    stats = sys.modules.get("anonkit.stats")
    if stats is not None:
        stats._CONTENT_MEMO.clear()
    release = sys.modules.get("anonkit.release")
    if release is not None:
        release.clear_shuffles()
    yield


TESTS = Path(__file__).resolve().parent
DATA = TESTS / "data"
ADULT = TESTS.parent / "src" / "anonkit" / "datasets" / "data"


def read_csv(path: Path) -> pd.DataFrame:
    """Read an ARX-style CSV: ``;``-separated, every cell as text, nothing read as missing."""
    return pd.read_csv(path, sep=";", dtype=str, keep_default_na=False)


@pytest.fixture(scope="session")
def data_dir() -> Path:
    return DATA


@pytest.fixture(scope="session")
def adult_dir() -> Path:
    return ADULT


@pytest.fixture(scope="session")
def test2_frame() -> pd.DataFrame:
    """The 9 records of the t-closeness paper: ZIPCode, Age, Salary (thousands), Disease."""
    return read_csv(DATA / "test2.csv")


@pytest.fixture(scope="session")
def test2_hierarchies() -> dict:
    from anonkit.hierarchy import read_hierarchy

    return {
        name: read_hierarchy(DATA / f"test2_hierarchy_{name}.csv", name=name) for name in ("ZIPCode", "Age", "Disease")
    }


@pytest.fixture(scope="session")
def adult_frame() -> pd.DataFrame:
    return read_csv(ADULT / "adult.csv")


def _fingerprint(frame: pd.DataFrame, hierarchies: dict) -> str:
    """A digest of a frame's cells, columns and types and of every hierarchy's maps and labels."""
    digest = hashlib.sha256(pd.util.hash_pandas_object(frame, index=True).to_numpy().tobytes())
    digest.update(repr([(str(c), str(t)) for c, t in frame.dtypes.items()]).encode())
    for name in sorted(hierarchies):
        h = hierarchies[name]
        digest.update(name.encode() + h.maps.tobytes() + repr([list(level) for level in h.labels]).encode())
    return digest.hexdigest()


@cache
def _adult() -> tuple[pd.DataFrame, dict]:
    """``load_adult()`` once per session, for the fixtures below (not a fixture itself, so that a test
    module's own ``adult`` cannot stand in for it)."""
    from anonkit import load_adult

    return load_adult()


@pytest.fixture(scope="session")
def adult() -> Iterator[tuple[pd.DataFrame, dict]]:
    """``load_adult()``: the Adult frame (every cell as text) and its nine hierarchies, shared by the
    whole session; fails at the end if a test changed them (a test that needs to change Adult copies it)."""
    frame, hierarchies = _adult()
    before = _fingerprint(frame, hierarchies)
    yield frame, hierarchies
    assert _fingerprint(frame, hierarchies) == before, "a test changed the shared Adult frame or hierarchies"


@pytest.fixture(scope="session")
def adult9():  # type: ignore[no-untyped-def]
    """All nine Adult attributes are quasi-identifiers, with ARX's hierarchies (ARX's tests without a
    sensitive attribute, e.g. TestAnonymizationHeuristic)."""
    from anonkit import Schema, Table

    frame, h = _adult()
    before = _fingerprint(frame, h)
    yield Table(frame, Schema.of(quasi=list(frame.columns), hierarchies={q: h[q] for q in frame.columns}))
    assert _fingerprint(frame, h) == before, "a test changed the shared Adult frame or hierarchies"


@pytest.fixture(scope="session")
def ncp_table():  # type: ignore[no-untyped-def]
    """Spec §2.1's table: Age numeric on 20–60 with a hierarchy, Sex {M, F}; (25,M), (30,F), (40,M), (60,M)."""
    import support

    return support.ncp_table()


@pytest.fixture(scope="session")
def adult_bk_table():
    """Adult as paper A uses it: QIs age (numeric, with its hierarchy), sex, education; sensitive
    salary-class."""
    from anonkit import Schema, Table, load_adult

    frame, hierarchies = load_adult()
    qis = ["age", "sex", "education"]
    schema = Schema.of(
        quasi=qis,
        sensitive=["salary-class"],
        hierarchies={q: hierarchies[q] for q in qis},
        types={"age": "numeric"},
        default_role="insensitive",
    )
    return Table(frame, schema)


@pytest.fixture(scope="session")
def spark():  # type: ignore[no-untyped-def]
    """One Spark session in ``local[2]`` mode for the whole run (test_spark_engine, test_spark_mondrian):
    anonkit's own session (``spark_session``: Arrow, UTC, the driver's Python for the workers) with 4
    shuffle partitions, no UI and 1 GB for the driver."""
    from anonkit.engines.spark import spark_session

    return spark_session("local[2]", {"spark.sql.shuffle.partitions": "4", "spark.ui.enabled": "false",
                                      "spark.driver.memory": "1g"})
