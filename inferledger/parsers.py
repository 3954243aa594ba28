"""The API's JSON parser: a body it cannot take is a 4xx that names the limit, never a 500.

DRF's own parser reads a JSON body whatever its size (Django's DATA_UPLOAD_MAX_MEMORY_SIZE guards only
``request.body`` and forms) and hands it to ``json.loads``, whose recursion ends in a RecursionError near a
thousand nested arrays: a 4 KB body answered 500. Both limits are checked here, before decoding, for
every route (REST_FRAMEWORK["DEFAULT_PARSER_CLASSES"]).
"""

import io
import re

from django.conf import settings
from rest_framework import status
from rest_framework.exceptions import APIException, ParseError
from rest_framework.parsers import JSONParser

from .errors import body_too_large_detail

# Deeper than any document the API takes (a result payload nests about 6 levels) and far below the
# depth at which the decoder's recursion fails.
MAX_JSON_DEPTH = 64

_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKET = re.compile(rb"[\[\]{}]")


def json_depth(body: bytes) -> int:
    """How deep arrays and objects nest in ``body`` (brackets inside strings do not count)."""
    depth = deepest = 0
    for match in _BRACKET.finditer(_STRING.sub(b'""', body)):
        if match.group() in (b"[", b"{"):
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


class BodyTooLarge(APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE


class BoundedJSONParser(JSONParser):
    """JSON, refused naming the limit: 413 when larger than DATA_UPLOAD_MAX_MEMORY_SIZE bytes (as Django answers
    for a form), 400 when nested deeper than MAX_JSON_DEPTH."""

    def parse(self, stream, media_type=None, parser_context=None):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        body = stream.read(limit + 1) if stream is not None else b""
        if len(body) > limit:
            raise BodyTooLarge(body_too_large_detail())
        depth = json_depth(body)
        if depth > MAX_JSON_DEPTH:
            raise ParseError(f"JSON nested too deep: {depth} levels, the limit is {MAX_JSON_DEPTH}.")
        try:
            return super().parse(io.BytesIO(body), media_type, parser_context)
        except RecursionError:  # a charset the depth count cannot read (UTF-32, say), nested too deep all the same
            raise ParseError(f"JSON nested too deep: the limit is {MAX_JSON_DEPTH} levels.") from None
