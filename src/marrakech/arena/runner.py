"""Running a match: local processes or a Ray cluster, a results file, progress, resume.

The results file is JSON Lines: a header line ``{"type": "match", ...}`` with the match
configuration, then one ``{"type": "game", ...}`` line per finished game (in the order
games finish, each with its full game record), appended and flushed as soon as the game
ends; ``run_match`` appends a ``{"type": "summary", ...}`` line at the end. Stopping
(Ctrl-C) keeps every finished game; ``resume`` reads the file back, checks that it is
the same match, and plays only the games that are missing.

Because each game depends only on ``(seed, index)`` (:mod:`marrakech.arena.match`), the
same match gives the same games with any number of workers and on any backend.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from multiprocessing import get_context
from pathlib import Path
from typing import IO, Any

from marrakech.arena.match import GameResult, MatchConfig, play_game
from marrakech.arena.stats import summarise
from marrakech.errors import MarrakechError
from marrakech.record import GameRecord, read_record, read_text

BACKENDS = ("local", "ray")

ProgressCallback = Callable[[int, int, float], None]


@dataclass
class MatchOutcome:
    """Finished games (sorted by index) and whether the match stopped early."""

    config: MatchConfig
    games: list[GameResult] = field(default_factory=list)
    interrupted: bool = False

    @property
    def complete(self) -> bool:
        return len(self.games) == self.config.games and not self.interrupted


def read_results(path: str | os.PathLike[str]) -> tuple[MatchConfig, list[GameResult]]:
    """The match header and the finished games of a results file (a torn last line, left
    by a hard kill, is ignored). When a match was extended, the last header counts."""
    config: MatchConfig | None = None
    games: dict[int, GameResult] = {}
    lines = read_text(path, "results file").split("\n")
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except ValueError:
            if number >= len(lines) - 1:
                continue  # the line being written when the run was killed
            raise MarrakechError(f"{path}, line {number}: expected JSON") from None
        kind = data.get("type") if isinstance(data, dict) else None
        if kind == "match":
            config = MatchConfig.from_dict(data)
        elif kind == "game":
            result = GameResult.from_dict(data)
            games[result.index] = result
    if config is None:
        raise MarrakechError(f"{path}: expected a match header line, found none")
    return config, [games[i] for i in sorted(games)]


def is_results_file(text: str) -> bool:
    """Whether ``text`` is an arena results file (its first line a match header)."""
    first = text.lstrip().split("\n", 1)[0]
    try:
        data = json.loads(first)
    except ValueError:
        return False
    return isinstance(data, dict) and data.get("type") == "match"


def read_game(path: str | os.PathLike[str], game: int | None = None) -> GameRecord:
    """A game record from ``path``: a JSON game record, or game number ``game`` (its
    index, from 0) of an arena results file."""
    if not is_results_file(read_text(path)):
        if game is not None:
            raise MarrakechError(f"{path} holds one game record: --game is for arena results")
        return read_record(path)
    _, games = read_results(path)
    found = {result.index: result.record for result in games}
    if game is None or game not in found:
        indices = f"{min(found)}..{max(found)}" if found else "none yet"
        asked = "" if game is None else f", found --game {game}"
        raise MarrakechError(
            f"{path} holds arena results of {len(found)} games: choose one with --game N "
            f"(games {indices}{asked})"
        )
    return found[game]


class _ResultsFile:
    def __init__(self, path: Path, config: MatchConfig, fresh: bool) -> None:
        self.path = path
        if fresh:
            path.parent.mkdir(parents=True, exist_ok=True)
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(json.dumps({"type": "match", **config.to_dict()}) + "\n")
        self._handle: IO[str] = open(path, "a", encoding="utf-8")  # noqa: SIM115

    def header(self, config: MatchConfig) -> None:
        """A new header (the match extended to more games); the last one counts."""
        self._handle.write(json.dumps({"type": "match", **config.to_dict()}) + "\n")
        self._handle.flush()

    def add(self, result: GameResult) -> None:
        self._handle.write(json.dumps(result.to_dict(), separators=(",", ":")) + "\n")
        self._handle.flush()

    def summary(self, games: list[GameResult]) -> None:
        rows = [row.to_dict() for row in summarise(games)]
        self._handle.write(json.dumps({"type": "summary", "games": len(games), "bots": rows}))
        self._handle.write("\n")
        self._handle.flush()

    def close(self) -> None:
        self._handle.close()


def _play(config: MatchConfig, index: int) -> GameResult:
    return play_game(config, index)


def _worker(jobs: Any, results: Any) -> None:
    """A local worker process: play the games it is given until it gets None."""
    # Workers leave Ctrl-C to the parent, which stops the match cleanly.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    results.put(("ready", None))
    while (job := jobs.get()) is not None:
        try:
            results.put(("game", play_game(*job)))
        except Exception as error:  # a bot that breaks: report it, do not hang the match
            results.put(("error", f"game {job[1]}: {type(error).__name__}: {error}"))


#: How long a worker process may take to start (interpreter, imports, compiled kernels).
START_SECONDS = 120.0

_NOT_STARTED = (
    "the arena's worker processes stopped before they started (exit code {code}). Started "
    'from a script, run_match must sit under `if __name__ == "__main__":`: each worker '
    "imports the script again, and without that guard it starts the match again."
)


def _local(config: MatchConfig, todo: list[int], workers: int) -> Iterator[GameResult]:
    """Play ``todo`` in ``workers`` processes (or here, for one), results as they finish.

    A worker that dies is an error, never restarted: a multiprocessing pool restarts
    workers that die at start forever, which is what a script without a main guard does.
    """
    if workers <= 1 or len(todo) <= 1:
        for index in todo:
            yield play_game(config, index)
        return
    context = get_context("spawn")  # no fork of a parent that may hold threads (Numba, Ray)
    jobs, results = context.Queue(), context.Queue()
    processes = [
        context.Process(target=_worker, args=(jobs, results), daemon=True)
        for _ in range(min(workers, len(todo)))
    ]
    for index in todo:
        jobs.put((config, index))
    for _ in processes:
        jobs.put(None)
    for process in processes:
        process.start()
    ready = 0
    started = time.monotonic()
    remaining = len(todo)
    try:
        while remaining:
            try:
                kind, value = results.get(timeout=0.5)
            except queue.Empty:
                codes = [p.exitcode for p in processes]
                if not ready:
                    stopped = [code for code in codes if code is not None]
                    if stopped:
                        raise MarrakechError(_NOT_STARTED.format(code=stopped[0])) from None
                    if time.monotonic() - started > START_SECONDS:
                        raise MarrakechError(
                            f"no arena worker process started within {START_SECONDS:.0f} s"
                        ) from None
                elif any(code not in (None, 0) for code in codes) or None not in codes:
                    code = next((c for c in codes if c), codes[0])
                    raise MarrakechError(
                        f"an arena worker process stopped (exit code {code}) with "
                        f"{remaining} games left"
                    ) from None
                continue
            if kind == "ready":
                ready += 1
            elif kind == "error":
                raise MarrakechError(f"an arena game failed: {value}")
            else:
                remaining -= 1
                yield value
    finally:
        # Leaving (the end, Ctrl-C, an error) stops the workers at once; games that were
        # still running are simply played again by a resumed run.
        for process in processes:
            if process.is_alive():
                process.terminate()
        for process in processes:
            process.join(timeout=5)
        for channel in (jobs, results):
            channel.cancel_join_thread()
            channel.close()


def _ray(
    config: MatchConfig, todo: list[int], workers: int, address: str | None
) -> Iterator[GameResult]:
    try:
        import ray
    except ImportError:
        raise MarrakechError("the ray backend needs Ray: pip install 'marrakech[dist]'") from None
    started_here = False
    if not ray.is_initialized():
        if address:
            ray.init(address=address, log_to_driver=False)
        else:
            ray.init(num_cpus=max(1, workers), log_to_driver=False, include_dashboard=False)
        started_here = True
    remote = ray.remote(num_cpus=1)(_play)
    pending: list[Any] = []
    try:
        window = max(1, workers) * 2
        queue = iter(todo)
        pending = [remote.remote(config, i) for i in _take(queue, window)]
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            for ref in done:
                yield ray.get(ref)
                pending.extend(remote.remote(config, i) for i in _take(queue, 1))
    finally:
        for ref in pending:
            ray.cancel(ref, force=True)
        if started_here:
            ray.shutdown()


def _take(items: Iterator[int], count: int) -> list[int]:
    taken: list[int] = []
    for item in items:
        taken.append(item)
        if len(taken) >= count:
            break
    return taken


def run_match(
    config: MatchConfig,
    *,
    workers: int = 1,
    backend: str = "local",
    address: str | None = None,
    out: str | os.PathLike[str] | None = None,
    resume: bool = False,
    progress: ProgressCallback | None = None,
) -> MatchOutcome:
    """Play the match (or the games a resumed results file still misses).

    ``progress(done, total, elapsed_seconds)`` is called after each game. Ctrl-C
    (KeyboardInterrupt) stops the match: the outcome holds the finished games and
    ``interrupted`` is True.

    >>> outcome = run_match(MatchConfig(2, ("greedy", "random"), games=2, seed=3))
    >>> len(outcome.games), outcome.complete
    (2, True)
    """
    if backend not in BACKENDS:
        raise MarrakechError(f"expected a backend among {', '.join(BACKENDS)}, found {backend!r}")
    if workers < 1:
        raise MarrakechError(f"expected at least 1 worker, found {workers}")
    finished: dict[int, GameResult] = {}
    path = Path(out) if out is not None else None
    if resume:
        if path is None:
            raise MarrakechError("resume needs the results file to continue")
        stored, games = read_results(path)
        # Game i depends on (seed, i) only, so a match may be extended to more games.
        if replace(stored, games=config.games) != config:
            raise MarrakechError(
                f"{path} holds another match ({stored.to_dict()}), not {config.to_dict()}"
            )
        finished = {g.index: g for g in games if g.index < config.games}
    results = _ResultsFile(path, config, fresh=not resume) if path is not None else None
    if results is not None and resume and stored.games != config.games:
        results.header(config)
    todo = [i for i in range(config.games) if i not in finished]
    outcome = MatchOutcome(config)
    started = time.perf_counter()
    if progress is not None:
        progress(len(finished), config.games, 0.0)
    source: Iterable[GameResult]
    if backend == "ray":
        source = _ray(config, todo, workers, address)
    else:
        source = _local(config, todo, workers)
    try:
        for result in source:
            finished[result.index] = result
            if results is not None:
                results.add(result)
            if progress is not None:
                progress(len(finished), config.games, time.perf_counter() - started)
    except KeyboardInterrupt:
        outcome.interrupted = True
    finally:
        close = getattr(source, "close", None)
        if close is not None:
            close()
        outcome.games = [finished[i] for i in sorted(finished)]
        if results is not None:
            if not outcome.interrupted and len(outcome.games) == config.games:
                results.summary(outcome.games)
            results.close()
    return outcome


class ProgressBar:
    """A one-line progress bar with the time left, on stderr.

    On a terminal it redraws in place; otherwise it prints a line every 10%.
    """

    def __init__(self, stream: IO[str] | None = None, width: int = 30) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.width = width
        self.tty = self.stream.isatty()
        self._first: tuple[int, float] | None = None
        self._last_decile = -1

    def __call__(self, done: int, total: int, elapsed: float) -> None:
        if self._first is None:
            self._first = (done, elapsed)
        played = done - self._first[0]
        rate = played / elapsed if elapsed > 0 and played else 0.0
        left = (total - done) / rate if rate else None
        filled = int(self.width * done / total) if total else self.width
        bar = "#" * filled + "." * (self.width - filled)
        eta = "--:--" if left is None else _clock(left)
        line = (
            f"[{bar}] {done}/{total} games {done / total:4.0%}  "
            f"elapsed {_clock(elapsed)}  left {eta}"
        )
        if self.tty:
            end = "\n" if done >= total else ""
            self.stream.write("\r" + line + end)
            self.stream.flush()
        else:
            decile = int(10 * done / total) if total else 10
            if decile != self._last_decile:
                self._last_decile = decile
                self.stream.write(line + "\n")
                self.stream.flush()

    def finish(self) -> None:
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()


def _clock(seconds: float) -> str:
    seconds = int(seconds)
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"
