"""Every refusal the socket may send has the page's words for it (both languages are
checked by ``tests/js/i18n.test.js``: every key exists in each)."""

from __future__ import annotations

from pathlib import Path

from marrakech.web.protocol import ERROR_CODES

I18N = Path(__file__).resolve().parents[2] / "src/marrakech/web/static/js/i18n.js"


def test_every_error_code_has_its_sentence_on_the_page() -> None:
    words = I18N.read_text(encoding="utf-8")
    # ``not_found`` answers the hello: the page says "no such game" (``game.not_found``).
    said = [code for code in ERROR_CODES if code != "not_found"]
    missing = [code for code in said if f'"game.error.{code}"' not in words]
    assert not missing, f"i18n.js has no game.error.* sentence for {missing}"
