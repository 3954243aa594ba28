"""CSV cells a spreadsheet will not run: every CSV export writes its cells through ``safe_cell``.

A cell that starts with = + - @ (or a tab or carriage return) is a formula to Excel and LibreOffice, so text
from a provider name, a price source or a published submitter could run on the reader's machine (CSV
injection). OWASP's advice: prefix such a cell with a single quote, which the spreadsheet shows as text.
Numbers (a negative one included) are left as they are.
"""

import re
from collections.abc import Iterable

FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")
PLAIN_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")


def safe_cell(value):
    if isinstance(value, str) and value.startswith(FORMULA_TRIGGERS) and not PLAIN_NUMBER.fullmatch(value):
        return "'" + value
    return value


def safe_row(values: Iterable) -> list:
    return [safe_cell(value) for value in values]


def safe_dict(row: dict) -> dict:
    return {key: safe_cell(value) for key, value in row.items()}
