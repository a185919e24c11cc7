"""A pure-Python batch engine: the games of :class:`marrakech.fast.Batch`, without Numba.

It runs core :class:`State` objects one by one: slow, but exact by construction (it *is*
the core), needs no Numba, and serves as the reference the compiled batch is compared
with. :class:`~marrakech.envs.VectorEnv` uses it with ``backend="python"``, or when
``marrakech.fast`` cannot be imported. Both follow
:class:`~marrakech.envs.engine.BatchEngine`::

    >>> batch = PythonBatch(3, players=2, seed=1)
    >>> batch.to_move().tolist(), batch.legal_masks().sum(axis=1).tolist()
    ([0, 0, 0], [3, 3, 3])
    >>> batch.step([1, 1, 1])
    >>> batch.phase().tolist()
    [2, 2, 2]

Each game has two SplitMix64 streams (:mod:`marrakech.splitmix`), seeded from the batch
seed and the game's index exactly as the compiled batch seeds its own: one for the
chance nodes, one for :meth:`~PythonBatch.sample_actions`. Every draw mirrors the
kernels (``resolve_chance``, ``batch_sample`` in ``marrakech/fast/kernels.py``), so the
same seed and the same actions play the same games on both engines. A step action
``-1`` leaves that game as it is (used to step only some games).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from marrakech import splitmix
from marrakech.actions import ACTIONS, DECISION_IDS, DRAWS, ROLLS, Action
from marrakech.batch_checks import (
    CHANCE_SLOTS,
    check_flags,
    check_games,
    check_ids,
    check_index,
    check_players,
    check_rules,
    check_search_budget,
    check_seats,
    check_seeds,
    check_state,
)
from marrakech.bots.evaluation import Weights
from marrakech.bots.greedy import best_actions, decision_scores
from marrakech.bots.search import SearchBot
from marrakech.observation import OBSERVATION_SIZE, encode_observation_f32
from marrakech.position import Phase
from marrakech.rules import DIE_FACES, STANDARD, RuleSet
from marrakech.state import State

__all__ = ["PythonBatch", "StreamRandom"]


class StreamRandom(random.Random):
    """A ``random.Random`` whose ``getrandbits(k)`` (k <= 64) is the top ``k`` bits of one
    SplitMix64 draw of ``stream`` (:mod:`marrakech.splitmix`): how a game's bot stream
    seeds the ``search`` bot's chunks, here and in the compiled batch
    (:mod:`marrakech.fast.search_batch`). Other methods are Python's own (seeded from
    the stream), which the bot does not use at a count budget.

    >>> rng = StreamRandom(7)
    >>> rng.getrandbits(63) == splitmix.mix64((7 + splitmix.GOLDEN) & splitmix.MASK) >> 1
    True
    """

    def __init__(self, stream: int) -> None:
        super().__init__(stream)
        self.stream = stream

    def getrandbits(self, k: int, /) -> int:
        if not 0 <= k <= 64:
            raise ValueError(f"StreamRandom draws 0..64 bits, found {k}")
        self.stream = (self.stream + splitmix.GOLDEN) & splitmix.MASK
        return splitmix.mix64(self.stream) >> (64 - k)


class PythonBatch:
    """``n`` core games stepped together; see the module docstring."""

    def __init__(
        self, n: int, players: int, rules: RuleSet = STANDARD, seed: int = 0, first_seat: int = 0
    ) -> None:
        self.n = check_games(n)
        check_players(players)
        self.players = players
        self.rules = check_rules(rules)
        self.first_seat = first_seat
        self._start = State.new(players, rules, first_seat)
        self._chance_streams: list[int] = []
        self._action_streams: list[int] = []
        self._bot_streams: list[int] = []
        self.seed(seed)
        self._states = [self._start] * self.n
        self._chance_log: list[list[int]] = [[] for _ in range(self.n)]
        self.reset()

    def seed(self, seed: int) -> None:
        """Reseed every game's generators (chance and :meth:`sample_actions`)."""
        self._chance_streams = splitmix.seed_streams(seed, splitmix.SALT_CHANCE, self.n)
        self._action_streams = splitmix.seed_streams(seed, splitmix.SALT_ACTIONS, self.n)
        self._bot_streams = splitmix.seed_streams(seed, splitmix.SALT_BOTS, self.n)

    def seed_games(self, seeds: Sequence[int | None]) -> None:
        """Reseed game ``i``'s generators from ``seeds[i]`` as :meth:`seed` seeds game 0;
        ``None`` leaves that game's generators as they are (``Batch.seed_games``)."""
        for i, seed in enumerate(check_seeds(seeds, self.n)):
            if seed is not None:
                self._chance_streams[i] = splitmix.seed_streams(seed, splitmix.SALT_CHANCE, 1)[0]
                self._action_streams[i] = splitmix.seed_streams(seed, splitmix.SALT_ACTIONS, 1)[0]
                self._bot_streams[i] = splitmix.seed_streams(seed, splitmix.SALT_BOTS, 1)[0]

    def _resolve(self, i: int, state: State) -> State:
        """Sample the chance nodes of game ``i`` until a decision or the end, drawing from
        its chance stream as ``kernels.resolve_chance`` does: a roll is a face of the die
        (R3), a pile's draw one of its carpets left (R7)."""
        stream = self._chance_streams[i]
        log = self._chance_log[i]
        while state.is_chance:
            outcome: Action
            if state.phase == Phase.ROLL:
                stream, face = splitmix.below(stream, len(DIE_FACES))
                outcome = ROLLS[DIE_FACES[face] - 1]
            else:  # a DRAW: the pile's first colour, then its second
                pile = state.draw_pile
                assert pile is not None
                first, second = state.hand[pile], state.hand[pile + 2]
                stream, carpet = splitmix.below(stream, first + second)
                outcome = DRAWS[pile if carpet < first else pile + 2]
            log.append(outcome.id)
            state = state.apply(outcome)
        self._chance_streams[i] = stream
        return state

    def reset(self, mask: npt.ArrayLike | None = None) -> None:
        """Start new games: all of them, or those where ``mask`` (n bools) is True."""
        games: list[int] = list(range(self.n))
        if mask is not None:
            flags = np.asarray(mask)
            check_flags(flags, self.n, "reset")
            games = np.flatnonzero(flags).tolist()
        for i in games:
            self._chance_log[i] = []
            self._states[i] = self._resolve(i, self._start)

    def step(self, actions: npt.ArrayLike, mask: npt.ArrayLike | None = None) -> None:
        """Apply one decision id per game (ignored for finished games, and where -1), then
        resolve the chance that follows. An illegal action raises before any game moves.

        With ``mask`` (n bools), only the games where it is True move, as in
        :meth:`marrakech.fast.Batch.step`.
        """
        ids = np.asarray(actions)
        check_ids(ids, self.n)
        if mask is not None:
            flags = np.asarray(mask)
            check_flags(flags, self.n, "step")
            ids = np.where(flags, ids, -1)
        moves: list[tuple[int, int]] = []
        for i, aid in enumerate(ids.tolist()):
            state = self._states[i]
            if state.is_terminal or aid == -1:
                continue
            if not (0 <= aid < DECISION_IDS and state.legal_mask()[aid]):
                raise state.illegal_action_error(aid, who=f"game {i}")
            moves.append((i, aid))
        for i, aid in moves:
            self._chance_log[i] = []
            self._states[i] = self._resolve(i, self._states[i].apply(ACTIONS[aid]))

    def sample_actions(self, out: npt.NDArray[np.int64] | None = None) -> npt.NDArray[np.int64]:
        """A uniformly random legal decision id per game (-1 for finished games), drawn
        from each game's action stream over its legal decisions in id order, as
        ``kernels.batch_sample`` does."""
        if out is None:
            out = np.empty(self.n, dtype=np.int64)
        for i, state in enumerate(self._states):
            if state.is_terminal:
                out[i] = -1
            else:
                legal = state.legal_actions()
                self._action_streams[i], k = splitmix.below(self._action_streams[i], len(legal))
                out[i] = legal[k].id
        return out

    def greedy_actions(
        self, games: npt.NDArray[np.intp], params: Sequence[float]
    ) -> npt.NDArray[np.int64]:
        """``greedy``'s decision in each of ``games`` (indices of games waiting at a
        decision) for ``params`` (:func:`~marrakech.bots.greedy.greedy_params`): the best
        of the core bot's scores (:func:`~marrakech.bots.greedy.decision_scores`), equal
        best ones chosen between with one draw of the game's bot stream, as the compiled
        batch does."""
        weights = Weights(area=params[0], region=params[1], threat=params[2])
        out = np.empty(len(games), dtype=np.int64)
        for k, i in enumerate(np.asarray(games).tolist()):
            actions, scores = decision_scores(self._states[i], weights)
            tied = best_actions(actions, scores)
            pick = 0
            if len(tied) > 1:
                self._bot_streams[i], pick = splitmix.below(self._bot_streams[i], len(tied))
            out[k] = tied[pick].id
        return out

    def greedy_scores(
        self, games: npt.NDArray[np.intp], params: Sequence[float]
    ) -> npt.NDArray[np.float64]:
        """``(len(games), 87)``: the core bot's score of every legal decision
        (:func:`~marrakech.bots.greedy.decision_scores`) by id, ``-inf`` elsewhere."""
        weights = Weights(area=params[0], region=params[1], threat=params[2])
        out = np.full((len(games), DECISION_IDS), -np.inf)
        for k, i in enumerate(np.asarray(games).tolist()):
            actions, scores = decision_scores(self._states[i], weights)
            for action, score in zip(actions, scores, strict=True):
                out[k, action.id] = score
        return out

    def search_actions(
        self, games: npt.NDArray[np.intp], bot: SearchBot, weights: npt.NDArray[np.float64]
    ) -> npt.NDArray[np.int64]:
        """The decision of ``bot`` (``search`` with ``iterations`` and no clock) in each of
        ``games``: the bot itself (with its own learned value, the one ``weights`` holds),
        its generator drawing from the game's bot stream (:class:`StreamRandom`), as the
        compiled batch does."""
        check_search_budget(bot)
        out = np.empty(len(games), dtype=np.int64)
        for k, i in enumerate(np.asarray(games).tolist()):
            rng = StreamRandom(self._bot_streams[i])
            out[k] = bot.choose(self._states[i], rng).id
            self._bot_streams[i] = rng.stream
        return out

    def legal_masks(self, out: npt.NDArray[np.bool_] | None = None) -> npt.NDArray[np.bool_]:
        """``(n, 87)`` legal decision flags (all False once a game is over)."""
        if out is None:
            out = np.empty((self.n, DECISION_IDS), dtype=np.bool_)
        for i, state in enumerate(self._states):
            out[i] = state.legal_mask()
        return out

    def phase(self) -> npt.NDArray[np.int8]:
        return np.array([int(s.phase) for s in self._states], dtype=np.int8)

    def to_move(self) -> npt.NDArray[np.int8]:
        """``(n,)`` the seat to decide, -2 for a finished game."""
        return np.array([s.to_move for s in self._states], dtype=np.int8)

    def terminated(self) -> npt.NDArray[np.bool_]:
        return np.array([s.is_terminal for s in self._states], dtype=np.bool_)

    def scores(self) -> npt.NDArray[np.int32]:
        return np.array([s.scores() for s in self._states], dtype=np.int32)

    def ranks(self) -> npt.NDArray[np.int8]:
        return np.array([s.ranks() for s in self._states], dtype=np.int8)

    def outcome_values(self) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """``(n, players)`` rank values and win shares of the finished games (each game's
        :meth:`State.outcome`), 0 for the games not over."""
        values = np.zeros((self.n, self.players), dtype=np.float64)
        shares = np.zeros((self.n, self.players), dtype=np.float64)
        for i, state in enumerate(self._states):
            if state.is_terminal:
                outcome = state.outcome()
                values[i] = outcome.rank_values
                shares[i] = outcome.win_shares
        return values, shares

    def observations(
        self, seats: npt.ArrayLike | None = None, out: npt.NDArray[np.float32] | None = None
    ) -> npt.NDArray[np.float32]:
        """``(n, 474)`` observations from each game's acting seat (``state.turn`` once
        over), or from ``seats``."""
        if out is None:
            out = np.empty((self.n, OBSERVATION_SIZE), dtype=np.float32)
        if seats is None:
            chosen = [state.turn for state in self._states]
        else:
            seat_ids = np.asarray(seats, dtype=np.int64)
            check_seats(seat_ids, self.n, self.players)
            chosen = seat_ids.tolist()
        for i, state in enumerate(self._states):
            out[i] = np.frombuffer(encode_observation_f32(state, chosen[i]), np.float32)
        return out

    def last_chance(self) -> npt.NDArray[np.int32]:
        """``(n, 4)`` chance outcome ids resolved in each game's last reset or step."""
        out = np.full((self.n, CHANCE_SLOTS), -1, dtype=np.int32)
        for i, log in enumerate(self._chance_log):
            out[i, : len(log)] = log[:CHANCE_SLOTS]
        return out

    def state(self, i: int) -> State:
        """Game ``i`` as a core :class:`State`."""
        return self._states[check_index(i, self.n)]

    def set_state(self, i: int, state: State) -> None:
        """Put ``state`` in game ``i``; a chance node is resolved at once."""
        index = check_index(i, self.n)
        self._chance_log[index] = []
        self._states[index] = self._resolve(index, check_state(state, self.players))

    def __len__(self) -> int:
        return self.n
