"""API tokens end with the password they were issued under, and on their owner's request.

A token is a second password: one issued before a password change (the usual answer to a leak) must stop
working with it. Django already ends the user's other sessions then (the session hash covers the password
hash); this does the same for knox tokens, whichever way the password changed (admin, password-change
form, ``changepassword``, ``set_password`` + ``save``).
"""

from django.contrib.auth import get_user_model
from django.db.models.signals import post_save, pre_save
from knox.models import AuthToken

_PASSWORD_CHANGED = "_inferledger_password_changed"


def revoke_tokens(user) -> int:
    """Delete every API token of ``user``; how many there were."""
    deleted, _ = AuthToken.objects.filter(user=user).delete()
    return deleted


def _note_password_change(sender, instance, **kwargs):
    if instance.pk is None:
        return
    stored = sender.objects.filter(pk=instance.pk).values_list("password", flat=True).first()
    setattr(instance, _PASSWORD_CHANGED, stored is not None and stored != instance.password)


def _revoke_after_password_change(sender, instance, created, **kwargs):
    if not created and getattr(instance, _PASSWORD_CHANGED, False):
        revoke_tokens(instance)
        setattr(instance, _PASSWORD_CHANGED, False)


def connect() -> None:
    user_model = get_user_model()
    pre_save.connect(_note_password_change, sender=user_model, dispatch_uid="inferledger-note-password-change")
    post_save.connect(_revoke_after_password_change, sender=user_model, dispatch_uid="inferledger-revoke-tokens")
