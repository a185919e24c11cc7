"""Nobody can lock an account out (issue 36): wrong passwords for a name slow down the
addresses that send them, never the owner. A device that signed in before has its own
budget of tries (its device cookie); a new device has the name's budget of its own
address, with delays that grow with its own tries only."""

from __future__ import annotations

import threading
from collections import Counter

from fastapi.testclient import TestClient

from marrakech.web.accounts.sessions import COOKIE, DEVICE_COOKIE
from tests.web.conftest import Apps
from tests.web.test_account_limits import at
from tests.web.test_accounts import CHEAP, PASSWORD, me, sign_up, stopped_clock

#: The addresses of the flood (six, as in the issue).
FLOOD = [f"198.51.100.{number}" for number in range(1, 7)]


def sign_in(client: TestClient, password: str, name: str = "carol") -> int:
    reply = client.post("/api/account/signin", json={"name": name, "password": password})
    status: int = reply.status_code
    return status


def test_a_flood_of_wrong_passwords_never_keeps_the_owner_out(apps: Apps) -> None:
    home = apps.start(passwords=CHEAP)
    phone = at(home, "203.0.113.50")
    sign_up(phone, "carol")  # this device signed in to carol: it has its device cookie
    assert phone.cookies.get(DEVICE_COOKIE)
    phone.post("/api/account/signout", json={})
    attackers = [at(home, address) for address in FLOOD]
    seen: Counter[int] = Counter()
    stop = threading.Event()
    held = threading.Event()

    def flood() -> None:
        while not stop.is_set():
            for attacker in attackers:
                seen[sign_in(attacker, "not her password")] += 1
            if seen[429] >= len(FLOOD):
                held.set()  # every address of the flood is held back by now

    flooding = threading.Thread(target=flood)
    flooding.start()
    try:
        assert held.wait(timeout=120), seen
        # The flood goes on while carol signs in: from her phone (its own budget)...
        for _ in range(3):
            assert sign_in(phone, PASSWORD) == 200
            assert me(phone) is not None and me(phone)["name"] == "carol"  # type: ignore[index]
            phone.post("/api/account/signout", json={})
        # ...and from a new device on an address of her own (the name's budget there).
        laptop = at(home, "203.0.113.60")
        assert sign_in(laptop, PASSWORD) == 200 and laptop.cookies.get(COOKIE)
    finally:
        stop.set()
        flooding.join()
    assert seen[401] <= 5 * len(FLOOD), seen  # each address had its five tries, no more


def test_a_new_device_waits_growing_delays_that_only_its_own_tries_grow(apps: Apps) -> None:
    """An owner sharing the attacker's address (a household, a carrier's NAT) on a new
    device waits the delay the address's tries set: 30 s after five, then 60, 120...
    up to an hour. Tries refused during a delay do not count: hammering cannot keep
    the name shut, and the owner's right password gets in once the delay is over."""
    home = apps.start(passwords=CHEAP)
    sign_up(at(home, "203.0.113.50"), "carol")
    move_on = stopped_clock(home, per_address=10_000)  # this test is about the name's
    shared = at(home, "198.51.100.1")
    assert [sign_in(shared, "wrong guess") for _ in range(5)] == [401] * 5
    waits = []
    for _ in range(4):
        refused = shared.post("/api/account/signin", json={"name": "carol", "password": "no"})
        assert refused.status_code == 429 and "for this name" in refused.json()["message"]
        wait = int(refused.headers["Retry-After"])
        # Hammering during the delay: refused, and the delay stays what it was.
        for _ in range(20):
            assert sign_in(shared, "still wrong") == 429
        again = shared.post("/api/account/signin", json={"name": "carol", "password": "no"})
        assert int(again.headers["Retry-After"]) == wait
        waits.append(wait)
        move_on(wait)
        assert sign_in(shared, "one more wrong guess") == 401  # one try per delay
    assert waits == [30, 60, 120, 240]
    owner = at(home, "198.51.100.1")  # carol, a new device on that same address
    assert sign_in(owner, PASSWORD) == 429
    move_on(480)
    assert sign_in(owner, PASSWORD) == 200  # the delay is over: she is in
    # Her right password started the address's tries afresh.
    assert [sign_in(shared, "wrong guess") for _ in range(5)] == [401] * 5


def test_a_device_cookie_counts_for_its_own_account_only(apps: Apps) -> None:
    """Behind one address (a shared NAT): carol's phone, which signed in to carol
    before, and mallory, whose browser signed in to mallory's own account. Mallory's
    device cookie, or a forged one, gives her no budget of carol's; carol's phone
    signs in whatever mallory does."""
    home = apps.start(passwords=CHEAP)
    phone = at(home, "198.51.100.7")
    sign_up(phone, "carol")
    phone.post("/api/account/signout", json={})
    mallory = at(home, "198.51.100.7")
    sign_up(mallory, "mallory")
    cookie = phone.cookies[DEVICE_COOKIE]
    assert (
        "HttpOnly"
        in mallory.post(
            "/api/account/signin", json={"name": "mallory", "password": PASSWORD}
        ).headers["set-cookie"]
    )
    assert [sign_in(mallory, "guess") for _ in range(6)] == [401] * 5 + [429]
    mallory.cookies.set(DEVICE_COOKIE, cookie[:-4] + "AAAA", path="/api/account")
    assert sign_in(mallory, "guess") == 429  # a forged cookie is no device of carol's
    # Mallory spends the address's sign-ins on other names: the phone is not held back.
    for number in range(20):
        refused = mallory.post(
            "/api/account/signin", json={"name": f"name{number}", "password": "guess"}
        )
        if refused.status_code == 429:
            break
    assert "from your address" in refused.json()["message"]
    assert sign_in(phone, "a typo of mine") == 401  # the phone's own budget
    assert sign_in(phone, PASSWORD) == 200
