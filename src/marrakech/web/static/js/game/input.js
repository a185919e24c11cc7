// What the player's presses do: the hint asked, the orientation and carpet previews, the
// keys. A touch previews first and acts on a second tap (or the confirm button); a mouse
// click or a key acts at once. The controller (controller.js) hands these to the views;
// what they send goes through its `act`, what they change is redrawn by its
// `redrawControls`.

import { isTyping } from "../dom.js";
import { t } from "../i18n.js";
import { touching } from "./pointer.js";
import { activeSeat, placements, partnersOf, findPlacement, currentHint, advised, hintsAllowed } from "./state.js";

/** @typedef {import("./layout.js").Ctx} Ctx */

/** Ask the server for advice on this page's decision (once per position). @param {Ctx} ctx */
export function askHint(ctx) {
  const { g } = ctx;
  const seat = activeSeat(g);
  if (seat === null || !hintsAllowed(g) || g.pending || g.busy || g.conn !== "open" || g.handover !== null) return;
  if (g.view.phase !== "orient" && g.view.phase !== "place") return;
  if (currentHint(g)) return void showHint(ctx);
  if (g.hintAsked === g.version) return;
  if (!ctx.socket.send({ type: "hint", seat })) {
    ctx.ctrl.notice(t("game.reconnecting"));
    return;
  }
  g.hintAsked = g.version;
  ctx.ctrl.redrawControls();
}

/** Preview the advised choice as hovering or tapping it would; the player confirms. @param {Ctx} ctx */
export function showHint(ctx) {
  const { g } = ctx;
  const best = advised(g);
  if (!best) return;
  if (g.view.phase === "orient") g.orientPreview = best;
  else {
    const [a, b] = best.split("-");
    g.placeFirst = null;
    g.placeChoice = findPlacement(g, a, b);
  }
  ctx.ctrl.redrawControls();
}

/** A touch previews the facing (and what each die result would cost); a second tap
 * @param {string} tok
 * on it, or the confirm button, sends it. A click or a key sends it at once. @param {Ctx} ctx */
export function chooseOrient(ctx, tok) {
  if (touching() && ctx.g.orientPreview !== tok) {
    ctx.g.orientPreview = tok;
    ctx.ctrl.redrawControls();
    return;
  }
  ctx.ctrl.act(tok);
}

/** No carpet previewed any more. @param {Ctx} ctx */
export function clearPlace(ctx) {
  ctx.g.placeFirst = null;
  ctx.g.placeChoice = null;
  ctx.ctrl.redrawControls();
}

/** Preview the next (1) or previous (-1) legal carpet. @param {Ctx} ctx @param {number} step */
export function cycle(ctx, step) {
  const { g } = ctx;
  const list = placements(g);
  if (!list.length) return;
  const chosen = g.placeChoice;
  let i = chosen ? list.findIndex((p) => p.token === chosen.token) : -1;
  i = i < 0 ? (step > 0 ? 0 : list.length - 1) : (i + step + list.length) % list.length;
  g.placeChoice = list[i];
  g.placeFirst = null;
  ctx.ctrl.redrawControls();
}

/** A square of the board pressed while placing: pick a carpet square by square. @param {Ctx} ctx @param {string} square */
export function clickSquare(ctx, square) {
  const { g } = ctx;
  if (!g.view || g.view.phase !== "place" || activeSeat(g) === null || g.busy || g.pending || g.handover !== null) return;
  const choice = g.placeChoice;
  if (choice && (square === choice.a || square === choice.b)) {
    // A second tap on the carpet shown places it; a mouse keeps its Place button.
    if (touching()) ctx.ctrl.act(choice.token);
    return;
  }
  const partners = g.placeFirst ? partnersOf(g, g.placeFirst) : [];
  if (g.placeFirst && partners.includes(square)) {
    g.placeChoice = findPlacement(g, g.placeFirst, square);
  } else if (g.placeFirst === square) {
    g.placeFirst = null;
    g.placeChoice = null;
  } else if (partnersOf(g, square).length) {
    g.placeFirst = square;
    const mine = partnersOf(g, square);
    g.placeChoice = mine.length === 1 ? findPlacement(g, square, mine[0]) : null;
  }
  ctx.ctrl.redrawControls();
}

/** @type {Record<string, string>} */
const ORIENT_KEYS = { ArrowLeft: "L", ArrowRight: "R", ArrowUp: "S" };

/** A key while orienting; true when it was one of the phase's. @param {Ctx} ctx @param {KeyboardEvent} e @param {boolean} enter */
function orientKey(ctx, e, enter) {
  const { g } = ctx;
  if (e.key in ORIENT_KEYS) g.orientPreview = ORIENT_KEYS[e.key];
  else if (e.key === "Escape") g.orientPreview = null;
  else if (enter && g.orientPreview) {
    ctx.ctrl.act(g.orientPreview);
    return true;
  } else return false;
  ctx.ctrl.redrawControls();
  return true;
}

/** A key while placing; true when it was one of the phase's. @param {Ctx} ctx @param {KeyboardEvent} e @param {boolean} enter */
function placeKey(ctx, e, enter) {
  const { g } = ctx;
  if (e.key === "ArrowRight" || e.key === "ArrowDown") cycle(ctx, 1);
  else if (e.key === "ArrowLeft" || e.key === "ArrowUp") cycle(ctx, -1);
  else if (e.key === "Escape") clearPlace(ctx);
  else if (enter && g.placeChoice) ctx.ctrl.act(g.placeChoice.token);
  else return false;
  return true;
}

/** The game's keys (help.key.*): arrows preview, Enter confirms, Esc clears, H hints.
 * @param {Ctx} ctx @param {KeyboardEvent} e */
export function onKey(ctx, e) {
  const { g } = ctx;
  if (e.defaultPrevented || isTyping(e) || e.altKey || e.ctrlKey || e.metaKey) return;
  if (document.querySelector("dialog[open]")) return;
  if (!g.view || g.handover !== null) return;
  const seat = activeSeat(g);
  if (seat === null || g.busy || g.pending || g.conn !== "open") return;
  const onButton = e.target instanceof HTMLElement && ["BUTTON", "A", "SUMMARY", "SELECT"].includes(e.target.tagName);
  const enter = (e.key === "Enter" || e.key === " ") && !onButton;
  const phase = g.view.phase;
  if ((e.key === "h" || e.key === "H") && hintsAllowed(g) && (phase === "orient" || phase === "place")) {
    e.preventDefault();
    askHint(ctx);
    return;
  }
  let handled = false;
  if (phase === "orient") handled = orientKey(ctx, e, enter);
  else if (phase === "roll" && enter) {
    ctx.ctrl.act("roll");
    handled = true;
  } else if (phase === "place") handled = placeKey(ctx, e, enter);
  if (handled) e.preventDefault();
}
