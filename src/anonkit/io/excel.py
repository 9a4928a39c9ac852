"""Excel workbooks (``.xlsx``), through the optional openpyxl package (``pip install "anonkit[excel]"``).

*Reading* takes one sheet (``sheet``, default the first worksheet) and reads every cell as text, so
that anonkit infers types exactly as for CSV: a number is its shortest text (an integer stored as
``42.0`` reads ``"42"``, ``0.1`` reads ``"0.1"``), a date-formatted cell is ISO text (``2024-03-01``,
or ``2024-03-01T08:30:00`` with a time of day; a time alone ``08:30:00``; a duration ``36:15:00``),
a boolean is ``TRUE`` or ``FALSE`` (as Excel shows it), an error value is its code (``#N/A``), a
text cell is its text (leading zeros kept). A formula cell reads as the value Excel saved with it;
a formula without a saved value (a file written by a program that does not compute formulas) is
an error naming the cell. An empty cell is ``""`` unless ``na_values`` says otherwise, as in CSV.
The header is the first row holding a value (or ``header_row``, the sheet's row number); the
columns run from its first to its last named cell, rows wholly empty are skipped, and a value
outside the named columns is an error naming the cell. The workbook is opened read-only with
openpyxl (sheets, shared strings, date styles) and the sheet's XML is parsed here, which is two to
three times faster than openpyxl's cell objects and tells a formula without a value from an empty
cell (openpyxl reads both as ``None``).

*Writing* puts the frame on one sheet (``sheet``, default ``Sheet1``) of a new workbook, through a
temporary file moved into place: the header row, then a row per record. The workbook's other parts
(styles, workbook, properties) are openpyxl's, from its write-only workbook; the sheet's XML and its
shared strings are made here, each distinct value of a column converted once, which is some 18
times faster than openpyxl's cells (about 5 s rather than 87 s for a million rows of Adult). A
written file never holds a formula or an error value: every text cell is a shared-string cell, even
one starting with ``=`` or reading ``#N/A`` (and ``neutralise`` prefixes ``'`` to text starting with
``=``, ``+``, ``-``, ``@``, tab or carriage return, as for CSV). Text stays text (so ``"081675"``
keeps its zero; a carriage return is kept as ``&#13;``, which no XML parser turns into a line feed);
an integer is a number cell of its digits, a float a number cell with the shortest text that reads
back as the same float, a boolean a boolean cell, a date, time or date and time a number cell with
openpyxl's date style; an integer Excel cannot hold exactly (beyond 2**53) is written as its text, a
date or time with a time zone as its ISO text, a duration as its text; missing values (``None``,
NaN, NaT, ``pd.NA``) are empty cells. A sheet holds at most 1,048,576 rows (the header included) and
16,384 columns and a cell 32,767 characters: more is refused, never cut, as are control characters
other than tab, line feed and carriage return (each one line naming the column and the first row).
The same frame gives the same bytes: the workbook records a fixed time (1980-01-01) as made and last
changed and every part of the zip archive has that time, and a frame of categorical columns (a
compact frame) gives the bytes of the same values not coded.
"""

from __future__ import annotations

import datetime as dt
import io
import math
import re
import zipfile
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from types import ModuleType
from typing import IO, Any
from xml.etree.ElementTree import ParseError, iterparse

import numpy as np
import pandas as pd

from anonkit.errors import InputError
from anonkit.io._files import _atomic_write, _check_file
from anonkit.io._frames import _apply_na, _check_header
from anonkit.io._messages import _one_line, _optional
from anonkit.io.csv import _neutralise

#: the sheet a table is written to when ``sheet`` is not given
DEFAULT_SHEET = "Sheet1"
#: Excel's limits: rows and columns of a sheet, characters of a cell, characters of a sheet name
MAX_ROWS = 1_048_576
MAX_COLUMNS = 16_384
MAX_CELL_CHARS = 32_767
_MAX_SHEET_NAME = 31
_SHEET_NAME_FORBIDDEN = set("\\/?*[]:")
#: integers beyond this lose digits as an Excel number (a double): they are written as text
_EXACT_INT = 2**53

_NS = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
_ROW = _NS + "row"
_CELL = _NS + "c"
_VALUE = _NS + "v"
_FORMULA = _NS + "f"
_INLINE = _NS + "is"
_TEXT = _NS + "t"
_PHONETIC = _NS + "rPh"
_DIGITS = "0123456789"


class _NoValue:
    """The text of a formula cell saved without its value (an error once its column is known)."""


_NO_VALUE: Any = _NoValue()


def _openpyxl(action: str, loc: str) -> ModuleType:
    """The openpyxl module; InputError naming the extra if it is not installed."""
    return _optional("openpyxl", "excel", "Excel files", action, loc)


def _check_openpyxl(loc: str) -> None:
    """InputError if openpyxl (the ``excel`` extra) is not installed."""
    _openpyxl("writing", loc)


def _sheet_title(sheet: str | None) -> str:
    """The name of the sheet to write; InputError if Excel would refuse it."""
    if sheet is None:
        return DEFAULT_SHEET
    if not isinstance(sheet, str) or not sheet.strip():
        raise InputError("a sheet name must be non-empty text", key="sheet", value=sheet)
    if len(sheet) > _MAX_SHEET_NAME:
        raise InputError(f"an Excel sheet name has at most {_MAX_SHEET_NAME} characters", key="sheet", value=sheet)
    bad = sorted(_SHEET_NAME_FORBIDDEN.intersection(sheet))
    if bad:
        raise InputError(f"an Excel sheet name cannot contain {' '.join(bad)}", key="sheet", value=sheet)
    if sheet.startswith("'") or sheet.endswith("'") or sheet.lower() == "history":
        raise InputError("Excel reserves this sheet name (or a leading or trailing ')", key="sheet", value=sheet)
    return sheet


def _header_row(header_row: int | None) -> int | None:
    if header_row is None:
        return None
    if isinstance(header_row, bool) or not isinstance(header_row, int | np.integer) or header_row < 1:
        raise InputError("header_row must be a row number (1 for the first row)", key="header_row",
                         value=header_row)
    return int(header_row)


# ---------------------------------------------------------------------------------------------- read


def _read_excel(loc: str, sheet: str | None, header_row: int | None, na: frozenset[str]) -> pd.DataFrame:
    """One sheet of the workbook ``loc`` as a frame of text (see the module's docstring)."""
    _openpyxl("reading", loc)
    first = _header_row(header_row)
    if sheet is not None and (not isinstance(sheet, str) or not sheet):
        raise InputError("a sheet name must be non-empty text", file=loc, key="sheet", value=sheet)
    if _check_file(loc) == 0:
        raise InputError("input is empty", file=loc)
    with open(loc, "rb") as fh:  # a file object: openpyxl then does not insist on the file name's suffix
        reader = _open_workbook(fh, loc)
        try:
            title, path = _worksheet(reader, sheet, loc)
            wb = reader.wb
            try:
                with reader.archive.open(path) as source:
                    header, rows = _table(_cells(source, reader.shared_strings, wb._date_formats,
                                                 wb._timedelta_formats, wb.epoch), title, first, loc)
            except InputError:
                raise
            except (ParseError, ValueError, IndexError, KeyError, OSError, EOFError, zipfile.BadZipFile) as exc:
                raise InputError(f"not a valid Excel workbook: {_one_line(exc)}", file=loc, key="sheet",
                                 value=title) from exc
        finally:
            reader.archive.close()
    if not rows:
        raise InputError(f"input is empty: sheet {title!r} has a header but no data rows", file=loc)
    frame = pd.DataFrame(np.array(rows, dtype=object).reshape(len(rows), len(header)), columns=header, dtype=object)
    return _apply_na(frame, na)


def _open_workbook(fh: IO[bytes], loc: str) -> Any:
    """openpyxl's reader of the workbook, with what a sheet needs read: the list of sheets and where
    their XML is, the shared strings, the styles (which style ids are dates or durations) and the
    date system. This is :func:`openpyxl.load_workbook` in read-only mode without its last step,
    which parses the whole of every sheet whose XML does not state its size (openpyxl writes none)."""
    from openpyxl.reader.excel import ExcelReader
    from openpyxl.styles.stylesheet import apply_stylesheet

    try:
        reader = ExcelReader(fh, read_only=True, data_only=True)
        reader.read_manifest()
        reader.read_strings()
        reader.read_workbook()
        apply_stylesheet(reader.archive, reader.wb)
        return reader
    except zipfile.BadZipFile as exc:
        raise InputError("not a valid Excel .xlsx workbook (an old .xls or a password-protected file?): "
                         f"{_one_line(exc)}", file=loc) from exc
    except Exception as exc:  # openpyxl raises many kinds on a broken archive
        raise InputError(f"not a valid Excel .xlsx workbook: {_one_line(exc)}", file=loc) from exc


def _worksheet(reader: Any, sheet: str | None, loc: str) -> tuple[str, str]:
    """The name and the XML's path in the archive of the worksheet named ``sheet`` (exactly, else
    ignoring case), or of the first one."""
    try:
        found = [(s.name, rel.target, "chartsheet" in (rel.Type or "")) for s, rel in reader.parser.find_sheets()
                 if rel.target in reader.valid_files]
    except Exception as exc:  # a workbook.xml naming sheets that are not there
        raise InputError(f"not a valid Excel .xlsx workbook: {_one_line(exc)}", file=loc) from exc
    sheets = [(name, path) for name, path, chart in found if not chart]
    listed = ", ".join(name for name, _ in sheets) if sheets else "none"
    if sheet is None:
        if not sheets:
            raise InputError("the workbook has no worksheet", file=loc)
        return sheets[0]
    named = [s for s in sheets if s[0] == sheet] or [s for s in sheets if s[0].lower() == sheet.lower()]
    if not named:
        what = "a chart sheet, not a worksheet" if any(name == sheet for name, _, _ in found) else "unknown sheet"
        raise InputError(f"{what}; the workbook has sheets: {listed}", file=loc, key="sheet", value=sheet)
    return named[0]


def _cells(
    source: IO[bytes], strings: list[str], dates: Any, durations: Any, epoch: dt.datetime
) -> Iterator[tuple[int, list[tuple[int, str, str | None]]]]:
    """Each row of the sheet's XML that holds a value: its number and ``(column, text, reference)`` of
    every cell with a value (text per the module's docstring; :data:`_NO_VALUE` for a formula saved
    without its value). Numbers are converted once per distinct (text, style)."""
    from openpyxl.utils.datetime import from_excel, from_ISO8601

    numbers: dict[tuple[str, str | None], str] = {}
    columns: dict[str, int] = {}
    row_number = 0
    for _event, el in iterparse(source):
        if el.tag != _ROW:
            continue
        r = el.get("r")
        row_number = int(r) if r else row_number + 1
        out: list[tuple[int, str, str | None]] = []
        col = 0
        for c in el:
            if c.tag != _CELL:
                continue
            ref = c.get("r")
            if ref:
                letters = ref.rstrip(_DIGITS)
                col = columns.get(letters) or columns.setdefault(letters, _column_number(letters))
            else:
                col += 1
            t = c.get("t")
            if t == "inlineStr":
                inline = c.find(_INLINE)
                if inline is not None and len(inline) == 1 and inline[0].tag == _TEXT:
                    text = inline[0].text or ""  # <is><t>text</t></is>, what openpyxl writes
                else:
                    text = _inline_text(c)
            else:
                v = c.find(_VALUE)
                raw = None if v is None else v.text
                if not raw:
                    # no value: an empty cell, a formula whose text result is "" (t="str" with <v/>),
                    # or a formula saved without its value (no <v>, or an empty one as openpyxl writes)
                    if (v is None or t != "str") and c.find(_FORMULA) is not None:
                        text = _NO_VALUE
                    else:
                        continue
                elif t is None or t == "n":
                    style = c.get("s")
                    key = (raw, style)
                    text = numbers.get(key)
                    if text is None:
                        text = numbers[key] = _number_text(raw, style, dates, durations, epoch, from_excel)
                elif t == "s":
                    text = strings[int(raw)]
                elif t == "b":
                    text = "TRUE" if raw.strip() in ("1", "true") else "FALSE"
                elif t == "d":
                    text = _date_text(from_ISO8601(raw))
                else:  # "str" (a formula's text), "e" (an error value such as #N/A)
                    text = raw
            if text != "":
                out.append((col, text, ref))
        el.clear()
        if out:
            yield row_number, out


def _column_number(letters: str) -> int:
    """``"A"`` → 1, ``"AB"`` → 28; ValueError for a malformed cell reference."""
    if not letters or not letters.isascii() or not letters.isalpha() or len(letters) > 3:
        raise ValueError(f"malformed cell reference {letters!r}")
    n = 0
    for ch in letters.upper():
        n = n * 26 + ord(ch) - 64
    return n


def _column_letters(n: int) -> str:
    letters = ""
    while n:
        n, rem = divmod(n - 1, 26)
        letters = chr(65 + rem) + letters
    return letters


def _inline_text(c: Any) -> str:
    """The text of an inline-string cell (its runs, without phonetic guides)."""
    inline = c.find(_INLINE)
    if inline is None:
        return ""
    parts: list[str] = []
    for node in inline.iter():
        if node.tag == _PHONETIC:
            break  # phonetic runs come after the text
        if node.tag == _TEXT and node.text:
            parts.append(node.text)
    return "".join(parts)


def _number_text(raw: str, style: str | None, dates: Any, durations: Any, epoch: dt.datetime, from_excel: Any) -> str:
    """A number cell as text: ISO text when its style is a date or duration, else its shortest text."""
    x = float(raw)
    if style is not None and style.isdigit():
        s = int(style)
        if s in dates:
            try:
                return _date_text(from_excel(x, epoch, timedelta=s in durations))
            except (OverflowError, ValueError):
                pass  # not a date Python can hold: the number itself
    if x.is_integer() and abs(x) < _EXACT_INT:
        return str(int(x))
    return repr(x)


def _date_text(value: object) -> str:
    """A date, time, date and time or duration as ISO text (to the millisecond, Excel's precision)."""
    if isinstance(value, dt.datetime):
        if value.hour == value.minute == value.second == value.microsecond == 0:
            return value.date().isoformat()
        return value.isoformat(timespec="milliseconds" if value.microsecond else "seconds")
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, dt.time):
        return value.isoformat(timespec="milliseconds" if value.microsecond else "seconds")
    if isinstance(value, dt.timedelta):
        ms = round(value.total_seconds() * 1000)
        sign = "-" if ms < 0 else ""
        seconds, ms = divmod(abs(ms), 1000)
        minutes, seconds = divmod(seconds, 60)
        hours, minutes = divmod(minutes, 60)
        return f"{sign}{hours}:{minutes:02d}:{seconds:02d}" + (f".{ms:03d}" if ms else "")
    return str(value)


def _table(
    rows: Iterator[tuple[int, list[tuple[int, str, str | None]]]], title: str, header_row: int | None, loc: str
) -> tuple[list[str], list[list[str]]]:
    """The header and the data rows (lists of text) of a sheet's rows of cells."""
    header: list[str] | None = None
    first = last = 0
    data: list[list[str]] = []
    for number, cells in rows:
        if header is None:
            if header_row is not None and number < header_row:
                continue
            if header_row is not None and number > header_row:
                break  # the header row holds no value
            header, first, last = _header(cells, title, number, loc)
            width = last - first + 1
            continue
        row = [""] * width
        for col, text, ref in cells:
            if col < first or col > last:
                raise InputError(
                    f"a value outside the header's columns at {_where(title, ref, col, number)}; name its column "
                    "in the header row or clear the cell",
                    file=loc, value=text if text is not _NO_VALUE else None, row=len(data) + 1,
                )
            if text is _NO_VALUE:
                raise _no_value(title, ref, col, number, header[col - first], len(data) + 1, loc)
            row[col - first] = text
        data.append(row)
    if header is None:
        if header_row is not None:
            raise InputError(f"row {header_row} of sheet {title!r} is empty; header_row must be the row of column "
                             "names", file=loc, key="header_row", value=header_row)
        raise InputError(f"input is empty: sheet {title!r} holds no value", file=loc)
    return header, data


def _header(cells: list[tuple[int, str, str | None]], title: str, number: int, loc: str) -> tuple[list[str], int, int]:
    for col, text, ref in cells:
        if text is _NO_VALUE:
            raise _no_value(title, ref, col, number, None, None, loc)
    by_column = {col: text for col, text, _ in cells}
    first, last = min(by_column), max(by_column)
    names = [by_column.get(col, "") for col in range(first, last + 1)]
    for col, name in zip(range(first, last + 1), names, strict=True):
        if name == "":
            raise InputError(f"the header cell {title}!{_column_letters(col)}{number} is empty; every column needs "
                             "a name", file=loc)
    _check_header(names, loc)
    return names, first, last


def _where(title: str, ref: str | None, col: int, number: int) -> str:
    return f"{title}!{ref or f'{_column_letters(col)}{number}'}"


def _no_value(title: str, ref: str | None, col: int, number: int, column: str | None, row: int | None,
              loc: str) -> InputError:
    return InputError(
        f"the formula cell {_where(title, ref, col, number)} has no saved value; open the workbook in Excel or "
        "LibreOffice and save it so that its formulas are computed",
        file=loc, column=column, row=row,
    )


# ---------------------------------------------------------------------------------------------- write

#: the time a written workbook records as made and last changed, and the time of its parts in the zip
#: archive: fixed, so that the same frame always gives the same bytes
_FIXED_TIME = dt.datetime(1980, 1, 1)
_ZIP_TIME = (1980, 1, 1, 0, 0, 0)
#: cells of the sheet's XML put together at a time (a few MB of text)
_CHUNK_CELLS = 1 << 18
#: an empty cell (``<c r="B7"/>``): a missing value
_EMPTY = "/>"
_SHARED_STRINGS = "xl/sharedStrings.xml"
_SHARED_STRINGS_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"
_SHARED_STRINGS_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings"
_SHEET_DATA = re.compile(rb"<sheetData\s*/>|<sheetData>\s*</sheetData>")
_AFTER_DIMENSION = re.compile(rb"<(?:sheetViews|sheetFormatPr|cols|sheetData)\b")
#: control characters XML cannot hold (the ones openpyxl refuses), and what is not an XML character
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f]")
_NOT_XML = re.compile("[\ud800-\udfff\ufffe\uffff]")


class _Refused(Exception):
    """A value Excel cannot store: the message and the value to show (the caller adds column and row)."""

    def __init__(self, message: str, value: object) -> None:
        super().__init__(message)
        self.message, self.value = message, value


def _write_excel(frame: pd.DataFrame, names: list[str], target: Path, loc: str, sheet: str | None,
                 neutralise: bool) -> None:
    """Write ``frame`` as one sheet of a new workbook at ``target`` through a temporary file (see the
    module's docstring).

    The workbook's parts other than the sheet (styles, the workbook, the properties) are openpyxl's,
    from a write-only workbook with an empty sheet; the sheet's XML and the shared strings are made
    here, each distinct value of a column turned into its cell once and the rows put together from
    templates: some 18 times faster than openpyxl's cell objects (4.9 s rather than 87 s a million rows)."""
    openpyxl = _openpyxl("writing", loc)
    title = _sheet_title(sheet)
    n = len(frame)
    if n + 1 > MAX_ROWS:
        raise InputError(
            f"an Excel sheet holds at most {MAX_ROWS:,} rows: the table has {n:,} rows and a header; write CSV, "
            "Parquet or DuckDB instead", file=loc,
        )
    if len(names) > MAX_COLUMNS:
        raise InputError(f"an Excel sheet holds at most {MAX_COLUMNS:,} columns: the table has {len(names):,}",
                         file=loc)
    wb = openpyxl.Workbook(write_only=True)
    ws = wb.create_sheet(title)
    cells = _Cells(ws)
    header = _neutralise(pd.Series(names, dtype=object)).tolist() if neutralise else list(names)
    head: list[str] = []
    for name, text in zip(names, header, strict=True):
        try:
            head.append(cells.text(text))
        except _Refused as exc:
            raise InputError(f"{exc.message} (a column name)", column=name) from None
    columns = [_column_cells(frame.iloc[:, i], name, neutralise, cells) for i, name in enumerate(names)]
    wb.properties.created = _FIXED_TIME
    skeleton = io.BytesIO()
    wb.save(skeleton)  # records the time of saving as the time of the last change: set back below
    wb.properties.modified = _FIXED_TIME
    from openpyxl.xml.functions import tostring

    parts = {"docProps/core.xml": tostring(wb.properties.to_tree())}
    sheet_path = ws.path.lstrip("/")

    def save(tmp: str) -> None:
        _package(skeleton, tmp, sheet_path, parts, head, columns, n, cells)

    _atomic_write(target, loc, save)


class _Cells:
    """How the values of a sheet are written: the shared strings (each text once, numbered in order of
    first use) and the styles of dates, times and dates with times (openpyxl's, registered with the
    workbook so that its styles part holds them)."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.strings: dict[str, int] = {}
        self.styles: dict[type, int] = {}

    def text(self, s: str) -> str:
        """The cell of a text (a shared string); _Refused if Excel cannot store it."""
        i = self.strings.get(s)
        if i is None:
            if len(s) > MAX_CELL_CHARS:
                raise _Refused(f"an Excel cell holds at most {MAX_CELL_CHARS:,} characters", s[:40] + "...")
            if _CONTROL.search(s):
                raise _Refused("Excel cannot store control characters", s)
            bad = _NOT_XML.search(s)
            if bad:
                raise _Refused(f"Excel cannot store the character U+{ord(bad.group()):04X}", s)
            i = self.strings[s] = len(self.strings)
        return f' t="s"><v>{i}</v></c>'

    def value(self, v: object) -> str:
        """The cell of a value :func:`_excel_value` gave (not ``None``)."""
        if isinstance(v, str):
            return self.text(v)
        if isinstance(v, bool):
            return ' t="b"><v>1</v></c>' if v else ' t="b"><v>0</v></c>'
        if isinstance(v, int):
            return f' t="n"><v>{v}</v></c>'
        if isinstance(v, float):
            return f' t="n"><v>{v!r}</v></c>'
        from openpyxl.cell import WriteOnlyCell
        from openpyxl.utils.datetime import to_excel

        style = self.styles.get(type(v))
        if style is None:  # the number format openpyxl gives this kind of value (yyyy-mm-dd h:mm:ss, ...)
            style = self.styles[type(v)] = WriteOnlyCell(self.ws, value=v).style_id
        return f' s="{style}" t="n"><v>{float(to_excel(v, self.ws.parent.epoch))!r}</v></c>'


def _column_cells(col: pd.Series, name: str, neutralise: bool, cells: _Cells) -> tuple[np.ndarray, np.ndarray]:
    """A column as ``(codes, cells)``: row ``r`` is written ``cells[codes[r]]`` (the XML after the
    cell's reference; code -1, the last, is an empty cell). InputError naming the column and the first
    row of a value Excel cannot store."""
    dtype = col.dtype
    if isinstance(dtype, np.dtype) and dtype.kind == "b":
        codes = col.to_numpy().astype(np.intp)
        return codes, np.array([cells.value(False), cells.value(True), _EMPTY], dtype=object)
    if isinstance(dtype, np.dtype) and dtype.kind in "iuf":
        codes, uniques = pd.factorize(col.to_numpy(), use_na_sentinel=True)
        if dtype.kind == "f":
            bad = np.flatnonzero(np.isinf(uniques))
            if len(bad):
                row = _first_row(codes, int(bad[0]))
                raise InputError("Excel cannot store an infinite number", column=name, value=uniques[bad[0]], row=row)
            out = [f' t="n"><v>{v!r}</v></c>' for v in uniques.tolist()]
        else:
            out = [cells.value(_excel_value(v)) for v in uniques.tolist()]
        return codes, np.array([*out, _EMPTY], dtype=object)
    if isinstance(dtype, pd.CategoricalDtype):  # numbered in order of first use, as the same values not coded
        codes, used = pd.factorize(col.cat.codes.to_numpy())
        categories = np.asarray(dtype.categories, dtype=object)
        uniques = pd.Series([categories[i] if i >= 0 else None for i in used.tolist()], dtype=object)
    elif isinstance(dtype, np.dtype) and dtype.kind == "O" and pd.api.types.infer_dtype(col, skipna=True) == "string":
        codes, found = pd.factorize(col.to_numpy(), use_na_sentinel=True)
        uniques = pd.Series(found, dtype=object)
    else:  # values of any kind (and missing ones) as Python objects, each distinct one converted once
        if not (isinstance(dtype, np.dtype) and dtype.kind == "O"):
            col = col.astype(object).where(col.notna(), None)
        if neutralise:
            col = _neutralise(col)
        return _mixed_cells(col.to_numpy(dtype=object), name, cells)
    if neutralise:
        uniques = _neutralise(uniques)
    out = []
    for k, v in enumerate(uniques.tolist()):
        try:
            value = _excel_value(v)
            out.append(_EMPTY if value is None else cells.value(value))
        except _Refused as exc:
            raise InputError(exc.message, column=name, value=exc.value, row=_first_row(codes, k)) from None
    return codes, np.array([*out, _EMPTY], dtype=object)


def _cell_key(v: object) -> tuple:
    """What makes two Python values one cell: the type and the value, and also the time zone of a
    date, time or date and time (equal instants in two zones are written as different texts)."""
    if isinstance(v, dt.datetime | dt.time) and v.tzinfo is not None:
        return (type(v), v, v.utcoffset(), str(v.tzinfo))
    return (type(v), v)


def _mixed_cells(values: np.ndarray, name: str, cells: _Cells) -> tuple[np.ndarray, np.ndarray]:
    """``(codes, cells)`` of a column of Python objects (see :func:`_column_cells`): a value is the same
    cell as another only when both are of the same type and equal (``1``, ``1.0`` and ``True`` differ)."""
    codes = np.empty(len(values), dtype=np.intp)
    seen: dict[tuple, int] = {}
    out: list[str] = []
    for r, v in enumerate(values):
        try:
            key = _cell_key(v)
            k = seen.get(key)
        except TypeError:  # unhashable: Excel cannot store it either
            key, k = None, None
        if k is None:
            try:
                value = _excel_value(v)
                if value is None:  # missing (None, NaN, NaT, pd.NA): the last cell, empty
                    codes[r] = -1
                    continue
                cell = cells.value(value)
            except _Refused as exc:
                raise InputError(exc.message, column=name, value=exc.value, row=r + 1) from None
            k = len(out)
            out.append(cell)
            if key is not None:
                seen[key] = k
        codes[r] = k
    return codes, np.array([*out, _EMPTY], dtype=object)


def _first_row(codes: np.ndarray, k: int) -> int:
    """The first row (1-based) whose code is ``k``."""
    return int(np.flatnonzero(codes == k)[0]) + 1


def _excel_value(v: object) -> object:
    """One cell as a value to write (``None`` for missing): text, a bool, an int Excel holds exactly, a
    finite float, a date, time or date and time without time zone; _Refused if Excel cannot store it."""
    if isinstance(v, str):
        return v
    if v is None or v is pd.NA or v is pd.NaT:
        return None
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, bool):
        return v
    if isinstance(v, int):
        return v if abs(v) < _EXACT_INT else str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return None
        if math.isinf(v):
            raise _Refused("Excel cannot store an infinite number", v)
        return v
    if isinstance(v, pd.Timestamp):
        v = v.to_pydatetime()
    if isinstance(v, dt.datetime | dt.time) and v.tzinfo is not None:
        return v.isoformat()  # Excel has no time zones: the ISO text keeps the offset
    if isinstance(v, dt.datetime | dt.date | dt.time):
        return v
    if isinstance(v, pd.Timedelta | dt.timedelta):
        return str(v)
    if isinstance(v, Decimal):
        return float(v) if v.is_finite() else str(v)
    raise _Refused(f"Excel cannot store this value (a {type(v).__name__})", v)


def _package(skeleton: io.BytesIO, tmp: str, sheet_path: str, parts: dict[str, bytes], head: list[str],
             columns: list[tuple[np.ndarray, np.ndarray]], n: int, cells: _Cells) -> None:
    """Write the workbook to ``tmp``: openpyxl's parts from ``skeleton`` (``parts`` replacing some), the
    sheet's rows in its empty ``<sheetData>``, and the shared strings (declared in the content types
    and the workbook's relationships). Every part has the same fixed time, so the bytes depend only
    on the frame."""
    letters = [_column_letters(i) for i in range(1, len(head) + 1)]
    with zipfile.ZipFile(skeleton) as source, zipfile.ZipFile(tmp, "w") as out:
        names = source.namelist()
        strings_part = _shared_strings(cells.strings)
        for name in names:
            data = parts.get(name) or source.read(name)
            if name == sheet_path:
                _write_sheet(out, name, data, letters, head, columns, n)
                if _SHARED_STRINGS not in names:
                    out.writestr(_entry(_SHARED_STRINGS), strings_part)
                continue
            if name == _SHARED_STRINGS:
                data = strings_part
            elif name == "[Content_Types].xml" and _SHARED_STRINGS not in names:
                data = _insert(data, b"</Types>", f'<Override PartName="/{_SHARED_STRINGS}" '
                               f'ContentType="{_SHARED_STRINGS_TYPE}" />'.encode())
            elif name == "xl/_rels/workbook.xml.rels" and _SHARED_STRINGS not in names:
                taken = [int(i) for i in re.findall(rb'Id="rId(\d+)"', data)]
                data = _insert(data, b"</Relationships>", f'<Relationship Type="{_SHARED_STRINGS_REL}" '
                               f'Target="sharedStrings.xml" Id="rId{max(taken, default=0) + 1}" />'.encode())
            out.writestr(_entry(name), data)


def _entry(name: str) -> zipfile.ZipInfo:
    """A part of the archive: compressed, with the fixed time and permissions."""
    info = zipfile.ZipInfo(name, date_time=_ZIP_TIME)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.create_system = 3
    info.external_attr = 0o600 << 16
    return info


def _insert(xml: bytes, before: bytes, element: bytes) -> bytes:
    """``xml`` with ``element`` put before the one ``before``; RuntimeError if it is not there once."""
    if xml.count(before) != 1:
        raise RuntimeError(f"unexpected XML from openpyxl: no single {before!r}")
    return xml.replace(before, element + before)


def _shared_strings(strings: dict[str, int]) -> bytes:
    """The shared-strings part: every text in the order of its number."""
    body = "".join(f'<si><t xml:space="preserve">{_xml_text(s)}</t></si>' if s != s.strip()
                   else f"<si><t>{_xml_text(s)}</t></si>" for s in strings)
    return (f'<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" uniqueCount="{len(strings)}">'
            f"{body}</sst>").encode()


def _xml_text(s: str) -> str:
    """Text as XML character data; a carriage return as ``&#13;`` (a parser would read it as a line feed)."""
    if "&" in s:
        s = s.replace("&", "&amp;")
    if "<" in s:
        s = s.replace("<", "&lt;")
    if ">" in s:
        s = s.replace(">", "&gt;")
    if "\r" in s:
        s = s.replace("\r", "&#13;")
    return s


def _write_sheet(out: zipfile.ZipFile, name: str, empty: bytes, letters: list[str], head: list[str],
                 columns: list[tuple[np.ndarray, np.ndarray]], n: int) -> None:
    """Stream the sheet into the archive: openpyxl's empty sheet with its size and its rows put in."""
    found = list(_SHEET_DATA.finditer(empty))
    if len(found) != 1:
        raise RuntimeError("unexpected XML from openpyxl: no single empty <sheetData>")
    start, stop = found[0].span()
    before, after = empty[:start], empty[stop:]
    at = _AFTER_DIMENSION.search(before)
    if at is not None:  # the sheet's size, which readers use to size the table
        dimension = f'<dimension ref="A1:{letters[-1]}{n + 1}" />'.encode()
        before = before[:at.start()] + dimension + before[at.start():]
    template = '<row r="{0}">' + "".join(f'<c r="{c}{{0}}"{{{j}}}' for j, c in enumerate(letters, 1)) + "</row>"
    # the most the XML can take, to use the zip64 format only when the part may need it
    widest = sum(max(len(t) for t in tails) for _, tails in columns) + len(template) + 7 * (len(letters) + 1)
    large = (n + 1) * widest > zipfile.ZIP64_LIMIT

    def chunks() -> Iterator[bytes]:
        yield before + b"<sheetData>" + template.format(1, *head).encode()
        fill = template.format
        step = max(1, _CHUNK_CELLS // len(letters))
        for first in range(0, n, step):
            last = min(n, first + step)
            rows = [tails[codes[first:last]].tolist() for codes, tails in columns]
            yield "".join(map(fill, range(first + 2, last + 2), *rows)).encode()
        yield b"</sheetData>" + after

    with out.open(_entry(name), "w", force_zip64=large) as fh:
        _stream(fh, chunks())


def _stream(fh: IO[bytes], chunks: Iterator[bytes]) -> None:
    """Write ``chunks`` to ``fh`` (a part of the archive). (A second thread compressing while the
    next chunk is made measured no faster: 3.0–3.2 s either way for 600,000 rows.)"""
    for data in chunks:
        fh.write(data)
