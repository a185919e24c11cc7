"""Who is here: each seat's connections on this instance and on the others.

A seat is ``connected`` while one of its pages is open on any instance (a bot seat
always is), ``away`` when none is, ``open`` when nobody holds it yet. A seat that a
connection declared as a bot held (``marrakech connect``) is ``external``, here or on
another instance (told among the seats it holds, as its number plus
:data:`EXTERNAL_MARK`), for as long as the room lives.

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
from typing import Protocol

from marrakech.web.connection import Client
from marrakech.web.protocol import ChangeReason, Presence, SeatInfo
from marrakech.web.room.meta import seat_info
from marrakech.web.store import SeatRow

#: Added to a seat's number among the seats an instance tells the others it holds, for
#: a seat a declared bot holds there (seats are 0..3): the others label it too.
EXTERNAL_MARK = 4


class SeatPresence:
    """The connections per seat here, and the seats other instances' connections hold."""

    def __init__(self) -> None:
        self._here: Counter[int] = Counter()
        self._counted: set[Client] = set()
        #: By instance id: the seats its connections hold.
        self.remote: dict[str, frozenset[int]] = {}
        #: Seats a connection that declared itself a bot held (here or elsewhere), and
        #: those of them not yet told to the pages.
        self.external: set[int] = set()
        self.fresh: set[int] = set()

    def of(self, row: SeatRow) -> Presence:
        if row.kind == "open":
            return "open"
        seat = row.seat
        if row.kind == "bot" or self._here[seat] or any(seat in s for s in self.remote.values()):
            return "connected"
        return "away"

    def of_all(self, seats: Sequence[SeatRow]) -> list[Presence]:
        return [self.of(row) for row in seats]

    def info(self, row: SeatRow, resigned: bool) -> SeatInfo:
        """The seat as every page sees it: its presence, whether a bot plays it."""
        if row.kind == "open":  # opened again (kicked): whoever comes next is new
            self.external.discard(row.seat)
        return seat_info(row, self.of(row), resigned, row.seat in self.external)

    def local_seats(self) -> frozenset[int]:
        """The seats with a connection on this instance (those a declared bot holds
        also marked, for the other instances)."""
        here = frozenset(seat for seat, count in self._here.items() if count)
        return here | frozenset(seat + EXTERNAL_MARK for seat in self.external & here)

    def _label(self, seats: set[int] | frozenset[int]) -> None:
        self.fresh.update(seats - self.external)
        self.external.update(seats)

    def attach(self, client: Client) -> None:
        if client not in self._counted:
            self._counted.add(client)
            self._here.update(client.seats)
            if client.bot:
                self._label(client.seats)

    def detach(self, client: Client) -> None:
        if client in self._counted:
            self._counted.discard(client)
            self._here.subtract(client.seats)

    def set_remote(self, instance: str, seats: frozenset[int]) -> None:
        self._label({seat - EXTERNAL_MARK for seat in seats if seat >= EXTERNAL_MARK})
        seats = frozenset(seat for seat in seats if seat < EXTERNAL_MARK)
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


class _Cluster(Protocol):
    def presence(self, game_id: str, seats: frozenset[int]) -> None: ...


class _Services(Protocol):
    @property
    def cluster(self) -> _Cluster: ...


class LabelledRoom(Protocol):
    """What :func:`tell_labels` needs of a room."""

    @property
    def here(self) -> SeatPresence: ...
    @property
    def seats(self) -> list[SeatRow]: ...
    @property
    def game_id(self) -> str: ...
    @property
    def services(self) -> _Services: ...
    def local_seats(self) -> frozenset[int]: ...
    def broadcast_meta(
        self, reason: ChangeReason, seat: int | None = None, skip: Client | None = None
    ) -> None: ...


def tell_labels(room: LabelledRoom, before: list[Presence], skip: Client | None = None) -> None:
    """Tell the pages (and, for a connection here, the other instances) of seats newly
    labelled external whose presence did not change since ``before``: a presence
    change already told them, with the label."""
    fresh, room.here.fresh = room.here.fresh, set()
    after = room.here.of_all(room.seats)
    quiet = [seat for seat in sorted(fresh) if seat < len(after) and before[seat] == after[seat]]
    for seat in quiet:
        room.broadcast_meta("connected", seat, skip)
    if quiet and skip is not None:
        room.services.cluster.presence(room.game_id, room.local_seats())
