"""Bad-input catalogue, values: dates read as meant or refused, hierarchies that would lie, numbers
far off, CSV separator lines and `anonkit check` arguments that point at the wrong cause.

Every case here ran (or failed for another reason) before values were read with certainty: dates
``05/02/2020`` were guessed month-first, a hierarchy could publish a man as ``F`` or an age of 30 as
``40``, an age of 10²³ blamed the interval width, ``check DIR`` could not tell the format.
"""

from __future__ import annotations

from pathlib import Path

from bad_input_kit import CHECK_TOY, TOY, C, Prepare, Q, put, write


def visits(*values: str) -> Prepare:
    """The toy table with a fifth column ``Visit`` holding ``values`` (cycled over its 9 rows)."""

    def prepare(tmp: Path) -> None:
        lines = (tmp / TOY).read_text().splitlines()
        out = [lines[0] + ";Visit"] + [f"{line};{values[i % len(values)]}" for i, line in enumerate(lines[1:])]
        (tmp / TOY).write_text("\n".join(out) + "\n")

    return prepare


def visit(spec: dict, level: int = 1):
    """Config changes: ``Visit`` a quasi-identifier with ``spec`` and the fixed level ``level``."""
    return (put("attributes.Visit", {"role": Q, **spec}), put("algorithm.levels.Visit", level))


DATES = {"type": "date", "hierarchy": {"builder": "dates", "granularities": ["month", "year"]}}
#: every day ≤ 12: each value reads as day/month and as month/day
AMBIGUOUS = ("05/02/2020", "07/02/2020", "03/02/2020", "11/02/2020")


def hierarchy(name: str, old: str, new: str, count: int = 1) -> Prepare:
    """Replace text in one of the toy's hierarchy files (must occur; ``count`` times, −1 every time)."""

    def prepare(tmp: Path) -> None:
        path = tmp / f"test2_hierarchy_{name}.csv"
        text = path.read_text()
        assert old in text, old
        path.write_text(text.replace(old, new, count))

    return prepare


AGE_BUILDER = {"role": Q, "hierarchy": {"builder": "intervals", "width": 10}}

CASES = [
    # ---------------------------------------------------------------- dates: the day/month order
    C("date-ambiguous-dmy-builder", 2, ("ambiguous", "format", "Visit", "row 1"),
      cfg=visit(DATES), files=(visits(*AMBIGUOUS),)),
    C("date-ambiguous-no-builder", 2, ("ambiguous", "format", "Visit"),
      cfg=visit({"type": "date", "hierarchy": None}, 0), files=(visits(*AMBIGUOUS),)),
    C("date-ambiguous-dotted", 2, ("ambiguous", "Visit"), cfg=visit(DATES),
      files=(visits("05.02.2020", "07.02.2020", "03.03.2020"),)),
    C("date-ambiguous-dashed", 2, ("ambiguous", "Visit"), cfg=visit(DATES),
      files=(visits("05-02-2020", "07-02-2020", "03-03-2020"),)),
    C("date-ambiguous-with-times", 2, ("ambiguous", "Visit"), cfg=visit(DATES),
      files=(visits("05/02/2020 10:30", "07/02/2020 08:00", "03/02/2020"),)),
    C("date-ambiguous-single-digits", 2, ("ambiguous", "Visit"), cfg=visit(DATES),
      files=(visits("5/2/2020", "7/2/2020", "3/12/2020"),)),
    C("date-ambiguous-beside-iso", 2, ("ambiguous", "Visit"), cfg=visit(DATES),
      files=(visits("2020-02-14", "05/02/2020", "07/02/2020"),)),
    C("date-ambiguous-dates-builder-untyped", 2, ("ambiguous", "Visit"),
      cfg=visit({"hierarchy": {"builder": "dates", "granularities": ["year"]}}), files=(visits(*AMBIGUOUS),)),
    C("date-both-orders", 2, ("both day/month orders", "Visit", "row 2"), cfg=visit(DATES),
      files=(visits("13/02/2020", "02/13/2020", "05/05/2020"),)),
    C("date-both-orders-later-row", 2, ("both day/month orders", "row 5"), cfg=visit(DATES),
      files=(visits("25/12/2019", "01/01/2020", "02/02/2020", "03/03/2020", "12/25/2019"),)),
    C("date-two-digit-year", 2, ("not a date", "05/02/20", "Visit"), cfg=visit(DATES),
      files=(visits("05/02/20", "13/02/20"),)),
    C("date-no-year", 2, ("not a date", "'1/2'"), cfg=visit(DATES), files=(visits("1/2", "3/4"),)),
    C("date-month-name-short-year", 2, ("not a date", "5 Feb 20"), cfg=visit(DATES),
      files=(visits("5 Feb 20", "6 Feb 20"),)),
    C("date-no-builder-two-digit-year", 2, ("not a date", "Visit"),
      cfg=visit({"type": "date", "hierarchy": None}, 0), files=(visits("05/02/20", "13/02/20"),)),
    # ---------------------------------------------------------------- dates: format
    C("date-format-does-not-fit", 2, ("not a date in the format", "%d/%m/%Y", "2020-02-05"),
      cfg=visit({**DATES, "format": "%d/%m/%Y"}), files=(visits("05/02/2020", "2020-02-05"),)),
    C("date-format-does-not-fit-no-builder", 2, ("not a date in the format", "Visit", "row 2"),
      cfg=visit({"type": "date", "format": "%m/%d/%Y", "hierarchy": None}, 0),
      files=(visits("02/05/2020", "13/02/2020"),)),
    C("date-format-on-categorical", 2, ("format", "type date", "categorical", "Visit"),
      cfg=visit({"type": "categorical", "format": "%d/%m/%Y"}, 0), files=(visits(*AMBIGUOUS),)),
    C("date-format-untyped", 2, ("format", "type date", "Visit"),
      cfg=visit({"format": "%d/%m/%Y"}, 0), files=(visits(*AMBIGUOUS),)),
    C("date-format-on-numeric", 2, ("format", "type date", "Age"),
      cfg=(put("attributes.Age.type", "numeric"), put("attributes.Age.format", "%Y"))),
    C("date-format-no-directive", 2, ("strftime", "Visit"),
      cfg=visit({**DATES, "format": "dd/mm/yyyy"}), files=(visits(*AMBIGUOUS),)),
    C("date-format-bad-directive", 2, ("not a valid date format", "%Q"),
      cfg=visit({**DATES, "format": "%Q/%m/%Y"}), files=(visits(*AMBIGUOUS),)),
    C("date-format-wrong-order", 2, ("not a date in the format", "13/02/2020"),
      cfg=visit({**DATES, "format": "%m/%d/%Y"}), files=(visits("05/02/2020", "13/02/2020"),)),
    C("date-format-builder-wins-and-checks", 2, ("not a date in the format", "%Y-%m-%d"),
      cfg=visit({"type": "date", "format": "%d/%m/%Y",
                 "hierarchy": {"builder": "dates", "format": "%Y-%m-%d", "granularities": ["year"]}}),
      files=(visits(*AMBIGUOUS),)),
    # ---------------------------------------------------------------- hierarchies that would lie
    C("hierarchy-age-to-another-age", 2, ("another original value", "'30'", "'36'", "row 7", "Age.csv"),
      files=(hierarchy("Age", "30;[30,40[;*", "30;36;*"),)),
    C("hierarchy-age-to-another-age-as-float", 2, ("another original value", "'36.0'", "Age.csv"),
      files=(hierarchy("Age", "30;[30,40[;*", "30;36.0;*"),)),
    C("hierarchy-age-to-another-age-padded", 2, ("another original value", "' 36 '"),
      files=(hierarchy("Age", "30;[30,40[;*", "30; 36 ;*"),)),
    C("hierarchy-age-group-named-as-value", 2, ("another original value", "'22'", "row 1"),
      files=(hierarchy("Age", "29;[20,30[;*\n22;[20,30[;*\n27;[20,30[;*", "29;22;*\n22;22;*\n27;22;*"),)),
    C("hierarchy-top-named-as-value", 2, ("another original value", "at level 5", "ZIPCode.csv"),
      files=(write("test2_hierarchy_ZIPCode.csv", "".join(
          f"{z};{z[:4]}*;{z[:3]}**;47***;4****;47677\n"
          for z in ("47677", "47602", "47678", "47905", "47909", "47906", "47605", "47673", "47607"))),)),
    C("hierarchy-zip-to-another-zip", 2, ("another original value", "'47678'", "row 1"),
      files=(hierarchy("ZIPCode", "47677;4767*", "47677;47678"),)),
    C("hierarchy-disease-sensitive-lies", 2, ("another original value", "'flu'", "Disease.csv"),
      files=(hierarchy("Disease", "gastritis;stomach disease", "gastritis;flu"),)),
    C("hierarchy-label-differs-by-case", 2, ("another original value", "'FLU'"),
      files=(hierarchy("Disease", "gastritis;stomach disease", "gastritis;FLU"),)),
    C("hierarchy-lies-at-level-2", 2, ("another original value", "at level 2", "'pneumonia'"),
      files=(hierarchy("Disease", "stomach disease;digestive system disease", "stomach disease;pneumonia", -1),)),
    C("hierarchy-lies-in-check", 2, ("another original value", "'flu'", "Disease"),
      files=(hierarchy("Disease", "gastritis;stomach disease", "gastritis;flu"),),
      check=(*CHECK_TOY, "--qi", "ZIPCode", "--sensitive", "Disease",
             "--hierarchy", "Disease={tmp}/test2_hierarchy_Disease.csv")),
    C("hierarchy-nested-group-named-as-leaf", 2, ("another original value", "Disease"),
      cfg=(put("attributes.Disease.hierarchy", {"builder": "nested", "tree": {"*": {
          "stomach": ["gastric ulcer", "gastritis", "stomach cancer"],
          "flu": ["flu", "bronchitis", "pneumonia"]}}}),)),
    C("hierarchy-masking-label-is-value", 2, ("another original value", "'4767*'"),
      cfg=(put("attributes.ZIPCode.hierarchy", {"builder": "masking"}),),
      files=(lambda tmp: (tmp / TOY).write_text((tmp / TOY).read_text().replace("47673;", "4767*;")),)),
    C("hierarchy-flat-top-is-a-value", 2, ("another original value", "'*'", "ZIPCode"),
      cfg=(put("attributes.ZIPCode", {"role": Q}), put("algorithm.levels.ZIPCode", 1)),
      files=(lambda tmp: (tmp / TOY).write_text((tmp / TOY).read_text().replace("47673;", "*;")),)),
    # ---------------------------------------------------------------- numbers far off: blame the value
    C("intervals-huge-age", 2, ("far from the others", "'1e23'", "row 3", "Age"),
      cfg=(put("attributes.Age", AGE_BUILDER),), files=(lambda tmp: _age(tmp, "27", "1e23"),)),
    C("intervals-huge-age-digits", 2, ("far from the others", "row 5"),
      cfg=(put("attributes.Age", AGE_BUILDER),), files=(lambda tmp: _age(tmp, "52", "1" + "0" * 23),)),
    C("intervals-tiny-age", 2, ("far from the others", "'-1e23'", "row 2"),
      cfg=(put("attributes.Age", AGE_BUILDER),), files=(lambda tmp: _age(tmp, "22", "-1e23"),)),
    C("intervals-start-far", 2, ("start is too far", "start"),
      cfg=(put("attributes.Age", {"role": Q, "hierarchy": {"builder": "intervals", "width": 10, "start": -1e20}}),)),
    # ---------------------------------------------------------------- CSV: Excel's separator line
    C("csv-sep-line-contradicts", 2, ("sep=,", "separator", "';'"),
      files=(lambda tmp: _prepend(tmp, "sep=,\n"),)),
    C("csv-sep-line-contradicts-tab", 2, ("sep=|", "separator"),
      files=(lambda tmp: _prepend(tmp, "sep=|\r\n"),)),
    # ---------------------------------------------------------------- check: the real cause
    C("check-directory", 2, ("directory", "not a file"), check=("{tmp}", "--qi", "ZIPCode")),
    C("check-no-qi", 2, ("no quasi-identifier", "--qi"), check=(*CHECK_TOY, "--qi", "")),
    C("check-qi-only-commas", 2, ("no quasi-identifier",), check=(*CHECK_TOY, "--qi", " , ")),
    C("check-no-qi-with-sensitive", 2, ("no quasi-identifier",),
      check=(*CHECK_TOY, "--qi", "", "--sensitive", "Disease")),
]


def _age(tmp: Path, old: str, new: str) -> None:
    """Replace one age of the toy table (``;old;`` → ``;new;``)."""
    text = (tmp / TOY).read_text()
    assert f";{old};" in text, old
    (tmp / TOY).write_text(text.replace(f";{old};", f";{new};", 1))


def _prepend(tmp: Path, line: str) -> None:
    (tmp / TOY).write_text(line + (tmp / TOY).read_text())

