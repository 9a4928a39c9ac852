"""The :class:`Schema`: each column's role, type and hierarchy.

Roles (spec §0.2): *identifier* (dropped before anything else and never written), *person* (which
rows belong to one individual, spec §1.5: dropped from every release like an identifier; counts
that mean people count its distinct values), *quasi*
(quasi-identifier, generalized), *sensitive* (protected by l-diversity, t-closeness, …) and
*insensitive* (passed through unchanged), and the survey roles of :mod:`anonkit.pseudonyms`:
*weight* (a sampling weight, published unchanged, never generalized), *household* (a household
id: dropped, or renumbered), *pseudonym* (a direct identifier replaced by a keyed HMAC
pseudonym) and *new-id* (an id replaced by random ids drawn from the run's seed, sdcMicro's
``createNewID``). Types: *categorical*, *ordinal* (an explicit order),
*numeric* and *date*.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum

from anonkit.errors import InputError
from anonkit.hierarchy import Hierarchy
from anonkit.pseudonyms import DEFAULT_RENUMBER_SEED, PUBLISH_CHOICES, read_key


class Role(StrEnum):
    IDENTIFIER = "identifier"
    #: which rows belong to one individual (data with several records per person): never published,
    #: and every count that means "people" counts distinct persons
    PERSON = "person"
    QUASI = "quasi"
    SENSITIVE = "sensitive"
    INSENSITIVE = "insensitive"
    #: a survey's sampling weight (at most one column): published unchanged, never generalized
    WEIGHT = "weight"
    #: a household (cluster) id (at most one column): never published as is; dropped or renumbered
    HOUSEHOLD = "household"
    #: a direct identifier published as a keyed pseudonym (HMAC-SHA256) or renumbered
    PSEUDONYM = "pseudonym"
    #: an id replaced by random tokens drawn from the run's seed (sdcMicro's ``createNewID``): the same
    #: token for every row of one original value, unrelated to the value and to any other run's
    NEW_ID = "new-id"


class AttrType(StrEnum):
    CATEGORICAL = "categorical"
    ORDINAL = "ordinal"
    NUMERIC = "numeric"
    DATE = "date"


_ROLE_ALIASES = {
    "identifier": Role.IDENTIFIER,
    "id": Role.IDENTIFIER,
    "identifying": Role.IDENTIFIER,
    "person": Role.PERSON,
    "individual": Role.PERSON,
    "quasi": Role.QUASI,
    "qi": Role.QUASI,
    "quasi-identifier": Role.QUASI,
    "quasi-identifying": Role.QUASI,
    "sensitive": Role.SENSITIVE,
    "insensitive": Role.INSENSITIVE,
    "other": Role.INSENSITIVE,
    "weight": Role.WEIGHT,
    "sampling-weight": Role.WEIGHT,
    "household": Role.HOUSEHOLD,
    "hh": Role.HOUSEHOLD,
    "pseudonym": Role.PSEUDONYM,
    "new-id": Role.NEW_ID,
    "new_id": Role.NEW_ID,
    "newid": Role.NEW_ID,
}
#: the roles whose cells are carried as they are (or replaced whole), never generalized nor judged
SURVEY_ROLES = (Role.WEIGHT, Role.HOUSEHOLD, Role.PSEUDONYM, Role.NEW_ID)


def parse_role(text: str | Role) -> Role:
    """The :class:`Role` named by ``text`` (accepts aliases such as ``qi`` and ``quasi-identifier``)."""
    if isinstance(text, Role):
        return text
    try:
        return _ROLE_ALIASES[str(text).strip().lower()]
    except KeyError:
        allowed = ", ".join(sorted({r.value for r in Role}))
        raise InputError(f"unknown role {text!r}; allowed: {allowed}") from None


@dataclass
class Attribute:
    """One column of the input.

    ``hierarchy`` is required for nothing: a categorical quasi-identifier without one gets the
    trivial hierarchy ``{values} → *`` when the table is encoded. ``type`` ``None`` (the default)
    is inferred when the table is encoded (:func:`anonkit._values.infer_type`): a column whose
    non-missing values are all plain numbers is *numeric*, any other *categorical*. ``order`` lists the values of an
    ordinal attribute from lowest to highest (used by ordered-distance t-closeness).
    ``min_level``/``max_level`` bound the full-domain generalization of a quasi-identifier.
    ``format`` (strftime) says how a *date* column is written; without it the day/month order must
    be certain from the values (:func:`anonkit._values.read_dates`).
    """

    name: str
    role: Role = Role.INSENSITIVE
    type: AttrType | None = None
    hierarchy: Hierarchy | None = None
    order: list[str] | None = None
    min_level: int = 0
    max_level: int | None = None
    weight: float = 0.5
    #: sensitive value → ordinal category (θ-sensitivity, spec §1.5), and the categories in order
    categories: dict[str, str] | None = None
    category_order: tuple[str, ...] | None = None
    #: a date column's strftime format (``%d/%m/%Y``): required when the day/month order is ambiguous
    format: str | None = None
    #: household or pseudonym: how it is published (household: ``drop`` or ``renumbered``; pseudonym:
    #: ``hmac`` or ``renumbered``); ``None``: the role's first choice
    publish: str | None = None
    #: pseudonym: where its key is read (a file, or an environment variable); the key is never stored here
    key_file: str | None = None
    key_env: str | None = None
    #: ``publish: renumbered``: the seed of the new ids' random order; role new-id: the run's seed
    #: (set by the runner, :meth:`Schema.with_run_seed`)
    seed: int = DEFAULT_RENUMBER_SEED

    def __post_init__(self) -> None:
        self.role = parse_role(self.role)
        self._check_arguments()
        self._check_format()
        self._check_survey()
        if self.type is None:
            return
        try:
            self.type = AttrType(self.type)
        except ValueError:
            allowed = ", ".join(t.value for t in AttrType)
            raise InputError(f"unknown type {self.type!r}; allowed: {allowed}", column=self.name) from None


    def _check_survey(self) -> None:
        """The survey roles' keys: ``publish`` one of the role's choices, ``seed`` a whole number ≥ 0,
        a key source only for a pseudonym published as ``hmac``, whose key is read now (a missing or short
        key refused before any work) and kept out of the repr; no hierarchy, order or categories on a
        column that is never generalized."""
        role = self.role.value
        choices = PUBLISH_CHOICES.get(role)
        if self.publish is not None and (choices is None or self.publish not in choices):
            allowed = f"one of {', '.join(choices)}" if choices else "given for a household or pseudonym only"
            raise InputError(f"publish must be {allowed}", column=self.name, key="publish", value=self.publish)
        if isinstance(self.seed, bool) or not isinstance(self.seed, numbers.Integral) or self.seed < 0:
            raise InputError("seed must be a whole number ≥ 0", column=self.name, key="seed", value=self.seed)
        hmac_pseudonym = role == Role.PSEUDONYM.value and self.publish in (None, "hmac")
        for key in ("key_file", "key_env"):
            if getattr(self, key) is not None and not hmac_pseudonym:
                raise InputError(f"{key} applies to a pseudonym published as hmac only", column=self.name, key=key)
        if self.role in SURVEY_ROLES:
            given = [k for k in ("hierarchy", "order", "categories", "format") if getattr(self, k) is not None]
            if given or self.max_level is not None or self.min_level:
                raise InputError(f"a {role} column is never generalized; drop {(given or ['the levels'])[0]}",
                                 column=self.name, key=(given or ["min_level"])[0])
        self._key = read_key(self.name, key_file=self.key_file, key_env=self.key_env) if hmac_pseudonym else None

    def key(self) -> bytes:
        """A pseudonym's key, read from its ``key_file`` or ``key_env`` when the attribute was made."""
        if self._key is None:
            raise InputError("no pseudonym key: the column is not a pseudonym published as hmac", column=self.name)
        return self._key

    def _check_format(self) -> None:
        """``format`` is a strftime pattern of a date column: refused for another type (it would be
        ignored) and when it holds no ``%`` directive."""
        if self.format is None:
            return
        if not isinstance(self.format, str) or "%" not in self.format:
            raise InputError("a date format is a strftime pattern such as '%d/%m/%Y'", column=self.name,
                             key="format", value=self.format)
        if self.type is None or str(getattr(self.type, "value", self.type)) != AttrType.DATE.value:
            raise InputError("format applies to type date only; declare type: date", column=self.name,
                             key="format", value=self.format)


    def _check_arguments(self) -> None:
        """Refuse, naming the column, arguments of the wrong Python type (a DataFrame for a hierarchy,
        text for a level, ``True`` for a weight), an ``order`` that lists a value twice, and an ``order``
        on a numeric or date column (numbers and dates order themselves: it would be ignored)."""
        if not isinstance(self.name, str) or not self.name:
            raise InputError(f"an attribute's name must be text, got {type(self.name).__name__} {self.name!r}")
        if self.hierarchy is not None and not isinstance(self.hierarchy, Hierarchy):
            raise InputError(f"hierarchy must be an anonkit Hierarchy, got {type(self.hierarchy).__name__}: build one "
                             "with Hierarchy(rows) (a DataFrame: Hierarchy(frame.to_numpy())) or read_hierarchy(file)",
                             column=self.name, key="hierarchy")
        for key in ("min_level", "max_level"):
            level = getattr(self, key)
            if level is None and key == "max_level":
                continue
            if isinstance(level, bool) or not isinstance(level, numbers.Integral) or level < 0:
                raise InputError(f"{key} must be a whole number ≥ 0, got {type(level).__name__} {level!r}",
                                 column=self.name, key=key)
            setattr(self, key, int(level))
        if (isinstance(self.weight, bool) or not isinstance(self.weight, numbers.Real)
                or not math.isfinite(self.weight) or self.weight < 0):
            raise InputError(f"weight must be a finite number ≥ 0, got {type(self.weight).__name__} {self.weight!r}",
                             column=self.name, key="weight")
        if self.order is not None:
            if isinstance(self.order, str | bytes) or not isinstance(self.order, Iterable):
                raise InputError(f"order must be a list of values, lowest first, got {type(self.order).__name__} "
                                 f"{self.order!r}", column=self.name, key="order")
            self.order = [str(v) for v in self.order]
            twice = next((v for i, v in enumerate(self.order) if v in self.order[:i]), None)
            if twice is not None:
                raise InputError("order lists a value twice; list every value once, lowest first",
                                 column=self.name, key="order", value=twice)
            if str(getattr(self.type, "value", self.type)) in (AttrType.NUMERIC.value, AttrType.DATE.value):
                raise InputError(f"order does not apply to a {getattr(self.type, 'value', self.type)} column "
                                 "(numbers and dates order themselves); drop it or declare type: ordinal",
                                 column=self.name, key="order")


@dataclass
class Schema:
    """The attributes of a table, in column order.

    Build one with :meth:`Schema.of`::

        Schema.of(quasi=["age", "sex"], sensitive=["disease"], identifier=["name"],
                  hierarchies={"age": h_age})

    Every column of a table must have a role: encoding a frame with a column the schema does not
    name is an :class:`~anonkit.errors.InputError` listing all such columns, unless
    ``default_role`` (``insensitive`` or ``quasi``) says what they are. Fail closed: a column
    nobody classified is never published by accident.
    """

    attributes: dict[str, Attribute] = field(default_factory=dict)
    default_role: Role | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.attributes, Mapping) or not all(
                isinstance(a, Attribute) for a in self.attributes.values()):
            raise InputError("a Schema's attributes must map names to Attribute (or build it with Schema.of(quasi=[…], "
                             f"sensitive=[…])), got {type(self.attributes).__name__}", key="attributes")
        if self.default_role is not None:
            role = parse_role(self.default_role)
            if role not in (Role.INSENSITIVE, Role.QUASI):
                raise InputError(
                    f"default_role must be 'insensitive' or 'quasi', not {role.value!r}", key="default_role"
                )
            self.default_role = role

    @classmethod
    def of(
        cls,
        *,
        quasi: Iterable[str] = (),
        sensitive: Iterable[str] = (),
        identifier: Iterable[str] = (),
        insensitive: Iterable[str] = (),
        person: str | None = None,
        weight: str | None = None,
        household: str | None = None,
        pseudonym: Iterable[str] = (),
        new_id: Iterable[str] = (),
        publish: Mapping[str, str] | None = None,
        key_file: str | None = None,
        key_env: str | None = None,
        hierarchies: Mapping[str, Hierarchy] | None = None,
        types: Mapping[str, str | AttrType] | None = None,
        default_role: str | Role | None = None,
        categories: Mapping[str, Mapping[str, str]] | None = None,
        category_order: Mapping[str, Iterable[str]] | None = None,
    ) -> Schema:
        _check_of_arguments({"quasi": quasi, "sensitive": sensitive, "identifier": identifier,
                             "insensitive": insensitive, "pseudonym": pseudonym,
                             "new_id": new_id},
                            {"hierarchies": hierarchies, "types": types, "categories": categories,
                             "category_order": category_order, "publish": publish})
        attrs = _role_attributes(
            ((Role.IDENTIFIER, identifier), (Role.QUASI, quasi), (Role.SENSITIVE, sensitive),
             (Role.INSENSITIVE, insensitive), (Role.PERSON, [] if person is None else [person]),
             (Role.WEIGHT, [] if weight is None else [weight]),
             (Role.HOUSEHOLD, [] if household is None else [household]), (Role.PSEUDONYM, pseudonym),
             (Role.NEW_ID, new_id)),
            publish or {}, key_file, key_env)
        for name, h in (hierarchies or {}).items():
            if name not in attrs:
                raise InputError("hierarchy given for an attribute without a role", column=name)
            attrs[name] = replace(attrs[name], hierarchy=h)
        for name, t in (types or {}).items():
            if name not in attrs:
                raise InputError("type given for an attribute without a role", column=name)
            attrs[name] = replace(attrs[name], type=t)  # type: ignore[arg-type]
        for name, cats in (categories or {}).items():
            if name not in attrs or attrs[name].role != Role.SENSITIVE:
                raise InputError("categories given for an attribute that is not sensitive", column=name)
            attrs[name].categories = {str(v): str(c) for v, c in cats.items()}
        for name, order in (category_order or {}).items():
            if name not in attrs or attrs[name].categories is None:
                raise InputError("category_order given for an attribute without categories", column=name)
            attrs[name].category_order = tuple(str(c) for c in order)
        return cls(attrs, default_role)  # type: ignore[arg-type]

    def add(self, attribute: Attribute) -> None:
        if attribute.name in self.attributes:
            raise InputError("attribute defined twice", column=attribute.name)
        self.attributes[attribute.name] = attribute

    def __getitem__(self, name: str) -> Attribute:
        return self.attributes[name]

    def __contains__(self, name: object) -> bool:
        return name in self.attributes

    def names(self, role: Role) -> list[str]:
        return [a.name for a in self.attributes.values() if a.role == role]

    @property
    def quasi(self) -> list[str]:
        return self.names(Role.QUASI)

    @property
    def sensitive(self) -> list[str]:
        return self.names(Role.SENSITIVE)

    @property
    def identifiers(self) -> list[str]:
        return self.names(Role.IDENTIFIER)

    @property
    def weight(self) -> str | None:
        """The survey weight column (at most one), or ``None``."""
        return self._one(Role.WEIGHT)

    @property
    def household(self) -> str | None:
        """The household column (at most one), or ``None``."""
        return self._one(Role.HOUSEHOLD)

    @property
    def pseudonyms(self) -> list[str]:
        return self.names(Role.PSEUDONYM)

    @property
    def new_ids(self) -> list[str]:
        """The new-id columns (role new-id), in schema order."""
        return self.names(Role.NEW_ID)

    def with_run_seed(self, seed: int) -> Schema:
        """This schema with every new-id column drawing its tokens from the run's ``seed`` (the runner
        calls it once, before encoding: one run is reproducible, runs with other seeds share nothing)."""
        if not self.new_ids:
            return self
        attrs = {n: replace(a, seed=seed) if a.role == Role.NEW_ID else a for n, a in self.attributes.items()}
        return Schema(attrs, self.default_role)

    @property
    def never_published(self) -> list[str]:
        """The columns no release may hold: identifiers, the person column, and the household column
        unless it is renumbered (it links the records of people, as a person id does)."""
        hh = self.household
        return [*self.identifiers, *([self.person] if self.person else []),
                *([hh] if hh is not None and self.attributes[hh].publish != "renumbered" else [])]

    @property
    def survey_columns(self) -> list[str]:
        """The weight, household and pseudonym columns (:data:`SURVEY_ROLES`), in schema order."""
        return [a.name for a in self.attributes.values() if a.role in SURVEY_ROLES]

    def _one(self, role: Role) -> str | None:
        names = self.names(role)
        if len(names) > 1:
            raise InputError(f"only one column may have role {role.value}, got {', '.join(names)}", column=names[1])
        return names[0] if names else None

    @property
    def person(self) -> str | None:
        """The person column (at most one), or ``None``."""
        names = self.names(Role.PERSON)
        if len(names) > 1:
            raise InputError(f"only one column may have role person, got {', '.join(names)}", column=names[1])
        return names[0] if names else None

    def unlisted(self, columns: Iterable[str]) -> list[str]:
        """The ``columns`` this schema gives no role."""
        return [str(c) for c in columns if str(c) not in self.attributes]

    def in_column_order(self, columns: Iterable[str]) -> Schema:
        """This schema with its attributes ordered as ``columns`` (ARX reports QIs in header order),
        every column given a role: the schema's own, else ``default_role``.

        Raises
        ------
        InputError
            If the schema names a column that is not among ``columns``, or a column has no role and
            there is no ``default_role``.
        """
        cols = list(columns)
        unknown = [n for n in self.attributes if n not in cols]
        if unknown:
            raise InputError(
                f"unknown column; the input has: {', '.join(map(str, cols))}", column=unknown[0]
            )
        unlisted = self.unlisted(cols)
        if unlisted and self.default_role is None:
            raise InputError(
                f"{len(unlisted)} column(s) of the input have no role: {', '.join(unlisted)}; give each a role "
                "under 'attributes' (identifier drops it) or set default_role: insensitive or quasi"
            )
        ordered = {
            c: self.attributes[c] if c in self.attributes else Attribute(c, self.default_role)  # type: ignore[arg-type]
            for c in cols
        }
        return Schema(ordered, self.default_role)


def _survey_attribute(name: str, role: Role, publish: str | None, key_file: str | None,
                      key_env: str | None) -> Attribute:
    """:meth:`Schema.of`'s attribute of ``name``: a pseudonym published as hmac takes the key source."""
    if role == Role.PSEUDONYM and publish in (None, "hmac"):
        return Attribute(name, role, publish=publish, key_file=key_file, key_env=key_env)
    if role in (Role.HOUSEHOLD, Role.PSEUDONYM):
        return Attribute(name, role, publish=publish)
    return Attribute(name, role)


def _check_of_arguments(lists: Mapping[str, object], mappings: Mapping[str, object]) -> None:
    """:meth:`Schema.of`'s arguments of the wrong shape: text for a list of names, a list for a mapping."""
    for key, names in lists.items():
        if isinstance(names, str | bytes) or not isinstance(names, Iterable):
            raise InputError(f"{key} must be a list of column names, got {type(names).__name__} {names!r}"
                             + (f": write [{names!r}]" if isinstance(names, str) else ""), key=key)
    for key, mapping in mappings.items():
        if mapping is not None and not isinstance(mapping, Mapping):
            raise InputError(f"{key} must be a mapping of column names, got {type(mapping).__name__}", key=key)


def _role_attributes(roles: Iterable[tuple[Role, Iterable[str]]], publish: Mapping[str, str], key_file: str | None,
                     key_env: str | None) -> dict[str, Attribute]:
    """:meth:`Schema.of`'s attribute of every named column (one role each); ``publish`` only for a
    household or pseudonym, a key source only with a pseudonym published as hmac."""
    attrs: dict[str, Attribute] = {}
    for role, names in roles:
        for name in names:
            if name in attrs:
                raise InputError("attribute given two roles", column=name)
            attrs[name] = _survey_attribute(name, role, publish.get(name), key_file, key_env)
    for name in publish:
        if name not in attrs or attrs[name].role not in (Role.HOUSEHOLD, Role.PSEUDONYM):
            raise InputError("publish given for a column that is not a household or pseudonym", column=name,
                             key="publish")
    if (key_file is not None or key_env is not None) and not any(a._key for a in attrs.values()):
        raise InputError("key_file/key_env given without a pseudonym column published as hmac",
                         key="key_file" if key_file is not None else "key_env")
    return attrs
