"""What an error report (the DEBUG page, an error e-mail) may show: Django's filter, plus URL passwords.

Django hides settings whose names look secret (KEY, PASS, TOKEN...), but not a password inside a URL:
DATABASE_URL, CELERY_BROKER_URL, CELERY_RESULT_BACKEND, CACHE_URL (CACHES' LOCATION) carry theirs in the
URL itself, in settings, in request.META (runserver copies the environment there) and in local variables.
"""

import re

from django.views.debug import SafeExceptionReporterFilter

# scheme://user:password@host -> scheme://user:********@host (a user alone, as in postgres://app@db, stays).
URL_PASSWORD = re.compile(r"(?P<head>[a-z][a-z0-9+.-]*://[^:/@\s]*:)(?P<password>[^\s/]+)@", re.IGNORECASE)


def mask_url_passwords(text: str, substitute: str = SafeExceptionReporterFilter.cleansed_substitute) -> str:
    return URL_PASSWORD.sub(lambda match: f"{match['head']}{substitute}@", text)


class SecretMaskingReporterFilter(SafeExceptionReporterFilter):
    def cleanse_setting(self, key, value):
        cleansed = super().cleanse_setting(key, value)  # recurses into dicts, lists and tuples through this method
        # str(): a lazy string (django-csp's request.csp_nonce) passes isinstance(str) but is not one for re.
        return mask_url_passwords(str(cleansed), self.cleansed_substitute) if isinstance(cleansed, str) else cleansed

    def get_traceback_frame_variables(self, request, tb_frame):
        """Local variables too: a string, dict, list or tuple is cleansed as a setting of that name would be."""
        return [
            (name, self.cleanse_setting(name, value) if isinstance(value, str | dict | list | tuple) else value)
            for name, value in super().get_traceback_frame_variables(request, tb_frame)
        ]
