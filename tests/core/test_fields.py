"""A state's fields are read by name: the ``FIELD_*`` indices of ``marrakech.position``
are those of ``Fields``, and every getter of ``State`` reads the field it names."""

from __future__ import annotations

import random

from marrakech import BGA, STANDARD, Phase, State, position, random_action
from marrakech.position import Fields


def test_every_field_has_its_index_by_name() -> None:
    for index, name in enumerate(Fields._fields):
        assert getattr(position, f"FIELD_{name.upper()}") == index


def test_r9_r21_the_getters_read_the_fields_they_name() -> None:
    rng = random.Random(4)
    for players in (2, 3, 4):
        for rules in (STANDARD, BGA.with_options(orient_last=True)):
            state = State.new(players, rules)
            while True:
                fields = state.fields()
                assert (state.players, state.rules, state.board) == fields[:3]
                assert (state.assam_square, state.assam_facing) == divmod(fields.assam, 4)
                assert (state.money, state.hand, state.eliminated) == (
                    fields.money,
                    fields.hand,
                    fields.out,
                )
                assert (state.phase, state.turn) == (Phase(fields.phase), fields.turn)
                pile = fields.pile if state.phase is Phase.DRAW else None
                assert state.draw_pile == pile
                if state.is_terminal:
                    break
                state = state.apply(random_action(state, rng))
