"""Catalogue cases, the CLI ends of issue 27: ``anonkit check --population`` and the research
subset's file among the places a run reads.

``anonkit check --population`` recounts a release's classes in a population table: a missing or
column-less population, a generalized label no hierarchy reads, a subset that is no sample of the
population, and flags that go with ``--population`` given without it are each refused in one line
before anything is measured. ``input.subset.path`` is read like the input, so no output (release,
``--output``, manifest, report) may land on it: each is refused naming both keys, nothing written.
"""

from __future__ import annotations

import os
from pathlib import Path

from bad_input_kit import CHECK_TOY, TOY, C, Prepare, put, symlink, write

SUBSET = "subset.csv"
HEADER = "ZIPCode;Age;Salary;Disease\n"
#: the toy table's first five rows: the research sample of the subset cases
SUBSET_ROWS = HEADER + ("47677;29;3;gastric ulcer\n47602;22;4;gastritis\n47678;27;5;stomach cancer\n"
                        "47905;43;6;gastritis\n47909;52;11;flu\n")
#: a release of the toy table at ZIPCode level 2 and Age level 1 ([20,30[ …), as any tool might write it
RELEASE = "release.csv"
RELEASE_ROWS = HEADER + ("476**;[20,30[;3;gastric ulcer\n476**;[20,30[;4;gastritis\n476**;[20,30[;5;stomach cancer\n"
                         "479**;[40,50[;6;gastritis\n479**;[50,60[;11;flu\n")
HIERARCHIES = ("--hierarchy", "ZIPCode={tmp}/test2_hierarchy_ZIPCode.csv",
               "--hierarchy", "Age={tmp}/test2_hierarchy_Age.csv")
#: ``anonkit check`` of the release against the toy table as its population
CHECK = ("{tmp}/" + RELEASE, "--separator", ";", "--qi", "ZIPCode,Age", "--population", "{tmp}/" + TOY)


def _release(tmp: Path) -> None:
    (tmp / RELEASE).write_text(RELEASE_ROWS)


def hardlink(name: str, target: str) -> Prepare:
    return lambda tmp: os.link(tmp / target, tmp / name)


WITH_SUBSET = put("input.subset", {"path": SUBSET})
SUBSET_FILE = write(SUBSET, SUBSET_ROWS)

CASES = [
    # ---- anonkit check --population: the population table
    C("check-population-missing", 2, ("file not found", "nope.csv"),
      check=(*CHECK_TOY, "--qi", "ZIPCode,Age", "--population", "{tmp}/nope.csv")),
    C("check-population-lacks-qi", 2, ("population table lacks a quasi-identifier", "ZIPCode", "--population"),
      files=(_release, write("pop.csv", "Age;Salary\n29;3\n")),
      check=(*CHECK[:-1], "{tmp}/pop.csv", *HIERARCHIES)),
    C("check-population-wrong-separator", 2, ("wrong separator", "test2.csv"),
      files=(_release,), check=(*CHECK, "--population-separator", ",", *HIERARCHIES)),
    # a generalized label is read through its hierarchy: without one, refused naming --hierarchy
    C("check-population-no-hierarchy", 2, ("no hierarchy was given", "--hierarchy Age=FILE", "Age"),
      files=(_release, lambda tmp: (tmp / RELEASE).write_text(RELEASE_ROWS.replace("[20,30[", "young"))),
      check=CHECK),
    C("check-population-label-on-no-level", 2, ("Age", "young"),
      files=(_release, lambda tmp: (tmp / RELEASE).write_text(RELEASE_ROWS.replace("[20,30[", "young"))),
      check=(*CHECK, *HIERARCHIES)),
    C("check-population-hierarchy-missing-file", 2, ("nope.csv",),
      files=(_release,), check=(*CHECK, "--hierarchy", "Age={tmp}/nope.csv")),
    # flags that go with --population
    C("check-subset-without-population", 2, ("--subset", "goes with --population"),
      files=(SUBSET_FILE,), check=(*CHECK_TOY, "--qi", "ZIPCode,Age", "--subset", "{tmp}/" + SUBSET)),
    C("check-population-separator-without-population", 2, ("--population-separator", "goes with --population"),
      check=(*CHECK_TOY, "--qi", "ZIPCode,Age", "--population-separator", ";")),
    C("check-qi-hierarchy-without-population", 2, ("--hierarchy", "give --population", "ZIPCode"),
      check=(*CHECK_TOY, "--qi", "ZIPCode,Age", "--hierarchy", "ZIPCode={tmp}/test2_hierarchy_ZIPCode.csv")),
    # --subset: the research sample must be drawn from the population, and the release made from it
    C("check-subset-missing", 2, ("file not found",),
      files=(_release,), check=(*CHECK, "--subset", "{tmp}/nope.csv", *HIERARCHIES)),
    C("check-subset-row-not-in-population", 2, ("subset row is no row of the population", "--subset", "11111"),
      files=(_release, write(SUBSET, HEADER + "11111;29;3;flu\n")),
      check=(*CHECK, "--subset", "{tmp}/" + SUBSET, *HIERARCHIES)),
    C("check-subset-row-twice", 2, ("subset row is no row of the population",),
      files=(_release, write(SUBSET, HEADER + "47677;29;3;gastric ulcer\n" * 2)),
      check=(*CHECK, "--subset", "{tmp}/" + SUBSET, *HIERARCHIES)),
    C("check-subset-lacks-qi", 2, ("subset lacks a quasi-identifier", "Age"),
      files=(_release, write(SUBSET, "ZIPCode;Salary\n47677;3\n")),
      check=(*CHECK, "--subset", "{tmp}/" + SUBSET, *HIERARCHIES)),
    C("check-release-not-of-subset", 2, ("more records than the subset", "--subset"),
      files=(_release, write(SUBSET, HEADER + "47677;29;3;gastric ulcer\n47905;43;6;gastritis\n47909;52;11;flu\n")),
      check=(*CHECK, "--subset", "{tmp}/" + SUBSET, *HIERARCHIES)),
    # ---- input.subset.path is read: no output lands on it
    C("subset-is-output-path", 2, ("output.path", "input.subset.path"),
      cfg=(WITH_SUBSET, put("output.path", SUBSET)), files=(SUBSET_FILE,)),
    C("subset-is-output-flag", 2, ("--output", "input.subset.path"),
      cfg=(WITH_SUBSET,), files=(SUBSET_FILE,), args=("--output", "{tmp}/" + SUBSET)),
    C("subset-is-report", 2, ("--report", "input.subset.path"),
      cfg=(WITH_SUBSET,), files=(SUBSET_FILE,), args=("--report", "{tmp}/" + SUBSET)),
    C("subset-is-manifest", 2, ("output.manifest", "input.subset.path"),
      cfg=(WITH_SUBSET, put("output.manifest", SUBSET), put("post_analytics", {"critical": ["Disease"],
                                                                                "inject_fake": True})),
      files=(SUBSET_FILE,)),
    C("subset-is-output-through-dotdot", 2, ("output.path", "input.subset.path"),
      cfg=(WITH_SUBSET, put("output.path", "sub/../" + SUBSET)),
      files=(SUBSET_FILE, lambda tmp: (tmp / "sub").mkdir())),
    C("subset-is-output-symlink", 2, ("output.path", "input.subset.path"),
      cfg=(WITH_SUBSET, put("output.path", "link.csv")), files=(SUBSET_FILE, symlink("link.csv", SUBSET))),
    C("subset-is-output-hardlink", 2, ("output.path", "input.subset.path"),
      cfg=(WITH_SUBSET, put("output.path", "hard.csv")), files=(SUBSET_FILE, hardlink("hard.csv", SUBSET))),
    C("subset-file-is-output-missing", 2, ("output.path", "input.subset.path"),
      cfg=(WITH_SUBSET, put("output.path", SUBSET)), files=()),
]
