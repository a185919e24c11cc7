"""The setup screen is built from the core's declaration (R4 player counts, R30-R32 rule
sets and options) with the words of ``marrakech.i18n``, driven with Textual's pilot."""

from __future__ import annotations

import pytest
from textual.widgets import Checkbox, Select

from marrakech import i18n, rules
from marrakech.bots import LEVELS
from marrakech.i18n import RuleWords, rule_option_words, rule_set_words
from marrakech.rules import BGA, NAMED_RULE_SETS, PLAYER_COUNTS, RULE_OPTIONS, RuleOption, RuleSet
from marrakech.tui import setup_screen
from marrakech.tui.app import MarrakechApp, PlayOptions
from marrakech.tui.screen_base import Timing
from marrakech.tui.setup_screen import SetupScreen

from .conftest import SIZE, game_screen

pytestmark = pytest.mark.asyncio


def new_app(**kwargs: object) -> MarrakechApp:
    values: dict[str, object] = {"players": 3, "seed": 5, "timing": Timing.instant()}
    values.update(kwargs)
    return MarrakechApp(PlayOptions(**values))  # type: ignore[arg-type]


def offered(select: Select[object]) -> list[object]:
    return [value for _, value in select._options]


async def setup_screen_of(pilot) -> SetupScreen:  # type: ignore[no-untyped-def]
    """The setup screen the app opens with, once it is drawn."""
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, SetupScreen)
    return screen


def label(widget: Checkbox) -> str:
    return str(widget.label)


async def test_r4_r30_r31_the_choices_are_the_cores_declaration() -> None:
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        setup = await setup_screen_of(pilot)
        assert offered(setup.query_one("#players", Select)) == list(PLAYER_COUNTS)
        assert offered(setup.query_one("#rules", Select)) == list(NAMED_RULE_SETS)
        boxes = list(setup.query(Checkbox))
        assert [box.id for box in boxes] == [f"option-{o.field}" for o in RULE_OPTIONS]
        for option, box in zip(RULE_OPTIONS, boxes, strict=True):
            assert label(box) == rule_option_words(option.field, "en").label
            assert not box.value
        help_text = str(setup.query_one("#rules-help").render())
        assert help_text == rule_set_words("standard", "en").help
        await pilot.press("ctrl+l")  # French: every word follows
        await pilot.pause()
        for option, box in zip(RULE_OPTIONS, boxes, strict=True):
            assert label(box) == rule_option_words(option.field, "fr").label
            words = str(setup.query_one(f"#option-{option.field}-help").render())
            assert words == rule_option_words(option.field, "fr").help
        rules_select = setup.query_one("#rules", Select)
        rules_select.value = "bga"
        await pilot.pause()
        assert str(setup.query_one("#rules-help").render()) == rule_set_words("bga", "fr").help
        assert setup.rules() == BGA


async def test_r32_choosing_orient_last_starts_a_game_under_it() -> None:
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        setup = await setup_screen_of(pilot)
        await pilot.click("#option-orient_last")
        await pilot.pause()
        assert setup.query_one("#option-orient_last", Checkbox).value
        assert setup.setup().rules.token() == "standard+orient-last"
        await pilot.click("#start")
        game = await game_screen(pilot)
        state = game.session.state
        assert state.rules.token() == "standard+orient-last"
        assert state.rules.orient_last


async def test_r32_a_game_set_up_with_options_shows_them_switched_on() -> None:
    given = BGA.with_options(orient_last=True)
    app = new_app(rules=given)
    async with app.run_test(size=SIZE) as pilot:
        setup = await setup_screen_of(pilot)
        assert setup.query_one("#rules", Select).value == "bga"
        assert setup.query_one("#option-orient_last", Checkbox).value
        assert setup.rules() == given


async def test_house_rules_from_the_command_line_stay_a_choice() -> None:
    house = RuleSet(carpets=(8, 9, 10), money=20).with_options(orient_last=True)
    app = new_app(rules=house)
    async with app.run_test(size=SIZE) as pilot:
        setup = await setup_screen_of(pilot)
        assert offered(setup.query_one("#rules", Select)) == [*NAMED_RULE_SETS, "custom"]
        assert setup.rules() == house
        await pilot.click("#option-orient_last")  # off: the same house rules without it
        await pilot.pause()
        assert setup.rules() == house.base


async def test_a_new_rule_option_appears_with_no_terminal_code(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Declare R31's own-cover flag as one more yes/no option, with its words: the setup
    # screen offers it and the game it starts has it, with no change to the terminal.
    extra = RuleOption("own_cover", "own-cover", "R31")
    declared = (*RULE_OPTIONS, extra)
    monkeypatch.setattr(rules, "RULE_OPTIONS", declared)
    monkeypatch.setattr(setup_screen, "RULE_OPTIONS", declared)
    for lang in i18n.LANGUAGES:
        words = RuleWords(f"own cover ({lang})", f"cover your own carpet ({lang})", "own")
        monkeypatch.setitem(i18n.RULE_WORDS[lang], "own_cover", words)
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        setup = await setup_screen_of(pilot)
        box = setup.query_one("#option-own_cover", Checkbox)
        assert label(box) == "own cover (en)"
        await pilot.click("#option-own_cover")
        await pilot.pause()
        chosen = setup.rules()
        assert chosen.own_cover and chosen.carpets == NAMED_RULE_SETS["standard"].carpets


async def test_the_learned_level_is_offered_at_the_player_counts_it_plays() -> None:
    """A seat may be the learned bot (the shipped policy of the count) at 2 and 4
    players; at three it is not offered, and a seat that had it goes back to medium."""
    app = new_app(players=2)
    async with app.run_test(size=SIZE) as pilot:
        setup = await setup_screen_of(pilot)
        seat = setup.query_one("#seat-1", Select)
        assert offered(seat) == ["human", *(f"bot:{level}" for level in LEVELS)]
        assert dict((v, str(k)) for k, v in seat._options)["bot:learned"] == (
            "Bot: learned (neural network)"
        )
        seat.value = "bot:learned"
        await pilot.pause()
        players = setup.query_one("#players", Select)
        players.value = 3
        await pilot.pause()
        assert "bot:learned" not in offered(seat)
        assert seat.value == "bot:medium"
        assert setup.setup().seats[1].spec == "medium"
        players.value = 4
        await pilot.pause()
        assert "bot:learned" in offered(seat)
        await pilot.press("ctrl+l")  # French
        await pilot.pause()
        assert dict((v, str(k)) for k, v in seat._options)["bot:learned"] == (
            "Robot : appris (réseau de neurones)"
        )
        players.value = 2
        await pilot.pause()
        seat.value = "bot:learned"
        await pilot.pause()
        await pilot.click("#start")
        game = await game_screen(pilot)
        assert game.session.players == 2
        assert game.session.bots[1].name == "policy"
