"""Reading one sheet of an ``.xlsx`` workbook as text (see :mod:`anonkit.io.excel`): openpyxl's reader for
the list of sheets, the shared strings and the date styles, and the sheet's XML parsed here."""

from __future__ import annotations

import datetime as dt
import zipfile
from collections.abc import Iterator
from typing import IO, Any

from anonkit.errors import InputError
from anonkit.io._frames import _check_header
from anonkit.io._messages import _one_line

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
    from xml.etree.ElementTree import iterparse  # here: a job that reads no workbook never loads the XML parser

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


