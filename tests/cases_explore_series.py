"""Bad-input catalogue, several configs on one R-U map (``anonkit explore CONFIG --also OTHER.yaml``, issue 29
item 4): every case is refused in one line (exit 2) before any run, with nothing written.

They run ``anonkit explore`` (the kit's ``Case.command``): :data:`CASES` is :data:`EXPLORE_CASES` with each
case's ``args`` following ``anonkit explore {tmp}/c.yaml --out {tmp}/map``; ``tests/test_bad_input.py`` runs
them. The main config is the kit's base config (series ``c``); ``o.yaml`` is a second series written by
:func:`other`.
Before ``--also`` existed every case failed as an unknown option.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import yaml

from bad_input_kit import C, base_config, copy_toy, mkdir, put, write

#: a SafePub series over the toy table (δ below 1/9, seeded: reproducible, NOT private)
SAFEPUB = {"privacy": [{"model": "differential-privacy", "epsilon": 2.0, "delta": 1e-3}],
           "algorithm": {"name": "safepub", "degree": "medium", "seeded": True}}


def other(name: str = "o.yaml", **changes: object):  # type: ignore[no-untyped-def]
    """Write a second config ``name``: the base config with top-level ``changes``."""

    def prepare(tmp: Path) -> None:
        cfg = {**base_config(), **changes}
        (tmp / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp / name).write_text(yaml.safe_dump(cfg, sort_keys=False))

    return prepare


def attrs(**roles: dict) -> dict:
    """The base config's attributes with some replaced (``None``: left out)."""
    out = dict(base_config()["attributes"])
    for k, v in roles.items():
        if v is None:
            out.pop(k)
        else:
            out[k] = v
    return out


ALSO = ("--also", "{tmp}/o.yaml")
K = ("--vary", "k=2,3")

EXPLORE_CASES = [
    # the --also file itself
    C("also-missing-file", 2, ("no such config file", "nope.yaml"), args=("--also", "{tmp}/nope.yaml", *K)),
    C("also-a-folder", 2, ("no such config file",), files=(mkdir("folder"),), args=("--also", "{tmp}/folder", *K)),
    C("also-unknown-key", 2, ("bogus",), files=(other(bogus=1),), args=(*ALSO, *K)),
    C("also-itself", 2, ("two series are named 'c'",), args=("--also", "{tmp}/c.yaml", *K)),
    C("also-same-name-elsewhere", 2, ("two series are named 'c'", "rename"),
      files=(other("sub/c.yaml", input={"path": "../test2.csv", "separator": ";"}),),
      args=("--also", "{tmp}/sub/c.yaml", *K)),
    # one input for every series
    C("also-another-file", 2, ("series o reads another input", "same table"),
      files=(copy_toy("copy.csv"), other(input={"path": "copy.csv", "separator": ";"})), args=(*ALSO, *K)),
    C("also-bundled-dataset", 2, ("series o reads another input", "adult"),
      files=(other(input={"dataset": "adult"}),), args=(*ALSO, *K)),
    C("also-another-separator", 2, ("another input.separator",),
      files=(other(input={"path": "test2.csv", "separator": ","}),), args=(*ALSO, *K)),
    C("also-another-missing-rule", 2, ("another input.missing",),
      files=(other(input={"path": "test2.csv", "separator": ";", "missing": "suppress"}),), args=(*ALSO, *K)),
    C("also-another-strip", 2, ("another input.strip",),
      files=(other(input={"path": "test2.csv", "separator": ";", "strip": False}),), args=(*ALSO, *K)),
    # one role for every column
    C("also-another-role", 2, ("series o makes Salary insensitive but c makes it sensitive",),
      files=(other(attributes=attrs(Salary={"role": "insensitive"})),), args=(*ALSO, *K)),
    C("also-quasi-made-sensitive", 2, ("makes Age sensitive", "Age"),
      files=(other(attributes=attrs(Age={"role": "sensitive"})),), args=(*ALSO, *K)),
    C("also-column-left-out", 2, ("makes Disease no role",),
      files=(other(attributes=attrs(Disease=None)),), args=(*ALSO, *K)),
    C("also-extra-identifier", 2, ("makes Name identifier", "no role"),
      files=(other(attributes=attrs(Name={"role": "identifier"})),), args=(*ALSO, *K)),
    C("also-another-default-role", 2, ("default_role",),
      files=(other(default_role="insensitive"),), args=(*ALSO, *K)),
    # one audit for the map
    C("also-another-audit", 2, ("another audit section", "thresholds"),
      files=(other(audit={"targets": 5}),), args=(*ALSO, *K)),
    C("also-another-threshold", 2, ("another audit section",),
      files=(other(audit={"thresholds": {"attack_risk": 0.5}}),), args=(*ALSO, *K)),
    C("also-audit-only-there", 2, ("another audit section",), cfg=(put("audit", {"targets": 5}),),
      files=(other(audit={"targets": 6}),), args=(*ALSO, *K)),
    # --vary over series
    C("vary-unknown-series", 2, ("no series is named 'nobody'", "c, o"), files=(other(),),
      args=(*ALSO, "--vary", "nobody:k=2")),
    C("vary-scoped-key-the-series-lacks", 2, ("series o", "--vary k", "no privacy model"),
      files=(other(**SAFEPUB),), args=(*ALSO, "--vary", "o:k=2")),
    C("vary-key-no-series-has", 2, ("no series has 't'",), files=(other(**SAFEPUB),), args=(*ALSO, "--vary", "t=0.2")),
    C("vary-empty-scope", 2, ("no series before ':'",), files=(other(),), args=(*ALSO, "--vary", ":k=2")),
    C("vary-scoped-twice", 2, ("c:k is given twice",), files=(other(),),
      args=(*ALSO, "--vary", "c:k=2", "--vary", "c:k=3")),
    C("vary-scoped-and-not", 2, ("given for series c twice",), files=(other(**SAFEPUB),),
      args=(*ALSO, "--vary", "k=2", "--vary", "c:k=3")),
    C("vary-scoped-bad-value", 2, ("--vary epsilon=-1", "epsilon"), files=(other(**SAFEPUB),),
      args=(*ALSO, "--vary", "o:epsilon=-1")),
    C("vary-scoped-not-a-number", 2, ("--vary k", "'two' is not a number"), files=(other(),),
      args=(*ALSO, "--vary", "c:k=two")),
    # what the map is measured by
    C("risk-class-measure-with-series", 2, ("--risk prosecutor_highest reads equivalence classes", "attack_risk"),
      files=(other(**SAFEPUB),), args=(*ALSO, *K, "--risk", "prosecutor_highest")),
    C("loss-class-measure-with-series", 2, ("--loss gcp reads equivalence classes", "two_way_tvd"),
      files=(other(**SAFEPUB),), args=(*ALSO, *K, "--loss", "gcp")),
    C("algorithms-with-series", 2, ("--algorithms compares algorithms on one config",), files=(other(),),
      args=(*ALSO, *K, "--algorithms", "flash,ola")),
    # a series that cannot run is refused before any run of any series
    C("also-safepub-delta-too-large", 2, ("safepub", "delta"),
      files=(other(privacy=[{"model": "differential-privacy", "epsilon": 2.0, "delta": 0.5}],
                   algorithm=SAFEPUB["algorithm"]),), args=(*ALSO, *K)),
    C("also-safepub-without-transformation", 2, ("safepub needs exactly one of levels, degree",),
      files=(other(privacy=SAFEPUB["privacy"], algorithm={"name": "safepub", "seeded": True}),), args=(*ALSO, *K)),
    # the map's files never land on a file a series reads
    C("out-over-a-hierarchy-of-the-other-series", 2, ("explore.csv",),
      files=(mkdir("map"), write("map/explore.csv", "x;y\n"),
             other(attributes=attrs(Age={"role": "quasi", "hierarchy": "map/explore.csv"}))),
      args=(*ALSO, *K)),
]

#: the catalogue's list for ``tests/test_bad_input.py``: every case run through ``anonkit explore … --out {tmp}/map``
CASES = [replace(c, command="explore", args=("--out", "{tmp}/map", *c.args)) for c in EXPLORE_CASES]
