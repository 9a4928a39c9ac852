"""Bad-input catalogue, survey roles and pseudonyms (issue 28, item 1 and "identifiers"): ``weight``,
``household`` and ``pseudonym`` columns.

Before these roles existed each case below was an unknown role; now each names what is wrong in one
line: a weight that is missing, not a number, below 1 or not finite (naming the row), two
weight or household columns, a household or weight given a hierarchy (they are never generalized),
a household without an id, a pseudonym without a key or with its key in the config text, a key file
that is missing, short, a folder or unreadable, an unset key variable, keys that do not apply.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from bad_input_kit import TOY, C, put, write

#: a key long enough (40 bytes)
KEY = "k" * 40
ROWS = 9


def survey_toy(*, weight: list[str] | None = None, household: list[str] | None = None,
               name: list[str] | None = None, extra: str | None = None) -> Callable[[Path], None]:
    """The toy table with survey columns in front: ``Name`` (person1…), ``HH`` (h1…h5, two records
    each), ``W`` (1.5, 3.0, …) and with ``extra`` a second copy of ``W`` named so; a list replaces a
    column's cells."""
    weight = weight or [str(1.5 * i) for i in range(1, ROWS + 1)]
    household = household or [f"h{(i + 1) // 2}" for i in range(1, ROWS + 1)]
    name = name or [f"person{i}" for i in range(1, ROWS + 1)]

    def prepare(tmp: Path) -> None:
        lines = (tmp / TOY).read_text().splitlines()
        head = "Name;HH;W;" + (f"{extra};" if extra else "")
        out = [head + lines[0]]
        for i, line in enumerate(lines[1:]):
            out.append(f"{name[i]};{household[i]};{weight[i]};" + (f"{weight[i]};" if extra else "") + line)
        (tmp / TOY).write_text("\n".join(out) + "\n")

    return prepare


def with_weight(at: int, cell: str) -> Callable[[Path], None]:
    w = [str(1.5 * i) for i in range(1, ROWS + 1)]
    w[at] = cell
    return survey_toy(weight=w)


def with_household(at: int, cell: str) -> Callable[[Path], None]:
    h = [f"h{(i + 1) // 2}" for i in range(1, ROWS + 1)]
    h[at] = cell
    return survey_toy(household=h)


NAME_ID = put("attributes.Name", {"role": "identifier"})
HH = put("attributes.HH", {"role": "household"})
W = put("attributes.W", {"role": "weight"})
SURVEY = (NAME_ID, HH, W)
TOY3 = (survey_toy(),)


def pseudo(**keys: object) -> Callable[[dict], None]:
    return put("attributes.Name", {"role": "pseudonym", **keys})


CASES = [
    # weights: one finite number > 0 per record, the row named
    C("survey-weight-missing", 2, ("survey weight is missing", "row 4", "W"), cfg=SURVEY, files=(with_weight(3, ""),)),
    C("survey-weight-text", 2, ("not a number", "row 2", "abc"), cfg=SURVEY, files=(with_weight(1, "abc"),)),
    C("survey-weight-zero", 2, ("below 1", "row 5"), cfg=SURVEY, files=(with_weight(4, "0"),)),
    C("survey-weight-negative", 2, ("below 1", "row 1", "-2"), cfg=SURVEY, files=(with_weight(0, "-2"),)),
    C("survey-weight-infinite", 2, ("not finite", "row 9"), cfg=SURVEY, files=(with_weight(8, "inf"),)),
    C("survey-weight-nan-text", 2, ("row 3",), cfg=SURVEY, files=(with_weight(2, "NaN"),)),
    C("survey-weight-comma-decimal", 2, ("not a number", "row 6"), cfg=SURVEY, files=(with_weight(5, "1,5"),)),
    C("survey-weight-two-columns", 2, ("only one column may have role weight", "W2"),
      cfg=(*SURVEY, put("attributes.W2", {"role": "weight"})), files=(survey_toy(extra="W2"),)),
    C("survey-weight-alias-two-columns", 2, ("only one column may have role weight",),
      cfg=(*SURVEY, put("attributes.W2", {"role": "sampling-weight"})), files=(survey_toy(extra="W2"),)),
    C("survey-weight-with-hierarchy", 2, ("attributes.W", "hierarchy"),
      cfg=(NAME_ID, HH, put("attributes.W", {"role": "weight", "hierarchy": "test2_hierarchy_Age.csv"})), files=TOY3),
    C("survey-weight-with-type", 2, ("attributes.W", "type"),
      cfg=(NAME_ID, HH, put("attributes.W", {"role": "weight", "type": "numeric"})), files=TOY3),
    C("survey-weight-with-publish", 2, ("attributes.W", "publish"),
      cfg=(NAME_ID, HH, put("attributes.W", {"role": "weight", "publish": "renumbered"})), files=TOY3),
    C("survey-weight-unknown-column", 2, ("unknown column", "Weight"),
      cfg=(NAME_ID, HH, W, put("attributes.Weight", {"role": "weight"})), files=TOY3),
    # households: never generalized, never published as is, every record in one
    C("survey-household-missing-id", 2, ("without a household", "row 7", "HH"), cfg=SURVEY,
      files=(with_household(6, ""),)),
    C("survey-household-blank-id", 2, ("without a household", "row 2"), cfg=SURVEY, files=(with_household(1, "  "),)),
    C("survey-household-two-columns", 2, ("only one column may have role household", "W"),
      cfg=(NAME_ID, HH, put("attributes.W", {"role": "hh"})), files=TOY3),
    C("survey-household-with-hierarchy", 2, ("attributes.HH", "hierarchy"),
      cfg=(NAME_ID, W, put("attributes.HH", {"role": "household", "hierarchy": "test2_hierarchy_Age.csv"})),
      files=TOY3),
    C("survey-household-with-levels", 2, ("attributes.HH", "max_level"),
      cfg=(NAME_ID, W, put("attributes.HH", {"role": "household", "max_level": 1})), files=TOY3),
    C("survey-household-bad-publish", 2, ("attributes.HH", "publish"),
      cfg=(NAME_ID, W, put("attributes.HH", {"role": "household", "publish": "keep"})), files=TOY3),
    C("survey-household-publish-hmac", 2, ("attributes.HH", "publish"),
      cfg=(NAME_ID, W, put("attributes.HH", {"role": "household", "publish": "hmac"})), files=TOY3),
    C("survey-household-seed-without-renumbered", 2, ("seed", "renumbered"),
      cfg=(NAME_ID, W, put("attributes.HH", {"role": "household", "seed": 3})), files=TOY3),
    C("survey-household-negative-seed", 2, ("attributes.HH", "seed"),
      cfg=(NAME_ID, W, put("attributes.HH", {"role": "household", "publish": "renumbered", "seed": -1})),
      files=TOY3),
    C("survey-household-key-file", 2, ("attributes.HH", "key_file"),
      cfg=(NAME_ID, W, put("attributes.HH", {"role": "household", "key_file": "key"})), files=TOY3),
    # pseudonyms: a key from a file or an environment variable, never from the config text
    C("survey-pseudonym-without-key", 2, ("key_file", "key_env", "renumbered"), cfg=(HH, W, pseudo()), files=TOY3),
    C("survey-pseudonym-both-keys", 2, ("exactly one of key_file or key_env",),
      cfg=(HH, W, pseudo(key_file="key", key_env="ANONKIT_W1_KEY")), files=(survey_toy(), write("key", KEY))),
    C("survey-pseudonym-key-in-config", 2, ("never written in the config", "key_file"),
      cfg=(HH, W, pseudo(key=KEY)), files=TOY3),
    C("survey-pseudonym-secret-in-config", 2, ("never written in the config",),
      cfg=(HH, W, pseudo(secret=KEY, key_file="key")), files=(survey_toy(), write("key", KEY))),
    C("survey-pseudonym-key-file-missing", 2, ("key file does not exist", "nokey"),
      cfg=(HH, W, pseudo(key_file="nokey")), files=TOY3),
    C("survey-pseudonym-key-file-short", 2, ("5 bytes", "at least 32"),
      cfg=(HH, W, pseudo(key_file="key")), files=(survey_toy(), write("key", "short"))),
    C("survey-pseudonym-key-file-31-bytes", 2, ("31 bytes", "at least 32"),
      cfg=(HH, W, pseudo(key_file="key")), files=(survey_toy(), write("key", "k" * 31 + "\n"))),
    C("survey-pseudonym-key-file-empty", 2, ("0 bytes",),
      cfg=(HH, W, pseudo(key_file="key")), files=(survey_toy(), write("key", ""))),
    C("survey-pseudonym-key-file-folder", 2, ("cannot be read",),
      cfg=(HH, W, pseudo(key_file="keys")), files=(survey_toy(), lambda tmp: (tmp / "keys").mkdir())),
    C("survey-pseudonym-key-file-empty-name", 2, ("attributes.Name", "key_file"),
      cfg=(HH, W, pseudo(key_file="")), files=TOY3),
    C("survey-pseudonym-key-env-unset", 2, ("ANONKIT_W1_SURELY_UNSET", "not set"),
      cfg=(HH, W, pseudo(key_env="ANONKIT_W1_SURELY_UNSET")), files=TOY3),
    C("survey-pseudonym-renumbered-with-key", 2, ("key_file", "renumbered"),
      cfg=(HH, W, pseudo(publish="renumbered", key_file="key")), files=(survey_toy(), write("key", KEY))),
    C("survey-pseudonym-bad-publish", 2, ("attributes.Name", "publish"),
      cfg=(HH, W, pseudo(publish="plain", key_file="key")), files=(survey_toy(), write("key", KEY))),
    C("survey-pseudonym-seed-with-hmac", 2, ("seed", "renumbered"),
      cfg=(HH, W, pseudo(seed=1, key_file="key")), files=(survey_toy(), write("key", KEY))),
    C("survey-pseudonym-with-hierarchy", 2, ("attributes.Name", "hierarchy"),
      cfg=(HH, W, pseudo(key_file="key", hierarchy="test2_hierarchy_Age.csv")),
      files=(survey_toy(), write("key", KEY))),
    C("survey-pseudonym-empty-value", 2, ("without a value to pseudonymize", "row 3"),
      cfg=(HH, W, pseudo(key_file="key")),
      files=(survey_toy(name=["a", "b", "", "d", "e", "f", "g", "h", "i"]), write("key", KEY))),
    C("survey-pseudonym-renumbered-empty-value", 2, ("without a value to pseudonymize", "row 1"),
      cfg=(HH, W, pseudo(publish="renumbered")),
      files=(survey_toy(name=["", "b", "c", "d", "e", "f", "g", "h", "i"]),)),
    # the key file is a place the run reads: never written over
    C("survey-output-over-key-file", 2, ("output.path", "attributes.Name.key_file"),
      cfg=(HH, W, pseudo(key_file="key"), put("output.path", "key")), files=(survey_toy(), write("key", KEY))),
    C("survey-output-over-key-file-other-name", 2, ("output.path", "key_file"),
      cfg=(HH, W, pseudo(key_file="./secret.key"), put("output.path", "secret.key")),
      files=(survey_toy(), write("secret.key", KEY))),
]
