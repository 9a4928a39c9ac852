"""Values read as the user meant or refused: dates in their day/month order, a declared ``format``,
dates beside date-times, byte-order marks on every input, Excel's ``sep=`` line, and errors that
name the real cause (the row of a far-off number, a directory, an empty ``--qi``).

The refusals through the CLI are in the catalogue (``tests/cases_values.py``); here are the
controls that must run, the Python API and hypothesis properties.
"""

from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from anonkit._values import parse_dates, read_dates
from anonkit.cli import app
from anonkit.errors import InputError
from anonkit.hierarchy import read_hierarchy
from anonkit.hierarchy.builders import dates, intervals
from anonkit.io import read_table
from anonkit.io.categories import read_categories
from anonkit.schema import Attribute, Schema
from anonkit.table import Table
from bad_input_kit import base_config

DATA = Path(__file__).resolve().parent / "data"
runner = CliRunner()
BOM = b"\xef\xbb\xbf"


def texts(values: pd.Series) -> list[str]:
    return [str(v) for v in values.dt.strftime("%Y-%m-%d %H:%M:%S")]


# ------------------------------------------------------------------------------ the day/month order
def test_day_first_column_is_read_day_first() -> None:
    """One day > 12 decides the order for every value: 05/02/2020 is 5 February."""
    got = read_dates(np.array(["05/02/2020", "13/02/2020", "01/02/2020"], dtype=object), "visit")
    assert texts(got) == ["2020-02-05 00:00:00", "2020-02-13 00:00:00", "2020-02-01 00:00:00"]


def test_month_first_column_is_read_month_first() -> None:
    got = read_dates(np.array(["02/05/2020", "02/13/2020", "12/31/2019"], dtype=object), "visit")
    assert texts(got) == ["2020-02-05 00:00:00", "2020-02-13 00:00:00", "2019-12-31 00:00:00"]


def test_february_visits_stay_in_february() -> None:
    """The finding: dd/mm visits of February with days ≤ 12 were published as 2020-01 … 2020-12."""
    visits = [f"{d:02d}/02/2020" for d in range(1, 13)] + ["20/02/2020"]
    h = dates(visits, granularities=["month", "year"], name="visit")
    assert set(h.labels[1]) == {"2020-02"}
    with pytest.raises(InputError, match="ambiguous") as err:  # without the one day > 12: refused
        dates(visits[:-1], granularities=["month", "year"], name="visit")
    assert (err.value.column, err.value.value, err.value.row) == ("visit", "01/02/2020", 1)


def test_ambiguous_column_is_refused_but_equal_readings_are_not() -> None:
    with pytest.raises(InputError, match=r"ambiguous.*format") as err:
        read_dates(np.array(["01/01/2020", "03/04/2020"], dtype=object), "d")
    assert (err.value.value, err.value.row) == ("03/04/2020", 2)
    # day = month everywhere: both readings are one date
    assert texts(read_dates(np.array(["01/01/2020", "02/02/2020"], dtype=object), "d"))[1] == "2020-02-02 00:00:00"


def test_no_order_fits_every_value_is_refused_naming_both_rows() -> None:
    with pytest.raises(InputError, match="both day/month orders: row 1 can only be day first, row 3") as err:
        read_dates(np.array(["13/02/2020", "01/01/2020", "02/13/2020"], dtype=object), "d")
    assert (err.value.value, err.value.row) == ("02/13/2020", 3)


@pytest.mark.parametrize("text", ["31/02/2020", "1/2", "05/02/20", "soon", "2020-02-30", "5 Feb 20", "13/13/2020"])
def test_not_a_date(text: str) -> None:
    with pytest.raises(InputError, match="not a date") as err:
        read_dates(np.array(["2020-01-01", text], dtype=object), "d")
    assert (err.value.value, err.value.row) == (text, 2)


def test_iso_dates_stay_as_they_are_and_mix_with_date_times() -> None:
    cells = ["2020-02-05", "2020-02-05 10:30", "2020-02-05T10:30:05", "2020/2/5", "20200205", "2020-02-05 10:30:05.250"]
    got = read_dates(np.array(cells, dtype=object), "d")
    assert [str(t) for t in got] == ["2020-02-05 00:00:00", "2020-02-05 10:30:00", "2020-02-05 10:30:05",
                                     "2020-02-05 00:00:00", "2020-02-05 00:00:00", "2020-02-05 10:30:05.250000"]


def test_dates_and_date_times_mix_in_a_hierarchy_and_a_table() -> None:
    values = ["2020-02-05", "2020-02-05 10:30", "13/02/2020", "14/02/2020 08:00", "5 Feb 2020"]
    h = dates(values, granularities=["day", "month"], name="when")
    assert [h.row(i)[1] for i in range(h.n_leaves)] == ["2020-02-05"] * 3 + ["2020-02-13", "2020-02-14"]
    days = parse_dates(pd.Series([*values, ""]), "when")
    assert np.isnan(days[-1]) and days[2] - days[0] == 8  # 13 Feb is 8 days after 5 Feb
    assert days[1] - days[0] == pytest.approx(10.5 / 24)


def test_time_zones_are_converted_to_utc() -> None:
    got = read_dates(np.array(["2020-02-05T10:00:00+01:00", "2020-02-05 09:30"], dtype=object), "d")
    assert [str(t) for t in got] == ["2020-02-05 09:00:00", "2020-02-05 09:30:00"]


# ------------------------------------------------------------------------------ format
def test_format_is_honoured_by_the_builder_the_table_and_the_attribute() -> None:
    cells = ["05/02/2020", "07/02/2020", "03/02/2020"]
    assert texts(read_dates(np.array(cells, dtype=object), "d", format="%d/%m/%Y"))[0] == "2020-02-05 00:00:00"
    assert texts(read_dates(np.array(cells, dtype=object), "d", format="%m/%d/%Y"))[0] == "2020-05-02 00:00:00"
    assert set(dates(cells, granularities=["month"], format="%d/%m/%Y").labels[1]) == {"2020-02"}
    frame = pd.DataFrame({"visit": cells, "dx": ["a", "b", "c"]})
    schema = Schema({"visit": Attribute("visit", "quasi", "date", format="%d/%m/%Y"),
                     "dx": Attribute("dx", "sensitive")})
    table = Table(frame, schema)
    assert table.numeric["visit"].tolist() == [18297.0, 18299.0, 18295.0]  # days since 1970: 5, 7, 3 Feb 2020
    with pytest.raises(InputError, match="ambiguous"):  # the control: without the format
        Table(frame, Schema({"visit": Attribute("visit", "quasi", "date"), "dx": Attribute("dx", "sensitive")}))


def test_format_is_refused_where_it_would_be_ignored_or_is_no_pattern() -> None:
    with pytest.raises(InputError, match="type date") as err:
        Attribute("visit", "quasi", "categorical", format="%d/%m/%Y")
    assert (err.value.column, err.value.key) == ("visit", "format")
    with pytest.raises(InputError, match="type date"):
        Attribute("visit", "quasi", format="%d/%m/%Y")
    with pytest.raises(InputError, match="strftime"):
        Attribute("visit", "quasi", "date", format="dd/mm/yyyy")
    with pytest.raises(InputError, match="not a date in the format '%d/%m/%Y'") as err:
        read_dates(np.array(["05/02/2020", "2020-02-05"], dtype=object), "d", format="%d/%m/%Y")
    assert err.value.row == 2
    assert Attribute("visit", "quasi", "date", format="%d/%m/%Y").format == "%d/%m/%Y"


#: formats a date can be written in without doubt, given one day > 12 in the column
FORMATS = ["%Y-%m-%d", "%Y/%m/%d", "%Y.%m.%d", "%d/%m/%Y", "%m/%d/%Y", "%d.%m.%Y", "%d-%m-%Y", "%m-%d-%Y",
           "%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M:%S", "%d/%m/%Y %H:%M", "%d %b %Y", "%B %d, %Y", "%Y%m%d"]


@settings(max_examples=80, deadline=None)
@given(st.lists(st.datetimes(min_value=dt.datetime(1900, 1, 1), max_value=dt.datetime(2100, 12, 31)),
                min_size=1, max_size=12),
       st.sampled_from(FORMATS), st.booleans())
def test_random_dates_in_an_unambiguous_format_round_trip(stamps: list[dt.datetime], fmt: str, unpadded: bool) -> None:
    """Random dates written in a random format, with one day > 12 so the day/month order is certain,
    are read back exactly (to the precision the format writes)."""
    stamps = [*stamps, dt.datetime(2001, 3, 27, 13, 45, 7)]
    cells = [s.strftime(fmt) for s in stamps]
    if unpadded and fmt[:2] in ("%d", "%m"):  # 5/2/2020 as well as 05/02/2020
        cells = [c.lstrip("0").replace("/0", "/").replace(".0", ".").replace("-0", "-") for c in cells]
    got = read_dates(np.array(cells, dtype=object), "d")
    expected = [dt.datetime.strptime(s.strftime(fmt), fmt) for s in stamps]
    assert [t.to_pydatetime() for t in got] == expected


@settings(max_examples=60, deadline=None)
@given(st.lists(st.dates(min_value=dt.date(1900, 1, 1), max_value=dt.date(2100, 12, 31)).map(
    lambda d: d.replace(day=min(d.day, 12))), min_size=1, max_size=10), st.sampled_from(["%d/%m/%Y", "%m.%d.%Y"]))
def test_random_ambiguous_columns_are_refused_unless_both_readings_agree(days: list[dt.date], fmt: str) -> None:
    cells = np.array([d.strftime(fmt) for d in days], dtype=object)
    if all(d.day == d.month for d in days):
        assert [t.date() for t in read_dates(cells, "d")] == days
    else:
        with pytest.raises(InputError, match="ambiguous"):
            read_dates(cells, "d")
        assert [t.date() for t in read_dates(cells, "d", format=fmt)] == days


# ------------------------------------------------------------------------------ byte-order marks
def test_a_bom_is_no_part_of_any_input(tmp_path: Path) -> None:
    (tmp_path / "data.csv").write_bytes(BOM + b"sex,dx\nM,a\nF,b\n")
    assert list(read_table(tmp_path / "data.csv").columns) == ["sex", "dx"]
    (tmp_path / "h.csv").write_bytes(BOM + b"M;*\r\nF;*\r\n")
    assert read_hierarchy(tmp_path / "h.csv").rows() == [["M", "*"], ["F", "*"]]
    assert read_hierarchy(tmp_path / "h.csv", encoding="utf-8-sig").rows() == [["M", "*"], ["F", "*"]]
    (tmp_path / "cats.csv").write_bytes(BOM + b"dx,category\na,Low\nb,High\n")
    assert read_categories(tmp_path / "cats.csv") == {"a": "Low", "b": "High"}


def toy(tmp: Path) -> Path:
    for f in DATA.glob("test2*.csv"):
        shutil.copy(f, tmp / f.name)
    cfg = {**base_config(), "output": {"path": "out.csv"}}  # the catalogue's toy config
    (tmp / "c.yaml").write_text(yaml.safe_dump(cfg, sort_keys=False))
    return tmp / "c.yaml"


def run_ok(args: list[str]) -> str:
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.stderr
    return res.stdout


def test_excel_csv_utf8_files_run_end_to_end(tmp_path: Path) -> None:
    """Every input saved by Excel as "CSV UTF-8" (a BOM first) and the config with a BOM: the run
    publishes what it publishes without the marks."""
    config = toy(tmp_path)
    run_ok(["anonymize", str(config)])
    plain = (tmp_path / "out.csv").read_bytes()
    for f in [*tmp_path.glob("test2*.csv"), config]:
        f.write_bytes(BOM + f.read_bytes())
    (tmp_path / "out.csv").unlink()
    run_ok(["anonymize", str(config)])
    assert (tmp_path / "out.csv").read_bytes() == plain


# ------------------------------------------------------------------------------ Excel's sep= line
def test_sep_line_is_honoured(tmp_path: Path) -> None:
    config = toy(tmp_path)
    run_ok(["anonymize", str(config)])
    plain = (tmp_path / "out.csv").read_bytes()
    data = tmp_path / "test2.csv"
    data.write_text("sep=;\n" + data.read_text())
    (tmp_path / "out.csv").unlink()
    run_ok(["anonymize", str(config)])
    assert (tmp_path / "out.csv").read_bytes() == plain
    frame = read_table(data)  # the default separator gives way to the file's line
    assert list(frame.columns) == ["ZIPCode", "Age", "Salary", "Disease"] and len(frame) == 9
    out = run_ok(["check", str(data), "--qi", "ZIPCode", "--json"])
    assert '"k": 1' in out
    with pytest.raises(InputError, match="first line says sep=;") as err:
        read_table(data, separator="|")
    assert err.value.key == "separator"


def test_row_numbers_count_from_the_header_after_a_sep_line(tmp_path: Path) -> None:
    (tmp_path / "d.csv").write_text("sep=;\nA;B\n1;2\n3\n")
    with pytest.raises(InputError, match=r"line 4") as err:
        read_table(tmp_path / "d.csv")
    assert err.value.row == 2


# ------------------------------------------------------------------------------ the real cause
def test_a_far_off_number_is_named_not_the_width() -> None:
    with pytest.raises(InputError, match="far from the others") as err:
        intervals(["20", "30", "1e23", "40"], width=10, name="age")
    assert (err.value.column, err.value.value, err.value.row, err.value.key) == ("age", "1e23", 3, None)
    # the control: top coding takes it out of the intervals
    h = intervals(["20", "30", "1e23", "40"], width=10, top=100, name="age")
    assert h.row(3)[:2] == ["1e23", ">=100"]


def test_check_a_directory_and_an_empty_qi(tmp_path: Path) -> None:
    res = runner.invoke(app, ["check", str(tmp_path), "--qi", "a"])
    assert res.exit_code == 2 and "directory" in res.stderr and "format" not in res.stderr
    with pytest.raises(InputError, match="directory, not a file"):
        read_table(tmp_path)
    shutil.copy(DATA / "test2.csv", tmp_path / "t.csv")
    res = runner.invoke(app, ["check", str(tmp_path / "t.csv"), "--separator", ";", "--qi", ""])
    assert res.exit_code == 2 and "no quasi-identifier" in res.stderr
    assert '"k": 1' in run_ok(["check", str(tmp_path / "t.csv"), "--separator", ";", "--qi", "ZIPCode", "--json"])


@pytest.mark.parametrize("text", ["2021-12-06 17:00:00.000000001", "06/12/2021 17:00:00.000000500"])
def test_a_time_finer_than_a_microsecond_is_refused_not_rounded(text: str) -> None:
    """Dates keep microseconds (years 1–9999 fit); a nanosecond part would be published changed, so it is
    refused naming the value, and the same time to the microsecond is kept exactly (control)."""
    with pytest.raises(InputError, match="finer than a microsecond"):
        read_dates([text, "13/12/2021"], "t")
    kept = read_dates([text[:-3], "13/12/2021"], "t")
    assert kept[0] == pd.Timestamp(text[:-3].replace("06/12/2021", "2021-12-06"))
