// The replay page's controller: go to a position (animating one step forward), play and
// pause, the keys. It owns what changes the position and redraws through view.js; the
// view's buttons call R.ctrl (newPlayer), never this module.

import { isTyping } from "../dom.js";
import { playEvents, speedSetting, timings } from "../animate.js";
import { render, showPlaying } from "./view.js";

/** @typedef {import("../replay.js").Replay} Replay */

/** Where the replay is going: steps asked during an animation add up. @param {Replay} R */
export function cur(R) {
  const r = R.r;
  return r.queued ?? r.target ?? r.pos;
}

/** Show position `pos`; one step forward is animated when `animate`. @param {Replay} R @param {number} pos @param {boolean} animate */
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
  const { r } = R;
  r.playing = !r.playing;
  showPlaying(R);
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

/**
 * What the replay's views may ask: a position shown, a step, play or pause.
 * @typedef {object} Player
 * @property {(pos: number, animate: boolean) => void} go  Show position `pos`.
 * @property {(step: number) => void} step  One position forward (animated) or back.
 * @property {() => void} last  The last position.
 * @property {() => void} togglePlay
 */

/** The controller of the replay mounted as `R`. @param {Replay} R @returns {Player} */
export function newPlayer(R) {
  return {
    go: (pos, animate) => void go(R, pos, animate),
    step: (step) => void go(R, cur(R) + step, step > 0),
    last: () => void go(R, R.r.data ? R.r.data.states.length - 1 : 0, false),
    togglePlay: () => togglePlay(R),
  };
}
