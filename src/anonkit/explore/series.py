"""Several configs on one risk–utility map: each config is a **series** with its own grid.

``anonkit explore KANON.yaml --also SAFEPUB.yaml --also SYNTH.yaml --vary k=2,5,10 --vary epsilon=0.5,1,2``
places k-anonymity, SafePub and a DP synthesizer on one map. The rules, declared here once and read
by the CLI, :func:`anonkit.explore.explore` (``also=``) and the UI:

* a series is named after its config file (``kanon`` for ``kanon.yaml``; :class:`Series` names it
  otherwise); two series with one name are refused;
* every series reads **the same input** (the same file, table or bundled dataset, read with the same
  settings; ``--input`` replaces every series' input) and gives every column **the same role** (the
  attacks read the roles: quasi-identifiers are what the adversary knows, a sensitive column what it
  infers), and the configs' ``audit:`` sections, when given, are the same (one set of thresholds, one
  control set, one attack seed and target count for the whole map);
* ``--vary KEY=…`` varies every series that has the key (a parameter of its models or an option of its
  algorithm: ``epsilon`` varies SafePub's differential-privacy model and the synthesizer's option
  alike); ``--vary NAME:KEY=…`` varies series ``NAME`` only; a key no series has is refused, and a
  series none of the keys applies to is one point (its config as it is);
* a series' algorithm is checked before any run of any series, as for one config (an algorithm whose
  extra is not installed — the ``dp`` extra — is refused in one line naming it).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from anonkit.config import Config, load_config
from anonkit.errors import InputError
from anonkit.explore.grid import Number, check_vary, model_keys, option_keys, parse_vary
from anonkit.io import same_file
from anonkit.plan import Plan
from anonkit.plan.places import read_places

__all__ = ["SCOPE", "Series", "as_series", "check_series", "parse_series_vary", "series_vary"]

#: what separates a series' name from a key in ``--vary NAME:KEY=…``
SCOPE = ":"
#: the keys of ``read_places`` that name the input
_INPUT_KEYS = ("input.path", "input.dataset", "--input")


@dataclass(frozen=True)
class Series:
    """One config of a map: its name (the legend's), the config, its folder, its file, the input read."""

    name: str
    config: Config
    base: Path
    config_file: str | Path | None = None
    input_path: str | None = None

    @property
    def shown(self) -> str:
        """The series as a message names it: its config file, else its name."""
        return str(self.config_file) if self.config_file is not None else self.name


def as_series(item: Series | Plan | str | Path, *, input_path: str | None = None, name: str | None = None) -> Series:
    """A :class:`Series` from a config file (named after its stem), a read-only plan or a series;
    ``input_path`` (``--input``) replaces its input."""
    if isinstance(item, Series):
        return item if input_path is None else Series(item.name, item.config, item.base, item.config_file, input_path)
    if isinstance(item, Plan):
        if item.config is None:
            raise InputError("a series needs a config's plan (plan_from_config), not the Python API's", key="--also")
        file = item.config_file
        return Series(name or (Path(file).stem if file is not None else "config"), item.config, item.base, file,
                      input_path if input_path is not None else item.input_path)
    path = Path(item)
    if not path.is_file():
        raise InputError("no such config file", file=str(path), key="--also")
    return Series(name or path.stem, load_config(path), path.parent, path, input_path)


def _input(s: Series) -> tuple[str, object]:
    """Where a series reads its input and the settings it reads it with (its ``input:`` but the path)."""
    places = [p for p in read_places(s.config, s.base, input_path=s.input_path) if p.key in _INPUT_KEYS]
    where = places[0].location if places else "(no input)"
    settings = s.config.input.model_dump(exclude={"path"} if s.input_path is None else {"path", "dataset"})
    if places and places[0].key == "--input":  # --input replaces the format, which comes from its suffix
        settings.pop("format", None)
    return where, settings


def _same_place(a: str, b: str) -> bool:
    return a == b or ("://" not in a and "://" not in b and Path(a).exists() and Path(b).exists() and same_file(a, b))


def _roles(config: Config) -> dict[str, str]:
    return {str(n): str(a.role) for n, a in config.attributes.items()}


def check_series(series: Sequence[Series]) -> None:
    """Refuse, in one line, before any work: two series with one name, a series reading another
    input (or the same one with other settings), giving a column another role, or holding the map to
    another ``audit:`` section."""
    first = series[0]
    names = [s.name for s in series]
    twice = next((n for i, n in enumerate(names) if n in names[:i]), None)
    if twice is not None:
        raise InputError(f"two series are named {twice!r} (a series is named after its config file): rename one "
                         "of the files", key="--also", value=twice)
    where, settings = _input(first)
    roles = _roles(first.config)
    for s in series[1:]:
        other, other_settings = _input(s)
        if not _same_place(where, other):
            raise InputError(f"series {s.name} reads another input ({other}) than {first.name} ({where}); every "
                             "series of a map reads the same table", file=str(s.shown), key="input")
        if other_settings != settings:
            diff = next(k for k in sorted(set(settings) | set(other_settings))
                        if settings.get(k) != other_settings.get(k))  # type: ignore[union-attr]
            raise InputError(f"series {s.name} reads the input with another input.{diff} than {first.name}; give "
                             "every series the same input section", file=str(s.shown), key=f"input.{diff}")
        _check_roles(first, roles, s)
        if s.config.audit is not None and s.config.audit != first.config.audit:
            raise InputError(f"series {s.name} has another audit section than {first.name}: the map holds every "
                             f"series to {first.name}'s thresholds and attacks; remove it or make it the same",
                             file=str(s.shown), key="audit")


def _check_roles(first: Series, roles: dict[str, str], s: Series) -> None:
    mine = _roles(s.config)
    for column in [*roles, *(c for c in mine if c not in roles)]:
        a = roles.get(column, first.config.default_role or "no role")
        b = mine.get(column, s.config.default_role or "no role")
        if a != b:
            raise InputError(f"series {s.name} makes {column} {b} but {first.name} makes it {a}; every series "
                             "gives each column the same role (the attacks read the roles)", column=column,
                             file=str(s.shown), key=f"attributes.{column}.role")
    if first.config.default_role != s.config.default_role:
        raise InputError(f"series {s.name} has default_role {s.config.default_role or '(none)'} but {first.name} has "
                         f"{first.config.default_role or '(none)'}; give every series the same roles",
                         file=str(s.shown), key="default_role")


def parse_series_vary(items: Sequence[str]) -> dict[str, list[Number]]:
    """``--vary`` items of a map: ``KEY=V1,V2`` and ``NAME:KEY=V1,V2`` (series ``NAME`` only), each read
    as :func:`~anonkit.explore.grid.parse_vary` reads one; the scoped keys kept as ``NAME:KEY``."""
    out: dict[str, list[Number]] = {}
    for item in items:
        head, eq, rest = item.partition("=")
        scope, colon, key = head.rpartition(SCOPE) if SCOPE in head else ("", "", head)
        if colon and not scope.strip():
            raise InputError(f"--vary {head.strip()}: no series before {SCOPE!r}; give NAME{SCOPE}KEY=V1,V2",
                             key="--vary", value=item)
        parsed = parse_vary([f"{key}{eq}{rest}"])
        for k, values in parsed.items():
            full = f"{scope.strip()}{SCOPE}{k}" if colon else k
            if full in out:
                raise InputError(f"--vary {full} is given twice; list every value once", key="--vary", value=item)
            out[full] = values
    return out


def _has(config: Config, key: str) -> bool:
    return key in model_keys(config) or key in option_keys(config.algorithm.spec)


def series_vary(vary: Mapping[str, Sequence[Number]], series: Sequence[Series]) -> dict[str, dict[str, list[Number]]]:
    """Each series' grid: the unscoped keys it has and the keys scoped to it, checked as one config's
    (:func:`~anonkit.explore.grid.check_vary`); a scope naming no series, a scoped key its series
    does not have and a key no series has are refused in one line."""
    names = [s.name for s in series]
    out: dict[str, dict[str, list[Number]]] = {s.name: {} for s in series}
    for full, values in vary.items():
        scope, colon, key = full.rpartition(SCOPE) if SCOPE in full else ("", "", full)
        if colon:
            if scope not in out:
                raise InputError(f"--vary {full}: no series is named {scope!r}; the series: {', '.join(names)}",
                                 key="--vary", value=full)
            targets = [s for s in series if s.name == scope]
        else:
            targets = [s for s in series if _has(s.config, key)]
            if not targets:
                raise InputError(f"--vary {key}: no series has {key!r} (a parameter of its privacy models or an "
                                 f"option of its algorithm); the series: {', '.join(names)}", key="--vary", value=key)
        for s in targets:
            if key in out[s.name]:
                raise InputError(f"--vary {key} is given for series {s.name} twice (once with {s.name}{SCOPE}); "
                                 "give it once", key="--vary", value=full)
            try:
                out[s.name].update(check_vary({key: values}, s.config))
            except InputError as exc:
                raise InputError(f"series {s.name}: {exc.message}", key=exc.key, value=exc.value) from None
    return out
