"""inferledger.csp builds the settings' Content-Security-Policy once and writes exactly what django-csp writes."""

import pytest
from csp.constants import HEADER, HEADER_REPORT_ONLY
from csp.middleware import CSPMiddleware as DjangoCSPMiddleware
from django.http import HttpResponse
from django.test import RequestFactory, override_settings

from inferledger.csp import CSPMiddleware, settings_headers


def _through(middleware_class, response_for, touch_nonce=False, path="/api/v1/rankings/"):
    request = RequestFactory().get(path)
    middleware = middleware_class(lambda request: None)
    middleware.process_request(request)
    if touch_nonce:
        str(request.csp_nonce)  # a template that asked for a nonce
    response = middleware.process_response(request, response_for())
    return {name: response.get(name) for name in (HEADER, HEADER_REPORT_ONLY)}, request


def _plain():
    return HttpResponse("{}", content_type="application/json")


def _updated():
    response = _plain()
    response._csp_update = {"img-src": ["https://example.org"]}
    return response


def _exempt():
    response = _plain()
    response._csp_exempt = True
    return response


def _has_header():
    response = _plain()
    response[HEADER] = "default-src 'none'"
    return response


@pytest.mark.parametrize("response_for", [_plain, _updated, _exempt, _has_header])
@pytest.mark.parametrize("touch_nonce", [False, True])
def test_the_headers_are_django_csps_own(response_for, touch_nonce):
    ours, _ = _through(CSPMiddleware, response_for, touch_nonce)
    theirs, _ = _through(DjangoCSPMiddleware, response_for, touch_nonce)
    if touch_nonce and ours[HEADER]:  # each request draws its own nonce
        ours[HEADER] = ours[HEADER].split("'nonce-")[0]
        theirs[HEADER] = theirs[HEADER].split("'nonce-")[0]
    assert ours == theirs
    assert ours[HEADER] is not None or response_for is _exempt


def test_the_settings_policy_is_built_once_and_again_when_its_setting_changes():
    settings_headers.cache_clear()
    first, _ = _through(CSPMiddleware, _plain)
    _through(CSPMiddleware, _plain)
    assert settings_headers.cache_info().misses == 1 and settings_headers.cache_info().hits >= 1
    assert "script-src 'self'" in first[HEADER] and first[HEADER_REPORT_ONLY] is None
    report_only = {"DIRECTIVES": {"default-src": ["'self'"], "report-uri": ["/csp-report/"]}}
    with override_settings(CONTENT_SECURITY_POLICY_REPORT_ONLY=report_only):
        ours, _ = _through(CSPMiddleware, _plain)
        theirs, _ = _through(DjangoCSPMiddleware, _plain)
        assert ours == theirs and ours[HEADER_REPORT_ONLY] == "default-src 'self'; report-uri /csp-report/"
    assert _through(CSPMiddleware, _plain)[0] == first


def test_a_nonce_asked_for_after_the_header_is_written_raises_as_django_csps_does():
    from csp.exceptions import CSPNonceError

    _, request = _through(CSPMiddleware, _plain)
    with pytest.raises(CSPNonceError):
        str(request.csp_nonce)


EXCLUDING_THE_API = {"EXCLUDE_URL_PREFIXES": ["/api/"], "DIRECTIVES": {"default-src": ["'self'"]}}


@override_settings(CONTENT_SECURITY_POLICY=EXCLUDING_THE_API)
def test_an_excluded_prefix_is_left_to_django_csp():
    assert (
        _through(CSPMiddleware, _plain)[0]
        == _through(DjangoCSPMiddleware, _plain)[0]
        == {HEADER: None, HEADER_REPORT_ONLY: None}
    )
