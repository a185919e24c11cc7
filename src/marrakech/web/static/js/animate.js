// Showing what an event did: the turn, the die, Assam's walk, the tithe, the new carpet.
// Used by the live game and by the replay. Speeds are a user setting.

import { sleep } from "./dom.js";

const KEY = "marrakech.speed";
export const SPEEDS = ["normal", "fast", "off"];
const TIMINGS = {
  normal: { turn: 320, die: 650, step: 300, tithe: 900, pause: 350 },
  fast: { turn: 120, die: 200, step: 90, tithe: 300, pause: 100 },
  off: { turn: 0, die: 0, step: 0, tithe: 0, pause: 0 },
};

export function speedSetting() {
  const param = new URLSearchParams(location.search).get("speed");
  if (SPEEDS.includes(param)) return param;
  try {
    const stored = localStorage.getItem(KEY);
    if (SPEEDS.includes(stored)) return stored;
  } catch (_) {
    // Fall through to the default.
  }
  if (window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches) {
    return "fast";
  }
  return "normal";
}

export function setSpeed(speed) {
  try {
    localStorage.setItem(KEY, speed);
  } catch (_) {
    // Only for this page then.
  }
}

/** Timings for a speed; a backlog of waiting updates makes the page catch up faster. */
export function timings(speed, backlog = 0) {
  if (backlog > 3) return TIMINGS.off;
  if (backlog > 0 && speed === "normal") return TIMINGS.fast;
  return TIMINGS[speed] || TIMINGS.normal;
}

/**
 * Play events on the board, panels and die, then show `next` (the state after them).
 * @returns the squares of the carpet placed last, if any
 */
export async function playEvents({ board, panels, die, events, next, ms, render }) {
  let placed = null;
  for (const ev of events) {
    if (ev.phase === "orient" && ev.facing_after) {
      await board.animateTurn(ev.facing_after, ms.turn);
    } else if (ev.phase === "roll") {
      const steps = Number(String(ev.action).replace(/^r/, ""));
      if (die) await die.roll(steps, ms.die);
      await board.animateWalk(ev.path, ms.step);
      const tithe = ev.tithe;
      if (tithe && tithe.paid > 0) {
        board.mark({
          region: tithe.region,
          regionLabel: `${tithe.paid}`,
          labelAt: ev.path.length ? ev.path[ev.path.length - 1].square : null,
        });
        panels.delta(tithe.payer, -tithe.paid);
        panels.delta(tithe.payee, tithe.paid);
        await panels.flyCoins(tithe.payer, tithe.payee, tithe.paid, ms.tithe);
        await sleep(ms.pause);
      } else if (tithe && tithe.region && tithe.region.length) {
        // Stopped on carpets that collect nothing (own, or an eliminated merchant's).
        board.mark({ region: tithe.region });
        await sleep(ms.pause);
      }
    } else if (ev.phase === "place" && ev.placed) {
      placed = ev.placed;
    }
  }
  render(next);
  if (placed) {
    board.markLast(placed);
    const key = [...placed].sort().join("-");
    for (const g of board.carpets.querySelectorAll(".carpet")) {
      const squares = g.dataset.squares;
      if (squares === key) g.classList.add("placed-now");
    }
    await sleep(ms.pause);
  }
  return placed;
}
