"""The :class:`Schema`: each column's role, type and hierarchy.

Roles (spec §0.2): *identifier* (dropped before anything else and never written), *quasi*
(quasi-identifier, generalized), *sensitive* (protected by l-diversity, t-closeness, …) and
*insensitive* (passed through unchanged). Types: *categorical*, *ordinal* (an explicit order),
*numeric* and *date*.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from anonkit.errors import InputError
from anonkit.hierarchy import Hierarchy


class Role(StrEnum):
    IDENTIFIER = "identifier"
    QUASI = "quasi"
    SENSITIVE = "sensitive"
    INSENSITIVE = "insensitive"


class AttrType(StrEnum):
    CATEGORICAL = "categorical"
    ORDINAL = "ordinal"
    NUMERIC = "numeric"
    DATE = "date"


_ROLE_ALIASES = {
    "identifier": Role.IDENTIFIER,
    "id": Role.IDENTIFIER,
    "identifying": Role.IDENTIFIER,
    "quasi": Role.QUASI,
    "qi": Role.QUASI,
    "quasi-identifier": Role.QUASI,
    "quasi-identifying": Role.QUASI,
    "sensitive": Role.SENSITIVE,
    "insensitive": Role.INSENSITIVE,
    "other": Role.INSENSITIVE,
}


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
    trivial hierarchy ``{values} → *`` when the table is encoded. ``order`` lists the values of an
    ordinal attribute from lowest to highest (used by ordered-distance t-closeness).
    ``min_level``/``max_level`` bound the full-domain generalization of a quasi-identifier.
    """

    name: str
    role: Role = Role.INSENSITIVE
    type: AttrType = AttrType.CATEGORICAL
    hierarchy: Hierarchy | None = None
    order: list[str] | None = None
    min_level: int = 0
    max_level: int | None = None
    weight: float = 0.5

    def __post_init__(self) -> None:
        self.role = parse_role(self.role)
        try:
            self.type = AttrType(self.type)
        except ValueError:
            allowed = ", ".join(t.value for t in AttrType)
            raise InputError(f"unknown type {self.type!r}; allowed: {allowed}", column=self.name) from None


@dataclass
class Schema:
    """The attributes of a table, in column order.

    Build one with :meth:`Schema.of`::

        Schema.of(quasi=["age", "sex"], sensitive=["disease"], identifier=["name"],
                  hierarchies={"age": h_age})
    """

    attributes: dict[str, Attribute] = field(default_factory=dict)

    @classmethod
    def of(
        cls,
        *,
        quasi: Iterable[str] = (),
        sensitive: Iterable[str] = (),
        identifier: Iterable[str] = (),
        insensitive: Iterable[str] = (),
        hierarchies: Mapping[str, Hierarchy] | None = None,
        types: Mapping[str, str | AttrType] | None = None,
    ) -> Schema:
        attrs: dict[str, Attribute] = {}
        for role, names in (
            (Role.IDENTIFIER, identifier),
            (Role.QUASI, quasi),
            (Role.SENSITIVE, sensitive),
            (Role.INSENSITIVE, insensitive),
        ):
            for name in names:
                if name in attrs:
                    raise InputError("attribute given two roles", column=name)
                attrs[name] = Attribute(name, role)
        for name, h in (hierarchies or {}).items():
            if name not in attrs:
                raise InputError("hierarchy given for an attribute without a role", column=name)
            attrs[name].hierarchy = h
        for name, t in (types or {}).items():
            if name not in attrs:
                raise InputError("type given for an attribute without a role", column=name)
            attrs[name] = Attribute(name, attrs[name].role, t, attrs[name].hierarchy)  # type: ignore[arg-type]
        return cls(attrs)

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

    def in_column_order(self, columns: Iterable[str]) -> Schema:
        """This schema with its attributes ordered as ``columns`` (ARX reports QIs in header order).

        Raises
        ------
        InputError
            If the schema names a column that is not among ``columns``.
        """
        cols = list(columns)
        unknown = [n for n in self.attributes if n not in cols]
        if unknown:
            raise InputError(
                f"unknown column; the input has: {', '.join(map(str, cols))}", column=unknown[0]
            )
        ordered = {c: self.attributes[c] for c in cols if c in self.attributes}
        return Schema(ordered)
