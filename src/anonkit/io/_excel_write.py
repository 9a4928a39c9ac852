"""Writing a frame as one sheet of a new ``.xlsx`` workbook (see :mod:`anonkit.io.excel`): openpyxl's
parts of a write-only workbook, the sheet's XML and the shared strings made here, each distinct value
of a column converted once."""

from __future__ import annotations

import datetime as dt
import io
import math
import re
import zipfile
from collections.abc import Iterator
from decimal import Decimal
from typing import IO, Any

import numpy as np
import pandas as pd

from anonkit.errors import InputError
from anonkit.io._excel_read import _EXACT_INT, _column_letters
from anonkit.io.csv import _neutralise

#: characters of a cell Excel holds
MAX_CELL_CHARS = 32_767
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
