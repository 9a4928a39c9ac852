"""The config's ``input:`` (one class per format) and ``attributes:`` (one class per role).

As for the privacy models, a key that does not apply is refused because the class it would go to
does not hold it:

* ``input:`` is read as the class of its format, known from ``input.format`` or else the path's
  suffix (``.csv`` → CSV, ``.xlsx`` → Excel, a ``postgresql://`` URI → PostgreSQL, …), a built-in
  ``dataset`` or a Spark catalog ``table``. ``separator`` and ``encoding`` belong to CSV,
  ``sheet`` and ``header_row`` to Excel, ``table`` and ``query`` to the SQL formats, ``batch_rows``
  to CSV and Parquet. A path whose format cannot be told is read by a class holding every key, so
  the reader reports the unknown format itself. The keys a format does not hold are class
  attributes with their neutral value, so code reading ``config.input.sheet`` needs no case.
* an attribute is read as the class of its role: a quasi-identifier holds ``type``, ``hierarchy``,
  ``order`` (with type ordinal), ``min_level``, ``max_level`` and ``weight``; a sensitive attribute
  ``type``, ``hierarchy``, ``order`` and ``categories``; an identifier, a person column, a survey
  weight or an insensitive column nothing but its role (their cells are never generalized or judged);
  a household ``publish`` (``drop`` or ``renumbered``) and ``seed``; a pseudonym ``publish``
  (``hmac`` or ``renumbered``), ``seed``, and its key's source, ``key_file`` or ``key_env`` — never
  the key itself (a ``key:`` in the config is refused: the config is copied into summaries).
  ``format`` (a date's strftime pattern) goes with type ``date`` only. A new-id column takes nothing but
  its role: its random ids are drawn from the run's ``seed``.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from pydantic import Discriminator, Field, SerializeAsAny, Tag, field_validator, model_validator

from anonkit._config_models import Strict
from anonkit.errors import InputError
from anonkit.hierarchy.builder_params import BUILDER_NAMES, BUILDER_SPECS, BuilderSpec
from anonkit.io import FORMAT_NAMES, check_format
from anonkit.pseudonyms import DEFAULT_RENUMBER_SEED

FormatName = Literal[FORMAT_NAMES]  # type: ignore[valid-type]  # the io registry's names (anonkit.io.registry)


# ------------------------------------------------------------------------------------------- input
#: what a format-specific key of ``input`` reads as on a format that does not take it
INPUT_ABSENT: dict[str, Any] = {"separator": ",", "encoding": "utf-8", "table": None, "query": None, "sheet": None,
                                "header_row": None, "batch_rows": None}
class SubsetConfig(Strict):
    """``input.subset``: the research records, a subset of the input's rows (ARX's ``DataSubset``).

    The input is then the population: classes and the population models (k-map, δ-presence) are
    counted over every input row, while only the subset's records are anonymized and released.
    Exactly one of: ``path`` (a file of the subset's rows, every column as in the input, each matched
    to an input row of identical cells), ``rows`` (input row numbers, 1-based), ``where`` (column →
    the values selected; several columns must all match)."""

    path: str | None = None
    #: the subset file's separator (CSV; default: the input's)
    separator: str | None = None
    rows: list[Annotated[int, Field(ge=1)]] | None = Field(None, min_length=1)
    where: dict[str, list[str]] | None = Field(None, min_length=1)

    @model_validator(mode="after")
    def _one_way(self) -> SubsetConfig:
        given = [k for k in ("path", "rows", "where") if getattr(self, k) is not None]
        if len(given) != 1:
            got = f"; got {', '.join(given)}" if given else ""
            raise ValueError("input.subset takes exactly one of path (a file of the subset's rows), rows (input "
                             f"row numbers) or where (column: [values]){got}")
        if self.separator is not None and self.path is None:
            raise ValueError("input.subset.separator applies to a subset file (path) only")
        return self


class InputConfig(Strict):
    """``input:``, the keys every format takes. The subclasses add their format's keys; a key a
    format does not take reads as the value that means "not given" (:data:`INPUT_ABSENT`)."""

    #: the input as messages name it (``excel input``)
    label: ClassVar[str] = "input"
    path: str | None = None
    dataset: Literal["adult"] | None = None
    format: FormatName | None = None
    na_values: list[str] | None = None
    missing: Literal["value", "suppress", "error"] = "value"
    strip: bool = True
    #: a person whose quasi-identifiers differ between rows: an error, or their first row's values
    person_qi: Literal["error", "first"] = "error"
    #: the research subset (see :class:`SubsetConfig`); the input is then the population
    subset: SubsetConfig | None = None

    def __getattr__(self, name: str) -> Any:
        if name in INPUT_ABSENT:
            return INPUT_ABSENT[name]
        return super().__getattr__(name)


class CsvInput(InputConfig):
    label: ClassVar[str] = "csv input"
    separator: str = ","
    encoding: str = "utf-8"
    #: CSV/Parquet read in batches of this many rows into codes (anonkit.io.batches); 0: whole; default: in
    #: batches above 8 MB (CSV, Parquet) or 125,000 rows (Parquet)
    batch_rows: int | None = Field(None, ge=0)


class ParquetInput(InputConfig):
    label: ClassVar[str] = "parquet input"
    batch_rows: int | None = Field(None, ge=0)


class SqlInput(InputConfig):
    """SQLite, DuckDB and PostgreSQL: a table, or a query."""

    label: ClassVar[str] = "SQL input (sqlite, duckdb, postgresql)"
    table: str | None = None
    query: str | None = None


class ExcelInput(InputConfig):
    label: ClassVar[str] = "excel input"
    #: Excel: the sheet to read (default: the first worksheet)
    sheet: str | None = None
    #: Excel: the sheet's row (1-based) holding the column names; default: the first row holding a value
    header_row: int | None = Field(None, ge=1)


class DatasetInput(InputConfig):
    label: ClassVar[str] = "a built-in dataset"


class SparkTableInput(InputConfig):
    """``input: {table: NAME}`` without a path: a table of the Spark catalog (engine: spark)."""

    label: ClassVar[str] = "a Spark catalog table"
    table: str | None = None


class AnyInput(InputConfig):
    """A source whose format cannot be told from the config (an unknown suffix, or both or neither of
    ``path`` and ``dataset``): every key is taken, and the source itself is refused later (or now,
    when it names no single source) with the reader's own message."""

    separator: str = ","
    encoding: str = "utf-8"
    table: str | None = None
    query: str | None = None
    sheet: str | None = None
    header_row: int | None = Field(None, ge=1)
    batch_rows: int | None = Field(None, ge=0)

    @model_validator(mode="after")
    def _one_source(self) -> AnyInput:
        if (self.path is None) == (self.dataset is None):
            raise ValueError("give exactly one of 'path' or 'dataset'")
        return self


#: the union's tag of each input class (the tag is the format, or how the source is named)
INPUT_CLASSES: dict[str, type[InputConfig]] = {
    "csv": CsvInput, "parquet": ParquetInput, "sqlite": SqlInput, "duckdb": SqlInput, "postgresql": SqlInput,
    "excel": ExcelInput, "dataset": DatasetInput, "spark-table": SparkTableInput, "any": AnyInput,
}


def input_kind(data: Any) -> str:
    """The tag of the class that reads ``data``: its ``format``, else its path's suffix's."""
    if isinstance(data, InputConfig):
        return next(tag for tag, cls in INPUT_CLASSES.items() if type(data) is cls)
    if not isinstance(data, dict):
        return "any"
    path, dataset = data.get("path"), data.get("dataset")
    if path is None and dataset is None and data.get("table") is not None:
        return "spark-table"
    if (path is None) == (dataset is None):
        return "any"
    if dataset is not None:
        return "dataset"
    fmt = data.get("format")
    if fmt is not None:
        return fmt if isinstance(fmt, str) and fmt in INPUT_CLASSES else "any"
    if not isinstance(path, str):
        return "any"
    try:
        return check_format(path)
    except InputError:
        return "any"


def check_override(inp: InputConfig, override: str) -> None:
    """Refuse a key of ``input:`` that does not apply to the file ``--input`` names instead (an Excel
    config's ``sheet`` with ``--input data.csv`` would be ignored): the keys the config gives, with the
    override as the path, must fit the override's format, else one line naming the key."""
    given = {k: v for k, v in inp.model_dump(exclude_unset=True).items() if k not in ("path", "dataset", "format")}
    kind = input_kind({"path": override})
    cls = INPUT_CLASSES.get(kind, AnyInput)
    extra = sorted(set(given) - set(cls.model_fields))
    if extra:
        raise InputError(f"config key 'input.{extra[0]}' does not apply to --input {override} ({cls.label}): "
                         "drop it from the config or give an input of the config's format", key=f"input.{extra[0]}")


InputSpec = Annotated[
    Annotated[CsvInput, Tag("csv")]
    | Annotated[ParquetInput, Tag("parquet")]
    | Annotated[SqlInput, Tag("sqlite")]
    | Annotated[SqlInput, Tag("duckdb")]
    | Annotated[SqlInput, Tag("postgresql")]
    | Annotated[ExcelInput, Tag("excel")]
    | Annotated[DatasetInput, Tag("dataset")]
    | Annotated[SparkTableInput, Tag("spark-table")]
    | Annotated[AnyInput, Tag("any")],
    Discriminator(input_kind),
]


# -------------------------------------------------------------------------------------- attributes
#: a hierarchy built from the data (``anonkit.hierarchy.builders``); the other keys are the builder's
#: parameters, e.g. ``{builder: intervals, width: 5, fanout: 2, top: 80}``, each builder's declared
#: once beside the builders (:mod:`anonkit.hierarchy.builder_params`) and checked as the config is read
BuilderConfig = BuilderSpec


AttrTypeName = Literal["categorical", "ordinal", "numeric", "date"]
#: a quasi-identifier's generalization weight unless given (ARX's default)
DEFAULT_WEIGHT = 0.5
#: what a role-specific key of an attribute reads as on a role that does not take it
ATTRIBUTE_ABSENT: dict[str, Any] = {"type": None, "format": None, "hierarchy": None, "order": None, "min_level": 0,
                                    "max_level": None, "weight": DEFAULT_WEIGHT, "categories": None,
                                    "category_order": None, "publish": None, "key_file": None, "key_env": None,
                                    "seed": DEFAULT_RENUMBER_SEED}


class AttributeConfig(Strict):
    """An attribute, the keys every role takes (its role). The subclasses add their role's keys; a
    key a role does not take reads as its neutral value (:data:`ATTRIBUTE_ABSENT`)."""

    label: ClassVar[str] = "attribute"
    role: str

    def __getattr__(self, name: str) -> Any:
        if name in ATTRIBUTE_ABSENT:
            return ATTRIBUTE_ABSENT[name]
        return super().__getattr__(name)


class _Typed(AttributeConfig):
    """The keys of an attribute whose values are generalized or judged: its type (``None``: inferred
    from the data, all values numbers → numeric, else categorical), a date's ``format``, a hierarchy
    and an order of its values."""

    type: AttrTypeName | None = None
    #: type date: the strftime pattern of its cells (e.g. ``%d/%m/%Y``)
    format: str | None = None
    hierarchy: str | SerializeAsAny[BuilderConfig] | None = None
    order: list[str] | None = Field(None, min_length=1)

    @field_validator("hierarchy", mode="before")
    @classmethod
    def _known_builder(cls, v: Any) -> Any:
        if isinstance(v, dict):
            if "builder" not in v:
                raise ValueError("a built hierarchy needs 'builder' (one of " + ", ".join(BUILDER_NAMES) + ")")
            if not isinstance(v["builder"], str) or v["builder"] not in BUILDER_SPECS:
                raise ValueError(f"unknown builder {v['builder']!r}; allowed: {', '.join(BUILDER_NAMES)}")
            return BUILDER_SPECS[v["builder"]].model_validate(v)  # its errors name the key under hierarchy
        if v is not None and not isinstance(v, str):
            raise ValueError("give a hierarchy file name or a mapping with 'builder'")
        return v

    @field_validator("order")
    @classmethod
    def _order_once(cls, v: list[str] | None) -> list[str] | None:
        if v is not None and len(set(v)) < len(v):
            twice = next(x for x in v if v.count(x) > 1)
            raise ValueError(f"'order' lists {twice!r} twice; list every value once, lowest first")
        return v

    @model_validator(mode="after")
    def _format_for_dates(self) -> _Typed:
        if self.format is not None and self.type != "date":
            raise ValueError(f"'format' applies to type date only, not {self.type or 'an inferred type'}")
        return self


class QuasiAttribute(_Typed):
    label: ClassVar[str] = "a quasi-identifier"
    role: Literal["quasi", "qi", "quasi-identifier"]
    min_level: int = Field(0, ge=0)
    max_level: int | None = Field(None, ge=0)
    weight: float = Field(DEFAULT_WEIGHT, ge=0)

    @model_validator(mode="after")
    def _order_for_ordinal(self) -> QuasiAttribute:
        if self.order is not None and self.type != "ordinal":
            raise ValueError(f"'order' on a quasi-identifier needs type: ordinal (got {self.type or 'no type'}); "
                             "numbers and dates order themselves, a hierarchy orders the others")
        return self


class SensitiveAttribute(_Typed):
    label: ClassVar[str] = "a sensitive attribute"
    role: Literal["sensitive"]
    #: sensitive value → category (a mapping, or a CSV file of two columns, value and category, with
    #: a header row, or ``{builder: bins, …}``: a numeric attribute cut into ordered bins from the data),
    #: and the categories from lowest to highest (default: paper D's five; the bins' own order)
    categories: dict[str, str] | str | SerializeAsAny[BuilderConfig] | None = None
    category_order: list[str] | None = Field(None, min_length=1)

    @field_validator("categories", mode="before")
    @classmethod
    def _category_text(cls, v: Any) -> Any:
        if isinstance(v, dict) and "builder" in v:
            if v["builder"] != "bins":
                raise ValueError(f"categories are built by the bins builder only (got {v['builder']!r}); write "
                                 "{builder: bins, count: 5} or a mapping of values to categories")
            return BUILDER_SPECS["bins"].model_validate(v)  # its errors name the key under categories
        if isinstance(v, dict):
            bad = [k for k, c in v.items() if not isinstance(c, str | int | float) or isinstance(c, bool)]
            if bad:
                raise ValueError(f"the category of {bad[0]!r} must be a name, not {type(v[bad[0]]).__name__}")
            return {str(k): str(c) for k, c in v.items()}
        if v is not None and not isinstance(v, str):
            raise ValueError("give a mapping of values to categories or a CSV file name")
        return v

    @model_validator(mode="after")
    def _category_order(self) -> SensitiveAttribute:
        if self.category_order is not None and self.categories is None:
            raise ValueError("'category_order' needs 'categories'")
        if self.category_order is not None and isinstance(self.categories, BuilderSpec):
            raise ValueError("'category_order' does not go with categories built by bins: the bins are ordered "
                             "by their values; drop 'category_order'")
        if self.category_order is not None and len(set(self.category_order)) < len(self.category_order):
            raise ValueError("'category_order' lists a category twice")
        return self


class IdentifierAttribute(AttributeConfig):
    label: ClassVar[str] = "an identifier (dropped before anything else)"
    role: Literal["identifier", "id"]


class PersonAttribute(AttributeConfig):
    label: ClassVar[str] = "a person column (never published)"
    role: Literal["person", "individual"]


class WeightAttribute(AttributeConfig):
    label: ClassVar[str] = "a survey weight (published unchanged)"
    role: Literal["weight", "sampling-weight"]


class HouseholdAttribute(AttributeConfig):
    """A household id: dropped (``publish: drop``, the default) or published as new ids in a seeded
    random order (``publish: renumbered``, sdcMicro's ``createNewID``)."""

    label: ClassVar[str] = "a household column (dropped or renumbered)"
    role: Literal["household", "hh"]
    publish: Literal["drop", "renumbered"] = "drop"
    seed: int = Field(DEFAULT_RENUMBER_SEED, ge=0)

    @model_validator(mode="after")
    def _seed_when_renumbered(self) -> HouseholdAttribute:
        if "seed" in self.model_fields_set and self.publish != "renumbered":
            raise ValueError("'seed' orders renumbered ids; it needs publish: renumbered")
        return self


class PseudonymAttribute(AttributeConfig):
    """A direct identifier published as a keyed pseudonym (``publish: hmac``, the default: the key
    from ``key_file`` or ``key_env``) or as new ids in a seeded random order (``publish: renumbered``)."""

    label: ClassVar[str] = "a pseudonym column (keyed HMAC or renumbered)"
    role: Literal["pseudonym"]
    publish: Literal["hmac", "renumbered"] = "hmac"
    key_file: str | None = Field(None, min_length=1)
    key_env: str | None = Field(None, min_length=1)
    seed: int = Field(DEFAULT_RENUMBER_SEED, ge=0)

    @model_validator(mode="before")
    @classmethod
    def _no_key_text(cls, data: Any) -> Any:
        if isinstance(data, dict) and any(k in data for k in ("key", "secret", "password")):
            raise ValueError("a pseudonym key is never written in the config (it is copied into summaries and "
                             "reports); put it in a file (key_file) or an environment variable (key_env)")
        return data

    @model_validator(mode="after")
    def _one_key(self) -> PseudonymAttribute:
        given = [k for k in ("key_file", "key_env") if getattr(self, k) is not None]
        if self.publish == "renumbered":
            if given:
                raise ValueError(f"'{given[0]}' applies to publish: hmac; renumbered ids take no key")
        elif len(given) != 1:
            raise ValueError("a pseudonym needs its key from exactly one of key_file or key_env" + (
                "" if given else "; without a key, publish: renumbered gives new ids that no later release "
                "can match (a random key would do no better)"))
        if "seed" in self.model_fields_set and self.publish != "renumbered":
            raise ValueError("'seed' orders renumbered ids; it needs publish: renumbered")
        return self


class NewIdAttribute(AttributeConfig):
    """An id replaced by random ids drawn from the run's seed (sdcMicro's ``createNewID``); no key, no
    seed of its own (``seed:`` of the run, or ``--seed``, draws them)."""

    label: ClassVar[str] = "a new-id column (random ids from the run's seed)"
    role: Literal["new-id", "new_id", "newid"]


class InsensitiveAttribute(AttributeConfig):
    label: ClassVar[str] = "an insensitive attribute (published as it is)"
    role: Literal["insensitive", "other"]


ATTRIBUTE_CLASSES: tuple[type[AttributeConfig], ...] = (
    QuasiAttribute, SensitiveAttribute, IdentifierAttribute, PersonAttribute, InsensitiveAttribute,
    WeightAttribute, HouseholdAttribute, PseudonymAttribute, NewIdAttribute,
)

AttributeSpec = Annotated[
    QuasiAttribute | SensitiveAttribute | IdentifierAttribute | PersonAttribute | InsensitiveAttribute
    | WeightAttribute | HouseholdAttribute | PseudonymAttribute | NewIdAttribute,
    Field(discriminator="role"),
]

ROLE_NAMES: tuple[str, ...] = tuple(
    r for cls in ATTRIBUTE_CLASSES for r in cls.model_fields["role"].annotation.__args__  # type: ignore[union-attr]
)
