"""The replay screen: step through a game record, every position with the log up to it."""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.timer import Timer
from textual.widgets import Static

from marrakech.actions import Roll
from marrakech.record import GameRecord
from marrakech.tui.board import BoardView
from marrakech.tui.screen_base import Host, TableScreen, Timing, walk_frames
from marrakech.tui.session import SeatSpec, record_seats
from marrakech.tui.strings import t
from marrakech.tui.widgets import GameLog, event_text


class ReplayScreen(TableScreen):
    """Step through a game record: every position, with the log up to it."""

    KEYS = "keys.replay"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("right,down,l,L", "step(1)", show=False),
        Binding("left,up,h,H", "step(-1)", show=False),
        Binding("pagedown", "step(10)", show=False),
        Binding("pageup", "step(-10)", show=False),
        Binding("home", "jump(0)", show=False),
        Binding("end", "jump(-1)", show=False),
        Binding("space", "autoplay", show=False),
        Binding("p,P", "play_from_here", show=False),
        Binding("question_mark,f1", "help", show=False),
        Binding("q,Q,escape", "leave", show=False),
    ]

    def __init__(self, host: Host, record: GameRecord, timing: Timing | None = None) -> None:
        super().__init__(host)
        self.record = record
        self.timing = timing or Timing()
        self.states = list(record.states())
        self.events = [
            state.describe(action)
            for state, action in zip(self.states, record.actions, strict=False)
        ]
        self.index = 0
        self.timer: Timer | None = None

    def compose(self) -> ComposeResult:
        yield from self.compose_table(self.states[0])

    def on_mount(self) -> None:
        self.refresh_language()

    @property
    def seats(self) -> tuple[SeatSpec, ...]:
        return record_seats(self.record, strict=False)

    def refresh_language(self) -> None:
        self.fit(self.size)
        self.query_one(GameLog).rebuild(self.events[: self.index], self.lang)
        self.show()

    def show(self) -> None:
        lang = self.lang
        state = self.states[self.index]
        event = self.events[self.index - 1] if self.index else None
        view = BoardView(state)
        if event is not None and isinstance(event.action, Roll):
            walked = walk_frames(event)[-1]
            view = BoardView(state, trail=walked.trail, arcs=walked.arcs, region=walked.region)
        self.show_table(view, self.seats)
        status = Text(t("app.title", lang), style="bold")
        status.append(" · " + t("replay.title", lang, position=self.index, count=len(self.events)))
        status.append(f" · {t('status.rules', lang, rules=state.rules.token())}")
        self.query_one("#status", Static).update(status)
        prompt = (
            event_text(self.index, event, lang)
            if event is not None
            else Text(t("replay.start", lang))
        )
        self.query_one("#prompt", Static).update(prompt)

    def action_step(self, delta: int) -> None:
        target = max(0, min(len(self.events), self.index + delta))
        log = self.query_one(GameLog)
        if target == self.index + 1:
            self.index = target
            log.add(target, self.events[target - 1], self.lang)
        elif target != self.index:
            self.index = target
            log.rebuild(self.events[:target], self.lang)
        self.show()
        if self.index == len(self.events) and self.timer is not None:
            self.timer.stop()
            self.timer = None

    def action_jump(self, where: int) -> None:
        self.action_step((len(self.events) if where < 0 else 0) - self.index)

    def action_autoplay(self) -> None:
        if self.timer is not None:
            self.timer.stop()
            self.timer = None
            return
        if self.index == len(self.events):
            self.action_jump(0)
        self.timer = self.set_interval(max(self.timing.replay, 0.02), partial(self.action_step, 1))

    def action_play_from_here(self) -> None:
        self.host.resume(replace(self.record, actions=self.record.actions[: self.index]))

    def action_leave(self) -> None:
        if self.timer is not None:
            self.timer.stop()
        self.host.leave_replay()


__all__ = ["ReplayScreen"]
