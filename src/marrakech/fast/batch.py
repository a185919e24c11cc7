"""Many games stepped at once: :class:`Batch`, the engine under the batched environments.

A batch holds ``n`` games in one ``(n, WIDTH)`` ``int32`` array. Chance nodes (the die,
R3; the 2-player piles, R7) are resolved inside with one seeded generator per game, so
after :meth:`Batch.reset` and after every :meth:`Batch.step` each game waits at a decision
(ORIENT or PLACE) or is over. Games may be at different phases::

    >>> batch = Batch(4, players=4, seed=0)
    >>> batch.phase().tolist()
    [0, 0, 0, 0]
    >>> batch.step(batch.sample_actions())
    >>> batch.phase().tolist(), batch.to_move().tolist()
    ([2, 2, 2, 2], [0, 0, 0, 0])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from marrakech import splitmix
from marrakech.actions import DECISION_IDS
from marrakech.batch_checks import (
    CHANCE_SLOTS,
    SearchSettings,
    check_flags,
    check_games,
    check_ids,
    check_index,
    check_rules,
    check_search_budget,
    check_seats,
    check_seeds,
    check_state,
)
from marrakech.fast import kernels
from marrakech.fast.playouts import outcome_arrays
from marrakech.fast.rows import (
    CHANCE_LOG,
    LAST_DUE,
    LAST_PAID,
    LAST_PAYEE,
    LAST_PAYER,
    PHASE,
    PLIES,
    POSITION_FIELDS,
    TITHE_DIRHAMS,
    TITHES,
    TURN,
    TURNS,
    WIDTH,
    from_arrays,
    to_arrays,
)
from marrakech.observation import OBSERVATION_SIZE
from marrakech.position import TERMINAL, Phase
from marrakech.rules import STANDARD, RuleSet, check_players
from marrakech.state import State

_OVER = int(Phase.OVER)
_SALT_CHANCE = np.uint64(splitmix.SALT_CHANCE)
_SALT_ACTIONS = np.uint64(splitmix.SALT_ACTIONS)
_SALT_BOTS = np.uint64(splitmix.SALT_BOTS)


class Batch:
    """``n`` games of ``players`` seats under ``rules``, in flat arrays.

    ``seed`` seeds one generator per game for the chance nodes and another per game for
    :meth:`sample_actions` (SplitMix64 streams, :mod:`marrakech.splitmix`); the same seed
    and the same actions replay the same games, here and in
    :class:`~marrakech.envs.python_batch.PythonBatch`.
    Resetting a game does not reseed it: its generator carries on, so a reset game is a
    new game. All games start from :meth:`State.new` with ``first_seat``.

    Arrays returned by the methods are new arrays unless ``out`` is given; :attr:`rows`
    is the live game array (read it, do not write it: use :meth:`set_state`).
    """

    def __init__(
        self,
        n: int,
        players: int,
        rules: RuleSet = STANDARD,
        seed: int = 0,
        first_seat: int = 0,
    ) -> None:
        self.n = check_games(n)
        check_players(players)
        self.players = players
        self.rules = check_rules(rules)
        self.first_seat = first_seat
        self._start = to_arrays(State.new(players, rules, first_seat))
        self.rows: npt.NDArray[np.int32] = np.zeros((self.n, WIDTH), dtype=np.int32)
        self._streams = np.zeros(self.n, dtype=np.uint64)
        self._action_streams = np.zeros(self.n, dtype=np.uint64)
        self._bot_streams = np.zeros(self.n, dtype=np.uint64)
        self._tree: tuple[npt.NDArray[Any], ...] = ()  # search_actions' tree, and its budget
        self._tree_iterations = 0
        self._greedy_memos: tuple[npt.NDArray[np.int32], npt.NDArray[np.float64]] | None = None
        self.seed(seed)
        self.reset()

    # -- driving ------------------------------------------------------------------------

    def seed(self, seed: int) -> None:
        """Reseed every game's generators (chance and :meth:`sample_actions`)."""
        value = np.uint64(int(seed) % 2**64)
        kernels.seed_streams(value, _SALT_CHANCE, self._streams)
        kernels.seed_streams(value, _SALT_ACTIONS, self._action_streams)
        kernels.seed_streams(value, _SALT_BOTS, self._bot_streams)

    def seed_games(self, seeds: Sequence[int | None]) -> None:
        """Reseed game ``i``'s generators from ``seeds[i]`` as :meth:`seed` seeds game 0
        (a game plays the same for the same seed wherever it sits); ``None`` leaves that
        game's generators as they are. One entry per game."""
        for i, seed in enumerate(check_seeds(seeds, self.n)):
            if seed is not None:
                self._streams[i] = splitmix.seed_streams(seed, splitmix.SALT_CHANCE, 1)[0]
                self._action_streams[i] = splitmix.seed_streams(seed, splitmix.SALT_ACTIONS, 1)[0]
                self._bot_streams[i] = splitmix.seed_streams(seed, splitmix.SALT_BOTS, 1)[0]

    def _flags(self, mask: npt.ArrayLike, what: str) -> npt.NDArray[np.bool_]:
        """``mask`` checked to be one boolean per game, as the kernels want it."""
        flags = np.asarray(mask)
        check_flags(flags, self.n, what)
        return np.ascontiguousarray(flags)

    def reset(self, mask: npt.ArrayLike | None = None) -> None:
        """Start new games: all of them, or those where ``mask`` (n bools) is True."""
        flags = np.ones(self.n, dtype=np.bool_) if mask is None else self._flags(mask, "reset")
        kernels.batch_reset(self.rows, self._streams, self._start, flags)

    def step(self, actions: npt.ArrayLike, mask: npt.ArrayLike | None = None) -> None:
        """Apply one decision id per game (ignored for finished games), then resolve the
        chance that follows (the roll after ORIENT, a pile's draw after PLACE).

        With ``mask`` (n bools), only the games where it is True move; the others keep
        their position and their last-step fields, whatever their action.
        Raises :class:`~marrakech.IllegalActionError` (a ``ValueError``) naming the first
        game whose action is illegal; then no game has moved.
        """
        ids = np.asarray(actions)
        check_ids(ids, self.n)
        if ids.dtype != np.int64 or not ids.flags.c_contiguous:
            ids = np.ascontiguousarray(ids, dtype=np.int64)
        if mask is None:
            bad = kernels.batch_step(self.rows, self._streams, ids)
        else:
            flags = self._flags(mask, "step")
            bad = kernels.batch_step_some(self.rows, self._streams, ids, flags)
        if bad >= 0:
            raise self.state(int(bad)).illegal_action_error(int(ids[bad]), who=f"game {bad}")

    def sample_actions(self, out: npt.NDArray[np.int64] | None = None) -> npt.NDArray[np.int64]:
        """A uniformly random legal decision id per game (-1 for finished games).

        Uses a per-game generator separate from the chance generator.
        """
        if out is None:
            out = np.empty(self.n, dtype=np.int64)
        kernels.batch_sample(self.rows, self._action_streams, out)
        return out

    def greedy_actions(
        self, games: npt.NDArray[np.intp], params: Sequence[float]
    ) -> npt.NDArray[np.int64]:
        """``greedy``'s decision in each of ``games`` (indices of games waiting at a
        decision), compiled (:mod:`marrakech.fast.greedy_kernels`), for ``params``
        (:func:`marrakech.bots.greedy.greedy_params`): the scores of the Python bot
        exactly, equal best ones chosen between with one draw of each game's bot stream
        (as ``PythonBatch.greedy_actions`` does)."""
        from marrakech.fast.greedy_kernels import MEMO_WIDTH, batch_greedy

        indices = np.ascontiguousarray(games, dtype=np.int64)
        if indices.size and (self.rows[indices, PHASE] == _OVER).any():
            raise ValueError("greedy_actions: every game must wait at a decision")
        out = np.empty(indices.size, dtype=np.int64)
        values = np.array(params, dtype=np.float64)
        if self._greedy_memos is None:  # the placements' scores each orientation found
            self._greedy_memos = (
                np.zeros((self.n, POSITION_FIELDS), dtype=np.int32),
                np.zeros((self.n, MEMO_WIDTH), dtype=np.float64),
            )
        memo_rows, memos = self._greedy_memos
        batch_greedy(self.rows, indices, self._bot_streams, values, out, memo_rows, memos)
        return out

    def greedy_scores(
        self, games: npt.NDArray[np.intp], params: Sequence[float]
    ) -> npt.NDArray[np.float64]:
        """``(len(games), 87)``: ``greedy``'s score of every legal decision in each of
        ``games`` (indices of games waiting at a decision), by decision id, ``-inf`` for
        the illegal ones; the Python bot's scores (``decision_scores``) exactly. No
        generator is drawn from."""
        from marrakech.fast.greedy_kernels import batch_greedy_scores

        indices = np.ascontiguousarray(games, dtype=np.int64)
        if indices.size and (self.rows[indices, PHASE] == _OVER).any():
            raise ValueError("greedy_scores: every game must wait at a decision")
        out = np.full((indices.size, DECISION_IDS), -np.inf)
        batch_greedy_scores(self.rows, indices, np.array(params, dtype=np.float64), out)
        return out

    def search_actions(
        self, games: npt.NDArray[np.intp], bot: SearchSettings, weights: npt.NDArray[np.float64]
    ) -> npt.NDArray[np.int64]:
        """The decision of ``bot`` (a compiled ``search`` with ``iterations`` and no clock,
        ``search@iterations=N``) in each of ``games`` (indices of games waiting at a
        decision), compiled for the whole batch (:mod:`marrakech.fast.search_batch`): the
        bot's own decision when its generator's ``getrandbits(63)`` draws from each
        game's bot stream (as ``PythonBatch.search_actions`` has it); ``weights``: the
        bot's learned value (``load_value(players).array()``)."""
        from marrakech.fast.search_batch import INFORMED, batch_search, tree_arrays

        iterations = check_search_budget(bot)
        indices = np.ascontiguousarray(games, dtype=np.int64)
        if indices.size and (self.rows[indices, PHASE] == _OVER).any():
            raise ValueError("search_actions: every game must wait at a decision")
        out = np.empty(indices.size, dtype=np.int64)
        if self._tree_iterations < iterations:  # a tree that cannot fill at this budget
            self._tree = tree_arrays(iterations)
            self._tree_iterations = iterations
        nodes, visits, totals, meta = self._tree
        batch_search(
            self.rows, indices, self._bot_streams, nodes, visits, totals, meta, iterations,
            bot.exploration, bot.prior, bot.playout, bot.paranoid,
            weights, INFORMED, out,
        )  # fmt: skip
        return out

    # -- reading ------------------------------------------------------------------------

    def legal_masks(self, out: npt.NDArray[np.bool_] | None = None) -> npt.NDArray[np.bool_]:
        """``(n, 87)`` legal decision flags, ids as the core numbers them (all False once
        a game is over)."""
        if out is None:
            out = np.empty((self.n, DECISION_IDS), dtype=np.bool_)
        kernels.batch_masks(self.rows, out)
        masks: npt.NDArray[np.bool_] = out
        return masks

    def phase(self) -> npt.NDArray[np.int8]:
        """``(n,)`` :class:`~marrakech.Phase` values: ORIENT 0, PLACE 2 or OVER 4."""
        return self.rows[:, PHASE].astype(np.int8)

    def to_move(self) -> npt.NDArray[np.int8]:
        """``(n,)`` the seat to decide, -2 (``TERMINAL``) for a finished game."""
        seats = self.rows[:, TURN].astype(np.int8)
        seats[self.rows[:, PHASE] == _OVER] = TERMINAL
        return seats

    def terminated(self) -> npt.NDArray[np.bool_]:
        """``(n,)`` True where the game is over (R19)."""
        over: npt.NDArray[np.bool_] = self.rows[:, PHASE] == _OVER
        return over

    def _results(self) -> npt.NDArray[np.int32]:
        block = np.empty((self.n, 3 * self.players), dtype=np.int32)
        kernels.batch_results(self.rows, block)
        return block

    def scores(self) -> npt.NDArray[np.int32]:
        """``(n, players)`` scores (R20) as they stand."""
        return self._results()[:, : self.players].copy()

    def money(self) -> npt.NDArray[np.int32]:
        """``(n, players)`` dirhams."""
        return self._results()[:, self.players : 2 * self.players].copy()

    def ranks(self) -> npt.NDArray[np.int8]:
        """``(n, players)`` ranks (R21: 1 = win, equal seats share a rank), as they stand."""
        return self._results()[:, 2 * self.players :].astype(np.int8)

    def outcome_values(self) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """``(n, players)`` rank values and ``(n, players)`` win shares of the finished
        games, as :class:`marrakech.outcome.Outcome` has them (computed by the kernel that
        mirrors it); 0 for the games not over."""
        values, shares = outcome_arrays(self.ranks())
        live = ~self.terminated()
        values[live] = 0.0
        shares[live] = 0.0
        return values, shares

    def rewards(self) -> npt.NDArray[np.float32]:
        """``(n, players)`` end-of-game rewards, 0 for games not over: the rank value of
        :class:`marrakech.outcome.Outcome` (1 for a sole winner, 0 for the last, places
        shared on ties; a game's rewards sum to ``players / 2``)."""
        rewards: npt.NDArray[np.float32] = self.outcome_values()[0].astype(np.float32)
        return rewards

    def observations(
        self, seats: npt.ArrayLike | None = None, out: npt.NDArray[np.float32] | None = None
    ) -> npt.NDArray[np.float32]:
        """``(n, 474)`` float32 ``marrakech_v0`` observations (:mod:`marrakech.observation`).

        Seen from each game's acting seat (for a finished game, seat ``state.turn``, which
        is 0), or from ``seats`` (n seat numbers). Bit-identical to
        :func:`~marrakech.observation.encode_observation`.
        """
        if seats is None:
            seat_ids = self.rows[:, TURN].astype(np.int64)
        else:
            seat_ids = np.ascontiguousarray(np.asarray(seats), dtype=np.int64)
            check_seats(seat_ids, self.n, self.players)
        if out is None:
            out = np.empty((self.n, OBSERVATION_SIZE), dtype=np.float32)
        kernels.batch_observe(self.rows, seat_ids, out)
        observations: npt.NDArray[np.float32] = out
        return observations

    # -- counters ------------------------------------------------------------------------

    def plies(self) -> npt.NDArray[np.int32]:
        """``(n,)`` actions applied since each game's start (decisions and chance)."""
        return self.rows[:, PLIES].copy()

    def turns(self) -> npt.NDArray[np.int32]:
        """``(n,)`` ORIENT decisions since each game's start."""
        return self.rows[:, TURNS].copy()

    def tithes_paid(self) -> npt.NDArray[np.int32]:
        """``(n,)`` dirhams handed over in tithes (R11, R13) since each game's start."""
        return self.rows[:, TITHE_DIRHAMS].copy()

    def tithe_counts(self) -> npt.NDArray[np.int32]:
        """``(n,)`` tithes paid since each game's start."""
        return self.rows[:, TITHES].copy()

    def last_tithes(self) -> npt.NDArray[np.int32]:
        """``(n, 4)`` the last tithe paid during the last step: payer, payee, due, paid
        (payer -1: none; under R32 one step may roll more than once)."""
        return self.rows[:, [LAST_PAYER, LAST_PAYEE, LAST_DUE, LAST_PAID]].copy()

    def last_chance(self) -> npt.NDArray[np.int32]:
        """``(n, CHANCE_SLOTS)`` the chance outcome ids resolved in the last reset or step,
        in order (-1 pad): a roll ``87..90`` after ORIENT, a draw ``91..94`` after PLACE at
        2 players (under R32 before the placer orients), two draws after a 2-player reset;
        under R32 the rolls that follow the placer's orientation."""
        return self.rows[:, CHANCE_LOG : CHANCE_LOG + CHANCE_SLOTS].copy()

    # -- core states ----------------------------------------------------------------------

    def state(self, i: int) -> State:
        """Game ``i`` as a core :class:`State`."""
        return from_arrays(self.rows[check_index(i, self.n)])

    def set_state(self, i: int, state: State) -> None:
        """Put a core ``state`` in game ``i`` (counters cleared); a chance node is resolved
        at once with the game's generator.

        The state keeps its own rule set until the game is reset (a reset starts
        ``State.new`` under the batch's rules).
        """
        index = check_index(i, self.n)
        check_state(state, self.players)
        self.rows[index] = to_arrays(state)
        kernels.batch_resolve(self.rows, self._streams, index)

    def __len__(self) -> int:
        return self.n

    def __repr__(self) -> str:
        over = int(self.terminated().sum())
        return f"Batch(n={self.n}, players={self.players}, rules={self.rules}, {over} over)"
