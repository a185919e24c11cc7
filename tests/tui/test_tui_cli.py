"""``marrakech play`` arguments."""

from __future__ import annotations

from pathlib import Path

import pytest

from marrakech.cli import build_parser, main
from marrakech.errors import MarrakechError
from marrakech.rules import BGA
from marrakech.tui.cli import options_from_args
from marrakech.tui.session import SeatSpec


def parse(*argv: str):  # type: ignore[no-untyped-def]
    return options_from_args(build_parser().parse_args(["play", *argv]))


def test_defaults_open_the_setup_screen() -> None:
    options = parse()
    assert options.players == 4 and options.lang == "en" and options.seats is None
    assert options.replay is None and options.load is None


def test_seats_players_rules_language_seed() -> None:
    options = parse(
        "--players",
        "3",
        "--rules",
        "bga",
        "--lang",
        "fr",
        "--seats",
        "human,easy,bot:hard",
        "--seed",
        "7",
        "--first",
        "2",
    )
    assert options.players == 3 and options.rules == BGA and options.lang == "fr"
    assert options.seats == (SeatSpec.human(), SeatSpec.bot("easy"), SeatSpec.bot("hard"))
    assert options.seed == 7 and options.first_seat == 2


def test_bad_arguments_say_what_was_expected(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(MarrakechError, match="expected 3 seats for --players 3, found 2"):
        parse("--players", "3", "--seats", "human,easy")
    with pytest.raises(MarrakechError, match="expected a seat"):
        parse("--players", "2", "--seats", "human,wizard")
    with pytest.raises(MarrakechError, match=r"--first: expected a seat 0\.\.1, found 5"):
        parse("--players", "2", "--first", "5")
    assert main(["play", "--replay", str(tmp_path / "missing.json")]) == 2
    assert "cannot read" in capsys.readouterr().err
    (tmp_path / "bad.json").write_text('{"format": "chess"}', encoding="utf-8")
    assert main(["play", "--load", str(tmp_path / "bad.json")]) == 2
    assert 'expected "format": "marrakech-record"' in capsys.readouterr().err
    with pytest.raises(SystemExit):
        build_parser().parse_args(["play", "--lang", "de"])
