"""Truthful hierarchies: no value is generalized to another original value, and groupings nest.

A hierarchy ``M;F;*`` / ``F;M;*`` publishes every man as ``F`` while k-anonymity holds; an age
hierarchy that generalizes 30 to ``40`` publishes a 30-year-old as 40. Both are refused, naming the
file, the row and the value, as is a grouping that does not nest. The controls: a level that keeps
a value as it is, the bundled hierarchies, every builder, and (hypothesis) random truthful nested
hierarchies.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from anonkit.cli import app
from anonkit.errors import InputError
from anonkit.hierarchy import Hierarchy, builders, read_hierarchy, write_hierarchy

DATA = Path(__file__).resolve().parent / "data"


def refused(tmp_path: Path, text: str, name: str = "h") -> InputError:
    path = tmp_path / f"{name}.csv"
    path.write_text(text)
    with pytest.raises(InputError) as err:
        read_hierarchy(path, name=name)
    assert err.value.file == str(path)
    return err.value


def test_sex_swapped_is_refused(tmp_path: Path) -> None:
    err = refused(tmp_path, "M;F;*\nF;M;*\n", "sex")
    assert "another original value" in str(err)
    assert (err.column, err.value, err.row) == ("sex", "M", 1)


def test_age_to_another_age_is_refused_also_as_a_number(tmp_path: Path) -> None:
    for label in ("40", "40.0", " 40", "4e1", "+40"):
        err = refused(tmp_path, f"20;[20-30[;*\n30;{label};*\n40;[40-50[;*\n", "age")
        assert (err.value, err.row) == ("30", 2), label
        assert "at level 1" in str(err)


def test_a_label_differing_only_by_case_or_spaces_is_another_value(tmp_path: Path) -> None:
    err = refused(tmp_path, "flu;respiratory;*\nbronchitis;FLU;*\n")
    assert (err.value, err.row) == ("bronchitis", 2)
    err = refused(tmp_path, "new york;NY;*\nboston; New  York ;*\n")
    assert err.value == "boston"


def test_a_lie_on_a_higher_level_is_named_with_its_level(tmp_path: Path) -> None:
    err = refused(tmp_path, "a;A;AB;*\nb;B;AB;*\nc;C;b;*\n")
    assert (err.value, err.row) == ("c", 3) and "at level 2" in str(err)


def test_a_grouping_that_does_not_nest_is_refused(tmp_path: Path) -> None:
    err = refused(tmp_path, "a;A;X;*\nb;A;Y;*\n")
    assert "not functional" in str(err) and (err.value, err.row) == ("b", 2)


def test_a_level_that_keeps_the_value_is_fine() -> None:
    h = Hierarchy([["M", "M", "*"], ["F", "F", "*"]])  # ARX allows an ungeneralized level
    assert h.height == 2
    assert Hierarchy([["30", "30.0", "*"], ["40", "[40-50[", "*"]]).height == 2  # its own number
    tree = builders.nested({"*": {"Asia": {"East": ["China"]}, "Other": None}})
    assert ["Other", "Other", "Other", "*"] in tree.rows()


def test_the_sex_example_is_refused_by_the_cli(tmp_path: Path) -> None:
    """The finding end to end: `M;F;*` / `F;M;*` at level 1 published every man as F with
    "3-anonymity holds"; now the run stops before any work, naming file, row and value."""
    rows = [("M", "a"), ("F", "b"), ("M", "c"), ("F", "a"), ("M", "b"), ("F", "c")]
    (tmp_path / "d.csv").write_text("sex,dx\n" + "".join(f"{s},{d}\n" for s, d in rows))
    (tmp_path / "sex.csv").write_text("M;F;*\nF;M;*\n")
    (tmp_path / "c.yaml").write_text(
        "input: {path: d.csv}\nattributes:\n  sex: {role: quasi, hierarchy: sex.csv}\n  dx: {role: sensitive}\n"
        "privacy: [{model: k-anonymity, k: 3}]\nalgorithm: {name: fixed, levels: {sex: 1}}\noutput: {path: out.csv}\n"
    )
    res = CliRunner().invoke(app, ["anonymize", str(tmp_path / "c.yaml")])
    assert res.exit_code == 2, res.stdout
    assert "another original value" in res.stderr and "sex.csv" in res.stderr and "row 1" in res.stderr
    assert not (tmp_path / "out.csv").exists()
    (tmp_path / "sex.csv").write_text("M;M;*\nF;F;*\n")  # the control: truthful, it runs
    res = CliRunner().invoke(app, ["anonymize", str(tmp_path / "c.yaml")])
    assert res.exit_code == 0, res.stderr


def test_every_bundled_hierarchy_and_builder_is_truthful() -> None:
    for path in sorted(DATA.glob("*hierarchy*.csv")):
        read_hierarchy(path)
    from anonkit.datasets import adult_hierarchies

    assert len(adult_hierarchies()) == 9
    builders.intervals(range(100), width=5, fanout=2)
    builders.masking(["47677", "47602", "47678"])
    builders.order(list(range(10)), sizes=[2, 2])
    builders.dates(["2020-02-05", "2020-02-05 10:30", "2021-01-01"], granularities=["day", "year"])


def test_a_value_equal_to_a_group_label_is_refused_in_a_built_hierarchy() -> None:
    with pytest.raises(InputError, match="another original value") as err:
        builders.masking(["47677", "4767*", "47602"], name="zip")
    assert (err.value.column, err.value.value) == ("zip", "47677")
    with pytest.raises(InputError, match="another original value"):
        Hierarchy.flat(["a", "*", "b"], name="c")


# ------------------------------------------------------------------------------ hypothesis
@st.composite
def truthful(draw) -> list[list[str]]:
    """A random nested hierarchy: leaves ``v0…``, groups ``L1g0…`` (never a leaf's name), each level
    grouping the groups of the level below."""
    n = draw(st.integers(1, 12))
    height = draw(st.integers(1, 4))
    rows = [[f"v{i}"] for i in range(n)]
    node = list(range(n))
    for level in range(1, height):
        n_nodes = max(node) + 1
        parent = draw(st.lists(st.integers(0, max(0, n_nodes - 2)), min_size=n_nodes, max_size=n_nodes))
        keep = draw(st.booleans())  # some levels keep a singleton leaf's own value
        node = [parent[c] for c in node]
        for i, r in enumerate(rows):
            alone = node.count(node[i]) == 1
            r.append(r[0] if keep and alone and level == 1 else f"L{level}g{node[i]}")
    for r in rows:
        r.append("*")
    return rows


@settings(max_examples=80, deadline=None)
@given(truthful())
def test_random_truthful_hierarchies_are_accepted(rows: list[list[str]]) -> None:
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "h.csv"
        write_hierarchy(Hierarchy(rows), path)
        assert read_hierarchy(path).rows() == rows


@settings(max_examples=80, deadline=None)
@given(truthful(), st.data())
def test_a_group_renamed_as_another_value_is_refused(rows: list[list[str]], data: st.DataObject) -> None:
    """Rename one group (all its rows, so the hierarchy still nests) as a leaf's value: refused,
    naming the file and the first row whose value it is not."""
    height = len(rows[0]) - 1
    level = data.draw(st.integers(1, height))
    label = data.draw(st.sampled_from(sorted({r[level] for r in rows})))
    borrowed = data.draw(st.sampled_from([r[0] for r in rows]))
    members = [i for i, r in enumerate(rows) if r[level] == label]
    assume(any(rows[i][0] != borrowed for i in members))
    assume(all(r[level] != borrowed for r in rows))  # the name is free on that level
    bad = [[*r[:level], borrowed if r[level] == label else r[level], *r[level + 1:]] for r in rows]
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "h.csv"
        path.write_text("".join(";".join(r) + "\n" for r in bad))
        with pytest.raises(InputError, match="another original value") as err:
            read_hierarchy(path, name="h")
    first = next(i for i in members if rows[i][0] != borrowed)  # the group's first row that is not the value
    assert (err.value.file, err.value.column) == (str(path), "h")
    assert (err.value.row, err.value.value) == (first + 1, rows[first][0])
    assert f"to {borrowed!r} at level {level}" in str(err.value)


@settings(max_examples=80, deadline=None)
@given(truthful(), st.data())
def test_a_row_moved_to_a_group_with_another_parent_is_refused(rows: list[list[str]], data: st.DataObject) -> None:
    """Move one row's label on a level to a group whose parent differs: the grouping no longer
    nests; refused naming the file, a row holding that label and its value."""
    height = len(rows[0]) - 1
    assume(height >= 2)
    level = data.draw(st.integers(1, height - 1))
    i = data.draw(st.integers(0, len(rows) - 1))
    others = sorted({r[level] for r in rows if r[level + 1] != rows[i][level + 1]})
    assume(others)
    target = data.draw(st.sampled_from(others))
    bad = [list(r) for r in rows]
    bad[i][level] = target
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "h.csv"
        path.write_text("".join(";".join(r) + "\n" for r in bad))
        with pytest.raises(InputError) as err:
            read_hierarchy(path, name="h")
    assert err.value.file == str(path)
    assert 1 <= err.value.row <= len(rows) and err.value.value == bad[err.value.row - 1][0]
    assert "not functional" in str(err.value) or "another original value" in str(err.value)
