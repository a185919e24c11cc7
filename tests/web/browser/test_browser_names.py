"""Look-alike and blank names in the browser (issue 36): the account dialog says, in the
page's words and then the server's reason, that a name looks like an existing one or
shows nothing."""

from __future__ import annotations

from typing import Any

import pytest

from tests.web.browser.helpers import LiveServer
from tests.web.test_accounts import CHEAP, PASSWORD


@pytest.fixture(scope="module")
def server_options() -> dict[str, Any]:
    return {"passwords": CHEAP}


def sign_up_refusal(server: LiveServer, page: Any, name: str) -> str:
    page.goto(f"http://localhost:{server.port}/")
    page.wait_for_selector("body[data-ready='1']")
    page.click("[data-testid=account-button]")
    page.wait_for_selector("[data-testid=account-dialog][open]")
    page.click("[data-testid=account-tab-signup]")
    page.fill("[data-testid=account-name]", name)
    page.fill("[data-testid=account-password]", PASSWORD)
    page.click("[data-testid=account-signup-password]")
    page.wait_for_selector("[data-testid=account-error]")
    return str(page.inner_text("[data-testid=account-error]"))


def test_the_account_dialog_says_a_name_looks_like_another_in_french(
    server: LiveServer, new_page: Any
) -> None:
    server.api("POST", "/api/account/signup", {"name": "alice", "password": PASSWORD})
    shown = sign_up_refusal(server, new_page(locale="fr-FR"), "\u0430lice")  # a Cyrillic а
    assert shown == (
        "Ce nom, ou un nom qui lui ressemble, est déjà pris : choisissez-en un autre."
        " (name: '\u0430lice' looks like the existing name 'alice': choose another)"
    )


def test_the_account_dialog_says_a_blank_name_shows_nothing(
    server: LiveServer, new_page: Any
) -> None:
    shown = sign_up_refusal(server, new_page(), "\u3164\u3164")
    assert shown == (
        "This name cannot be used (name: expected a name with a visible character,"
        " found only invisible ones)"
    )
