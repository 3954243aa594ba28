"""The address login throttling counts failures against (settings: "Login throttling")."""

from django.conf import settings


def client_ip(request) -> str | None:
    """REMOTE_ADDR; behind the documented TLS proxy, the address that proxy appended to X-Forwarded-For.

    Only the last hop is trusted: earlier ones are whatever the client wrote.
    """
    if settings.LOGIN_THROTTLE_BEHIND_PROXY:
        forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
        if forwarded.strip():
            return forwarded.split(",")[-1].strip()
    return request.META.get("REMOTE_ADDR")
