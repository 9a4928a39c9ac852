"""Writing an exploration: the runs (CSV), the R-U map (PNG and SVG) and ``explore.json``.

Every file is written atomically (a temporary file in the folder moved into place) and none may be
a file the runs read (the config, the input, a hierarchy). The same grid with the same seed gives
byte-identical files: the timings are left out unless asked for, the SVG's ids come from a fixed
salt and neither image carries a date or version.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import TYPE_CHECKING

from anonkit.config import Config
from anonkit.errors import InputError
from anonkit.io import Place, check_places, write_table
from anonkit.io import atomic_write as _atomic_write
from anonkit.io import write_target as _target
from anonkit.plan.places import read_places

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from anonkit.explore.run import ExploreResult

__all__ = ["FILES", "explore_outputs", "save_figure", "write_explore"]

#: what an exploration writes into its folder, by role
FILES = {"runs": "explore.csv", "png": "ru-map.png", "svg": "ru-map.svg", "json": "explore.json"}
#: the salt of the SVG's element ids (matplotlib's ``svg.hashsalt``): fixed, so SVGs are reproducible
SVG_SALT = "anonkit-explore"
#: the PNG's resolution
DPI = 120


def _targets(out_dir: str | Path, reads: list[Place]) -> dict[str, Path]:
    """The files written into ``out_dir``, checked: none a directory, none a place the runs read (the
    same file after resolving links, ``..`` and hard links: :func:`anonkit.io._places.check_places`)."""
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise InputError("the output folder is a file; give a folder", file=str(out), key="--out")
    targets = {role: out / name for role, name in FILES.items()}
    for path in targets.values():
        if path.is_dir():
            raise InputError("this is a directory, not a file", file=str(path), key="--out")
    check_places(reads, [Place(f"--out ({path.name})", str(path), "file") for path in targets.values()])
    return targets


def explore_outputs(out_dir: str | Path, config: Config, *, config_dir: str | Path = ".",
                    config_file: str | Path | None = None, input_path: str | None = None) -> list[str]:
    """Check, before any work, the files an exploration of ``config`` would write into ``out_dir``
    (none a file it reads); return them."""
    reads = read_places(config, Path(config_dir), input_path=input_path, config_file=config_file)
    return [str(p) for p in _targets(out_dir, reads).values()]


def save_figure(fig: Figure, path: str | Path, format: str) -> None:
    """Write ``fig`` as ``png`` or ``svg`` to ``path`` atomically and reproducibly (no date, no
    version; a fixed SVG id salt)."""
    import matplotlib

    buf = io.BytesIO()
    if format == "svg":
        with matplotlib.rc_context({"svg.hashsalt": SVG_SALT}):
            fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None})
    else:
        fig.savefig(buf, format="png", dpi=DPI, metadata={"Software": None})
    data = buf.getvalue()
    loc = str(path)
    _atomic_write(_target(loc), loc, lambda tmp: Path(tmp).write_bytes(data))


def write_explore(result: ExploreResult, out_dir: str | Path, *, timings: bool = False) -> list[str]:
    """Write ``explore.csv``, ``ru-map.png``, ``ru-map.svg`` and ``explore.json`` into ``out_dir``
    (made if missing); the paths written. ``timings`` keeps the ``seconds`` of every run and the
    grid's timings (then two writes of one grid differ in them).

    Raises
    ------
    InputError
        ``out_dir`` is a file, or a target is a file the runs read.
    """
    targets = _targets(out_dir, result.reads)
    Path(out_dir).mkdir(parents=True, exist_ok=True)
    frame = result.frame if timings else result.frame.drop(columns=["seconds"])
    write_table(frame, targets["runs"], format="csv")
    fig = result.figure()
    save_figure(fig, targets["png"], "png")
    save_figure(fig, targets["svg"], "svg")
    doc = json.dumps(result.to_json(timings=timings), indent=2, allow_nan=False) + "\n"
    loc = str(targets["json"])
    _atomic_write(_target(loc), loc, lambda tmp: Path(tmp).write_text(doc, encoding="utf-8"))
    return [str(p) for p in targets.values()]
