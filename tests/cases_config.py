"""Bad-input catalogue, the config: numbers that are not numbers, keys that do not apply, nesting
that would hang, column names YAML did not read as text.

Before the config was strict every case here ran (or failed for another reason): ``k: true`` was
1-anonymity, ``beta: .inf`` protected nothing, ``c:`` on distinct l-diversity, ``sheet:`` on a CSV
input or ``order:`` on a numeric quasi-identifier were ignored, recursive ``l: 2.5`` became 2, an
alias bomb or a config nested 5,000 deep hung or ended in a RecursionError, and ``yes:`` as a
column name blamed ``attributes.1.[key]``.
"""

from __future__ import annotations

from pathlib import Path

from bad_input_kit import HEADER, TOY, C, Prepare, Q, add_model, base_yaml, copy_toy, edit_toy, flash, put, sqlite_input


def _toy_as(name: str) -> Prepare:
    """The toy table written as Parquet (text cells) under ``name``."""

    def prepare(tmp: Path) -> None:
        import pandas as pd

        pd.read_csv(tmp / TOY, sep=";", dtype=str, keep_default_na=False).to_parquet(tmp / name, index=False)

    return prepare


INF, NAN = float("inf"), float("nan")
S = "sensitive"


def model(**entry: object) -> object:
    """Add a privacy model about ``Disease`` (``attribute`` unless given)."""
    return add_model({"attribute": "Disease", **entry})


def attr(name: str, **spec: object) -> object:
    """Set attribute ``name``'s spec."""
    return put(f"attributes.{name}", spec)


def _bomb(levels: int = 12, fanout: int = 10) -> str:
    """A nested builder whose ``tree`` is an alias bomb: 10¹² leaves written in 13 lines."""
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, levels):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * fanout) + "]")
    tree = "\n".join("  " + line for line in lines)
    return base_yaml().replace(
        "    hierarchy: test2_hierarchy_Age.csv\n",
        f"    hierarchy:\n      builder: nested\n      tree:\n        top: *a{levels - 1}\n", 1,
    ).replace("attributes:\n", f"anchors:\n{tree}\nattributes:\n", 1)


def _deep(depth: int) -> str:
    return base_yaml().replace("    hierarchy: test2_hierarchy_Age.csv\n",
                               "    hierarchy: {builder: nested, tree: " + "[" * depth + "]" * depth + "}\n", 1)


def _column_named(text: str) -> tuple[str, object]:
    """The toy's ``Disease`` column renamed ``text`` and listed unquoted in the config."""
    return (base_yaml().replace("  Disease:\n", f"  {text}:\n", 1),
            edit_toy(HEADER, HEADER.replace("Disease", text)))


CASES = [
    # ---------------------------------------------------------------- numbers are numbers
    C("config-k-boolean", 2, ("privacy.0.k", "True", "not a number"), cfg=(put("privacy.0.k", True),)),
    C("config-k-yes", 2, ("privacy.0.k", "True"), raw=base_yaml().replace("k: 3", "k: yes")),
    C("config-k-quoted", 2, ("privacy.0.k", "'5'", "without quotes"), cfg=(put("privacy.0.k", "5"),)),
    C("config-k-fraction", 2, ("privacy.0.k", "2.5", "whole number"), cfg=(put("privacy.0.k", 2.5),)),
    C("config-k-whole-float", 2, ("privacy.0.k", "3.0", "whole number"), cfg=(put("privacy.0.k", 3.0),)),
    C("config-l-boolean", 2, ("privacy.1.l", "True"), cfg=(model(model="l-diversity", l=True),)),
    C("config-l-infinite", 2, ("privacy.1.l", "finite"), cfg=(model(model="l-diversity", l=INF),)),
    C("config-l-nan", 2, ("privacy.1.l", "finite"), cfg=(model(model="l-diversity", l=NAN),)),
    C("config-entropy-l-text", 2, ("privacy.1.l", "'two'"), cfg=(model(model="entropy-l-diversity", l="two"),)),
    C("config-recursive-l-fraction", 2, ("privacy.1.l", "2.5", "whole number"),
      cfg=(model(model="l-diversity", variant="recursive", l=2.5, c=3),)),
    C("config-recursive-c-infinite", 2, ("privacy.1.c", "finite"),
      cfg=(model(model="recursive-l-diversity", l=2, c=INF),)),
    C("config-recursive-c-boolean", 2, ("privacy.1.c", "True"),
      cfg=(model(model="recursive-l-diversity", l=2, c=True),)),
    C("config-frequency-l-quoted", 2, ("privacy.1.l", "'2'"), cfg=(model(model="frequency-l-diversity", l="2"),)),
    C("config-t-boolean", 2, ("privacy.1.t", "True"), cfg=(model(model="t-closeness", t=True),)),
    C("config-t-nan", 2, ("privacy.1.t", "finite"), cfg=(model(model="t-closeness", t=NAN),)),
    C("config-beta-infinite", 2, ("privacy.1.beta", "finite"), cfg=(model(model="beta-likeness", beta=INF),)),
    C("config-beta-boolean", 2, ("privacy.1.beta", "True"), cfg=(model(model="beta-likeness", beta=True),)),
    C("config-delta-infinite", 2, ("privacy.1.delta", "finite"), cfg=(model(model="delta-disclosure", delta=INF),)),
    C("config-delta-quoted", 2, ("privacy.1.delta", "'1.5'"), cfg=(model(model="delta-disclosure", delta="1.5"),)),
    C("config-J-nan", 2, ("privacy.1.J", "finite"), cfg=(model(model="background-knowledge", J=NAN),)),
    C("config-J-boolean", 2, ("privacy.1.J", "True"), cfg=(model(model="background-knowledge", J=True),)),
    C("config-bandwidth-infinite", 2, ("privacy.1.prior.bandwidth", "finite"),
      cfg=(model(model="background-knowledge", J=0.5, prior={"kind": "kernel", "bandwidth": INF}),)),
    C("config-theta-k-boolean", 2, ("privacy.1.k", "True"),
      cfg=(model(model="theta-sensitivity", k=True, **{"lambda": 0.5}),)),
    C("config-theta-lambda-quoted", 2, ("privacy.1.lambda", "'0.5'"),
      cfg=(model(model="theta-sensitivity", k=2, **{"lambda": "0.5"}),)),
    C("config-theta-distinct-text", 2, ("privacy.1.distinct", "'no'"),
      cfg=(model(model="theta-sensitivity", k=2, distinct="no"),)),
    C("config-min-level-boolean", 2, ("attributes.Age.min_level", "True"),
      cfg=(put("attributes.Age.min_level", True),)),
    C("config-max-level-quoted", 2, ("attributes.Age.max_level", "'2'"), cfg=(put("attributes.Age.max_level", "2"),)),
    C("config-weight-infinite", 2, ("attributes.Age.weight", "finite"), cfg=(put("attributes.Age.weight", INF),)),
    C("config-metric-gs-boolean", 2, ("algorithm.metric.gs", "True"),
      cfg=(flash, put("algorithm.metric", {"name": "loss", "gs": True}))),
    C("config-metric-gs-nan", 2, ("algorithm.metric.gs", "finite"),
      cfg=(flash, put("algorithm.metric", {"name": "loss", "gs": NAN}))),
    C("config-strip-text", 2, ("input.strip", "'no'"), cfg=(put("input.strip", "no"),)),
    C("config-neutralise-number", 2, ("output.neutralise", "1"), cfg=(put("output.neutralise", 1),)),
    C("config-rho-infinite", 2, ("post_analytics.rho", "finite"),
      cfg=(put("post_analytics", {"critical": ["Disease"], "rho": INF}),)),
    C("config-audit-threshold-nan", 2, ("audit.thresholds.highest_risk", "finite"),
      cfg=(put("audit", {"thresholds": {"highest_risk": NAN}}),)),
    C("config-audit-population-boolean", 2, ("audit.population", "True"), cfg=(put("audit", {"population": True}),)),
    C("config-header-row-boolean", 2, ("input.header_row", "True"),
      cfg=(put("input", {"path": "in.xlsx", "header_row": True}),)),
    # ---------------------------------------------------------------- options that do not apply
    C("config-c-on-distinct-l", 2, ("privacy.1.c", "distinct l-diversity", "recursive"),
      cfg=(model(model="l-diversity", l=2, c=3),)),
    C("config-estimator-on-distinct-l", 2, ("privacy.1.estimator", "distinct l-diversity", "entropy"),
      cfg=(model(model="l-diversity", l=2, estimator="grassberger"),)),
    C("config-estimator-on-recursive-l", 2, ("privacy.1.estimator", "recursive"),
      cfg=(model(model="l-diversity", variant="recursive", l=2, c=3, estimator="shannon"),)),
    C("config-c-on-entropy-l", 2, ("privacy.1.c", "entropy l-diversity"),
      cfg=(model(model="entropy-l-diversity", l=2, c=3),)),
    C("config-c-on-frequency-l", 2, ("privacy.1.c", "frequency l-diversity"),
      cfg=(model(model="frequency-l-diversity", l=2, c=3),)),
    C("config-variant-contradicts-model", 2, ("privacy.1.variant", "'distinct'", "entropy-l-diversity"),
      cfg=(model(model="entropy-l-diversity", l=2, variant="distinct"),)),
    C("config-variant-contradicts-recursive", 2, ("privacy.1.variant", "'entropy'"),
      cfg=(model(model="recursive-l-diversity", l=2, c=3, variant="entropy"),)),
    C("config-variant-on-t-closeness", 2, ("privacy.1.variant", "t-closeness", "beta-likeness"),
      cfg=(model(model="t-closeness", t=0.5, variant="basic"),)),
    C("config-distance-on-l-diversity", 2, ("privacy.1.distance", "t-closeness"),
      cfg=(model(model="l-diversity", l=2, distance="equal"),)),
    C("config-k-on-t-closeness", 2, ("privacy.1.k", "t-closeness", "k-anonymity"),
      cfg=(model(model="t-closeness", t=0.5, k=2),)),
    C("config-attributes-on-l-diversity", 2, ("privacy.1.attributes", "k-anonymity"),
      cfg=(model(model="l-diversity", l=2, attributes=["Age"]),)),
    C("config-prior-on-k-anonymity", 2, ("privacy.0.prior", "background-knowledge"),
      cfg=(put("privacy.0.prior", "kernel"),)),
    C("config-lambda-on-k-anonymity", 2, ("privacy.0.lambda", "theta-sensitivity"),
      cfg=(put("privacy.0.lambda", 0.5),)),
    C("config-attribute-on-k-anonymity", 2, ("privacy.0.attribute", "k-anonymity", "l-diversity"),
      cfg=(put("privacy.0.attribute", "Disease"),)),
    C("config-order-on-numeric-qi", 2, ("attributes.Age", "order", "ordinal"),
      cfg=(put("attributes.Age.type", "numeric"), put("attributes.Age.order", ["22", "29"]))),
    C("config-order-on-inferred-qi", 2, ("attributes.Age", "order", "ordinal"),
      cfg=(put("attributes.Age.order", ["22", "29"]),)),
    C("config-order-twice", 2, ("attributes.Disease.order", "'flu'", "twice"),
      cfg=(put("attributes.Disease.order", ["flu", "gastritis", "flu"]),)),
    C("config-order-on-insensitive", 2, ("attributes.Salary.order", "insensitive"),
      cfg=(attr("Salary", role="insensitive", order=["3", "4"]),)),
    C("config-hierarchy-on-insensitive", 2, ("attributes.Salary.hierarchy", "insensitive", "quasi"),
      cfg=(attr("Salary", role="insensitive", hierarchy="test2_hierarchy_Age.csv"),)),
    C("config-type-on-insensitive", 2, ("attributes.Salary.type", "insensitive"),
      cfg=(attr("Salary", role="insensitive", type="numeric"),)),
    C("config-min-level-on-sensitive", 2, ("attributes.Disease.min_level", "sensitive", "quasi-identifier"),
      cfg=(put("attributes.Disease.min_level", 1),)),
    C("config-weight-on-sensitive", 2, ("attributes.Salary.weight", "sensitive"),
      cfg=(put("attributes.Salary.weight", 0.3),)),
    C("config-categories-on-quasi", 2, ("attributes.Age.categories", "quasi-identifier", "sensitive"),
      cfg=(put("attributes.Age.categories", {"29": "Low"}),)),
    C("config-format-on-numeric", 2, ("attributes.Salary", "format", "date"),
      cfg=(put("attributes.Salary.format", "%Y"),)),
    C("config-sheet-on-csv", 2, ("input.sheet", "csv input", "excel"), cfg=(put("input.sheet", "Data"),)),
    C("config-header-row-on-csv", 2, ("input.header_row", "csv input", "excel"), cfg=(put("input.header_row", 2),)),
    C("config-table-on-csv", 2, ("input.table", "csv input", "SQL"), cfg=(put("input.table", "people"),)),
    C("config-query-on-csv", 2, ("input.query", "csv input"), cfg=(put("input.query", "SELECT 1"),)),
    C("config-separator-on-sqlite", 2, ("input.separator", "SQL input", "csv"), files=(sqlite_input(),),
      cfg=(put("input", {"path": "in.db", "table": "people", "separator": ";"}),)),
    C("config-sheet-on-sqlite", 2, ("input.sheet", "SQL input", "excel"), files=(sqlite_input(),),
      cfg=(put("input", {"path": "in.db", "sheet": "Data"}),)),
    C("config-batch-rows-on-sqlite", 2, ("input.batch_rows", "SQL input"), files=(sqlite_input(),),
      cfg=(put("input", {"path": "in.db", "batch_rows": 10}),)),
    C("config-encoding-on-declared-parquet", 2, ("input.encoding", "parquet input", "csv"),
      cfg=(put("input", {"path": TOY, "format": "parquet", "encoding": "latin-1"}),)),
    C("config-separator-on-excel", 2, ("input.separator", "excel input", "csv"),
      cfg=(put("input", {"path": "in.xlsx", "separator": ";"}),)),
    C("config-query-on-excel", 2, ("input.query", "excel input"),
      cfg=(put("input", {"path": "in.xlsx", "query": "SELECT 1"}),)),
    C("config-separator-on-dataset", 2, ("input.separator", "built-in dataset"),
      cfg=(put("input", {"dataset": "adult", "separator": ";"}),)),
    C("config-gs-on-dm", 2, ("algorithm.metric.gs", "metric dm", "loss"),
      cfg=(flash, put("algorithm.metric", {"name": "dm", "gs": 0.2}))),
    C("config-aggregate-on-entropy", 2, ("algorithm.metric.aggregate", "metric entropy", "loss"),
      cfg=(flash, put("algorithm.metric", {"name": "entropy", "aggregate": "sum"}))),
    C("config-monotonic-on-loss", 2, ("algorithm.metric.monotonic", "metric loss", "precision"),
      cfg=(flash, put("algorithm.metric", {"name": "loss", "monotonic": False}))),
    C("config-aggregate-on-height", 2, ("algorithm.metric.aggregate", "metric height"),
      cfg=(flash, put("algorithm.metric", "height"), put("algorithm.metric", {"name": "height", "aggregate": "max"}))),
    C("config-metric-shorthand-unknown", 2, ("algorithm.metric.name", "'utility'", "dm"),
      cfg=(flash, put("algorithm.metric", "utility"))),
    C("config-alias-bomb-in-nested-tree", 2, ("MAX_CONFIG_NODES", "1,000,000", "alias"), raw=_bomb()),
    C("config-nested-5000-deep", 2, ("MAX_CONFIG_DEPTH", "64"), raw=_deep(5000)),
    C("config-nested-65-deep", 2, ("MAX_CONFIG_DEPTH",), raw=_deep(65)),
    C("config-recursive-alias", 2, ("contains itself",),
      raw=base_yaml().replace("    hierarchy: test2_hierarchy_Age.csv\n",
                              "    hierarchy: {builder: nested, tree: &t {top: [*t]}}\n", 1)),
    C("config-deep-mapping", 2, ("MAX_CONFIG_DEPTH",),
      raw=base_yaml().replace("seed", "seed") + "extra: " + "{a: " * 100 + "1" + "}" * 100 + "\n"),
    # ---------------------------------------------------------------- names YAML did not read as text
    C("config-column-named-yes", 2, ("'yes'", "boolean", "quote"), raw=_column_named("yes")[0],
      files=(_column_named("yes")[1],)),
    C("config-column-named-no", 2, ("'no'", "boolean", "quote"), raw=_column_named("no")[0],
      files=(_column_named("no")[1],)),
    C("config-column-named-007", 2, ("'007'", "number", "quote"), raw=_column_named("007")[0],
      files=(_column_named("007")[1],)),
    C("config-column-named-null", 2, ("'null'", "nothing", "quote"), raw=_column_named("null")[0],
      files=(_column_named("null")[1],)),
    C("config-column-named-1.5", 2, ("'1.5'", "number", "quote"), raw=_column_named("1.5")[0],
      files=(_column_named("1.5")[1],)),
    C("config-column-named-off", 2, ("'off'", "boolean", "quote"), raw=_column_named("off")[0],
      files=(_column_named("off")[1],)),
    C("config-k-anonymity-attribute-yes", 2, ("privacy.1.attributes.0", "boolean", "quote"),
      raw=base_yaml("").replace("  k: 3\n", "  k: 3\n- model: k-anonymity\n  k: 2\n  attributes: [yes]\n", 1)),
    C("config-l-diversity-attribute-number", 2, ("privacy.1.attribute", "number", "quote"),
      raw=base_yaml("").replace("  k: 3\n", "  k: 3\n- model: l-diversity\n  attribute: 007\n  l: 2\n", 1)),
    # ---------------------------------------------------------------- keys a role or model needs or lacks
    C("config-recursive-c-missing", 2, ("privacy.1.c", "required key 'c'"),
      cfg=(model(model="recursive-l-diversity", l=2),)),
    C("config-model-number", 2, ("privacy.0.model",), cfg=(put("privacy.0.model", 5),)),
    C("config-sensitive-role-key-on-identifier", 2, ("attributes.Salary.categories", "identifier"),
      cfg=(attr("Salary", role="identifier", categories={"3": "Low"}),)),
    C("config-quasi-key-on-person", 2, ("attributes.Salary.max_level", "person"),
      cfg=(attr("Salary", role="person", max_level=1),)),
    C("config-ordinal-qi-order-duplicate", 2, ("attributes.Age.order", "twice"),
      cfg=(put("attributes.Age.type", "ordinal"), put("attributes.Age.order", ["22", "22"]))),
    C("config-sensitive-type-quasi-only-key", 2, ("attributes.Disease.weight", "quasi-identifier"),
      cfg=(put("attributes.Disease", {"role": S, "weight": 1}),)),
    C("config-quasi-alias-role-order", 2, ("attributes.Age", "ordinal"),
      cfg=(put("attributes.Age", {"role": "qi", "hierarchy": "test2_hierarchy_Age.csv", "order": ["22"]}),)),
    C("config-quasi-type-categorical-order", 2, ("attributes.ZIPCode", "ordinal"),
      cfg=(put("attributes.ZIPCode", {"role": Q, "type": "categorical", "hierarchy": "test2_hierarchy_ZIPCode.csv",
                                      "order": ["47677"]}),)),
    # output keys of another format (the base output is a ';'-separated CSV)
    C("config-output-separator-on-sqlite", 2, ("'separator'", "sqlite output", "csv output only"),
      cfg=(put("output", {"path": "out.db", "table": "t", "separator": ";"}),)),
    C("config-output-sheet-on-csv", 2, ("'sheet'", "csv output", "excel output only"), cfg=(put("output.sheet", "R"),)),
    C("config-output-table-on-parquet", 2, ("'table'", "parquet output"),
      cfg=(put("output", {"path": "out.parquet", "table": "t"}),)),
    C("config-output-encoding-on-excel", 2, ("'encoding'", "excel output"),
      cfg=(put("output", {"path": "out.xlsx", "encoding": "latin-1"}),)),
    C("config-output-separator-with-excel-override", 2, ("--output", "'separator'", "excel output"),
      args=("--output", "{tmp}/o.xlsx")),
    # --input in another format than the config's: a key of the config's format would be ignored
    C("config-separator-with-parquet-override", 2, ("input.separator", "does not apply", "--input", "parquet"),
      files=(_toy_as("in.parquet"),), args=("--input", "{tmp}/in.parquet")),
    C("config-sheet-with-csv-override", 2, ("input.sheet", "does not apply", "--input", "csv"),
      cfg=(put("input", {"path": "in.xlsx", "sheet": "Data"}),), files=(copy_toy("other.csv"),),
      args=("--input", "{tmp}/other.csv")),
    C("config-table-with-csv-override", 2, ("input.table", "does not apply", "--input"),
      cfg=(put("input", {"path": "in.db", "table": "people"}),), files=(sqlite_input(), copy_toy("other.csv")),
      args=("--input", "{tmp}/other.csv")),
]
