"""The release digest that every cached answer and page carries in its key (inferledger.release)."""

from inferledger import release


def test_the_digest_changes_with_a_template_or_module_and_nothing_else(settings, tmp_path):
    (tmp_path / "templates").mkdir()
    (tmp_path / "dashboard").mkdir()
    page, module = tmp_path / "templates" / "page.html", tmp_path / "dashboard" / "views.py"
    page.write_text("<p>one</p>")
    module.write_text("ANSWER = 1\n")
    settings.BASE_DIR = tmp_path

    def digest() -> str:
        release.release_digest.cache_clear()
        return release.release_digest()

    try:
        first = digest()
        assert len(first) == 16 and digest() == first  # the same source, the same release
        (tmp_path / "dashboard" / "notes.txt").write_text("not source")
        assert digest() == first
        page.write_text("<p>two</p>")
        second = digest()
        assert second != first
        module.write_text("ANSWER = 2\n")
        assert digest() not in (first, second)
    finally:
        release.release_digest.cache_clear()  # the running release again for the tests after this one
