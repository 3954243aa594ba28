"""The base of every management command: bad input ends in one line and exit status 1, never a traceback.

Django prints a CommandError as ``CommandError: <message>`` and exits 1; anything else escaping a command
is a traceback. A command reads files an operator names (CSV, YAML, .tar.xz, .json.gz): a binary file, a
NUL byte in a path, a truncated archive raised UnicodeDecodeError, ValueError, EOFError, LZMAError...
Those are bad input, said here in one line; ``--traceback`` still shows where. A command that writes
(``atomic = True``) writes everything or nothing.
"""

import csv
import lzma
import tarfile
import zlib

import yaml
from django.core.management.base import BaseCommand, CommandError
from django.db import DataError, transaction

# What a command's input can raise when it is bad: unreadable or missing files (OSError), text that is not
# UTF-8, JSON or a number, or a path with a NUL byte (ValueError), malformed CSV/YAML, truncated or corrupt
# archives, a field a file lacks (KeyError), text PostgreSQL cannot store (DataError: a NUL character).
BAD_INPUT = (OSError, ValueError, KeyError, csv.Error, yaml.YAMLError, tarfile.TarError, EOFError, lzma.LZMAError,
             zlib.error, DataError)  # fmt: skip


def bad_input_line(exc: BaseException) -> str:
    """One line naming the problem: 'UnicodeDecodeError: 'utf-8' codec can't decode byte 0x89...'."""
    text = str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc)
    what = f"missing field {text!r}" if isinstance(exc, KeyError) else f"{type(exc).__name__}: {text}"
    if isinstance(exc, UnicodeDecodeError):
        what = f"not UTF-8 text (a binary file?): {what}"
    return " ".join(what.split())


class InputCheckedCommand(BaseCommand):
    """BaseCommand whose bad input (BAD_INPUT) is a CommandError: one line, exit status 1."""

    atomic = False  # True: the command's database writes are one transaction (nothing half-written)

    def execute(self, *args, **options):
        try:
            if self.atomic:
                with transaction.atomic():
                    return super().execute(*args, **options)
            return super().execute(*args, **options)
        except CommandError as exc:
            raise CommandError(" ".join(str(exc).split()), returncode=exc.returncode) from exc
        except BAD_INPUT as exc:
            raise CommandError(bad_input_line(exc)) from exc
