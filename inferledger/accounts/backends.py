"""The signed-in dashboard user, read from the shared cache instead of the database on every page.

Django finds a session's user with one query a request (``ModelBackend.get_user``); with the session and the page
itself cached, that query and the connection check before it (``CONN_HEALTH_CHECKS``) were 40 % of a cached
overview page's cost (issue 28). Here the user row is kept in the cache for SESSION_USER_CACHE_SECONDS (default
30; 0 turns this off). Django still checks the session against the row's password hash on every request, so a
password change ends the user's other sessions as before.

The row is forgotten when the user is saved or deleted (deactivated, password or staff flag changed, last login):
at once in every web worker when the cache is shared (Redis, as production runs), and in other processes within
SESSION_USER_CACHE_SECONDS with the per-process default cache, as API tokens are (authentication.py). Writes that
send no signal (a bulk ``update()``) are seen within SESSION_USER_CACHE_SECONDS too.
"""

from asgiref.sync import sync_to_async
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.core.cache import cache
from django.db.models.signals import post_delete, post_save

from inferledger.release import release_digest


def session_user_cache_seconds() -> int:
    return int(getattr(settings, "SESSION_USER_CACHE_SECONDS", 30))


def _cache_key(user_id) -> str:
    # Per release: a worker never reads a row pickled by another release's user model (a rolling deploy).
    return f"accounts:session-user:{release_digest()}:{user_id}"


class CachedUserBackend(ModelBackend):
    """Django's ModelBackend (passwords, permissions) with the session's user row cached (see the module)."""

    def get_user(self, user_id):
        seconds = session_user_cache_seconds()
        if seconds <= 0:
            return super().get_user(user_id)
        key = _cache_key(user_id)
        user = cache.get(key)
        if user is None:
            # ModelBackend's answer: None for an unknown or inactive user, which is not remembered; a row is cached
            # only once it passed ModelBackend's check, and a save that deactivates the user forgets it.
            user = super().get_user(user_id)
            if user is not None:
                cache.set(key, user, seconds)
        return user

    async def aget_user(self, user_id):
        return await sync_to_async(self.get_user)(user_id)


def _forget_user(sender, instance, **kwargs) -> None:
    cache.delete(_cache_key(instance.pk))


def connect() -> None:
    user_model = get_user_model()
    post_save.connect(_forget_user, sender=user_model, dispatch_uid="inferledger-forget-saved-session-user")
    post_delete.connect(_forget_user, sender=user_model, dispatch_uid="inferledger-forget-deleted-session-user")
