"""Bad-input catalogue, hierarchy builders: ``attributes.X.hierarchy: {builder: …}`` with a key, a type
or a range the builder does not take is refused as the config is read, naming the key path.

Before each builder's parameters were declared (:mod:`anonkit.hierarchy.builder_params`) every case
here either ran — ``width: true`` built intervals of width 1, ``width: "5"``, ``start: "0"`` and
``bottom: yes`` were read as numbers, ``numeric: "no"`` sorted as numbers, an explicit ``order`` took
``null`` or ``yes`` as values, ``granularities: []`` built
a date hierarchy with no date level, ``top: 0`` or a blank ``top`` made the flat hierarchy's top — or
was refused only after the input was read, through a ``TypeError`` re-worded with no key below
``hierarchy``. Each words list names the key path, which no refusal named before.
"""

from __future__ import annotations

from bad_input_kit import C, put
from cases_values import visit, visits

INF, NAN = float("inf"), float("nan")


def age(**builder: object) -> tuple[object, ...]:
    """``Age`` (a quasi-identifier at fixed level 1) built by ``builder``."""
    return (put("attributes.Age.hierarchy", builder),)


def zipcode(**builder: object) -> tuple[object, ...]:
    """``ZIPCode`` (a quasi-identifier at fixed level 3) built by ``builder``."""
    return (put("attributes.ZIPCode.hierarchy", builder),)


def disease(**builder: object) -> tuple[object, ...]:
    """``Disease`` (sensitive) built by ``builder``."""
    return (put("attributes.Disease.hierarchy", builder),)


def dated(**builder: object) -> dict[str, object]:
    """A ``Visit`` column of dates (quasi-identifier, fixed level 1) built by ``builder``."""
    return {"cfg": visit({"type": "date", "hierarchy": builder}), "files": (visits("2020-02-05", "2021-03-07"),)}


IV = "intervals"
#: the toy's diseases, in an order a user might give
DISEASES = ["gastric ulcer", "gastritis", "stomach cancer", "flu", "bronchitis", "pneumonia"]
TREE = {"*": {"stomach disease": ["gastric ulcer", "gastritis", "stomach cancer"],
              "respiratory infection": ["flu", "bronchitis", "pneumonia"]}}
P = "attributes.Age.hierarchy."

CASES = [
    # ---------------------------------------------------------------- intervals
    C("builder-intervals-typo", 2, (P + "fanuot", "did you mean 'fanout'", "width (required)"),
      cfg=age(builder=IV, width=5, fanuot=3)),
    C("builder-intervals-no-width", 2, (P + "width", "needs 'width'"), cfg=age(builder=IV, fanout=3)),
    C("builder-intervals-width-text", 2, (P + "width", "'five'", "give a number"), cfg=age(builder=IV, width="five")),
    C("builder-intervals-width-quoted", 2, (P + "width", "'5'", "without quotes"), cfg=age(builder=IV, width="5")),
    C("builder-intervals-width-yes", 2, (P + "width", "yes/no"), cfg=age(builder=IV, width=True)),
    C("builder-intervals-width-negative", 2, (P + "width", "-5", "greater than 0"), cfg=age(builder=IV, width=-5)),
    C("builder-intervals-width-zero", 2, (P + "width", "greater than 0"), cfg=age(builder=IV, width=0)),
    C("builder-intervals-width-inf", 2, (P + "width", "finite"), cfg=age(builder=IV, width=INF)),
    C("builder-intervals-fanout-yes", 2, (P + "fanout", "whole number"), cfg=age(builder=IV, width=5, fanout=True)),
    C("builder-intervals-fanout-one", 2, (P + "fanout", "greater than or equal to 2"),
      cfg=age(builder=IV, width=5, fanout=1)),
    C("builder-intervals-fanout-fraction", 2, (P + "fanout", "2.5", "whole number"),
      cfg=age(builder=IV, width=5, fanout=2.5)),
    C("builder-intervals-levels-one", 2, (P + "levels", "greater than or equal to 2"),
      cfg=age(builder=IV, width=5, levels=1)),
    C("builder-intervals-top-inf", 2, (P + "top", "finite"), cfg=age(builder=IV, width=5, top=INF)),
    C("builder-intervals-bottom-nan", 2, (P + "bottom", "finite"), cfg=age(builder=IV, width=5, bottom=NAN)),
    C("builder-intervals-bottom-yes", 2, (P + "bottom", "yes/no"), cfg=age(builder=IV, width=5, bottom=True)),
    C("builder-intervals-start-quoted", 2, (P + "start", "'0'", "without quotes"),
      cfg=age(builder=IV, width=5, start="0")),
    C("builder-intervals-bottom-above-top", 2, (P + "bottom", "smaller than top"),
      cfg=age(builder=IV, width=5, bottom=60, top=30)),
    C("builder-intervals-label-fields", 2, (P + "label", "{lo} and {hi}"),
      cfg=age(builder=IV, width=5, label="{low}-{high}")),
    C("builder-intervals-label-number", 2, (P + "label", "quote it"), cfg=age(builder=IV, width=5, label=10)),
    C("builder-intervals-format-key", 2, (P + "format", "unknown key 'format' of the intervals builder"),
      cfg=age(builder=IV, width=5, format="%Y")),
    # ---------------------------------------------------------------- masking
    C("builder-masking-typo", 2, ("attributes.ZIPCode.hierarchy.level", "did you mean 'levels'"),
      cfg=zipcode(builder="masking", level=3)),
    C("builder-masking-levels-zero", 2, ("attributes.ZIPCode.hierarchy.levels", "greater than or equal to 1"),
      cfg=zipcode(builder="masking", levels=0)),
    C("builder-masking-levels-quoted", 2, ("attributes.ZIPCode.hierarchy.levels", "'3'", "without quotes"),
      cfg=zipcode(builder="masking", levels="3")),
    C("builder-masking-direction", 2, ("attributes.ZIPCode.hierarchy.direction", "'up'", "'right' or 'left'"),
      cfg=zipcode(builder="masking", direction="up")),
    C("builder-masking-char-two", 2, ("attributes.ZIPCode.hierarchy.char", "single character"),
      cfg=zipcode(builder="masking", char="**")),
    C("builder-masking-pad-number", 2, ("attributes.ZIPCode.hierarchy.pad", "quote it"),
      cfg=zipcode(builder="masking", pad=0)),
    C("builder-masking-width-key", 2, ("attributes.ZIPCode.hierarchy.width", "of the masking builder", "levels"),
      cfg=zipcode(builder="masking", width=5)),
    # ---------------------------------------------------------------- dates
    C("builder-dates-unknown-granularity", 2, ("attributes.Visit.hierarchy.granularities.0", "'weekly'", "allowed"),
      **dated(builder="dates", granularities=["weekly", "year"])),
    C("builder-dates-finer-after-coarser", 2, ("attributes.Visit.hierarchy.granularities", "coarser", "'month'"),
      **dated(builder="dates", granularities=["year", "month"])),
    C("builder-dates-no-granularity", 2, ("attributes.Visit.hierarchy.granularities", "at least 1"),
      **dated(builder="dates", granularities=[])),
    C("builder-dates-typo", 2, ("attributes.Visit.hierarchy.granularity", "did you mean 'granularities'"),
      **dated(builder="dates", granularity=["year"])),
    C("builder-dates-format-number", 2, ("attributes.Visit.hierarchy.format", "quote it"),
      **dated(builder="dates", format=2020)),
    C("builder-dates-format-empty", 2, ("attributes.Visit.hierarchy.format", "not an empty one"),
      **dated(builder="dates", format="")),
    # ---------------------------------------------------------------- order
    C("builder-order-no-sizes", 2, (P + "sizes", "needs 'sizes'"), cfg=age(builder="order")),
    C("builder-order-sizes-number", 2, (P + "sizes", "give a list"), cfg=age(builder="order", sizes=3)),
    C("builder-order-size-zero", 2, (P + "sizes.1", "greater than or equal to 1"),
      cfg=age(builder="order", sizes=[3, 0])),
    C("builder-order-numeric-text", 2, (P + "numeric", "'no'", "true or false"),
      cfg=age(builder="order", sizes=[3], numeric="no")),
    C("builder-order-label", 2, (P + "label", "'set' or 'range'"), cfg=age(builder="order", sizes=[3], label="list")),
    C("builder-order-typo", 2, (P + "size", "did you mean 'sizes'"), cfg=age(builder="order", size=[3])),
    C("builder-order-order-text", 2, ("attributes.Disease.hierarchy.order", "give a list"),
      cfg=disease(builder="order", sizes=[3], order="flu")),
    C("builder-order-order-boolean", 2, ("attributes.Disease.hierarchy.order.6", "True", "quote it"),
      cfg=disease(builder="order", sizes=[3], order=[*DISEASES, True])),
    C("builder-order-order-null", 2, ("attributes.Disease.hierarchy.order.0", "None", "quote it"),
      cfg=disease(builder="order", sizes=[3], order=[None, *DISEASES])),
    C("builder-order-order-twice", 2, ("attributes.Disease.hierarchy.order", "twice", "'flu'"),
      cfg=disease(builder="order", sizes=[3], order=["flu", "gastritis", "flu"])),
    # ---------------------------------------------------------------- nested
    C("builder-nested-no-tree", 2, ("attributes.Disease.hierarchy.tree", "needs 'tree'"),
      cfg=disease(builder="nested")),
    C("builder-nested-tree-list", 2, ("attributes.Disease.hierarchy.tree", "mapping"),
      cfg=disease(builder="nested", tree=["flu", "gastritis"])),
    C("builder-nested-extra-key", 2, ("attributes.Disease.hierarchy.levels", "of the nested builder", "tree"),
      cfg=disease(builder="nested", tree=TREE, levels=2)),
    C("builder-nested-leaf-twice", 2, ("attributes.Disease.hierarchy.tree", "twice", "'flu'"),
      cfg=disease(builder="nested", tree={"*": {"a": ["flu", "gastritis"], "b": ["flu"]}})),
    # ---------------------------------------------------------------- flat
    C("builder-flat-top-number", 2, (P + "top", "quote it"), cfg=age(builder="flat", top=0)),
    C("builder-flat-top-blank", 2, (P + "top", "not blank"), cfg=age(builder="flat", top=" ")),
    C("builder-flat-typo", 2, (P + "tpo", "did you mean 'top'"), cfg=age(builder="flat", tpo="any")),
    # ---------------------------------------------------------------- before the input is read
    C("builder-key-before-missing-input", 2, (P + "widht", "did you mean 'width'"),
      cfg=(*age(builder=IV, widht=5), put("input.path", "gone.csv"))),
    C("builder-type-before-missing-input", 2, (P + "fanout", "whole number"),
      cfg=(*age(builder=IV, width=5, fanout="2"), put("input.path", "gone.csv"))),
]
