"""The toy survey of the survey-role tests: the t-closeness paper's 9 records (``test2.csv``) with a
name, a household (two records each, ``h1`` … ``h5``) and a sampling weight in front, laid out with
its hierarchies and a config that runs."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import yaml

from bad_input_kit import base_config

DATA = Path(__file__).resolve().parent / "data"
ROWS = 9
NAMES = [f"person{i}" for i in range(1, ROWS + 1)]
HOUSEHOLDS = [f"h{(i + 1) // 2}" for i in range(1, ROWS + 1)]
WEIGHTS = [f"{1.5 * i:g}" for i in range(1, ROWS + 1)]
#: a 40-byte key written into the key file of :func:`lay_out`
KEY = "survey-test-key-0123456789-abcdefghijklm"


def lay_out(tmp: Path, attributes: dict | None = None, **config: object) -> Path:
    """``tmp`` holding ``survey.csv``, the hierarchies, ``key`` and ``c.yaml`` (the survey attributes
    replaced by ``attributes``' entries; other top-level keys by ``config``); the config's path."""
    for f in DATA.glob("test2_hierarchy_*.csv"):
        shutil.copy(f, tmp / f.name)
    toy = pd.read_csv(DATA / "test2.csv", sep=";", dtype=str)
    toy.insert(0, "W", WEIGHTS)
    toy.insert(0, "HH", HOUSEHOLDS)
    toy.insert(0, "Name", NAMES)
    toy.to_csv(tmp / "survey.csv", sep=";", index=False)
    (tmp / "key").write_text(KEY)
    cfg = base_config()  # the toy's config, with the survey's columns in front
    cfg["input"]["path"] = "survey.csv"
    cfg["attributes"] = {"Name": {"role": "pseudonym", "key_file": "key"},
                         "HH": {"role": "household", "publish": "renumbered"},
                         "W": {"role": "weight"}, **cfg["attributes"]}
    cfg["attributes"].update(attributes or {})
    cfg["attributes"] = {k: v for k, v in cfg["attributes"].items() if v is not None}
    cfg.update(config)
    path = tmp / "c.yaml"
    path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    return path


def read_out(tmp: Path, name: str = "out.csv") -> pd.DataFrame:
    return pd.read_csv(tmp / name, sep=";", dtype=str, keep_default_na=False)


def survey_frame() -> pd.DataFrame:
    """The toy survey as a frame (all text)."""
    toy = pd.read_csv(DATA / "test2.csv", sep=";", dtype=str)
    toy.insert(0, "W", WEIGHTS)
    toy.insert(0, "HH", HOUSEHOLDS)
    toy.insert(0, "Name", NAMES)
    return toy
