"""The API docs are for signed-in users and run no inline script, so the Content-Security-Policy holds
(issue #26, item 10; the anonymous side is tests/test_deployment.py)."""

import re

import pytest

pytestmark = pytest.mark.django_db


def test_a_signed_in_user_reads_the_swagger_docs_without_inline_scripts(client, user):
    client.force_login(user)
    page = client.get("/api/docs/")
    assert page.status_code == 200 and "script-src 'self'" in page["Content-Security-Policy"]
    scripts = re.findall(r"<script([^>]*)>", page.content.decode())
    assert scripts and all("src=" in attributes for attributes in scripts)  # every script is a file
    script_url = re.search(r'<script src="([^"]*script[^"]*)"', page.content.decode())[1].replace("&amp;", "&")
    script = client.get(script_url)
    assert script.status_code == 200 and script["Content-Type"].startswith("application/javascript")
    assert client.get("/api/schema/").status_code == 200


def test_a_dashboard_page_carries_its_figures_as_data_not_inline_script(client, user, catalog):
    client.force_login(user)
    page = client.get("/").content.decode()
    executable = [a for a in re.findall(r"<script([^>]*)>", page) if "application/json" not in a]
    assert executable and all("src=" in attributes for attributes in executable)
