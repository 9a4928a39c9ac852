"""What a plan reads, as the config declares it: the input frame, the schema over it (hierarchy
files and builders, categories, a dataset's default hierarchies), the adversary's priors of a
background-knowledge model, and the SHA-256 of a file for the audit trail.

Read by the runner, the audit, the report and explore alike (they never reach into the runner).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from anonkit.config import AttributeConfig, BackgroundKnowledgeConfig, BuilderConfig, Config, InputConfig, PriorConfig
from anonkit.datasets import DATASETS
from anonkit.errors import InputError
from anonkit.hierarchy import Hierarchy, read_hierarchy
from anonkit.hierarchy.builder_params import build as build_hierarchy
from anonkit.hierarchy.builders import bin_categories
from anonkit.io import read_table
from anonkit.io.batches import batch_rows_for, read_compact
from anonkit.io.categories import read_categories
from anonkit.models import BackgroundKnowledge
from anonkit.plan.places import location as _location
from anonkit.plan.places import resolve as _resolve
from anonkit.plan.places import suffix_format as _suffix_format
from anonkit.schema import Attribute, Schema

if TYPE_CHECKING:
    from anonkit.knowledge import Priors
    from anonkit.table import Table

__all__ = ["config_priors", "config_schema", "load_input", "load_subset", "sha256_of"]


def load_input(config: Config, base: Path, override: str | None = None) -> tuple[pd.DataFrame, dict[str, Hierarchy]]:
    """The input frame of a config (or of ``override``) and the dataset's default hierarchies.

    A CSV or Parquet file is read in batches into a compact frame (every column codes and a
    dictionary, :mod:`anonkit.io.batches`) when ``input.batch_rows`` asks for it or the file is
    large; identifier columns are then not read."""
    inp = config.input
    where = override if override is not None else None if inp.path is None else _location(base, inp.path)
    rows = None if where is None else batch_rows_for(where, None if override is not None else inp.format,
                                                     inp.batch_rows)
    if rows is not None and where is not None and inp.table is None and inp.query is None:
        skip = [n for n, a in config.attributes.items() if a.role in ("identifier", "id")]
        return read_compact(where, format=None if override is not None else inp.format, separator=inp.separator,
                            encoding=inp.encoding, na_values=inp.na_values, strip=inp.strip, batch_rows=rows,
                            skip=skip), {}
    if override is not None:
        sheet = _excel_options(inp) if _suffix_format(override) == "excel" else {}
        return read_table(override, separator=inp.separator, encoding=inp.encoding, na_values=inp.na_values,
                          **sheet), {}
    if inp.dataset is not None:
        path_fn, hier_fn = DATASETS[inp.dataset]
        frame = read_table(path_fn(), separator=";", na_values=inp.na_values)
        return frame, hier_fn()
    assert inp.path is not None
    frame = read_table(
        _location(base, inp.path),
        format=inp.format,
        separator=inp.separator,
        encoding=inp.encoding,
        table=inp.table,
        query=inp.query,
        na_values=inp.na_values,
        **(_excel_options(inp) if (inp.format or _suffix_format(inp.path)) == "excel" else {}),
    )
    return frame, {}


def _excel_options(inp: InputConfig) -> dict[str, object]:
    """``sheet`` and ``header_row`` for an Excel input (the other formats refuse them)."""
    return {"sheet": inp.sheet, "header_row": inp.header_row}


def config_schema(config: Config, base: Path, default_hierarchies: dict[str, Hierarchy], frame: pd.DataFrame) -> Schema:
    """The schema a config declares over ``frame``: every listed attribute, and with ``default_role``
    every unlisted column in that role (a dataset's default hierarchy for a quasi-identifier)."""
    schema = Schema(default_role=config.default_role)  # type: ignore[arg-type]
    for name, a in config.attributes.items():
        h = None
        if isinstance(a.hierarchy, BuilderConfig):
            if name not in frame.columns:
                raise InputError(f"unknown column; the input has: {', '.join(map(str, frame.columns))}", column=name)
            h = _build_hierarchy(name, a.hierarchy, frame[name], a.format)
        elif a.hierarchy is not None:
            h = read_hierarchy(_resolve(base, a.hierarchy), name=name)
        elif name in default_hierarchies and a.role not in ("identifier", "id", "insensitive", "other", "weight",
                                                                "sampling-weight", "household", "hh", "pseudonym",
                                                                "new-id", "new_id", "newid"):
            h = default_hierarchies[name]
        categories, category_order = _read_categories(base, name, a, frame)
        schema.add(
            Attribute(
                name, a.role, a.type, h, order=a.order, min_level=a.min_level, max_level=a.max_level, weight=a.weight,
                categories=categories, category_order=category_order,
                format=a.format, publish=a.publish, key_env=a.key_env, seed=a.seed,
                key_file=None if a.key_file is None else str(_resolve(base, a.key_file)),
            )
        )
    if config.default_role is not None:
        for name in schema.unlisted(frame.columns):
            h = default_hierarchies.get(name) if config.default_role == "quasi" else None
            schema.add(Attribute(name, config.default_role, hierarchy=h))
    return schema


def _build_hierarchy(name: str, spec: BuilderConfig, values: pd.Series, date_format: str | None = None) -> Hierarchy:
    """A hierarchy from a builder spec of the config, over the column's values (the dates builder
    reads them in the attribute's ``format`` unless the builder names its own). The spec's keys,
    types and ranges were checked as the config was read; what only the data tells, the builder checks."""
    fallback = {"format": date_format} if date_format is not None and spec.builder == "dates" else None
    return build_hierarchy(spec, values, name=name, fallback=fallback)


def _read_categories(base: Path, name: str, a: AttributeConfig,
                     frame: pd.DataFrame) -> tuple[dict[str, str] | None, tuple[str, ...] | None]:
    """A sensitive attribute's categories and their order, as its config gives them: a mapping, a file
    (:func:`anonkit.io.categories.read_categories`), or ``{builder: bins, …}`` over the column's values
    (:func:`anonkit.hierarchy.builders.bin_categories`: the bins, ordered by their values)."""
    order = None if a.category_order is None else tuple(a.category_order)
    if isinstance(a.categories, BuilderConfig):
        if name not in frame.columns:
            raise InputError(f"unknown column; the input has: {', '.join(map(str, frame.columns))}", column=name)
        mapping, bins = bin_categories(_build_hierarchy(name, a.categories, frame[name]))
        return mapping, tuple(bins)
    if isinstance(a.categories, str):
        return read_categories(_location(base, a.categories), key=f"attributes.{name}.categories"), order
    return a.categories, order


def config_priors(config: Config, base: Path) -> tuple[Callable[[Table], Priors] | None, str | None]:
    """The priors a config's first ``background-knowledge`` model asks for, as a function of the
    encoded input (``anonymize(priors=...)``), and how the summary describes them.

    ``None`` when the model estimates them itself from the input (``prior: kernel`` or
    ``classifier`` without ``external``). Files are read now (relative to ``base``, like the input:
    same encoding and missing values, the input's separator unless the prior spec gives one), so a
    missing file fails before the anonymization starts.
    """
    found = [(i, m) for i, m in enumerate(config.privacy) if isinstance(m, BackgroundKnowledgeConfig)]
    if not found:
        return None, None
    i, spec = found[0]
    prior = spec.prior
    key = f"privacy.{i}.prior"
    if prior.kind != "matrix" and prior.external is None:
        return None, prior.kind
    path = prior.path if prior.kind == "matrix" else prior.external
    assert path is not None
    location = _location(base, path)
    data = _read_prior_file(config, prior, location, key)
    model = spec.build()
    assert isinstance(model, BackgroundKnowledge)

    from anonkit.knowledge.sources import external_table, matrix_file_priors

    def build(table: Table) -> Priors:
        try:
            if prior.kind == "matrix":
                return matrix_file_priors(table, model.attribute, data)
            return model.priors(table, external=external_table(table, model.attribute, data))
        except InputError as exc:
            raise InputError(str(exc), file=location, key=key) from None

    note = f"matrix from {path}" if prior.kind == "matrix" else f"{prior.kind} on external data {path}"
    return build, note


def _read_prior_file(config: Config, prior: PriorConfig, location: str, key: str) -> pd.DataFrame:
    inp = config.input
    separator = prior.separator or (";" if inp.dataset is not None else inp.separator)
    try:
        return read_table(location, separator=separator, encoding=inp.encoding, na_values=inp.na_values)
    except InputError as exc:
        raise InputError(str(exc), key=key) from None


def sha256_of(location: str) -> str | None:
    """The SHA-256 of a file (hex), ``None`` for what is not a plain file (a SQL table, stdin)."""
    path = Path(location)
    if "://" in location or not path.is_file():
        return None
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


# ------------------------------------------------------------------------------ the research subset
def research_subset(config: Config, base: Path, frame: pd.DataFrame) -> tuple[pd.DataFrame | None, pd.DataFrame]:
    """``(population, research records)`` of an input as read: with ``input.subset`` the whole input
    is the population and the subset's rows are anonymized; without one, no population and the
    whole input."""
    mask = load_subset(config, base, frame)
    if mask is None:
        return None, frame
    return frame, frame.loc[mask].reset_index(drop=True)


def load_subset(config: Config, base: Path, frame: pd.DataFrame) -> np.ndarray | None:
    """The rows of ``frame`` (the population) that ``input.subset`` selects, as a boolean mask;
    ``None`` without a subset. Refused in one line: a row number outside the input or given twice,
    an unknown column, a subset file whose columns are not the input's or one of whose rows matches
    no input row left (each input row matches one subset row, as ARX's ``DataSubset.create``), and
    a subset that selects no row."""
    sub = config.input.subset
    if sub is None:
        return None
    n = len(frame)
    mask = np.zeros(n, dtype=bool)
    if sub.rows is not None:
        rows = np.asarray(sub.rows, dtype=np.int64)
        out = rows[rows > n]
        if out.size:
            raise InputError(f"row {int(out[0])} is beyond the input's {n} rows", key="input.subset.rows",
                             value=int(out[0]))
        uniq, counts = np.unique(rows, return_counts=True)
        if (counts > 1).any():
            raise InputError("a row is given twice", key="input.subset.rows", value=int(uniq[counts > 1][0]))
        mask[rows - 1] = True
    elif sub.where is not None:
        mask[:] = True
        for column, values in sub.where.items():
            if column not in frame.columns:
                raise InputError(f"unknown column; the input has: {', '.join(map(str, frame.columns))}",
                                 column=column, key="input.subset.where")
            mask &= _cells(frame[column]).isin([v.strip() for v in values]).to_numpy()
    else:
        assert sub.path is not None
        mask = _subset_file_rows(config, base, frame, sub.path, sub.separator)
    if not mask.any():
        raise InputError("the subset selects no row of the input", key="input.subset")
    return mask


def _cells(col: pd.Series) -> pd.Series:
    """A column's cells as the text they are compared by (stripped; a missing cell is "")."""
    return col.astype(object).where(col.notna(), "").astype(str).str.strip()


def _subset_file_rows(config: Config, base: Path, frame: pd.DataFrame, path: str, separator: str | None
                      ) -> np.ndarray:
    """The input rows the subset file's rows are (cells compared as text, in the input's order)."""
    inp = config.input
    location = _location(base, path)
    sep = separator if separator is not None else (";" if inp.dataset is not None else inp.separator)
    subset = read_table(location, separator=sep, encoding=inp.encoding, na_values=inp.na_values)
    columns = list(map(str, frame.columns))
    if sorted(map(str, subset.columns)) != sorted(columns):
        missing = sorted(set(columns) - set(map(str, subset.columns))) or sorted(set(map(str, subset.columns))
                                                                                   - set(columns))
        raise InputError(f"the subset file's columns are not the input's ({missing[0]!r} differs)", file=location,
                         key="input.subset.path", column=missing[0])
    both = pd.concat([pd.DataFrame({c: _cells(frame[c]) for c in columns}),
                      pd.DataFrame({c: _cells(subset[c]) for c in columns})], ignore_index=True)
    ids, _ = pd.factorize(pd.MultiIndex.from_frame(both)) if columns else (np.zeros(len(both), dtype=np.int64), None)
    n = len(frame)
    occurrence = pd.Series(ids).groupby(ids).cumcount().to_numpy()
    sub_occ = pd.Series(ids[n:]).groupby(ids[n:]).cumcount().to_numpy()
    pop_keys = pd.MultiIndex.from_arrays([ids[:n], occurrence[:n]])
    where = pop_keys.get_indexer(pd.MultiIndex.from_arrays([ids[n:], sub_occ]))
    if (where < 0).any():
        i = int(np.flatnonzero(where < 0)[0])
        raise InputError("a subset row matches no row of the input (or more subset rows than input rows are equal)",
                         file=location, row=i + 1, key="input.subset.path")
    mask = np.zeros(n, dtype=bool)
    mask[where] = True
    return mask
