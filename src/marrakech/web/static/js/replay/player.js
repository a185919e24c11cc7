// Stepping through a replay: go to a position (animating one step forward), play and
// pause, the keys.

import { clear, isTyping } from "../dom.js";
import { t } from "../i18n.js";
import { playEvents, speedSetting, timings, addToTurn } from "../animate.js";
import { render, icon } from "./view.js";

/** @typedef {import("../replay.js").Replay} Replay */

/** The events of the turn that the move at `pos` ends (a turn is at most a handful). @param {Replay} R */
export function turnBefore(R, pos) {
  return addToTurn([], withStarts(R, Math.max(0, pos - 8), pos));
}

/** Events from..to with where each walk began (the position before it). @param {Replay} R */
function withStarts(R, from, to) {
  const data = R.r.data;
  return data.events.slice(from, to).map((ev, i) => {
    const before = data.states[from + i].assam;
    return ev.phase === "roll" ? { ...ev, from: { square: before.square, facing: before.facing } } : ev;
  });
}

/** Where the replay is going: steps asked during an animation add up. @param {Replay} R */
export function cur(R) {
  const r = R.r;
  return r.queued ?? r.target ?? r.pos;
}

/** Show position `pos`; one step forward is animated when `animate`. @param {Replay} R */
export async function go(R, pos, animate) {
  const { r, ui } = R;
  if (!r.data) return;
  const n = r.data.states.length - 1;
  pos = Math.max(0, Math.min(n, pos));
  if (r.busy) {
    r.queued = pos; // shown as soon as the running animation ends
    return;
  }
  if (pos === r.pos) return;
  if (animate && pos === r.pos + 1) {
    r.busy = true;
    r.target = pos;
    try {
      ui.board.mark({});
      await playEvents({
        board: ui.board,
        panels: ui.panels,
        die: ui.die,
        events: [r.data.events[pos - 1]],
        next: r.data.states[pos],
        ms: timings(speedSetting(), 0),
        render: (next) => ui.board.render(next),
      });
    } finally {
      r.busy = false;
      r.target = null;
    }
  }
  r.pos = pos;
  render(R);
  if (r.queued !== null && r.queued !== undefined) {
    const next = r.queued;
    r.queued = null;
    go(R, next, false);
  }
}

/** @param {Replay} R */
export function togglePlay(R) {
  const { r, ui } = R;
  r.playing = !r.playing;
  clear(ui.playBtn).append(icon(r.playing ? "pause" : "play"));
  ui.playBtn.setAttribute("aria-label", r.playing ? t("replay.pause") : t("replay.play"));
  if (r.playing) step(R);
  else clearTimeout(r.timer);
}

/** @param {Replay} R */
async function step(R) {
  const r = R.r;
  if (!r.playing || !r.data) return;
  if (r.pos >= r.data.states.length - 1) {
    togglePlay(R);
    return;
  }
  await go(R, r.pos + 1, true);
  r.timer = setTimeout(() => step(R), speedSetting() === "off" ? 150 : 450);
}

/** → ← Home End step; Space plays and pauses. @param {Replay} R @param {KeyboardEvent} e */
export function onKey(R, e) {
  const r = R.r;
  if (isTyping(e) || e.altKey || e.ctrlKey || e.metaKey || document.querySelector("dialog[open]")) return;
  if (!r.data) return;
  const onButton = e.target instanceof HTMLElement && ["BUTTON", "A"].includes(e.target.tagName);
  let handled = true;
  if (e.key === "ArrowRight") go(R, cur(R) + 1, true);
  else if (e.key === "ArrowLeft") go(R, cur(R) - 1, false);
  else if (e.key === "Home") go(R, 0, false);
  else if (e.key === "End") go(R, r.data.states.length - 1, false);
  else if (e.key === " " && !onButton) togglePlay(R);
  else handled = false;
  if (handled) e.preventDefault();
}
