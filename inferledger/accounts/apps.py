from django.apps import AppConfig


class AccountsConfig(AppConfig):
    """Who signs in: API tokens revoked with a password change (and their cached checks forgotten), the
    session's user cached (and forgotten when saved), the API's logout, login throttling (settings)."""

    name = "inferledger.accounts"
    label = "inferledger_accounts"
    verbose_name = "Accounts"

    def ready(self):
        from . import authentication, backends, tokens

        tokens.connect()
        authentication.connect()
        backends.connect()
