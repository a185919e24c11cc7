"""``scripts/bot_ratings.py`` seeds the web's bot levels from arena results files: the
learned level per player count, from the policy of that count."""

from __future__ import annotations

from pathlib import Path

from marrakech.arena import MatchConfig, run_match
from tests.bots.conftest import load_script


def test_the_learned_level_is_seeded_per_player_count(tmp_path: Path) -> None:
    script = load_script("bot_ratings")
    matches = [
        MatchConfig(2, ("policy-2p", "random"), games=4, seed=1),
        MatchConfig(2, ("greedy", "random"), games=4, seed=1),
        MatchConfig(4, ("policy-4p", "greedy", "greedy", "greedy"), games=4, seed=1),
    ]
    for config in matches:
        name = "-".join(config.bots[:2]) + f"-{config.players}p.jsonl"
        run_match(config, out=tmp_path / name)
    runs = script.fits_of(tmp_path, fits=2)
    levels, counts = script.seeds(runs), script.count_seeds(runs)
    assert set(levels) == {"easy", "medium"}  # the levels the arena played, any count
    assert set(counts) == {2, 4} and all(set(found) == {"learned"} for found in counts.values())
    two, four = counts[2]["learned"], counts[4]["learned"]
    assert two[1] == 4 and four[1] == 4  # the arena games of each count's policy
    assert two[0] == script.mean_rating(runs, "policy-2p")[0] != four[0]
