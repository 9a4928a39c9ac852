"""Excel workbooks (.xlsx) as input and output: cells read as text like CSV, formulas read as their
saved values and never written, named sheets, header rows, atomic writes, one-line errors."""

from __future__ import annotations

import datetime as dt
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import openpyxl
import pandas as pd
import pytest
import yaml

from anonkit import Schema, anonymize, load_adult
from anonkit._values import looks_numeric
from anonkit.errors import InputError
from anonkit.io import check_target, read_table, same_table, write_table
from anonkit.io import excel as io_excel
from anonkit.models import KAnonymity
from support import DATA, run_cli, toy_config, toy_dir


def _text_frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "zip": ["081675", "00501", "81667", "0"],
            "city": ["Zürich", "東京", "naïve café 🙂", "line\nbreak"],
            "age": ["34", "", "45", "-5"],
            "note": ["", "x", "", "a, b; c"],
        },
        dtype=object,
    )


def _sheet_xml(path: Path, sheet: int = 1) -> str:
    with zipfile.ZipFile(path) as z:
        return z.read(f"xl/worksheets/sheet{sheet}.xml").decode()


def _patch_sheet(path: Path, edit, sheet: int = 1) -> None:
    """Rewrite one sheet's XML of the workbook at ``path`` with ``edit(text) -> text``."""
    name = f"xl/worksheets/sheet{sheet}.xml"
    with zipfile.ZipFile(path) as z:
        parts = {n: z.read(n) for n in z.namelist()}
    parts[name] = edit(parts[name].decode()).encode()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for n, data in parts.items():
            z.writestr(n, data)


def _one_line(err: pytest.ExceptionInfo[InputError]) -> str:
    text = str(err.value)
    assert "\n" not in text
    return text


# ------------------------------------------------------------------------------------------ round trips


def test_text_round_trip_keeps_unicode_leading_zeros_and_empty_cells(tmp_path: Path) -> None:
    frame = _text_frame()
    path = tmp_path / "out.xlsx"
    write_table(frame, path)
    back = read_table(path)
    assert back.to_dict("list") == frame.to_dict("list")
    assert all(back[c].dtype == object and all(type(v) is str for v in back[c]) for c in back.columns)
    # text stays text in the file: the zip code keeps its zero and is a string cell
    ws = openpyxl.load_workbook(path).active
    assert ws["A2"].value == "081675" and ws["A2"].data_type == "s"
    assert ws["C5"].value == "-5" and ws["C5"].data_type == "s"
    missing = read_table(path, na_values=["", "x"])
    assert missing["age"].tolist() == ["34", None, "45", "-5"]
    assert missing["note"].tolist() == [None, None, None, "a, b; c"]


def test_cells_read_as_text_the_way_csv_is_read(tmp_path: Path) -> None:
    typed = pd.DataFrame(
        {
            "int": [42, -7, 0],
            "whole_float": [42.0, 1.0, 2.5],
            "float": [0.1, 1e-05, None],
            "big": [2**60, 1, 2],
            "flag": [True, False, True],
            "when": pd.to_datetime(["2024-03-01", "2024-03-01 08:30:00", None], format="ISO8601"),
            "day": [dt.date(2020, 2, 29), dt.date(1999, 12, 31), None],
        }
    )
    path = tmp_path / "typed.xlsx"
    write_table(typed, path)
    back = read_table(path)
    assert back.to_dict("list") == {
        "int": ["42", "-7", "0"],
        "whole_float": ["42", "1", "2.5"],
        "float": ["0.1", "1e-05", ""],
        "big": ["1152921504606846976", "1", "2"],  # beyond 2**53: written as text, exact
        "flag": ["TRUE", "FALSE", "TRUE"],
        "when": ["2024-03-01", "2024-03-01T08:30:00", ""],
        "day": ["2020-02-29", "1999-12-31", ""],
    }
    assert looks_numeric(back["int"]) and looks_numeric(back["whole_float"]) and looks_numeric(back["float"])
    assert not looks_numeric(back["flag"])
    # the same table read from CSV and from Excel is the same frame of text
    text = _text_frame()
    write_table(text, tmp_path / "t.csv")
    write_table(text, tmp_path / "t.xlsx")
    pd.testing.assert_frame_equal(read_table(tmp_path / "t.csv"), read_table(tmp_path / "t.xlsx"))


def test_numbers_dates_times_and_errors_written_by_other_programs(tmp_path: Path) -> None:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["n", "when", "time", "err", "b"])
    ws.append([42.0, dt.datetime(2021, 5, 6, 7, 8, 9), dt.time(8, 30), "#N/A", True])
    ws.append([3.5, dt.datetime(2021, 5, 6), dt.time(0, 0, 1, 500000), "#DIV/0!", False])
    wb.save(tmp_path / "other.xlsx")
    # Excel writes up to 17 significant digits (openpyxl 16): the shortest text that is the same double
    _patch_sheet(tmp_path / "other.xlsx", lambda xml: xml.replace("<v>3.5</v>", "<v>3.0000000000000004E0</v>"))
    back = read_table(tmp_path / "other.xlsx")
    assert back.to_dict("list") == {
        "n": ["42", "3.0000000000000004"],
        "when": ["2021-05-06T07:08:09", "2021-05-06"],
        "time": ["08:30:00", "00:00:01.500"],
        "err": ["#N/A", "#DIV/0!"],
        "b": ["TRUE", "FALSE"],
    }
    assert read_table(tmp_path / "other.xlsx", na_values=["#N/A"])["err"].tolist() == [None, "#DIV/0!"]


def test_shared_strings_as_excel_writes_them(tmp_path: Path) -> None:
    path = tmp_path / "shared.xlsx"
    write_table(pd.DataFrame({"a": ["x", "y"], "b": ["1", "2"]}, dtype=object), path)
    # text is kept in xl/sharedStrings.xml, numbered in order of first use, and cells hold the number
    xml = _sheet_xml(path)
    assert '<c r="A2" t="s"><v>2</v></c>' in xml and '<c r="B3" t="s"><v>5</v></c>' in xml
    with zipfile.ZipFile(path) as z:
        parts = {n: z.read(n) for n in z.namelist()}
    assert parts["xl/sharedStrings.xml"].endswith(
        b'uniqueCount="6"><si><t>a</t></si><si><t>b</t></si><si><t>x</t></si><si><t>y</t></si>'
        b"<si><t>1</t></si><si><t>2</t></si></sst>")
    # as Excel writes them: a count, plain and rich text (runs)
    parts["xl/sharedStrings.xml"] = (
        b'<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="6" uniqueCount="6">'
        b"<si><t>a</t></si><si><t>b</t></si><si><t>Z\xc3\xbcrich</t></si><si><r><t>rich </t></r><r><t>text</t></r>"
        b"</si><si><t>1</t></si><si><t>2</t></si></sst>"
    )
    with zipfile.ZipFile(path, "w") as z:
        for n, data in parts.items():
            z.writestr(n, data)
    assert read_table(path).to_dict("list") == {"a": ["Zürich", "rich text"], "b": ["1", "2"]}


def test_adult_round_trip_through_anonymize(tmp_path: Path) -> None:
    frame, h = load_adult()
    qi = [c for c in frame.columns if c != "salary-class"]
    schema = Schema.of(quasi=qi, sensitive=["salary-class"], hierarchies={q: h[q] for q in qi})
    result = anonymize(frame, schema, [KAnonymity(5)], algorithm="mondrian")
    assert len(result.frame) > 30_000
    write_table(result.frame, tmp_path / "release.xlsx")
    back = read_table(tmp_path / "release.xlsx")
    expected = result.frame.astype(object)
    assert list(back.columns) == list(expected.columns)
    assert back.to_dict("list") == expected.to_dict("list")
    original = tmp_path / "adult.xlsx"
    write_table(frame, original)
    pd.testing.assert_frame_equal(read_table(original), frame.astype(object))


# ------------------------------------------------------------------------------------------ formulas


def _formula_book(path: Path) -> Path:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Data"
    ws.append(["a", "b", "sum", "label"])
    ws.append([1, 2, "=A2+B2", '=A2&"x"'])
    ws.append([3, 4.5, "=A3+B3", '=A3&"y"'])
    wb.save(path)
    return path


def test_formula_cells_read_as_their_saved_values(tmp_path: Path) -> None:
    path = _formula_book(tmp_path / "f.xlsx")

    def cache(xml: str) -> str:  # what Excel saves: the formula and its last value
        xml = xml.replace("<f>A2+B2</f><v /></c>", "<f>A2+B2</f><v>3</v></c>")
        xml = xml.replace("<f>A3+B3</f><v /></c>", "<f>A3+B3</f><v>7.5</v></c>")
        xml = re.sub(r'<c r="D2"><f>(.*?)</f><v /></c>', r'<c r="D2" t="str"><f>\1</f><v>1x</v></c>', xml)
        return re.sub(r'<c r="D3"><f>(.*?)</f><v /></c>', r'<c r="D3" t="str"><f>\1</f><v></v></c>', xml)

    _patch_sheet(path, cache)
    back = read_table(path)
    assert back.to_dict("list") == {"a": ["1", "3"], "b": ["2", "4.5"], "sum": ["3", "7.5"], "label": ["1x", ""]}


def test_formula_without_a_saved_value_is_an_error_naming_the_cell(tmp_path: Path) -> None:
    path = _formula_book(tmp_path / "f.xlsx")
    with pytest.raises(InputError) as err:
        read_table(path)
    text = _one_line(err)
    assert "Data!C2" in text and "no saved value" in text and "'sum'" in text and "row 1" in text


def test_written_files_never_hold_formulas(tmp_path: Path) -> None:
    risky = ["=1+1", "=HYPERLINK(\"http://x\",\"y\")", "+1+1", "-1+1", "@SUM(A1)", "#N/A", "-5", "ok"]
    frame = pd.DataFrame({"=col": risky, "n": range(len(risky))})
    for neutralise in (True, False):
        path = tmp_path / f"out-{neutralise}.xlsx"
        write_table(frame, path, neutralise=neutralise)
        xml = _sheet_xml(path)
        assert "<f>" not in xml and "<f " not in xml and 't="e"' not in xml
        ws = openpyxl.load_workbook(path).active  # formulas come back as formulas here: none must
        cells = [ws.cell(row=r, column=1) for r in range(1, len(risky) + 2)]
        assert all(c.data_type == "s" for c in cells)
        values = [c.value for c in cells]
        if neutralise:
            assert values == ["'=col", "'=1+1", "'=HYPERLINK(\"http://x\",\"y\")", "'+1+1", "'-1+1", "'@SUM(A1)",
                              "#N/A", "-5", "ok"]
        else:
            assert values == ["=col", *risky]
        assert read_table(path)[values[0]].tolist() == values[1:]


def test_cells_keep_their_types_for_other_programs(tmp_path: Path) -> None:
    frame = pd.DataFrame({
        "int": [7, -2, None],
        "float": [0.1 + 0.2, 1e300, float("nan")],
        "flag": [True, False, True],
        "when": pd.to_datetime(["2024-03-01 08:30", None, "1900-01-01"], format="ISO8601"),
        "mixed": [1, 1.0, True],
        "other": [dt.time(8, 30), dt.timedelta(hours=30), 2**60],
        "zone": pd.to_datetime(["2024-03-01 10:00"] * 3).tz_localize("Europe/Zurich"),
        "text": [" pad ", "a\r\nb", "<&>"],
    })
    frame["int"] = frame["int"].astype("Int64")
    path = tmp_path / "typed.xlsx"
    write_table(frame, path)
    ws = openpyxl.load_workbook(path).active
    cells = [[(c.value, c.data_type, c.number_format) for c in row] for row in ws.iter_rows(min_row=2)]
    g = "General"
    assert [row[0] for row in cells] == [(7, "n", g), (-2, "n", g), (None, "n", g)]
    assert [row[1] for row in cells] == [(0.30000000000000004, "n", g), (1e300, "n", g), (None, "n", g)]
    assert [row[2] for row in cells] == [(True, "b", g), (False, "b", g), (True, "b", g)]
    assert [row[3] for row in cells] == [(dt.datetime(2024, 3, 1, 8, 30), "d", "yyyy-mm-dd h:mm:ss"), (None, "n", g),
                                         (dt.datetime(1900, 1, 1), "d", "yyyy-mm-dd h:mm:ss")]
    assert [row[4] for row in cells] == [(1, "n", g), (1, "n", g), (True, "b", g)]  # not merged: 1, 1.0, True
    assert [row[5] for row in cells] == [(dt.time(8, 30), "d", "h:mm:ss"), ("1 day, 6:00:00", "s", g),
                                         ("1152921504606846976", "s", g)]
    assert [row[6][:2] for row in cells] == [("2024-03-01T10:00:00+01:00", "s")] * 3
    assert [row[7] for row in cells] == [(" pad ", "s", g), ("a\r\nb", "s", g), ("<&>", "s", g)]
    assert read_table(path)["text"].tolist() == [" pad ", "a\r\nb", "<&>"]  # the carriage return kept
    assert pd.read_excel(path, engine="openpyxl").shape == (3, 8)
    assert '<dimension ref="A1:H4" />' in _sheet_xml(path)


def test_the_same_frame_gives_the_same_bytes(tmp_path: Path) -> None:
    frame = pd.DataFrame({"zip": ["081675", None, "=1+1", "081675"], "n": [1, 2, 3, 4], "x": [0.5, None, 2.0, 1.0]})
    write_table(frame, tmp_path / "a.xlsx")
    with zipfile.ZipFile(tmp_path / "a.xlsx") as z:
        assert {i.date_time for i in z.infolist()} == {(1980, 1, 1, 0, 0, 0)}
        core = z.read("docProps/core.xml").decode()
    assert core.count("1980-01-01T00:00:00Z") == 2  # created and modified: no time of writing
    write_table(frame, tmp_path / "b.xlsx")
    # a compact frame (categorical columns, as a large input is read) writes the same bytes
    compact = frame.astype({"zip": "category", "n": "category", "x": "category"})
    compact["zip"] = compact["zip"].cat.set_categories(["unused", "=1+1", "081675"])
    write_table(compact, tmp_path / "c.xlsx")
    a, b, c = ((tmp_path / f"{n}.xlsx").read_bytes() for n in "abc")
    assert a == b == c


# ------------------------------------------------------------------------------------------ sheets, header


def test_named_sheets_read_and_written(tmp_path: Path) -> None:
    path = tmp_path / "book.xlsx"
    wb = openpyxl.Workbook()
    wb.active.title = "Notes"
    wb.active.append(["about"])
    wb.active.append(["this file"])
    data = wb.create_sheet("Data")
    data.append(["k", "v"])
    data.append(["a", 1])
    wb.save(path)
    assert read_table(path).to_dict("list") == {"about": ["this file"]}  # the first sheet
    assert read_table(path, sheet="Data").to_dict("list") == {"k": ["a"], "v": ["1"]}
    assert read_table(path, sheet="data").to_dict("list") == {"k": ["a"], "v": ["1"]}  # as Excel: any case
    with pytest.raises(InputError) as err:
        read_table(path, sheet="Release")
    assert "unknown sheet; the workbook has sheets: Notes, Data" in _one_line(err) and "'sheet'" in str(err.value)
    write_table(pd.DataFrame({"x": ["1"]}), tmp_path / "named.xlsx", sheet="Release 2024")
    assert openpyxl.load_workbook(tmp_path / "named.xlsx").sheetnames == ["Release 2024"]
    assert read_table(tmp_path / "named.xlsx", sheet="Release 2024")["x"].tolist() == ["1"]
    write_table(pd.DataFrame({"x": ["1"]}), tmp_path / "default.xlsx")
    assert openpyxl.load_workbook(tmp_path / "default.xlsx").sheetnames == ["Sheet1"]
    for bad in ("a/b", "x" * 32, "", "History"):
        with pytest.raises(InputError, match="sheet"):
            write_table(pd.DataFrame({"x": ["1"]}), tmp_path / "bad.xlsx", sheet=bad)
        with pytest.raises(InputError, match="sheet"):
            check_target(tmp_path / "bad.xlsx", sheet=bad)
    assert not (tmp_path / "bad.xlsx").exists()


def test_header_row_title_rows_blank_rows_and_offset_tables(tmp_path: Path) -> None:
    path = tmp_path / "report.xlsx"
    wb = openpyxl.Workbook()
    ws = wb.active
    ws["A1"] = "Patients 2024"  # a title above the table
    ws["B4"], ws["C4"] = "id", "age"  # the header at row 4, the table from column B
    ws["B5"], ws["C5"] = "007", 34
    ws["B7"], ws["C7"] = "008", 35  # row 6 is blank
    ws["C9"].number_format = "0.00"  # a formatted empty cell below the table
    wb.save(path)
    back = read_table(path, header_row=4)
    assert back.to_dict("list") == {"id": ["007", "008"], "age": ["34", "35"]}
    with pytest.raises(InputError) as err:
        read_table(path)  # the title row becomes the header: B4 is outside its one column
    assert "Sheet!B4" in _one_line(err) and "outside the header's columns" in str(err.value)
    with pytest.raises(InputError, match="row 2 of sheet 'Sheet' is empty"):
        read_table(path, header_row=2)
    for bad in (0, -1, True, "4"):
        with pytest.raises(InputError, match="header_row"):
            read_table(path, header_row=bad)
    ws["D4"] = None
    ws["E4"] = "extra"  # D4 empty between named columns
    wb.save(path)
    with pytest.raises(InputError) as err:
        read_table(path, header_row=4)
    assert "header cell Sheet!D4 is empty" in _one_line(err)


def test_header_only_and_empty_sheets(tmp_path: Path) -> None:
    wb = openpyxl.Workbook()
    wb.active.append(["a", "b"])
    wb.create_sheet("Empty")
    wb.save(tmp_path / "h.xlsx")
    with pytest.raises(InputError, match="has a header but no data rows"):
        read_table(tmp_path / "h.xlsx")
    with pytest.raises(InputError, match="holds no value"):
        read_table(tmp_path / "h.xlsx", sheet="Empty")
    wb = openpyxl.Workbook()
    wb.active.append(["a", "a"])
    wb.active.append(["1", "2"])
    wb.save(tmp_path / "dup.xlsx")
    with pytest.raises(InputError, match="duplicate column name"):
        read_table(tmp_path / "dup.xlsx")


# ------------------------------------------------------------------------------------------ errors


def test_bad_files_are_one_line_errors(tmp_path: Path) -> None:
    cases = {
        "text.xlsx": (b"a,b\n1,2\n", "not a valid Excel .xlsx workbook"),
        "empty.xlsx": (b"", "input is empty"),
        "cut.xlsx": (None, "not a valid Excel"),
    }
    good = tmp_path / "good.xlsx"
    write_table(_text_frame(), good)
    for name, (data, words) in cases.items():
        path = tmp_path / name
        path.write_bytes(good.read_bytes()[:500] if data is None else data)
        with pytest.raises(InputError) as err:
            read_table(path)
        assert words in _one_line(err) and name in str(err.value)
    zipped = tmp_path / "other.xlsx"
    with zipfile.ZipFile(zipped, "w") as z:
        z.writestr("hello.txt", "not a workbook")
    with pytest.raises(InputError, match="not a valid Excel"):
        read_table(zipped)

    def broken(xml: str) -> str:
        return xml.replace("</sheetData>", "<row><c><v>1</sheetData>")

    _patch_sheet(good, broken)
    with pytest.raises(InputError, match="not a valid Excel workbook") as err:
        read_table(good)
    _one_line(err)
    with pytest.raises(InputError, match=r"save the workbook as \.xlsx"):
        read_table(tmp_path / "old.xls")
    with pytest.raises(InputError, match="only apply to Excel inputs"):
        read_table(DATA / "test2.csv", separator=";", sheet="x")
    with pytest.raises(InputError, match="only apply to SQL inputs"):
        read_table(tmp_path / "text.xlsx", table="t")
    with pytest.raises(InputError, match="only applies to SQL outputs"):
        write_table(_text_frame(), tmp_path / "x.xlsx", table="t")
    with pytest.raises(InputError, match="only applies to Excel outputs"):
        write_table(_text_frame(), tmp_path / "x.csv", sheet="t")


def test_format_names_and_suffix(tmp_path: Path) -> None:
    path = tmp_path / "data.bin"
    write_table(_text_frame(), path, format="xlsx")
    assert read_table(path, format="excel").to_dict("list") == _text_frame().to_dict("list")
    assert check_target(tmp_path / "out.xlsx") == ("excel", str(tmp_path / "out.xlsx"))


def test_values_excel_cannot_store_are_refused_and_the_old_file_kept(tmp_path: Path) -> None:
    path = tmp_path / "out.xlsx"
    write_table(_text_frame(), path)
    before = path.read_bytes()
    bad = {
        "control characters": pd.DataFrame({"a": ["ok", "ok", "bell\x07"]}),
        "32,767 characters": pd.DataFrame({"a": ["ok", "x" * 40_000]}),
        "infinite": pd.DataFrame({"a": [1.0, float("inf")]}),
        "a bytes": pd.DataFrame({"a": [b"\x00"]}),
        "U+D800": pd.DataFrame({"a": ["ok", "ok", "ok", "\ud800"]}, dtype=object),
        "control characters ": pd.DataFrame({"a": [1, "x\x1f"]}),  # a column of mixed types
    }
    rows = {"control characters": 3, "32,767 characters": 2, "infinite": 2, "a bytes": 1, "U+D800": 4,
            "control characters ": 2}
    for words, frame in bad.items():
        with pytest.raises(InputError) as err:
            write_table(frame, path)
        text = _one_line(err)
        assert words.strip() in text and "column 'a'" in text and f"row {rows[words]}" in text
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.xlsx"]  # no temporary file left


def test_more_rows_than_a_sheet_holds_are_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    huge = pd.DataFrame({"n": range(1_048_576)})
    with pytest.raises(InputError) as err:
        write_table(huge, tmp_path / "huge.xlsx")
    assert "at most 1,048,576 rows" in _one_line(err) and "1,048,576 rows and a header" in str(err.value)
    assert not (tmp_path / "huge.xlsx").exists()
    monkeypatch.setattr(io_excel, "MAX_ROWS", 4)
    write_table(pd.DataFrame({"n": [1, 2, 3]}), tmp_path / "fits.xlsx")
    assert read_table(tmp_path / "fits.xlsx")["n"].tolist() == ["1", "2", "3"]
    with pytest.raises(InputError, match="at most 4 rows"):
        write_table(pd.DataFrame({"n": [1, 2, 3, 4]}), tmp_path / "over.xlsx")


def test_missing_extra_is_one_line_naming_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "x.xlsx"
    write_table(_text_frame(), path)
    monkeypatch.setitem(sys.modules, "openpyxl", None)
    for call in (lambda: read_table(path), lambda: write_table(_text_frame(), tmp_path / "y.xlsx"),
                 lambda: check_target(tmp_path / "y.xlsx")):
        with pytest.raises(InputError) as err:
            call()
        assert 'pip install "anonkit[excel]"' in _one_line(err)


def test_core_imports_without_the_extras() -> None:
    code = (
        "import sys; sys.modules['openpyxl'] = None; sys.modules['duckdb'] = None\n"
        "import anonkit, anonkit.io, anonkit.pipeline, anonkit.cli\n"
        "assert 'openpyxl' not in [m for m in sys.modules if sys.modules[m] is not None]\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# ------------------------------------------------------------------------------------------ the pipeline


def test_output_over_input_is_refused(tmp_path: Path) -> None:
    toy = toy_dir(tmp_path, toy_config())
    write_table(read_table(toy / "test2.csv", separator=";"), toy / "test2.xlsx", sheet="Data")
    assert same_table(toy / "test2.xlsx", None, None, toy / "." / "test2.xlsx", "excel", None)
    config = toy_config(input={"path": "test2.xlsx"}, output={"path": "test2.xlsx"})
    (toy / "c.yaml").write_text(yaml.safe_dump(config))
    before = (toy / "test2.xlsx").read_bytes()
    code, _, err = run_cli("anonymize", str(toy / "c.yaml"))
    assert code == 2 and "the output is the input" in err, err
    assert (toy / "test2.xlsx").read_bytes() == before


def test_cli_reads_and_writes_excel_like_csv(tmp_path: Path) -> None:
    toy = toy_dir(tmp_path, toy_config())
    write_table(read_table(toy / "test2.csv", separator=";"), toy / "test2.xlsx")
    code, _, err = run_cli("anonymize", str(toy / "c.yaml"))
    assert code == 0, err
    config = toy_config(input={"path": "test2.xlsx"}, output={"path": "out.xlsx"})
    (toy / "x.yaml").write_text(yaml.safe_dump(config))
    code, _, err = run_cli("anonymize", str(toy / "x.yaml"))
    assert code == 0, err
    # the same inferred types and the same release as from the CSV file
    pd.testing.assert_frame_equal(read_table(toy / "out.xlsx"), read_table(toy / "out.csv", separator=";"))


def test_values_equal_but_written_differently_stay_apart(tmp_path: Path) -> None:
    """A mixed column's cells are made once per distinct value; equal instants in two time zones are
    different texts, so each keeps its own cell."""
    import datetime as dt

    utc = dt.datetime(2024, 1, 1, 9, 0, tzinfo=dt.UTC)
    plus_one = dt.datetime(2024, 1, 1, 10, 0, tzinfo=dt.timezone(dt.timedelta(hours=1)))
    frame = pd.DataFrame({"when": pd.Series([plus_one, utc, "x"], dtype=object), "n": [1, 2, 3]})
    write_table(frame, tmp_path / "z.xlsx")
    back = read_table(tmp_path / "z.xlsx")
    assert back["when"].tolist() == [plus_one.isoformat(), utc.isoformat(), "x"]
