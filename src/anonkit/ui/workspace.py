"""One browser session's work: the table opened, the choices made per column, the privacy models, the
algorithm, and the runs made — and the config they add up to (:meth:`Workspace.config`).

The workspace is the application's single source of truth: every step edits it, and a run is
``plan_from_config`` of :meth:`Workspace.config` in a folder of its own inside the session's private
directory (:meth:`Workspace.plan_run`). An uploaded file is linked into that folder under its own name,
so the run's :meth:`~anonkit.plan.Plan.to_yaml` names the input and the release as plain file names:
saved beside the user's copy of the file, the config runs with ``anonkit anonymize`` to the same bytes.
"""

from __future__ import annotations

import copy
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from anonkit.errors import InputError

__all__ = ["DEFAULT_OUTPUT", "Column", "RunRecord", "Source", "Workspace"]

#: the release's file name in a run's folder and in the exported config
DEFAULT_OUTPUT = "release.csv"
#: the algorithm a new workspace starts with: the registry's default (the Run step sets the one chosen)
DEFAULT_ALGORITHM: dict[str, Any] = {"max_suppression": 0.02}
#: roles whose columns keep a type and a hierarchy in the config
TYPED_ROLES = ("quasi", "sensitive")


@dataclass
class Source:
    """Where the table comes from: an uploaded file (kept in the session's private directory), a path
    on this machine, or a database URI; ``options`` are the config's other ``input:`` keys."""

    kind: str  # "upload", "path" or "database"
    name: str  # what the page shows
    location: str  # the file, or the URI
    options: dict[str, Any] = field(default_factory=dict)

    def input(self) -> dict[str, Any]:
        """The config's ``input:`` for a run whose folder holds the uploaded file under its name."""
        path = self.name if self.kind == "upload" else self.location
        return {"path": path, **self.options}


@dataclass
class Column:
    """One column's choices: type, role, the reason the role was suggested, its hierarchy (an inline
    builder spec, or an ARX CSV text the user edited or imported)."""

    name: str
    type: str
    role: str
    reason: str = ""
    candidates: list[str] = field(default_factory=list)
    builder: dict[str, Any] | None = None
    table: str | None = None  # ARX CSV text; wins over the builder

    def hierarchy_file(self) -> str:
        """The file name the edited hierarchy is saved under beside the config."""
        safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in self.name)
        return f"hierarchy_{safe}.csv"


@dataclass
class RunRecord:
    """A run the session made: its number, label, config, folder, and the result or the refusal."""

    number: int
    label: str
    config: dict[str, Any]
    folder: Path
    plan: Any = None
    result: Any = None
    error: str | None = None
    unsatisfied: bool = False
    seconds: float = 0.0

    @property
    def summary(self) -> dict[str, Any]:
        return {} if self.result is None else self.result.summary


@dataclass
class Workspace:
    """See the module docstring. ``root`` is the session's private directory (mode 0700)."""

    root: Path
    source: Source | None = None
    frame: pd.DataFrame | None = None
    columns: dict[str, Column] = field(default_factory=dict)
    privacy: list[dict[str, Any]] = field(default_factory=list)
    algorithm: dict[str, Any] = field(default_factory=lambda: dict(DEFAULT_ALGORITHM))
    seed: int = 0
    runs: list[RunRecord] = field(default_factory=list)

    # ------------------------------------------------------------------ the config
    def attributes(self) -> dict[str, dict[str, Any]]:
        """The config's ``attributes:`` from the columns' choices."""
        out: dict[str, dict[str, Any]] = {}
        for c in self.columns.values():
            entry: dict[str, Any] = {"role": c.role}
            if c.role in TYPED_ROLES:
                entry["type"] = c.type
                if c.table is not None:
                    entry["hierarchy"] = c.hierarchy_file()
                elif c.builder is not None:
                    entry["hierarchy"] = copy.deepcopy(c.builder)
            out[c.name] = entry
        return out

    def config(self, *, output: str = DEFAULT_OUTPUT) -> dict[str, Any]:
        """The config the session's choices add up to (input, attributes, privacy, algorithm, output, seed)."""
        if self.source is None:
            raise InputError("open a table first (step Data)")
        return {"input": self.source.input(), "attributes": self.attributes(), "privacy": copy.deepcopy(self.privacy),
                "algorithm": copy.deepcopy(self.algorithm), "output": {"path": output}, "seed": self.seed}

    def adopt(self, config: dict[str, Any]) -> None:
        """Take the privacy models, the algorithm and the columns' choices back from ``config`` (a fix applied)."""
        self.privacy = copy.deepcopy(list(config.get("privacy", self.privacy)))
        self.algorithm = copy.deepcopy(dict(config.get("algorithm", self.algorithm)))
        for name, entry in (config.get("attributes") or {}).items():
            c = self.columns.get(name)
            if c is None:
                continue
            c.role = entry.get("role", c.role)
            c.type = entry.get("type") or c.type
            if isinstance(entry.get("hierarchy"), dict):
                c.builder, c.table = copy.deepcopy(entry["hierarchy"]), None

    # ------------------------------------------------------------------ runs
    def new_folder(self) -> Path:
        """A fresh folder for run N holding what its config reads (the uploaded file, edited hierarchies)."""
        folder = self.root / f"run-{len(self.runs) + 1}"
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(mode=0o700)
        self.stage(folder)
        return folder

    def stage(self, folder: Path) -> None:
        """Put what the config reads into ``folder``: the uploaded file (a hard link when it can be)
        and each edited hierarchy as an ARX CSV."""
        if self.source is not None and self.source.kind == "upload":
            target = folder / self.source.name
            if not target.exists():
                try:
                    os.link(self.source.location, target)
                except OSError:
                    shutil.copyfile(self.source.location, target)
        for c in self.columns.values():
            if c.table is not None and c.role in TYPED_ROLES:
                (folder / c.hierarchy_file()).write_text(c.table, encoding="utf-8")

    def plan_run(self, config: dict[str, Any] | None = None) -> tuple[Any, Path, dict[str, Any]]:
        """The plan of the next run (``config`` or the session's), in a new folder."""
        from anonkit.config import parse_config
        from anonkit.plan import plan_from_config

        config = self.config() if config is None else config
        folder = self.new_folder()
        plan = plan_from_config(parse_config(copy.deepcopy(config)), config_dir=folder)
        return plan, folder, config

    def run(self, number: int) -> RunRecord | None:
        return next((r for r in self.runs if r.number == number), None)
