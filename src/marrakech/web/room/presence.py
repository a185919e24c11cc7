"""Who is here: each seat's connections on this instance and on the others.

A seat is ``connected`` while one of its pages is open on any instance (a bot seat
always is), ``away`` when none is, ``open`` when nobody holds it yet.

>>> from marrakech.web.connection import Client
>>> from marrakech.web.store import SeatRow
>>> seats = [SeatRow(0, "human"), SeatRow(1, "human"), SeatRow(2, "open")]
>>> here = SeatPresence()
>>> here.attach(Client(frozenset({0}), "en"))
>>> here.set_remote("other", frozenset({1}))
>>> here.of_all(seats), sorted(here.local_seats())
(['connected', 'connected', 'open'], [0])
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from marrakech.web.connection import Client
from marrakech.web.protocol import Presence
from marrakech.web.store import SeatRow


class SeatPresence:
    """The connections per seat here, and the seats other instances' connections hold."""

    def __init__(self) -> None:
        self._here: Counter[int] = Counter()
        self._counted: set[Client] = set()
        #: By instance id: the seats its connections hold.
        self.remote: dict[str, frozenset[int]] = {}

    def of(self, row: SeatRow) -> Presence:
        if row.kind == "open":
            return "open"
        seat = row.seat
        if row.kind == "bot" or self._here[seat] or any(seat in s for s in self.remote.values()):
            return "connected"
        return "away"

    def of_all(self, seats: Sequence[SeatRow]) -> list[Presence]:
        return [self.of(row) for row in seats]

    def local_seats(self) -> frozenset[int]:
        """The seats with a connection on this instance."""
        return frozenset(seat for seat, count in self._here.items() if count)

    def attach(self, client: Client) -> None:
        if client not in self._counted:
            self._counted.add(client)
            self._here.update(client.seats)

    def detach(self, client: Client) -> None:
        if client in self._counted:
            self._counted.discard(client)
            self._here.subtract(client.seats)

    def set_remote(self, instance: str, seats: frozenset[int]) -> None:
        if seats:
            self.remote[instance] = seats
        else:
            self.remote.pop(instance, None)

    def keep_remote(self, living: set[str]) -> bool:
        """Forget the connections of instances not ``living``; whether any were."""
        gone = self.remote.keys() - living
        for instance in gone:
            del self.remote[instance]
        return bool(gone)
