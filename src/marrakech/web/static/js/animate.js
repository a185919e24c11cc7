// Showing what an event did: the turn, the die, Assam's walk, the tithe, the new carpet.
// Used by the live game and by the replay. Speeds are a user setting.

import { sleep } from "./dom.js";

const KEY = "marrakech.speed";
export const SPEEDS = ["normal", "fast", "off"];
/** @typedef {import("./board.js").StateView} StateView */
/** Milliseconds of each part of an animation. @typedef {{turn: number, die: number, step: number, tithe: number, pause: number}} Timings */
/** @type {Record<string, Timings>} */
const TIMINGS = {
  normal: { turn: 320, die: 650, step: 300, tithe: 900, pause: 350 },
  fast: { turn: 120, die: 200, step: 90, tithe: 300, pause: 100 },
  off: { turn: 0, die: 0, step: 0, tithe: 0, pause: 0 },
};

export function speedSetting() {
  const param = new URLSearchParams(location.search).get("speed");
  if (param !== null && SPEEDS.includes(param)) return param;
  try {
    const stored = localStorage.getItem(KEY);
    if (stored !== null && SPEEDS.includes(stored)) return stored;
  } catch (_) {
    // Fall through to the default.
  }
  if (window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches) {
    return "fast";
  }
  return "normal";
}

/** @param {string} speed */
export function setSpeed(speed) {
  try {
    localStorage.setItem(KEY, speed);
  } catch (_) {
    // Only for this page then.
  }
}

/** Timings for a speed; a backlog of waiting updates makes the page catch up faster. @param {string} speed */
export function timings(speed, backlog = 0) {
  if (backlog > 3) return TIMINGS.off;
  if (backlog > 0 && speed === "normal") return TIMINGS.fast;
  return TIMINGS[speed] || TIMINGS.normal;
}

/**
 * Play events on the board, panels and die, then show `next` (the state after them).
 * @param {{board: import("./board.js").Board, panels: import("./panels.js").Panels,
 *   die: import("./panels.js").Die | null, events: GameEvent[], next: StateView, ms: Timings,
 *   render: (next: StateView) => void}} play
 * @returns the squares of the carpet placed last, if any
 */
export async function playEvents({ board, panels, die, events, next, ms, render }) {
  let placed = null;
  for (const ev of events) {
    if (ev.phase === "orient" && ev.facing_after) {
      await board.animateTurn(ev.facing_after, ms.turn);
    } else if (ev.phase === "roll") {
      // Where the walk began, so the last move's trail can be drawn after it.
      ev.from = ev.from || { ...board.assamAt };
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
    const key = [...placed].sort().join("-");
    for (const g of /** @type {NodeListOf<SVGElement>} */ (board.carpets.querySelectorAll(".carpet"))) {
      const squares = g.dataset.squares;
      if (squares === key) g.classList.add("placed-now");
    }
    await sleep(ms.pause);
  }
  return placed;
}

const TURN_PHASES = new Set(["orient", "roll", "place"]);

/**
 * One event of a turn as the server sends it (docs/web-protocol.md): its phase, seat,
 * action and what it did.
 * @typedef {Record<string, any>} GameEvent
 */

/**
 * Add events to the turn being shown: a turn is one seat's orient, roll and place (in
 * either order, R32); an event of another seat, or of a phase the turn already has,
 * starts the next turn. Returns the events of the turn now last.
 * @param {GameEvent[]} turn
 * @param {GameEvent[]} events
 */
export function addToTurn(turn, events) {
  let current = turn;
  for (const ev of events) {
    // A resignation (R22) may come on anyone's turn: it is not part of a turn.
    if (!TURN_PHASES.has(ev.phase) || String(ev.action).startsWith("resign")) continue;
    if (current.length && (current[0].seat !== ev.seat || current.some((e) => e.phase === ev.phase))) {
      current = [];
    }
    current = [...current, ev];
  }
  return current;
}

/**
 * What a turn did, as Board.showLastMove draws it: the carpet placed and its colour,
 * Assam's walk (from where, facing, each step) and the die, the tithe paid.
 * @typedef {{seat: number, placed: string[] | null, colour: string | null,
 *   walk: {start: string | null, facing: string, path: any[]} | null,
 *   tithe: Record<string, any> | null, roll: number | null}} LastMove
 */

/** What a turn's events did, for Board.showLastMove (null when nothing to show). @param {GameEvent[]} turn */
export function lastMove(turn) {
  if (!turn.length) return null;
  /** @type {LastMove} */
  const move = { seat: turn[0].seat, placed: null, colour: null, walk: null, tithe: null, roll: null };
  for (const ev of turn) {
    if (ev.phase === "roll") {
      const from = ev.from || null;
      move.roll = Number(String(ev.action).replace(/^r/, ""));
      move.walk = {
        start: from ? from.square : null,
        facing: from ? from.facing : ev.facing_before,
        path: ev.path || [],
      };
      if (ev.tithe) {
        const end = ev.path && ev.path.length ? ev.path[ev.path.length - 1].square : null;
        move.tithe = { ...ev.tithe, labelAt: end };
      }
    } else if (ev.phase === "place" && ev.placed) {
      move.placed = ev.placed;
      move.colour = ev.placed_colour;
    }
  }
  return move;
}

/** The same shape as lastMove() from the server's TurnSummary (a welcome's last_move). @param {Record<string, any> | null} summary */
export function summaryMove(summary) {
  if (!summary) return null;
  // walk: where Assam stood, then each step with its arcs (R2), as the live events draw it.
  const [from, ...path] = summary.walk;
  return {
    seat: summary.seat,
    placed: summary.placed,
    colour: summary.colour,
    roll: summary.roll,
    walk: path.length ? { start: from.square, facing: from.facing, path } : null,
    tithe: summary.tithe ? { ...summary.tithe, labelAt: summary.path[summary.path.length - 1] || null } : null,
  };
}
