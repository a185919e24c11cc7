"""Recorded games as data for offline learning: observations, masks, actions, outcomes.

The arena writes every game it plays as a line of its results file (``marrakech arena
... --out FILE.jsonl``: one ``"type": "game"`` object per game, with the exact
:class:`~marrakech.record.GameRecord`); ``benchmarks/strength/`` keeps the 16,000 or so
games behind the measured strengths of docs/bots.md (bots from ``random`` to
``search@iterations=70000``, 2 and 4 players). This module replays them exactly and
gives, for every decision of every seat, what an offline learner needs, in the
``marrakech_v0`` spec of every adapter (:mod:`marrakech.envs.spec`)::

    >>> from marrakech.envs.dataset import load_decisions
    >>> data = load_decisions(players=2, max_games=2)          # doctest: +SKIP
    >>> data.observations.shape, data.masks.shape, data.actions.shape   # doctest: +SKIP
    ((190, 474), (190, 87), (190,))

The self-play games of ``marrakech train`` runs kept in ``benchmarks/training/`` are
read too. More games (another arena run, your own self-play) are added by passing their
files or directories in ``sources``: arena results files, or files of one JSON game record per
line (``GameRecord.to_json()``); :data:`DEFAULT_SOURCES` is where the default games are.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from marrakech.actions import DECISION_IDS
from marrakech.envs.spec import final_margins, observation
from marrakech.errors import NotationError
from marrakech.record import FORMAT, GameRecord

__all__ = [
    "DEFAULT_SOURCES",
    "Decisions",
    "GameDecisions",
    "game_files",
    "iter_games",
    "load_decisions",
]

_BENCHMARKS = Path(__file__).resolve().parents[3] / "benchmarks"

#: The games of the project's checkout used when no ``sources`` are given: the arena's
#: results behind docs/bots.md, then the self-play games of the committed
#: ``marrakech train`` runs (``benchmarks/training/*/games-*.jsonl``; the runs' other
#: files are not games). They are not in the installed package: pass ``sources`` there.
DEFAULT_SOURCES: tuple[Path, ...] = (
    _BENCHMARKS / "strength",
    *sorted(_BENCHMARKS.glob("training/*/games-*.jsonl")),
)


@dataclass(frozen=True)
class GameDecisions:
    """Every decision of one recorded game, in the order played (``k`` decisions), and
    how the game ended (``p`` seats)."""

    #: ``(k, 474)`` float32 observations, each from the seat that decided.
    observations: npt.NDArray[np.float32]
    #: ``(k, 87)`` bool legal decisions.
    masks: npt.NDArray[np.bool_]
    #: ``(k,)`` the decision id played (0..86).
    actions: npt.NDArray[np.int64]
    #: ``(k,)`` the seat that decided.
    seats: npt.NDArray[np.int8]
    #: ``(p,)`` final ranks (R21: 1 wins; ties share a rank).
    ranks: npt.NDArray[np.int8]
    #: ``(p,)`` final scores (R20).
    scores: npt.NDArray[np.int32]
    #: ``(p,)`` ``rank`` rewards, ``win`` shares and ``margin`` rewards of the outcome.
    rank_rewards: npt.NDArray[np.float32]
    win_shares: npt.NDArray[np.float32]
    margins: npt.NDArray[np.float32]
    #: Who sat where (bot specs, from the arena's line), and where the game came from.
    seat_names: tuple[str, ...]
    source: str
    #: Whether the game reached its end (R19); an unfinished game's outcome is as it stood.
    over: bool


@dataclass(frozen=True)
class Decisions:
    """Decisions of many games, concatenated (``N`` decisions, ``G`` games of ``p``
    seats); each decision's outcome is its deciding seat's."""

    observations: npt.NDArray[np.float32]  #: ``(N, 474)``
    masks: npt.NDArray[np.bool_]  #: ``(N, 87)``
    actions: npt.NDArray[np.int64]  #: ``(N,)``
    seats: npt.NDArray[np.int8]  #: ``(N,)`` the deciding seat
    games: npt.NDArray[np.int32]  #: ``(N,)`` the game's index in ``game_ranks``...
    rank_rewards: npt.NDArray[np.float32]  #: ``(N,)`` the deciding seat's final reward
    win_shares: npt.NDArray[np.float32]  #: ``(N,)``
    margins: npt.NDArray[np.float32]  #: ``(N,)``
    bots: npt.NDArray[np.int16]  #: ``(N,)`` index of the deciding seat's name in ``names``
    names: tuple[str, ...]  #: every seat name met, in order of appearance
    game_ranks: npt.NDArray[np.int8]  #: ``(G, p)``
    game_scores: npt.NDArray[np.int32]  #: ``(G, p)``


def game_files(sources: Iterable[str | Path] | None = None) -> list[Path]:
    """The ``.jsonl`` files of ``sources`` (files, or directories searched recursively),
    sorted within each directory; :data:`DEFAULT_SOURCES` when None."""
    files: list[Path] = []
    for source in DEFAULT_SOURCES if sources is None else sources:
        path = Path(source)
        if path.is_dir():
            files.extend(sorted(path.rglob("*.jsonl")))
        elif path.is_file():
            files.append(path)
        else:
            hint = " (the default games are in a checkout of the project: pass sources)"
            raise FileNotFoundError(
                f"expected a games file or directory, found nothing at {path}"
                + (hint if sources is None else "")
            )
    return files


def _records(path: Path) -> Iterator[tuple[GameRecord, tuple[str, ...], str]]:
    """The games of one file: arena ``game`` lines and bare records; other arena lines
    (``match``, ``summary``) are skipped, anything else is refused with its line."""
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            where = f"{path}:{number}"
            try:
                data = json.loads(line)
            except ValueError as error:
                raise NotationError(f"{where}: expected a JSON object, {error}") from None
            if not isinstance(data, dict):
                raise NotationError(f"{where}: expected a JSON object, found {line[:40]!r}")
            if data.get("type") in ("match", "summary"):
                continue
            if data.get("type") == "game" and isinstance(data.get("record"), dict):
                record_data, names = data["record"], data.get("seats")
            elif data.get("format") == FORMAT:
                record_data, names = data, None
            else:
                raise NotationError(
                    f'{where}: expected an arena "game" line or a "{FORMAT}" record, '
                    f"found keys {sorted(data)[:6]}"
                )
            try:
                record = GameRecord.from_dict(record_data)
            except NotationError as error:
                raise NotationError(f"{where}: {error}") from None
            if not isinstance(names, list):
                names = [seat.removeprefix("bot:") for seat in record.seats]
            names = list(names) + ["?"] * (record.players - len(names))
            yield record, tuple(str(name) for name in names), where


def game_decisions(record: GameRecord, seat_names: tuple[str, ...], source: str) -> GameDecisions:
    """Replay ``record`` and collect its decisions and outcome."""
    observations, masks, actions, seats = [], [], [], []
    state = record.initial_state()
    for action in record.actions:
        seat = state.to_move
        if seat >= 0 and action.id < DECISION_IDS:  # not chance, not a resignation
            observations.append(observation(state, seat))
            masks.append(state.legal_mask())
            actions.append(action.id)
            seats.append(seat)
        state = state.apply(action)
    outcome = state.outcome()
    scores = state.scores()
    return GameDecisions(
        observations=np.array(observations, dtype=np.float32).reshape(-1, 474),
        masks=np.array(masks, dtype=np.bool_).reshape(-1, DECISION_IDS),
        actions=np.array(actions, dtype=np.int64),
        seats=np.array(seats, dtype=np.int8),
        ranks=np.array(outcome.ranks, dtype=np.int8),
        scores=np.array(scores, dtype=np.int32),
        rank_rewards=np.array(outcome.rank_rewards, dtype=np.float32),
        win_shares=np.array(outcome.win_shares, dtype=np.float32),
        margins=np.array(final_margins(scores), dtype=np.float32),
        seat_names=seat_names,
        source=source,
        over=state.is_terminal,
    )


def iter_games(
    sources: Iterable[str | Path] | None = None,
    *,
    players: int | None = None,
    bots: Iterable[str] | None = None,
    unfinished: bool = False,
) -> Iterator[GameDecisions]:
    """Every game of ``sources`` (see :func:`game_files`), replayed, one at a time:
    those of ``players`` seats only if given, those where one seat at least is one of
    ``bots`` (names as the arena writes them: ``greedy``, ``search@iterations=2000``...)
    if given. Games that did not reach their end (R19) are left out unless
    ``unfinished``."""
    wanted = None if bots is None else set(bots)
    for path in game_files(sources):
        for record, names, where in _records(path):
            if players is not None and record.players != players:
                continue
            if wanted is not None and not wanted.intersection(names):
                continue
            game = game_decisions(record, names, where)
            if unfinished or game.over:
                yield game


def load_decisions(
    sources: Iterable[str | Path] | None = None,
    *,
    players: int,
    bots: Iterable[str] | None = None,
    max_games: int | None = None,
) -> Decisions:
    """The decisions of up to ``max_games`` finished games of ``players`` seats (in file
    order) in arrays: about 200 kB of float32 per game, so a whole player count of
    the default games takes a gigabyte or more; use :func:`iter_games` to stream."""
    if max_games is not None and max_games < 0:
        raise ValueError(f"max_games must be None or >= 0, found {max_games}")
    games: list[GameDecisions] = []
    for game in iter_games(sources, players=players, bots=bots):
        if max_games is not None and len(games) >= max_games:
            break
        games.append(game)
    names: dict[str, int] = {}
    bots_column = []
    for game in games:
        ids = [names.setdefault(name, len(names)) for name in game.seat_names]
        bots_column.append(np.array(ids, dtype=np.int16)[game.seats])
    index = np.concatenate(
        [np.full(len(g.actions), k, np.int32) for k, g in enumerate(games)]
        or [np.zeros(0, np.int32)]
    )

    def column(
        parts: list[npt.NDArray[np.generic]], dtype: type, width: int | None = None
    ) -> npt.NDArray[np.generic]:
        shape = (0,) if width is None else (0, width)
        return np.concatenate(parts).astype(dtype) if parts else np.zeros(shape, dtype)

    def own(field: str) -> npt.NDArray[np.float32]:
        return column([getattr(g, field)[g.seats] for g in games], np.float32)  # type: ignore[return-value]

    return Decisions(
        observations=column([g.observations for g in games], np.float32, 474),  # type: ignore[arg-type]
        masks=column([g.masks for g in games], np.bool_, DECISION_IDS),  # type: ignore[arg-type]
        actions=column([g.actions for g in games], np.int64),  # type: ignore[arg-type]
        seats=column([g.seats for g in games], np.int8),  # type: ignore[arg-type]
        games=index,
        rank_rewards=own("rank_rewards"),
        win_shares=own("win_shares"),
        margins=own("margins"),
        bots=column(bots_column, np.int16),  # type: ignore[arg-type]
        names=tuple(names),
        game_ranks=np.array([g.ranks for g in games], dtype=np.int8).reshape(-1, players),
        game_scores=np.array([g.scores for g in games], dtype=np.int32).reshape(-1, players),
    )
