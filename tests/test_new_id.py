"""``role: new-id`` (issue 28, item 6; sdcMicro's ``createNewID``): an id column replaced by random ids
drawn from the run's seed.

What it promises, each with a case that would fail without it: one run is reproducible (same seed,
same ids); two runs with different seeds share no id; a person's rows keep one id and two persons
never share one (a bijection of the original's distinct values); the ids are fixed-width hexadecimal
and never an original value; no original value of the column reaches any file a run writes; the
independent check (:mod:`anonkit._verify_new_id`) refuses a release that breaks any of it.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from anonkit import Schema, anonymize
from anonkit._verify_new_id import check_new_ids, new_id_problems, person_new_id_problems
from anonkit.cli import app
from anonkit.errors import InputError
from anonkit.models import KAnonymity
from anonkit.pseudonyms import NEW_ID_CHARS, new_ids
from anonkit.schema import Attribute, Role, parse_role
from one_to_many_tables import random_one_to_many

TOKEN = re.compile(rf"[0-9a-f]{{{NEW_ID_CHARS}}}")


def people(n: int = 36, persons: int = 12) -> pd.DataFrame:
    """``n`` records of ``persons`` people (ids ``P000`` …), each person's rows with one age and sex."""
    rng = np.random.default_rng(7)
    who = np.arange(n) % persons
    ages, sexes = rng.integers(20, 60, persons), rng.choice(["m", "f"], persons)
    return pd.DataFrame({"pid": [f"P{p:03d}" for p in who], "age": ages[who], "sex": sexes[who],
                         "dis": rng.choice(list("abc"), n)})


SCHEMA = Schema.of(quasi=["age", "sex"], sensitive=["dis"], new_id=["pid"])


@pytest.fixture(scope="module")
def runs() -> dict[int, pd.DataFrame]:
    """The published frames of runs with seeds 3, 3 again (as key 33) and 4 (Mondrian, k = 3)."""
    frame = people()
    out = {s: anonymize(frame, SCHEMA, [KAnonymity(3)], algorithm="mondrian", seed=s % 10).frame for s in (3, 33, 4)}
    return out


def test_same_seed_same_ids_other_seed_shares_none(runs: dict[int, pd.DataFrame]) -> None:
    assert runs[3].equals(runs[33])
    assert not set(runs[3]["pid"]) & set(runs[4]["pid"])


def test_one_id_per_person_and_back(runs: dict[int, pd.DataFrame]) -> None:
    frame, published = people(), runs[3]
    assert published["pid"].map(lambda t: bool(TOKEN.fullmatch(t))).all()
    assert published["pid"].nunique() == frame["pid"].nunique() == 12
    assert not set(published["pid"]) & set(frame["pid"])
    # the rows are shuffled, so link them through what each person's rows share (age, sex, count)
    before = frame.groupby("pid").size().sort_values().to_numpy()
    after = published.groupby("pid").size().sort_values().to_numpy()
    assert (before == after).all()


def test_role_and_its_refusals() -> None:
    assert parse_role("new-id") is Role.NEW_ID and parse_role("newid") is Role.NEW_ID
    with pytest.raises(InputError, match="publish"):
        Attribute("pid", Role.NEW_ID, publish="renumbered")
    with pytest.raises(InputError, match="key_env"):
        Attribute("pid", Role.NEW_ID, key_env="X")
    with pytest.raises(InputError, match="never generalized"):
        Attribute("pid", Role.NEW_ID, max_level=1)
    with pytest.raises(InputError, match="two roles"):
        Schema.of(quasi=["pid"], new_id=["pid"])
    assert Schema.of(new_id=["pid"]).with_run_seed(9)["pid"].seed == 9  # control: the run's seed reaches it


@settings(max_examples=20, deadline=None)
@given(n=st.integers(0, 300), seed=st.integers(0, 2**32), column=st.text(min_size=1, max_size=5))
def test_new_ids_are_distinct_fixed_width_tokens(n: int, seed: int, column: str) -> None:
    ids = new_ids(n, seed, column)
    assert len(set(ids)) == n and all(TOKEN.fullmatch(t) for t in ids)
    assert (new_ids(n, seed, column) == ids).all()


def test_token_order_says_nothing_of_the_input_order() -> None:
    ids = new_ids(200, 0, "pid")
    assert sorted(ids) != list(ids) and sorted(ids, reverse=True) != list(ids)


def test_the_independent_check_refuses_each_broken_promise() -> None:
    original = pd.DataFrame({"pid": ["a", "a", "b", "c"]})
    good = pd.DataFrame({"pid": [f"{v:016x}" for v in (1, 1, 2, 3)]})
    rows = np.arange(4)
    assert new_id_problems(original, good, rows, ["pid"]) == []  # control
    merged = good.assign(pid=[f"{v:016x}" for v in (1, 1, 1, 3)])
    assert "two original values" in new_id_problems(original, merged, rows, ["pid"])[0]
    split = good.assign(pid=[f"{v:016x}" for v in (1, 4, 2, 3)])
    assert "two different ids" in new_id_problems(original, split, rows, ["pid"])[0]
    short = good.assign(pid=["1", "1", "2", "3"])
    assert "hexadecimal" in new_id_problems(original, short, rows, ["pid"])[0]
    leaked_original = pd.DataFrame({"pid": [f"{1:016x}", "x", "y", "z"]})
    assert any("is an original value" in p for p in new_id_problems(leaked_original, good, rows, ["pid"]))
    with pytest.raises(AssertionError, match="new ids"):
        check_new_ids(original, merged, rows, ["pid"])


def test_no_original_id_reaches_any_written_file(tmp_path) -> None:  # type: ignore[no-untyped-def]
    frame = people()
    frame["pid"] = [f"secret-{p}" for p in frame["pid"]]
    frame.to_csv(tmp_path / "in.csv", index=False)
    config = {"input": {"path": "in.csv"},
              "attributes": {"pid": {"role": "new-id"}, "age": {"role": "quasi"}, "sex": {"role": "quasi"},
                             "dis": {"role": "sensitive"}},
              "privacy": [{"model": "k-anonymity", "k": 3}], "algorithm": {"name": "mondrian"},
              "output": {"path": "out.csv"}, "seed": 5}
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(config))
    got = CliRunner().invoke(app, ["anonymize", str(tmp_path / "c.yaml"), "--json", "--report",
                                   str(tmp_path / "r.html")])
    assert got.exit_code == 0, got.output
    out = pd.read_csv(tmp_path / "out.csv", dtype=str)
    assert out["pid"].str.fullmatch(TOKEN.pattern).all() and out["pid"].nunique() == 12
    written = [p for p in tmp_path.iterdir() if p.name not in ("in.csv", "c.yaml")]
    assert {p.name for p in written} >= {"out.csv", "r.html"}
    for text in [got.output, *(p.read_text() for p in written)]:
        assert "secret-" not in text
    assert "new random ids" in json.dumps(json.loads(got.output[got.output.index("{"):]))


# ------------------------------------------------------------------ tables of persons and bucket tables
def _one_to_many() -> tuple[pd.DataFrame, Schema]:
    """one_to_many_tables' records of 40 persons with a record id ``rid`` as new-id."""
    frame, schema = random_one_to_many(3, 40)
    frame = frame.assign(rid=[f"r{i}" for i in range(len(frame))])
    return frame, Schema({**schema.attributes, "rid": Attribute("rid", Role.NEW_ID)})


@pytest.fixture(scope="module")
def angelized():  # type: ignore[no-untyped-def]
    frame, schema = _one_to_many()
    return frame, anonymize(frame, schema, [KAnonymity(3)], algorithm="angelization", seed=5, **{"lambda": 0.8})


def test_angelization_publishes_each_persons_new_ids(angelized) -> None:  # type: ignore[no-untyped-def]
    """The QT carries the new-id column: a person's records' ids as one id or the set ``{a;b}``, never an
    original value; the run's own check passed (it raised otherwise)."""
    frame, res = angelized
    qt = res.release.tables["qt"]
    assert res.verification.ok and "rid" in qt.columns
    ids = [t for cell in qt["rid"].astype(str) for t in cell.strip("{}").split(";")]
    assert all(TOKEN.fullmatch(t) for t in ids) and len(ids) == len(set(ids)) == len(frame)
    assert not set(ids) & set(frame["rid"])


def test_the_person_check_refuses_each_broken_promise(angelized) -> None:  # type: ignore[no-untyped-def]
    frame, res = angelized
    qt = res.release.tables["qt"]
    link = (np.asarray(res.release.notes["qt_person"]), res.release.table.person)
    assert person_new_id_problems(frame, qt, *link, ["rid"]) == []  # control
    many = qt["rid"].astype(str).str.startswith("{").to_numpy().nonzero()[0][0]
    cells = qt["rid"].astype(str).tolist()
    first = cells[many].strip("{}").split(";")
    dropped = qt.assign(rid=[*cells[:many], first[0], *cells[many + 1:]])
    assert "not as many" in person_new_id_problems(frame, dropped, *link, ["rid"])[0]
    other = 0 if many else 1  # a person shows another's id instead of one of its own: counts agree
    theirs = cells[other].strip("{}").split(";")
    shared = list(cells)
    shared[many] = "{" + ";".join(sorted([theirs[0], *first[1:]])) + "}"
    assert "one id per original value" in person_new_id_problems(frame, qt.assign(rid=shared), *link, ["rid"])[0]
    leaked = qt.assign(rid=["r0", *cells[1:]])
    assert any("hexadecimal" in p for p in person_new_id_problems(frame, leaked, *link, ["rid"]))
    assert any("original value" in p for p in person_new_id_problems(frame, leaked, *link, ["rid"]))
    # without the person link (the runner's records' link only): shape, no leak and the count
    assert person_new_id_problems(frame, qt, None, None, ["rid"]) == []
    extra = qt.assign(rid=[cells[0][:-1] + ";" + "f" * NEW_ID_CHARS + "}" if cells[0].startswith("{")
                           else "{" + cells[0] + ";" + "f" * NEW_ID_CHARS + "}", *cells[1:]])
    assert "published ids for" in person_new_id_problems(frame, extra, None, None, ["rid"])[0]
    with pytest.raises(AssertionError, match="new ids"):
        check_new_ids(frame, qt.assign(rid=shared), np.arange(len(frame)), ["rid"], persons=link)


def test_anatomy_publishes_new_ids_in_its_quasi_table() -> None:
    from anonkit.models import DistinctLDiversity

    frame, _ = _one_to_many()
    frame = frame.drop(columns=["person"])
    schema = Schema.of(quasi=["age", "zip", "sex"], sensitive=["disease"], new_id=["rid"])
    res = anonymize(frame, schema, [DistinctLDiversity("disease", 2)], algorithm="anatomy", seed=5)
    qit = res.release.tables["qit"]
    assert res.verification.ok and qit["rid"].astype(str).str.fullmatch(TOKEN.pattern).all()
    assert qit["rid"].nunique() == len(frame) and not set(qit["rid"]) & set(frame["rid"])
