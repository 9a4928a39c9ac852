"""Bad and awkward input: every entry point fails closed, in one line, before any work, writing nothing.

The catalogue (:data:`CASES`) builds each case in a fresh directory holding the t-closeness paper's
9-record table (``test2.csv``, ``;``-separated) with its hierarchies and a config that runs (see
:func:`test_the_base_case_runs_and_writes`), changes one thing, runs the CLI and checks:

* the exit code (2 bad input, 1 the privacy models cannot be met);
* one line on stderr starting ``error:`` (exit 2) or ``not anonymous:`` (exit 1) that names what is
  wrong (every expected word, case-insensitive), and nothing else but ``warning:`` lines;
* no traceback, no uncaught exception;
* nothing written: no file appears in the directory (no output, no ``*.tmp``) and every file that
  was there keeps its bytes (the input above all).

Then: the output checks happen before the work (:func:`test_output_errors_come_before_any_work`), and
a hypothesis property: a column without a role is refused by every entry point, naming it.
"""

from __future__ import annotations

import importlib
import re
import sqlite3
import string
import tempfile
from pathlib import Path

import pandas as pd
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import anonkit
import anonkit.pipeline
import anonkit.runner.local
from anonkit.config import parse_config
from anonkit.errors import InputError, UnsatisfiableError
from anonkit.models import KAnonymity
from bad_input_kit import (
    CHECK_TOY,
    HEADER,
    TESTS,
    TOY,
    C,
    Case,
    Q,
    add_model,
    assert_refused,
    base_yaml,
    build,
    copy_toy,
    drop,
    edit_toy,
    flash,
    identical_rows,
    mkdir,
    put,
    run,
    snapshot,
    sqlite_input,
    symlink,
    with_name_column,
    write,
)

CASES: list[Case] = [
    # ---------------------------------------------------------------- the config file itself
    C("config-missing", 2, ("config file not found", "nope.yaml"), config="nope.yaml"),
    C("config-invalid-yaml", 2, ("not valid YAML", "c.yaml"), raw="input: {path: test2.csv\nattributes: [\n"),
    C("config-tab-indent", 2, ("not valid YAML",), raw="input:\n\tpath: test2.csv\n"),
    C("config-not-a-mapping", 2, ("must be a mapping",), raw="- input\n- attributes\n"),
    C("config-empty-file", 2, ("must be a mapping",), raw=""),
    C("unknown-top-level-key", 2, ("'privcy'", "unknown key"), cfg=(put("privcy", []),)),
    C("unknown-input-key", 2, ("input.sep", "unknown key"), cfg=(put("input.sep", ";"),)),
    C("input-path-and-dataset", 2, ("exactly one", "path", "dataset"), cfg=(put("input.dataset", "adult"),)),
    C("duplicate-key-in-attributes", 2, ("'Age'", "twice", "lines 8 and 17"),
      raw=base_yaml().replace("privacy:", "  Age:\n    role: insensitive\nprivacy:", 1)),
    C("identifier-listed-twice", 2, ("'Name'", "twice", "lines"), files=(with_name_column,),
      raw=base_yaml().replace("attributes:\n", "attributes:\n  Name: {role: identifier}\n", 1).replace(
          "privacy:", "  Name: {role: insensitive}\nprivacy:", 1)),
    C("privacy-not-a-list", 2, ("'privacy'", "list"), cfg=(put("privacy", {"model": "k-anonymity", "k": 2}),)),
    C("attributes-not-a-mapping", 2, ("'attributes'",), cfg=(put("attributes", ["ZIPCode", "Age"]),)),
    C("duplicate-top-level-key", 2, ("'seed'", "twice"), raw=base_yaml("seed: 1\nseed: 2\n")),
    # ---------------------------------------------------------------- roles and types
    C("unlisted-columns-all-named", 2, ("no role", "Salary", "Disease", "default_role"),
      cfg=(drop("attributes.Salary"), drop("attributes.Disease"))),
    C("unlisted-identifier-column", 2, ("no role", "Name"), files=(with_name_column,)),
    C("default-role-bad-value", 2, ("default_role", "sensitive", "insensitive", "quasi"),
      cfg=(put("default_role", "sensitive"), drop("attributes.Disease"))),
    C("default-role-identifier", 2, ("default_role", "identifier"), cfg=(put("default_role", "identifier"),)),
    C("unknown-role", 2, ("attributes.Age.role", "secret"), cfg=(put("attributes.Age.role", "secret"),)),
    C("role-missing", 2, ("attributes.Age.role", "missing"), cfg=(put("attributes.Age", {"type": "numeric"}),)),
    C("unknown-type", 2, ("attributes.Salary.type", "integer"), cfg=(put("attributes.Salary.type", "integer"),)),
    C("unlisted-column-named-like-markup", 2, ("no role", "[bold]Disease"), cfg=(drop("attributes.Disease"),),
      files=(edit_toy(HEADER, "ZIPCode;Age;Salary;[bold]Disease"),)),
    C("unlisted-column-named-closing-tag", 2, ("no role", "[/]Disease"), cfg=(drop("attributes.Disease"),),
      files=(edit_toy(HEADER, "ZIPCode;Age;Salary;[/]Disease"),)),
    C("attribute-not-in-input", 2, ("unknown column", "Gender"), cfg=(put("attributes.Gender", {"role": Q}),)),
    C("no-quasi-identifier", 2, ("quasi",), cfg=(put("attributes.ZIPCode.role", "insensitive"),
                                                 put("attributes.Age.role", "insensitive"), put("algorithm", {}))),
    # ---------------------------------------------------------------- the input table
    C("input-file-missing", 2, ("not found", "nope.csv"), cfg=(put("input.path", "nope.csv"),)),
    C("input-override-missing", 2, ("not found", "other.csv"), args=("--input", "{tmp}/other.csv")),
    C("input-unknown-suffix", 2, ("format", "toy.ods"), cfg=(put("input.path", "toy.ods"),),
      files=(copy_toy("toy.ods"),)),
    C("input-is-a-directory", 2, ("directory", "data.csv"), cfg=(put("input.path", "data.csv"),),
      files=(mkdir("data.csv"),)),
    C("input-override-lacks-a-column", 2, ("unknown column", "Salary"), args=("--input", "{tmp}/other.csv"),
      files=(write("other.csv", "ZIPCode;Age;Disease\n47677;29;flu\n47602;22;flu\n47678;27;flu\n"),)),
    C("sqlite-input-several-tables", 2, ("table", "other", "people"), cfg=(put("input", {"path": "in.db"}),),
      files=(sqlite_input(), sqlite_input(table="other"))),
    C("sqlite-input-unknown-table", 2, ("unknown table", "persons"),
      cfg=(put("input", {"path": "in.db", "table": "persons"}),), files=(sqlite_input(),)),
    C("wrong-separator", 2, ("wrong separator", "';'"), cfg=(put("input.separator", ","),)),
    C("row-with-too-many-fields", 2, ("5 fields", "header has 4", "row 4"), files=(edit_toy(";6;", ";6;x;"),)),
    C("row-with-too-few-fields", 2, ("3 fields", "header has 4", "row 2"), files=(edit_toy("22;4;", "22;"),)),
    C("duplicate-column-in-csv", 2, ("duplicate column", "Age"),
      files=(edit_toy(HEADER, "ZIPCode;Age;Age;Disease"),)),
    C("empty-column-name", 2, ("no name", "column 3"), files=(edit_toy(HEADER, "ZIPCode;Age;;Disease"),)),
    C("empty-csv", 2, "empty", files=(write(TOY, ""),)),
    C("header-only-csv", 2, ("empty", "no data rows"), files=(write(TOY, HEADER + "\n"),)),
    C("undecodable-bytes", 2, ("decode", "utf-8", "row 5"),
      files=(lambda tmp: (tmp / TOY).write_bytes((tmp / TOY).read_bytes().replace(b"flu", b"fl\xfc")),)),
    C("unterminated-quote", 2, ("unterminated", "quote"), files=(edit_toy("flu", '"flu'),)),
    C("missing-error-empty-cell", 2, ("missing", "Age", "row 4"), cfg=(put("input.missing", "error"),),
      files=(edit_toy("47905;43;", "47905;;"),)),
    C("missing-error-empty-sensitive", 2, ("missing", "Disease", "row 5"), cfg=(put("input.missing", "error"),),
      files=(edit_toy(";flu", ";"),)),
    C("strip-false-padded-value", 2, ("' 47605'", "ZIPCode", "row 7"), cfg=(put("input.strip", False),),
      files=(edit_toy("47605;", " 47605;"),)),
    # ---------------------------------------------------------------- numbers
    C("non-numeric-in-numeric-qi", 2, ("Age", "'abc'", "row 6"),
      cfg=(put("attributes.Age", {"role": Q, "type": "numeric", "hierarchy": "test2_hierarchy_Age.csv"}),),
      files=(edit_toy("47906;47;", "47906;abc;"),)),
    C("non-numeric-in-numeric-sensitive", 2, ("Salary", "'abc'", "row 9"),
      files=(edit_toy("47602;22;4", "47602;22;3"), edit_toy(";10;", ";abc;"))),
    C("inf-in-numeric-qi", 2, ("finite", "Age", "'inf'", "row 3"), files=(edit_toy("47678;27;", "47678;inf;"),)),
    C("minus-infinity-in-numeric-qi", 2, ("finite", "Age", "row 8"),
      cfg=(put("attributes.Age", {"role": Q, "type": "numeric", "hierarchy": "test2_hierarchy_Age.csv"}),),
      files=(edit_toy("47673;36;", "47673;-Infinity;"),)),
    C("overflowing-number-in-numeric-qi", 2, ("finite", "Age", "'1e400'", "row 3"),
      cfg=(put("attributes.Age", {"role": Q, "type": "numeric"}), put("algorithm", {"name": "mondrian"})),
      files=(edit_toy("47678;27;", "47678;1e400;"),)),
    C("nan-in-numeric-sensitive", 2, ("finite", "Salary", "'nan'", "row 5"), files=(edit_toy(";11;", ";nan;"),)),
    C("nan-after-duplicates-names-its-row", 2, ("finite", "Salary", "'NaN'", "row 9"),
      files=(edit_toy("47602;22;4", "47602;22;3"), edit_toy(";10;", ";NaN;"))),
    C("not-a-date", 2, ("date", "Age", "row 1"),
      cfg=(put("attributes.Age", {"role": Q, "type": "date", "hierarchy": "test2_hierarchy_Age.csv"}),),
      files=(edit_toy("47677;29;", "47677;yesterday;"),)),
    # ---------------------------------------------------------------- privacy models
    C("unknown-model", 2, ("unknown model", "k-anon"), cfg=(put("privacy.0.model", "k-anon"),)),
    C("no-model", 2, ("privacy",), cfg=(put("privacy", []),)),
    C("k-zero", 2, ("privacy.0.k",), cfg=(put("privacy.0.k", 0),)),
    C("k-not-a-number", 2, ("privacy.0.k",), cfg=(put("privacy.0.k", "five"),)),
    C("k-larger-than-table", 2, ("10-anonymity", "only 9"), cfg=(put("privacy.0.k", 10),)),
    C("k-on-unknown-subset", 2, ("quasi-identifier", "Disease"),
      cfg=(add_model({"model": "k-anonymity", "k": 2, "attributes": ["Disease"]}),)),
    C("l-diversity-on-non-sensitive", 2, ("not sensitive", "ZIPCode"),
      cfg=(add_model({"model": "l-diversity", "attribute": "ZIPCode", "l": 2}),)),
    C("l-diversity-on-unknown-column", 2, ("not sensitive", "Diagnosis"),
      cfg=(add_model({"model": "l-diversity", "attribute": "Diagnosis", "l": 2}),)),
    C("recursive-l-without-c", 2, ("privacy.1", "'c'"),
      cfg=(add_model({"model": "l-diversity", "attribute": "Disease", "l": 2, "variant": "recursive"}),)),
    C("t-above-1", 2, ("privacy.1.t",), cfg=(add_model({"model": "t-closeness", "attribute": "Salary", "t": 1.5}),)),
    C("t-zero", 2, ("privacy.1.t",), cfg=(add_model({"model": "t-closeness", "attribute": "Salary", "t": 0}),)),
    C("unknown-distance", 2, ("privacy.1.distance", "euclid"),
      cfg=(add_model({"model": "t-closeness", "attribute": "Salary", "t": 0.5, "distance": "euclid"}),)),
    C("l-above-distinct-values", 1, ("7-diversity", "Disease", "needs 7 distinct values", "only 6 distinct"),
      cfg=(flash, add_model({"model": "l-diversity", "attribute": "Disease", "l": 7}))),
    C("l-above-distinct-values-markup-name", 1, ("[b]Disease", "only 6 distinct"), cfg=(flash,
      drop("attributes.Disease"), put("attributes.[b]Disease", {"role": "sensitive"}),
      add_model({"model": "l-diversity", "attribute": "[b]Disease", "l": 7})),
      files=(edit_toy(HEADER, "ZIPCode;Age;Salary;[b]Disease"),)),
    C("entropy-l-above-distinct-values", 1, ("entropy", "Disease", "only 6 distinct"), cfg=(flash,
      add_model({"model": "l-diversity", "attribute": "Disease", "l": 6.5, "variant": "entropy"}))),
    C("identical-rows-l-2", 1, ("2-diversity", "Disease", "only 1 distinct value"), files=(identical_rows,),
      cfg=(add_model({"model": "l-diversity", "attribute": "Disease", "l": 2}),)),
    C("top-of-every-hierarchy", 1, ("top of every hierarchy", "2 records", "max_suppression"),
      cfg=(put("algorithm", {"name": "flash", "max_suppression": 0.1}), put("privacy.0.k", 2),
           put("attributes.ZIPCode.max_level", 1), put("attributes.Age.max_level", 1))),
    C("entropy-fails-at-the-top", 1, ("top of every hierarchy", "9 records", "entropy"),
      cfg=(flash, add_model({"model": "l-diversity", "attribute": "Disease", "l": 5.9, "variant": "entropy"}))),
    C("fixed-levels-too-low", 1, ("records would have to be suppressed",),
      cfg=(put("algorithm.levels", {"ZIPCode": 0, "Age": 0}),)),
    C("anatomy-l2-k3", 1, ("anatomy", "l = 2", "3-anonymity"),
      cfg=(put("algorithm", {"name": "anatomy"}), put("attributes.Salary", {"role": "identifier"}),
           add_model({"model": "l-diversity", "attribute": "Disease", "l": 2}))),
    C("background-knowledge-with-flash", 2, ("uhra", "bka-js", "k-primacy", "flash"),
      cfg=(flash, add_model({"model": "background-knowledge", "attribute": "Disease", "J": 0.8}))),
    C("background-knowledge-on-non-sensitive", 2, ("not sensitive", "Age"),
      cfg=(put("algorithm", {"name": "uhra"}),
           add_model({"model": "background-knowledge", "attribute": "Age", "J": 0.5}))),
    C("prior-matrix-file-missing", 2, ("not found", "nope.csv", "privacy.1.prior"),
      cfg=(put("algorithm", {"name": "uhra"}), add_model({"model": "background-knowledge", "attribute": "Disease",
                                                          "J": 0.5, "prior": {"kind": "matrix", "path": "nope.csv"}}))),
    C("background-knowledge-J-above-1", 2, ("privacy.1.J",),
      cfg=(put("algorithm", {"name": "uhra"}),
           add_model({"model": "background-knowledge", "attribute": "Disease", "J": 1.5}))),
    # ---------------------------------------------------------------- algorithms
    C("unknown-algorithm", 2, ("algorithm.name", "quick"), cfg=(put("algorithm", {"name": "quick"}),)),
    C("option-of-another-algorithm", 2, ("'mode'", "mondrian", "flash"),
      cfg=(put("algorithm", {"name": "flash", "mode": "strict"}),)),
    C("anatomy-l-on-kaca", 2, ("'l'", "anatomy", "kaca"), cfg=(put("algorithm", {"name": "kaca", "l": 2}),)),
    C("levels-for-flash", 2, ("levels", "fixed"), cfg=(put("algorithm.name", "flash"),)),
    C("level-above-height", 2, ("ZIPCode", "9", "5"), cfg=(put("algorithm.levels.ZIPCode", 9),)),
    C("level-negative", 2, ("ZIPCode", "-1"), cfg=(put("algorithm.levels.ZIPCode", -1),)),
    C("level-for-unknown-column", 2, ("Zip",), cfg=(put("algorithm.levels.Zip", 1),)),
    C("level-for-a-sensitive-attribute", 2, ("Disease",), cfg=(put("algorithm.levels.Disease", 1),)),
    C("max-level-above-height", 2, ("max_level", "Age", "7"), cfg=(flash, put("attributes.Age.max_level", 7))),
    C("max-suppression-above-1", 2, ("algorithm.max_suppression",), cfg=(flash, put("algorithm.max_suppression", 1.5))),
    C("unknown-metric", 2, ("algorithm.metric.name", "utility"),
      cfg=(flash, put("algorithm.metric", {"name": "utility"}))),
    # ---------------------------------------------------------------- hierarchies
    C("hierarchy-file-missing", 2, ("not found", "nope.csv", "Age"),
      cfg=(put("attributes.Age.hierarchy", "nope.csv"),)),
    C("value-not-in-hierarchy", 2, ("'99999'", "ZIPCode", "row 7"), files=(edit_toy("47605;30", "99999;30"),)),
    C("value-with-closing-tag-not-in-hierarchy", 2, ("'[/x]'", "ZIPCode", "row 7"),
      files=(edit_toy("47605;30", "[/x];30"),)),
    C("value-like-a-style-tag-not-in-hierarchy", 2, ("'[red]47605'", "ZIPCode", "row 7"),
      files=(edit_toy("47605;30", "[red]47605;30"),)),
    C("sensitive-value-not-in-hierarchy", 2, ("'cold'", "Disease", "row 5"), files=(edit_toy(";flu", ";cold"),)),
    C("hierarchy-unequal-heights", 2, ("Age", "test2_hierarchy_Age.csv"),
      files=(lambda tmp: (tmp / "test2_hierarchy_Age.csv").write_text(
          (tmp / "test2_hierarchy_Age.csv").read_text().replace("43;>=40;*", "43;>=40")),)),
    C("hierarchy-duplicate-leaf", 2, ("twice", "'29'", "Age"),
      files=(lambda tmp: (tmp / "test2_hierarchy_Age.csv").write_text(
          (tmp / "test2_hierarchy_Age.csv").read_text() + "\n29;[20,30[;*\n"),)),
    C("hierarchy-not-functional", 2, ("Age",),
      files=(lambda tmp: (tmp / "test2_hierarchy_Age.csv").write_text(
          (tmp / "test2_hierarchy_Age.csv").read_text().replace("43;>=40;*", "43;>=40;any")),)),
    C("unknown-builder", 2, ("attributes.Age.hierarchy", "buckets"),
      cfg=(put("attributes.Age.hierarchy", {"builder": "buckets"}),)),
    C("builder-bad-parameter", 2, ("attributes.Age.hierarchy",),
      cfg=(put("attributes.Age.hierarchy", {"builder": "intervals", "widht": 10}),)),
    # ---------------------------------------------------------------- the seed
    C("cli-seed-negative", 2, ("seed", "-1"), args=("--seed", "-1")),
    C("cli-seed-too-large", 2, ("seed", str(2**63)), args=("--seed", str(2**63))),
    C("cli-seed-not-a-number", 2, ("--seed", "1.5"), args=("--seed", "1.5")),
    C("config-seed-negative", 2, ("seed",), cfg=(put("seed", -1),)),
    C("config-seed-fraction", 2, ("seed",), cfg=(put("seed", 1.5),)),
    C("config-seed-string", 2, ("seed",), cfg=(put("seed", "lucky"),)),
    C("config-seed-too-large", 2, ("seed",), cfg=(put("seed", 2**63),)),
    C("config-seed-boolean", 2, ("seed",), raw=base_yaml("seed: yes\n")),
    # ---------------------------------------------------------------- the output
    C("output-is-input", 2, ("output is the input", "output.path"), cfg=(put("output.path", TOY),)),
    C("output-is-input-dot-slash", 2, ("output is the input",), cfg=(put("output.path", "./" + TOY),)),
    C("output-is-input-dotdot", 2, ("output is the input",), cfg=(put("output.path", "sub/../" + TOY),),
      files=(mkdir("sub"),)),
    C("output-is-input-cli", 2, ("output is the input", "--output"), args=("--output", "{tmp}/" + TOY)),
    C("output-is-input-cli-relative-spelling", 2, ("output is the input", "--output"),
      args=("--output", "{tmp}/./sub/../" + TOY), files=(mkdir("sub"),)),
    C("output-is-input-via-symlink", 2, ("output is the input",), cfg=(put("output.path", "link.csv"),),
      files=(symlink("link.csv", TOY),)),
    C("input-via-symlink-is-output", 2, ("output is the input",), cfg=(put("input.path", "link.csv"),
      put("output.path", TOY)), files=(symlink("link.csv", TOY),)),
    C("input-override-is-output", 2, ("output is the input",), args=("--input", "{tmp}/out.csv"),
      files=(copy_toy("out.csv"),)),
    C("output-dir-missing", 2, ("does not exist", "nodir"), cfg=(put("output.path", "nodir/out.csv"),)),
    C("cli-output-dir-missing", 2, ("does not exist", "nodir"), args=("--output", "{tmp}/nodir/out.csv")),
    C("output-is-a-directory", 2, ("directory", "out.csv"), files=(mkdir("out.csv"),)),
    C("output-unknown-suffix", 2, ("format", "out.ods"), cfg=(put("output.path", "out.ods"),)),
    C("cli-output-no-suffix", 2, ("format", "release"), args=("--output", "{tmp}/release")),
    C("output-unknown-format-key", 2, ("output.format", "ods"), cfg=(put("output.format", "ods"),)),
    C("output-sqlite-without-table", 2, ("table", "out.db"), cfg=(put("output", {"path": "out.db"}),)),
    C("output-table-for-csv", 2, ("table", "csv"), cfg=(put("output.table", "release"),)),
    C("output-bad-separator", 2, ("separator",), cfg=(put("output.separator", ";;"),)),
    C("output-bad-encoding", 2, ("encoding", "utf-99"), cfg=(put("output.encoding", "utf-99"),)),
    C("output-same-sqlite-table", 2, ("output is the input", "people"), files=(sqlite_input(),),
      cfg=(put("input", {"path": "in.db", "table": "people"}), put("output", {"path": "in.db", "table": "people"}))),
    C("output-same-sqlite-table-other-case", 2, ("output is the input",), files=(sqlite_input(),),
      cfg=(put("input", {"path": "in.db", "table": "people"}), put("output", {"path": "in.db", "table": "PEOPLE"}))),
    C("output-same-sqlite-table-implicit", 2, ("output is the input", "people"), files=(sqlite_input(),),
      cfg=(put("input", {"path": "in.db"}), put("output", {"path": "in.db", "table": "people"}))),
    C("anatomy-output-is-input", 2, ("output is the input",), files=(copy_toy("rel-qit.csv"),),
      cfg=(put("algorithm", {"name": "anatomy"}), put("output.path", "rel.csv"), put("input.path", "rel-qit.csv"),
           add_model({"model": "l-diversity", "attribute": "Disease", "l": 2}))),
    C("output-is-a-hierarchy-file", 2, ("output", "test2_hierarchy_Age.csv"),
      cfg=(put("output.path", "test2_hierarchy_Age.csv"),)),
    C("output-is-the-config-file", 2, ("output", "c.yaml"), cfg=(put("output", {"path": "c.yaml", "format": "csv"}),)),
    # ---------------------------------------------------------------- anonkit check
    C("check-numeric-unknown-column", 2, ("--numeric", "Wage"),
      check=(*CHECK_TOY, "--qi", "ZIPCode,Age", "--sensitive", "Salary", "--numeric", "Wage")),
    C("check-numeric-and-categorical", 2, ("numeric", "categorical", "Salary"),
      check=(*CHECK_TOY, "--qi", "ZIPCode", "--sensitive", "Salary", "--numeric", "Salary",
             "--categorical", "Salary")),
    C("check-qi-unknown-column", 2, ("--qi", "unknown column", "Zip"),
      check=(*CHECK_TOY, "--qi", "Zip,Age", "--sensitive", "Salary")),
    C("check-sensitive-unknown-column", 2, ("unknown", "Illness"),
      check=(*CHECK_TOY, "--qi", "ZIPCode", "--sensitive", "Illness")),
    C("check-hierarchy-without-equals", 2, ("--hierarchy", "NAME=FILE"),
      check=(*CHECK_TOY, "--qi", "ZIPCode", "--sensitive", "Disease", "--hierarchy", "Disease")),
    C("check-hierarchy-missing-file", 2, ("not found", "nope.csv"),
      check=(*CHECK_TOY, "--qi", "ZIPCode", "--sensitive", "Disease", "--hierarchy", "Disease={tmp}/nope.csv")),
    C("check-wrong-separator", 2, ("wrong separator",), check=("{tmp}/" + TOY, "--qi", "ZIPCode")),
    C("check-qi-closing-tag", 2, ("--qi", "[/]"), check=(*CHECK_TOY, "--qi", "[/]", "--sensitive", "Salary")),
    C("check-missing-file", 2, ("not found", "none.csv"), check=("{tmp}/none.csv", "--qi", "ZIPCode")),
]


#: the topic catalogues (``tests/cases_*.py``), each a ``CASES`` list of its own
TOPICS = sorted(p.stem for p in TESTS.glob("cases_*.py"))
for _topic in TOPICS:
    CASES += importlib.import_module(_topic).CASES


def _param(case: Case) -> object:
    return pytest.param(case, id=case.id)


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_bad_input_is_refused_in_one_line_writing_nothing(case: Case, tmp_path: Path) -> None:
    args = build(case, tmp_path)
    before = snapshot(tmp_path)
    res = run(args)
    after = snapshot(tmp_path)
    try:
        assert_refused(res, case.code, case.words)
    finally:
        created = sorted(set(after) - set(before))
        assert not created, f"written: {created}"
        changed = [name for name, data in before.items() if after.get(name, b"<gone>") != data]
        assert not changed, f"changed or removed: {changed}"
        assert not list(tmp_path.rglob("*.tmp"))


def test_catalogue_is_large_and_ids_unique() -> None:
    ids = [c.id for c in CASES]
    assert len(ids) == len(set(ids))
    assert len(CASES) >= 400  # issue 23: a catalogue of at least 400 cases over every class of defect
    assert len(TOPICS) >= 4


CONTROLS = [
    C("base", 0, ()),
    C("padded-cells-are-trimmed", 0, (), files=(edit_toy("47605;30;7;bronchitis", " 47605 ; 30;7 ;bronchitis  "),)),
    C("salary-type-inferred", 0, (), cfg=(put("attributes.Salary", {"role": "sensitive"}),
                                         add_model({"model": "t-closeness", "attribute": "Salary", "t": 0.6,
                                                    "distance": "ordered"}))),
    C("default-role-insensitive", 0, (), cfg=(drop("attributes.Salary"), put("default_role", "insensitive"))),
]


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in CONTROLS])
def test_the_base_case_runs_and_writes(case: Case, tmp_path: Path) -> None:
    """Controls: the base config and harmless variations of it run and write ``out.csv`` (so each case
    of the catalogue fails for its own change, and the checks are not broader than the rules)."""
    args = build(case, tmp_path)
    res = run(args)
    assert res.exit_code == 0, res.stderr
    assert "Traceback" not in res.stderr and not [line for line in res.stderr.splitlines() if line.strip()]
    assert (tmp_path / "out.csv").exists()
    assert not list(tmp_path.rglob("*.tmp"))


def test_another_table_of_the_input_database_is_a_fine_output(tmp_path: Path) -> None:
    """Control for the SQLite cases: the input database may take the release as another table."""
    case = C("sqlite-other-table", 0, (), files=(sqlite_input(),),
             cfg=(put("input", {"path": "in.db", "table": "people"}), put("output", {"path": "in.db",
                                                                                    "table": "release"})))
    args = build(case, tmp_path)
    res = run(args)
    assert res.exit_code == 0, res.stderr
    with sqlite3.connect(tmp_path / "in.db") as con:
        people = con.execute("SELECT COUNT(*) FROM people").fetchone()[0]
        release = con.execute("SELECT COUNT(*) FROM release").fetchone()[0]
    con.close()
    assert people == 9 and release == 9


# ------------------------------------------------------------------------ errors before the work
OUTPUT_CASES = [c for c in CASES if c.id in {
    "output-is-input", "output-is-input-cli", "output-is-input-via-symlink", "output-dir-missing",
    "cli-output-dir-missing", "output-unknown-suffix", "output-sqlite-without-table", "output-same-sqlite-table",
    "output-is-a-directory", "anatomy-output-is-input",
}]


def _work_started(*_args: object, **_kw: object) -> None:
    raise AssertionError("work started")


@pytest.mark.parametrize("what", ["anonymize_checked", "load_input"])
@pytest.mark.parametrize("case", [_param(c) for c in OUTPUT_CASES])
def test_output_errors_come_before_any_work(
    case: Case, what: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the anonymization (or even the reading of the input) made to fail, a bad output is still
    refused with its own error: it was checked first."""
    monkeypatch.setattr(anonkit.runner.local, what, _work_started)
    args = build(case, tmp_path)
    before = snapshot(tmp_path)
    res = run(args)
    assert_refused(res, 2, case.words)
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("what", ["anonymize_checked", "load_input"])
def test_the_work_guard_is_effective(what: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Control for the test above: with a good output the patched step is reached."""
    monkeypatch.setattr(anonkit.runner.local, what, _work_started)
    res = run(build(Case("base", 0, ()), tmp_path))
    assert isinstance(res.exception, AssertionError) and "work started" in str(res.exception)
    assert not (tmp_path / "out.csv").exists()


# ---------------------------------------------------------------- property: an unlisted column is refused
NAMES = st.text(alphabet=string.ascii_lowercase, min_size=2, max_size=6).map(lambda s: "col_" + s)


@st.composite
def frames(draw: st.DrawFn) -> tuple[pd.DataFrame, str, list[str]]:
    """A frame of 2–4 columns and 5–30 rows of text or numbers; the name of the unlisted column; the
    roles of the others (the first of them a quasi-identifier)."""
    n_cols = draw(st.integers(2, 4))
    n_rows = draw(st.integers(5, 30))
    names = draw(st.lists(NAMES, min_size=n_cols, max_size=n_cols, unique=True))
    data = {}
    for name in names:
        kind = draw(st.sampled_from(["text", "int", "float"]))
        if kind == "text":
            values = st.text(alphabet=string.ascii_letters, min_size=1, max_size=5)
        elif kind == "int":
            values = st.integers(-1000, 1000)
        else:
            values = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False).map(lambda x: round(x, 3))
        data[name] = draw(st.lists(values, min_size=n_rows, max_size=n_rows))
    frame = pd.DataFrame(data)
    unlisted = draw(st.sampled_from(names))
    others = [n for n in names if n != unlisted]
    roles = ["quasi"] + [draw(st.sampled_from(["quasi", "sensitive", "insensitive"])) for _ in others[1:]]
    return frame, unlisted, roles


def _names_column(message: str, name: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", message) is not None


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(frames())
def test_an_unlisted_column_is_refused_by_every_entry_point(drawn: tuple[pd.DataFrame, str, list[str]]) -> None:
    """``anonkit.anonymize``, ``run_config`` and ``anonkit anonymize`` refuse a frame with a column the
    schema does not list, naming it; with ``default_role: insensitive`` the same input is accepted."""
    frame, unlisted, roles = drawn
    others = [c for c in frame.columns if c != unlisted]
    attributes = {c: {"role": r} for c, r in zip(others, roles, strict=True)}

    # the Python API
    schema = anonkit.Schema.of(
        quasi=[c for c, r in zip(others, roles, strict=True) if r == "quasi"],
        sensitive=[c for c, r in zip(others, roles, strict=True) if r == "sensitive"],
        insensitive=[c for c, r in zip(others, roles, strict=True) if r == "insensitive"],
    )
    with pytest.raises(InputError) as info:
        anonkit.anonymize(frame, schema, [KAnonymity(2)])
    assert _names_column(str(info.value), unlisted), str(info.value)

    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        frame.to_csv(tmp / "data.csv", index=False)
        cfg = {
            "input": {"path": "data.csv"},
            "attributes": attributes,
            "privacy": [{"model": "k-anonymity", "k": 2}],
            "output": {"path": "out.csv"},
        }
        # run_config
        with pytest.raises(InputError) as info:
            anonkit.pipeline.run_config(parse_config(cfg), config_dir=tmp)
        assert _names_column(str(info.value), unlisted), str(info.value)
        # the CLI
        (tmp / "c.yaml").write_text(yaml.safe_dump(cfg))
        res = run(["anonymize", str(tmp / "c.yaml")])
        line = assert_refused(res, 2, ())
        assert _names_column(line, unlisted), line
        assert not (tmp / "out.csv").exists()

        # with default_role: insensitive the same input runs (or fails for another reason)
        cfg["default_role"] = "insensitive"
        try:
            anonkit.pipeline.run_config(parse_config(cfg), config_dir=tmp)
        except (InputError, UnsatisfiableError) as exc:
            assert "no role" not in str(exc) and not _names_column(str(exc), unlisted), str(exc)
        else:
            assert (tmp / "out.csv").exists()
            (tmp / "out.csv").unlink()
        (tmp / "c.yaml").write_text(yaml.safe_dump(cfg))
        res = run(["anonymize", str(tmp / "c.yaml")])
        assert res.exception is None or isinstance(res.exception, SystemExit), repr(res.exception)
        if res.exit_code != 0:
            line = assert_refused(res, res.exit_code, ())
            assert "no role" not in line and not _names_column(line, unlisted), line

    with_default = anonkit.Schema(dict(schema.attributes), default_role="insensitive")
    try:
        result = anonkit.anonymize(frame, with_default, [KAnonymity(2)])
    except UnsatisfiableError as exc:  # k = 2 may not be reachable on random values: not about roles
        assert "no role" not in str(exc), str(exc)
    else:
        assert unlisted in result.frame.columns  # published as insensitive, as asked
