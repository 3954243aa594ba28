"""API token authentication that costs what it must: knox's check, remembered per token for a short while.

Knox finds a token by its first characters (its key), hashes the whole token and compares digests, in 2 queries a
request (the token with its user; the user's other tokens, to delete the expired). Measured under load that was
39 % of a cached ranking request's CPU (issue 28). Here the token row knox found, with its user, is kept in the
shared cache under the token's key for API_TOKEN_CACHE_SECONDS (default 30; 0 turns this off). A cached row
authenticates only the token whose digest it holds (compared as knox does), only before its expiry, and only for
an active user.

It is forgotten when the token is saved or deleted (logout, logout-all, rotation, the expiry cleanup, the
password change that revokes every token of a user, the user deleted) and when its user is saved (deactivated,
password or staff flag changed): at once in every web worker when the cache is shared (Redis, as production
runs), and in other processes within API_TOKEN_CACHE_SECONDS with the per-process default cache. Writes that send
no signal (a bulk ``update()``) are seen within API_TOKEN_CACHE_SECONDS too.
"""

import binascii
from hmac import compare_digest

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db.models.signals import post_delete, post_save
from django.utils import timezone
from drf_spectacular.contrib.knox_auth_token import KnoxTokenScheme
from knox.auth import TokenAuthentication
from knox.crypto import hash_token
from knox.models import AuthToken
from knox.settings import CONSTANTS


def token_cache_seconds() -> int:
    return int(getattr(settings, "API_TOKEN_CACHE_SECONDS", 30))


def _cache_key(token_key: str) -> str:
    return f"accounts:api-token:{token_key}"


class CachedTokenAuthentication(TokenAuthentication):
    """knox.auth.TokenAuthentication with its answer cached per token (see the module)."""

    def authenticate_credentials(self, token: bytes):
        seconds = token_cache_seconds()
        if seconds <= 0:
            return super().authenticate_credentials(token)
        try:
            text = token.decode("utf-8")
        except UnicodeDecodeError:
            return super().authenticate_credentials(token)  # knox answers it as it always has
        key = _cache_key(text[: CONSTANTS.TOKEN_KEY_LENGTH])
        auth_token = cache.get(key)
        if auth_token is not None and _holds(auth_token, text):
            return self.validate_user(auth_token)  # an inactive user is refused here as by knox
        user, auth_token = super().authenticate_credentials(token)
        cache.set(key, auth_token, seconds)
        return user, auth_token


class CachedTokenScheme(KnoxTokenScheme):
    """The OpenAPI schema describes it as knox's token (the same header, the same scheme name)."""

    target_class = "inferledger.accounts.authentication.CachedTokenAuthentication"


def _holds(auth_token: AuthToken, text: str) -> bool:
    """The cached row is this very token's (same digest) and has not expired."""
    if auth_token.expiry is not None and auth_token.expiry < timezone.now():
        return False  # knox deletes it and refuses the request
    try:
        digest = hash_token(text)
    except (TypeError, binascii.Error):
        return False
    return compare_digest(digest, auth_token.digest)


def _forget_token(sender, instance: AuthToken, **kwargs) -> None:
    cache.delete(_cache_key(instance.token_key))


def _forget_users_tokens(sender, instance, created: bool = False, **kwargs) -> None:
    if created:
        return  # a new user holds no token yet
    keys = AuthToken.objects.filter(user=instance).values_list("token_key", flat=True)
    cache.delete_many([_cache_key(key) for key in keys])


def connect() -> None:
    post_save.connect(_forget_token, sender=AuthToken, dispatch_uid="inferledger-forget-saved-token")
    post_delete.connect(_forget_token, sender=AuthToken, dispatch_uid="inferledger-forget-deleted-token")
    post_save.connect(_forget_users_tokens, sender=get_user_model(), dispatch_uid="inferledger-forget-user-tokens")
