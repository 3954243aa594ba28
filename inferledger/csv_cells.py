"""CSV a spreadsheet reads as written: every CSV export writes its cells through ``safe_cell``.

Encoding: a CSV download starts with the UTF-8 byte-order mark (``SPREADSHEET_BOM``), without which Excel
reads UTF-8 as the machine's legacy code page (a submitter's accented name, "µs" become mojibake). Our own
typographic characters are written as ASCII (``ASCII_FOR_TYPOGRAPHY``: dashes, the middle dot, the
multiplication sign, ellipsis), and the "—" a page shows for "no value" is an empty cell, so a column of
numbers stays numeric in the spreadsheet. Text that came from elsewhere (names, sources) is otherwise kept.

A cell that starts with = + - @ (or a tab or carriage return) is a formula to Excel and LibreOffice, so text
from a provider name, a price source or a published submitter could run on the reader's machine (CSV
injection). OWASP's advice: prefix such a cell with a single quote, which the spreadsheet shows as text.
Numbers (a negative one included) are left as they are.
"""

import re
from collections.abc import Iterable

FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")
SPREADSHEET_BOM = "\ufeff"
NO_VALUE = "—"
ASCII_FOR_TYPOGRAPHY = str.maketrans(
    {"—": "-", "–": "-", "‑": "-", "−": "-", "·": "-", "×": "x", "…": "...", "’": "'", "‘": "'", "“": '"', "”": '"'}
)
PLAIN_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")


def safe_cell(value):
    if not isinstance(value, str):
        return value
    if value.strip() == NO_VALUE:
        return ""
    value = value.translate(ASCII_FOR_TYPOGRAPHY)
    if value.startswith(FORMULA_TRIGGERS) and not PLAIN_NUMBER.fullmatch(value):
        return "'" + value
    return value


def safe_row(values: Iterable) -> list:
    return [safe_cell(value) for value in values]


def safe_dict(row: dict) -> dict:
    return {key: safe_cell(value) for key, value in row.items()}
