"""Survey roles (issue 28, item 1): a sampling ``weight`` published unchanged and carried as
``Table.survey_weight``; a ``household`` id never published as is — dropped, or renumbered in a
seeded random order — and carried as ``Table.household``; both through the config, the Python API
and the CLI, refused in one line when wrong (the catalogue is ``tests/cases_survey_roles.py``)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from anonkit import Schema, anonymize
from anonkit.cli import app
from anonkit.config import parse_config
from anonkit.errors import InputError
from anonkit.hierarchy import Hierarchy
from anonkit.models import KAnonymity
from anonkit.pseudonyms import renumbered, survey_columns
from anonkit.schema import Attribute, Role, parse_role
from anonkit.table import Table
from anonkit.verifier import verify
from survey_toy import HOUSEHOLDS, NAMES, WEIGHTS, lay_out, read_out, survey_frame

cli = CliRunner()
QI = ["ZIPCode", "Age"]


def _run(tmp: Path, *args: str) -> object:
    res = cli.invoke(app, ["anonymize", str(tmp / "c.yaml"), "--no-fixes", *args])
    assert res.exit_code == 0, res.stdout + res.stderr
    return res


# ----------------------------------------------------------------------------------------- roles
def test_the_roles_and_their_aliases() -> None:
    assert parse_role("weight") is Role.WEIGHT and parse_role("sampling-weight") is Role.WEIGHT
    assert parse_role("household") is Role.HOUSEHOLD and parse_role("hh") is Role.HOUSEHOLD
    assert parse_role("pseudonym") is Role.PSEUDONYM
    with pytest.raises(InputError, match="unknown role"):
        parse_role("weights")


def test_config_reads_the_roles(tmp_path: Path) -> None:
    lay_out(tmp_path)
    import yaml

    cfg = parse_config(yaml.safe_load((tmp_path / "c.yaml").read_text()))
    assert cfg.attributes["W"].role == "weight"
    assert cfg.attributes["HH"].publish == "renumbered" and cfg.attributes["HH"].seed == 0
    assert cfg.attributes["Name"].key_file == "key"


# ---------------------------------------------------------------------------------------- weight
def test_weights_are_published_unchanged_beside_the_release(tmp_path: Path) -> None:
    lay_out(tmp_path)
    res = _run(tmp_path, "--json")
    out, src = read_out(tmp_path), survey_frame()
    # Salary is unique per record in the toy: the (Salary, W) pairs are the input's, cell for cell
    assert sorted(zip(out["Salary"], out["W"], strict=True)) == sorted(zip(src["Salary"], src["W"], strict=True))
    summary = json.loads(res.stdout)
    assert any("survey weight W is published unchanged" in w and "sdcMicro" in w for w in summary["warnings"])


def test_survey_weight_is_its_own_attribute_never_table_weights() -> None:
    frame = survey_frame()
    table = Table(frame, Schema.of(quasi=QI, sensitive=["Salary", "Disease"], weight="W", household="HH",
                                   identifier=["Name"]))
    assert table.weights is None and table.n_records == 9
    np.testing.assert_array_equal(table.survey_weight, [float(w) for w in WEIGHTS])
    assert "W" in table.frame.columns and "W" not in table.qi
    assert table.n_households == 5 and table.household is not None
    same = [table.household[i] == table.household[j] for i in range(9) for j in range(9)]
    assert same == [HOUSEHOLDS[i] == HOUSEHOLDS[j] for i in range(9) for j in range(9)]
    # control: without the roles, nothing is carried
    plain = Table(frame.drop(columns=["W", "HH", "Name"]), Schema.of(quasi=QI, sensitive=["Salary", "Disease"]))
    assert plain.survey_weight is None and plain.household is None


@pytest.mark.parametrize(("cell", "words"), [("", "missing"), ("x", "not a number"), ("0", "below 1"),
                                             ("0.5", "below 1"), ("-1", "below 1"), ("inf", "not finite")])
def test_a_bad_weight_is_refused_naming_the_row(cell: str, words: str) -> None:
    frame = survey_frame()
    frame.loc[4, "W"] = cell
    schema = Schema.of(quasi=QI, sensitive=["Salary", "Disease"], weight="W", identifier=["Name", "HH"])
    with pytest.raises(InputError, match=words) as e:
        Table(frame, schema)
    assert e.value.row == 5 and "\n" not in str(e.value)


def test_the_api_refuses_two_weights_and_a_generalized_weight() -> None:
    h = Hierarchy([["1", "*"], ["2", "*"]])
    with pytest.raises(InputError, match="never generalized"):
        Schema.of(quasi=QI, weight="W", hierarchies={"W": h})
    with pytest.raises(InputError, match="never generalized"):
        Attribute("HH", "household", hierarchy=h)
    schema = Schema({"W": Attribute("W", "weight"), "V": Attribute("V", "weight")})
    with pytest.raises(InputError, match="only one column may have role weight"):
        _ = schema.weight
    with pytest.raises(InputError, match="publish given for a column that is not a household"):
        Schema.of(quasi=QI, weight="W", publish={"W": "renumbered"})
    assert Schema.of(quasi=QI, weight="W").weight == "W"  # control


# ------------------------------------------------------------------------------------- household
def test_a_household_is_dropped_unless_renumbered(tmp_path: Path) -> None:
    lay_out(tmp_path, {"HH": {"role": "household"}})
    _run(tmp_path)
    out = read_out(tmp_path)
    assert "HH" not in out.columns and set(out.columns) >= {"Name", "W"}


def test_renumbered_households_stay_linkable_within_the_release_only(tmp_path: Path) -> None:
    lay_out(tmp_path)
    _run(tmp_path)
    out, src = read_out(tmp_path), survey_frame()
    assert sorted(set(out["HH"])) == ["1", "2", "3", "4", "5"]
    assert not set(out["HH"]) & set(HOUSEHOLDS)
    new = dict(zip(out["Salary"], out["HH"], strict=True))
    old = dict(zip(src["Salary"], src["HH"], strict=True))
    pairs = {(old[s], new[s]) for s in old}
    assert len(pairs) == 5 and len({a for a, _ in pairs}) == 5 and len({b for _, b in pairs}) == 5  # a bijection


def test_renumbering_is_seeded_and_deterministic(tmp_path: Path) -> None:
    outs = {}
    for seed in (0, 0, 1, 2):
        d = tmp_path / f"s{seed}-{len(outs)}"
        d.mkdir()
        lay_out(d, {"HH": {"role": "household", "publish": "renumbered", "seed": seed}})
        _run(d)
        out = read_out(d)
        outs.setdefault(seed, []).append(dict(zip(out["Salary"], out["HH"], strict=True)))
    assert outs[0][0] == outs[0][1]  # same seed, same ids
    assert any(outs[s][0] != outs[0][0] for s in (1, 2))  # another seed, another order


def test_the_verifier_refuses_a_household_column_in_the_release() -> None:
    frame = survey_frame().drop(columns=["Name"])
    published = frame.assign(ZIPCode="47***", Age="*")
    schema = Schema.of(quasi=QI, sensitive=["Salary", "Disease"], weight="W", household="HH")
    with pytest.raises(InputError, match="household column"):
        verify(published, schema, [KAnonymity(3)])
    renumbered_schema = Schema.of(quasi=QI, sensitive=["Salary", "Disease"], weight="W", household="HH",
                                  publish={"HH": "renumbered"})
    assert verify(published, renumbered_schema, [KAnonymity(3)]).ok  # control


def test_the_python_api_runs_the_roles() -> None:
    frame = survey_frame()
    schema = Schema.of(quasi=QI, sensitive=["Salary", "Disease"], weight="W", household="HH", identifier=["Name"],
                       publish={"HH": "renumbered"})
    result = anonymize(frame, schema, [KAnonymity(3)], algorithm="mondrian")
    published = result.frame
    assert sorted(published["W"]) == sorted(WEIGHTS)
    assert set(published["HH"]) <= set(range(1, 6)) and "Name" not in published.columns
    assert frame.equals(survey_frame())  # the input is left unchanged
    dropped = anonymize(frame, Schema.of(quasi=QI, sensitive=["Salary", "Disease"], weight="W", household="HH",
                                         identifier=["Name"]), [KAnonymity(3)], algorithm="mondrian")
    assert "HH" not in dropped.frame.columns


def test_survey_columns_leave_the_input_unchanged() -> None:
    frame = survey_frame()
    schema = Schema.of(quasi=QI, weight="W", household="HH", pseudonym=["Name"], default_role="insensitive",
                       publish={"HH": "renumbered", "Name": "renumbered"}).in_column_order(frame.columns)
    got = survey_columns(frame, schema)
    assert frame.equals(survey_frame())
    assert list(got.frame["Name"]) != NAMES and sorted(got.frame["Name"]) == list(range(1, 10))


# ------------------------------------------------------------------------------------ properties
@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 30), min_size=1, max_size=60), st.integers(0, 2**32 - 1))
def test_renumbered_is_a_seeded_bijection(codes: list[int], seed: int) -> None:
    _, dense = np.unique(np.asarray(codes), return_inverse=True)
    n = int(dense.max()) + 1
    ids = renumbered(dense, n, seed)
    assert sorted(set(ids.tolist())) == list(range(1, n + 1))
    assert all((ids[i] == ids[j]) == (dense[i] == dense[j]) for i in range(len(dense)) for j in range(len(dense)))
    np.testing.assert_array_equal(ids, renumbered(dense, n, seed))


def test_pandas_frames_with_numbers_as_weights() -> None:
    frame = survey_frame().assign(W=[1.5 * i for i in range(1, 10)])
    table = Table(frame, Schema.of(quasi=QI, sensitive=["Salary", "Disease"], weight="W", identifier=["Name", "HH"]))
    assert table.survey_weight is not None and table.survey_weight.sum() == pytest.approx(67.5)
    with pytest.raises(InputError, match="not finite"):
        Table(frame.assign(W=[np.inf] + [1.0] * 8), Schema.of(quasi=QI, sensitive=["Salary", "Disease"], weight="W",
                                                               identifier=["Name", "HH"]))


def test_the_spark_engines_refuse_the_survey_roles() -> None:
    """Spark publishes every column it is not told to hide: the survey roles run on the local engine only."""
    from anonkit.engines.spark_mondrian import _checked

    frame = survey_frame()
    for role in ({"weight": "W"}, {"household": "HH"}, {"pseudonym": ["Name"], "publish": {"Name": "renumbered"}}):
        schema = Schema.of(quasi=QI, sensitive=["Salary", "Disease"], default_role="insensitive", **role)
        with pytest.raises(InputError, match="do not run on engine: spark"):
            _checked(frame, schema, [KAnonymity(3)])
    _checked(frame, Schema.of(quasi=QI, sensitive=["Salary", "Disease"], default_role="insensitive"),
             [KAnonymity(3)])  # control
