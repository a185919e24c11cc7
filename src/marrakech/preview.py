"""What each roll of the die would do, before it is cast: for the interfaces' previews,
the players' sense of risk, and the measure of dice luck. The bots read the same
expected tithe in floats, fast, from :mod:`marrakech.threat` (tested against this module).

Every figure comes from applying the roll to the position (:meth:`State.describe`), so
a preview is the rules themselves, never a second reading of them (R9-R13)::

    >>> from marrakech import State, square_name
    >>> state = State.from_notation(  # a blue carpet on d5-d6, seat 0 (red) to orient
    ...     "7/3Bs3/3Bn3/7/7/7/7 d4N 30,30,30 10,9,10 - - orient:0 standard")
    >>> [(str(p.orient), p.expected_tithe) for p in preview_orientations(state)]
    [('L', Fraction(0, 1)), ('S', Fraction(1, 1)), ('R', Fraction(0, 1))]
    >>> straight = preview_orientations(state)[1]
    >>> [(str(r.roll), str(r.probability), square_name(r.landing), r.due) for r in straight.rolls]
    [('r1', '1/6', 'd5', 2), ('r2', '1/3', 'd6', 2), ('r3', '1/3', 'd7', 0), ('r4', '1/6', 'c7', 0)]
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from marrakech.actions import Orient, Roll
from marrakech.events import Event
from marrakech.position import Phase
from marrakech.state import State


@dataclass(frozen=True, slots=True)
class RollPreview:
    """One outcome of the die from a position about to roll, and what it does."""

    roll: Roll
    probability: Fraction
    event: Event

    @property
    def landing(self) -> int:
        """The square where Assam stops (R10)."""
        return self.event.path[-1].square

    @property
    def facing(self) -> int:
        return self.event.path[-1].facing

    @property
    def due(self) -> int:
        """The tithe asked (R11), 0 when nothing is due (R12)."""
        return 0 if self.event.tithe is None else self.event.tithe.due

    @property
    def paid(self) -> int:
        """The dirhams actually handed over (all the seat has, if it cannot pay: R13)."""
        return 0 if self.event.tithe is None else self.event.tithe.paid

    @property
    def payee(self) -> int | None:
        return None if self.event.tithe is None else self.event.tithe.payee

    @property
    def eliminates(self) -> bool:
        """The roller cannot pay and leaves the game (R13)."""
        return self.event.eliminated is not None


@dataclass(frozen=True, slots=True)
class OrientPreview:
    """One orientation (R9) and the die's outcomes after it."""

    orient: Orient
    facing: int
    rolls: tuple[RollPreview, ...]

    @property
    def expected_tithe(self) -> Fraction:
        """The dirhams the seat expects to hand over (exact)."""
        return sum((r.probability * r.paid for r in self.rolls), Fraction(0))

    @property
    def elimination_chance(self) -> Fraction:
        """The chance that the roll eliminates the seat (R13)."""
        return sum((r.probability for r in self.rolls if r.eliminates), Fraction(0))


def preview_rolls(state: State) -> tuple[RollPreview, ...]:
    """Every outcome of the die from ``state`` (about to roll), with its probability."""
    if state.phase is not Phase.ROLL:
        raise ValueError(f"expected a position about to roll, found phase {state.phase.name}")
    return tuple(
        RollPreview(roll, probability, state.describe(roll))
        for roll, probability in state.chance_outcomes()
        if isinstance(roll, Roll)
    )


def preview_orientations(state: State) -> tuple[OrientPreview, ...]:
    """For the seat about to orient: each legal orientation, where each roll would take
    Assam and what it would cost (the next seat's roll under R32's orient-last option,
    the placer's pile having already shown its next carpet at two players, R7)."""
    if state.phase is not Phase.ORIENT:
        raise ValueError(f"expected a position to orient, found phase {state.phase.name}")
    previews: list[OrientPreview] = []
    for orient in state.legal_actions():
        assert isinstance(orient, Orient)
        turned = state.apply(orient)
        facing = turned.assam_facing
        previews.append(OrientPreview(orient, facing, preview_rolls(turned)))
    return tuple(previews)


__all__ = ["OrientPreview", "RollPreview", "preview_orientations", "preview_rolls"]
