"""An empty answer says why: the reason (accounting.empty_answers) in the body where the answer is an object
(`empty_reason`), and in the X-Empty-Reason header on every answer, lists included (docs/accounting.md)."""

from drf_spectacular.utils import OpenApiParameter

EMPTY_REASON_HEADER = "X-Empty-Reason"

EMPTY_REASON_RESPONSE_HEADER = OpenApiParameter(
    EMPTY_REASON_HEADER,
    str,
    location=OpenApiParameter.HEADER,
    response=True,
    description="Sent only when the answer has nothing to show: why, in words (no result stored, none by as_of, "
    "no price in force then, every one outside the SLA ...).",
)


# Servers and proxies refuse headers past 8 KB (nginx's default buffer), so a long reason is cut in the header.
HEADER_MAX_CHARS = 1000
_CUT = " ... (cut)"
_CONTROL_TO_SPACE = dict.fromkeys([*range(32), 127], " ")


def with_empty_reason(response, reason: str | None):
    """The response, with the X-Empty-Reason header when there is a reason (an empty answer)."""
    if reason:
        # A header is one line of Latin-1: control characters (a region typed with a newline, say) become spaces
        # and anything else is replaced; the body keeps the exact, whole text.
        one_line = reason.translate(_CONTROL_TO_SPACE)
        if len(one_line) > HEADER_MAX_CHARS:
            one_line = one_line[: HEADER_MAX_CHARS - len(_CUT)] + _CUT
        response[EMPTY_REASON_HEADER] = one_line.encode("latin-1", "replace").decode("latin-1")
    return response
