"""``scripts/bot_strength.py`` builds its table from arena results files."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

from marrakech.arena import MatchConfig, run_match
from tests.bots.conftest import load_script as load


def load_script() -> ModuleType:
    return load("bot_strength")


def test_table_rows_come_from_results_files(tmp_path: Path) -> None:
    script = load_script()
    run_match(
        MatchConfig(2, ("greedy", "random"), games=4, seed=1),
        out=tmp_path / "greedy-random-2p.jsonl",
    )
    text = script.table(tmp_path)
    assert "`greedy` vs `random`" in text
    assert "| 4 |" in text
    doc = tmp_path / "doc.md"
    doc.write_text(f"# Bots\n{script.START}\nold\n{script.END}\nafter\n")
    script.update_doc(text, doc)
    body = doc.read_text()
    assert "old" not in body and "`greedy` vs `random`" in body and body.endswith("after\n")


def test_luck_table_splits_each_match_by_who_the_dice_favoured(tmp_path: Path) -> None:
    script = load_script()
    run_match(
        MatchConfig(2, ("greedy", "random"), games=6, seed=2),
        out=tmp_path / "greedy-random-2p.jsonl",
    )
    row = next(line for line in script.luck_table(tmp_path).splitlines() if "`greedy`" in line)
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[:3] == ["2", "`greedy`, `random`", "6"]
    assert float(cells[3]) > 0  # the dice were not neutral in six games
    luckier, less_lucky = cells[5], cells[6]
    # greedy wins every game against random, whoever the dice favoured; the game
    # counts of the two columns add up to the games.
    counts = [int(c.split("(")[1].rstrip(")")) for c in (luckier, less_lucky) if c != "-"]
    assert sum(counts) == 6
    assert all(c.startswith("100.0%") for c in (luckier, less_lucky) if c != "-")


def test_margin_table_gives_the_first_bot_s_margins_over_the_best_other_seat(
    tmp_path: Path,
) -> None:
    from marrakech.arena import read_results

    script = load_script()
    path = tmp_path / "greedy-random-2p.jsonl"
    run_match(MatchConfig(2, ("greedy", "random"), games=6, seed=3), out=path)
    _, games = read_results(path)
    margins = sorted(
        g.scores[g.seats.index("greedy")] - g.scores[1 - g.seats.index("greedy")] for g in games
    )
    row = next(line for line in script.margin_table(tmp_path).splitlines() if "`greedy`" in line)
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[:4] == ["2", "`greedy`, `random`", "6", "100.0%"]
    mean, low, median, high = (float(c) for c in cells[4:8])
    assert mean == pytest.approx(sum(margins) / 6, abs=0.05)
    assert margins[0] <= low <= median <= high <= margins[-1]
    assert median == pytest.approx((margins[2] + margins[3]) / 2, abs=0.05)
    assert low > 0  # greedy outscores random in every game


def test_unknown_match_names_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    script = load_script()
    with pytest.raises(SystemExit):
        script.main(["--only", "nonsense", "--table-only", "--print"])
    assert "unknown match" in capsys.readouterr().err


def test_ladder_rates_every_bot_of_a_player_count_together(tmp_path: Path) -> None:
    script = load_script()
    run_match(
        MatchConfig(2, ("greedy", "random"), games=4, seed=1),
        out=tmp_path / "greedy-random-2p.jsonl",
    )
    run_match(
        MatchConfig(2, ("search@iterations=2000", "greedy"), games=2, seed=1),
        out=tmp_path / "search2k-greedy-2p.jsonl",
    )
    rows = [line for line in script.ladder_table(tmp_path).splitlines() if line.startswith("| 2")]
    bots = [row.split("|")[2].strip() for row in rows]
    assert set(bots) == {"`greedy`", "`random`", "`search@iterations=2000`"}
    assert bots[-1] == "`random`"  # lowest rating last
    games = {row.split("|")[2].strip(): int(row.split("|")[3]) for row in rows}
    assert games["`greedy`"] == 6 and games["`random`"] == 4
    curve = script.curve_table(tmp_path)
    assert "| 2 | `search@iterations=2000` | 2 |" in curve and "`greedy` |" not in curve


def test_the_learned_baselines_matches_are_the_files_marrakech_evaluate_writes() -> None:
    """`marrakech evaluate policy-2p --out benchmarks/strength` plays the very matches the
    tables of docs/bots.md read (issue 27): same file names, same seats."""
    from marrakech.arena.evaluate import OPPONENTS, match_name, policy_spec

    script = load_script()
    matches = {match.name: match for match in script.MATCHES}
    for players in (2, 4):
        policy = policy_spec(f"policy-{players}p")
        for label, opponent in OPPONENTS[players].items():
            match = matches[match_name(policy, label, players)]
            assert match.bots == (policy.spec, *(opponent,) * (players - 1))
            assert match.players == players and match.games == 400


def test_the_learned_table_has_a_row_per_policy_match(tmp_path: Path) -> None:
    script = load_script()
    run_match(
        MatchConfig(2, ("policy-2p", "random"), games=2, seed=1),
        out=tmp_path / "policy-2p-random-2p.jsonl",
    )
    rows = [line for line in script.learned_table(tmp_path).splitlines() if "random (" in line]
    assert rows == [rows[0]] and rows[0].startswith("| 2 | `policy-2p` | random (`random`) | 2 |")
