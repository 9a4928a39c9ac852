"""Catalogue cases: one rule for paths (issue 23, class 1).

Every output a run writes (``output.path``, ``--output``, ``output.manifest``,
``post_analytics.manifest``, ``--report``) pointed at every place it reads (the input, hierarchies,
categories, the config file, the audit's control and population tables), spelled as the same
relative path, through ``..``, a symbolic link and a hard link: each is refused before any work in
one line naming both keys, and nothing is written. Then two writes onto one place, and SQLite tables.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pandas as pd

from bad_input_kit import TOY, C, Case, Prepare, copy_toy, mkdir, put, sqlite_input, symlink, write

CATEGORIES = "categories.csv"
CONTROL = "control.csv"
POPULATION = "population.csv"


def hardlink(name: str, target: str) -> Prepare:
    return lambda tmp: os.link(tmp / target, tmp / name)


def _categories(tmp: Path) -> None:
    frame = pd.read_csv(tmp / TOY, sep=";", dtype=str)
    rows = "\n".join(f"{d},{'High' if 'cancer' in d else 'Low'}" for d in sorted(set(frame["Disease"])))
    (tmp / CATEGORIES).write_text("value,category\n" + rows + "\n")


#: what a run reads: key → (file, how to make the config read it, how to make the file)
READS: dict[str, tuple[str, tuple, tuple]] = {
    "input.path": (TOY, (), ()),
    "attributes.Age.hierarchy": ("test2_hierarchy_Age.csv", (), ()),
    "attributes.Disease.hierarchy": ("test2_hierarchy_Disease.csv", (), ()),
    "attributes.Disease.categories": (CATEGORIES, (put("attributes.Disease.categories", CATEGORIES),),
                                      (_categories,)),
    "the config file": ("c.yaml", (), ()),
    "audit.control": (CONTROL, (put("audit", {"control": CONTROL}),), (copy_toy(CONTROL),)),
    "audit.population_table": (POPULATION, (put("audit", {"population_table": POPULATION, "population": 100}),),
                               (copy_toy(POPULATION),)),
}


def _point(write: str, value: str) -> tuple[tuple, tuple[str, ...]]:
    """The config changes and CLI arguments that make ``write`` go to ``value`` (relative to the folder)."""
    if write == "output.path":
        return (put("output.path", value), put("output.format", "csv")), ()
    if write == "--output":
        return (), ("--output", "{tmp}/" + value)
    if write == "output.manifest":
        return (put("output.manifest", value),), ()
    if write == "post_analytics.manifest":
        return (put("post_analytics", {"critical": ["Disease"], "manifest": value}),), ()
    assert write == "--report"
    return (), ("--report", "{tmp}/" + value)


WRITES = ("output.path", "--output", "output.manifest", "post_analytics.manifest", "--report")


def _words(write: str, read: str) -> tuple[str, ...]:
    lead = "output is the input" if read == "input.path" else "would replace a file the run reads"
    return lead, write, read


def _spellings(file: str, write: str, n: int) -> list[tuple[str, str, tuple]]:
    """``(spelling id, path, files to make)``: the same path, through ``..``, a symlink, a hard link
    (the links named ``.html`` for the report, whose name must end so)."""
    suffix = ".html" if write == "--report" else ".csv"
    return [
        ("same", file, ()),
        ("dotdot", f"sub{n}/../{file}", (mkdir(f"sub{n}"),)),
        ("symlink", f"link{n}{suffix}", (symlink(f"link{n}{suffix}", file),)),
        ("hardlink", f"hard{n}{suffix}", (hardlink(f"hard{n}{suffix}", file),)),
    ]


def _matrix() -> list[Case]:
    out = []
    for w, target in enumerate(WRITES):
        for r, (read, (file, cfg, files)) in enumerate(READS.items()):
            for spelling, value, made in _spellings(file, target, w * 10 + r):
                point_cfg, args = _point(target, value)
                slug = read.replace("attributes.", "").replace("the config file", "config").replace(".", "-")
                out.append(C(f"paths-{target.strip('-').replace('.', '-')}-over-{slug}-{spelling}", 2,
                             _words(target, read), cfg=(*cfg, *point_cfg), files=(*files, *made), args=args))
    return out


def _sqlite(tmp: Path) -> None:
    sqlite_input()(tmp)
    with sqlite3.connect(tmp / "in.db") as con:
        con.execute("CREATE TABLE other (x TEXT)")
    con.close()


CASES: list[Case] = [
    *_matrix(),
    # ------------------------------------------------------------- two writes onto one place
    C("paths-manifest-is-the-release", 2, ("output.path", "output.manifest", "same file"),
      cfg=(put("output.manifest", "out.csv"),)),
    C("paths-manifest-is-the-release-via-dotdot", 2, ("output.path", "output.manifest", "same file"),
      cfg=(put("output.manifest", "sub/../out.csv"),), files=(mkdir("sub"),)),
    C("paths-manifest-is-the-release-via-symlink", 2, ("output.path", "output.manifest", "same file"),
      cfg=(put("output.manifest", "m.csv"),), files=(symlink("m.csv", "out.csv"),)),
    C("paths-post-manifest-is-the-release", 2, ("output.path", "post_analytics.manifest", "same file"),
      cfg=(put("post_analytics", {"critical": ["Disease"], "manifest": "out.csv"}),)),
    C("paths-report-is-the-release", 2, ("output.path", "--report", "same file"),
      cfg=(put("output.path", "out.html"), put("output.format", "csv")), args=("--report", "{tmp}/out.html")),
    C("paths-report-is-the-release-via-symlink", 2, ("output.path", "--report", "same file"),
      args=("--report", "{tmp}/r.html"), files=(symlink("r.html", "out.csv"),)),
    C("paths-report-is-the-cli-output", 2, ("--output", "--report", "same file"),
      args=("--output", "{tmp}/o.html", "--report", "{tmp}/o.html"), cfg=(put("output.format", "csv"),)),
    C("paths-report-is-the-manifest", 2, ("output.manifest", "--report", "same file"),
      cfg=(put("output.manifest", "m.html"),), args=("--report", "{tmp}/m.html")),
    C("paths-anatomy-manifest-is-a-linked-table", 2, ("output.path", "output.manifest", "same file"),
      cfg=(put("algorithm", {"name": "anatomy"}), put("privacy", [{"model": "l-diversity", "attribute": "Disease",
                                                                   "l": 2}]),
           put("attributes.Salary", {"role": "identifier"}), put("output.path", "rel.csv"),
           put("output.manifest", "rel-st.csv"))),
    # ------------------------------------------------------------- database files
    C("paths-manifest-over-the-input-database", 2, ("output is the input", "output.manifest", "input.path"),
      files=(sqlite_input(),), cfg=(put("input", {"path": "in.db", "table": "people"}),
                                    put("output.manifest", "in.db"))),
    C("paths-csv-release-over-the-input-database", 2, ("output is the input", "output.path", "input.path"),
      files=(sqlite_input(),), cfg=(put("input", {"path": "in.db", "table": "people"}),
                                    put("output", {"path": "in.db", "format": "csv"}))),
    C("paths-release-into-the-input-database-via-symlink", 2, ("output is the input", "output.path", "input.path"),
      files=(sqlite_input(), symlink("link.db", "in.db")),
      cfg=(put("input", {"path": "in.db", "table": "people"}), put("output", {"path": "link.db", "table": "People"}))),
    C("paths-release-into-the-input-database-via-hardlink", 2, ("output is the input", "output.path", "input.path"),
      files=(sqlite_input(), hardlink("hard.db", "in.db")),
      cfg=(put("input", {"path": "in.db", "table": "people"}), put("output", {"path": "hard.db", "table": "people"}))),
    C("paths-release-over-the-table-a-query-reads", 2, ("output is the input", "output.path", "input.path"),
      files=(_sqlite,), cfg=(put("input", {"path": "in.db", "query": 'SELECT * FROM "People" ORDER BY 1'}),
                             put("output", {"path": "in.db", "table": "people"}))),
    C("paths-sqlite-release-over-a-hierarchy", 2, ("would replace a file the run reads", "attributes.Age.hierarchy"),
      cfg=(put("output", {"path": "test2_hierarchy_Age.csv", "format": "sqlite", "table": "release"}),)),
    C("paths-release-over-the-control-in-a-database", 2, ("would replace a file the run reads", "audit.control"),
      files=(write("ctl.csv", "x\n"),), cfg=(put("audit", {"control": "ctl.csv"}),
                                             put("output", {"path": "ctl.csv", "format": "sqlite",
                                                            "table": "release"}))),
]
