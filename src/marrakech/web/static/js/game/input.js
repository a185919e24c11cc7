// What the player's presses do: actions sent to the server, the hint asked, the
// orientation and carpet previews, the keys. A touch previews first and acts on a second
// tap (or the confirm button); a mouse click or a key acts at once.

import { isTyping } from "../dom.js";
import { t } from "../i18n.js";
import { activeSeat, placements, partnersOf, findPlacement, currentHint, advised, hintsAllowed } from "./state.js";
import { renderControls } from "./controls.js";
import { showNotice } from "./view.js";

/** @typedef {import("./layout.js").Ctx} Ctx */

// How the last press reached the page (shared by every game page of the tab).
let lastPointer = "mouse";
if (typeof document !== "undefined") {
  document.addEventListener("pointerdown", (e) => (lastPointer = e.pointerType || "mouse"), true);
  document.addEventListener("keydown", () => (lastPointer = "keyboard"), true);
}

/** The last press was a touch (or a pen): previews come before actions. */
export function touching() {
  return lastPointer === "touch" || lastPointer === "pen";
}

/** Send a message to the server; say so when the connection is down. @param {Ctx} ctx */
export function send(ctx, msg) {
  if (!ctx.socket.send(msg)) showNotice(ctx, t("game.reconnecting"));
}

/** Send the active seat's action (a token: L, roll, c3-c4…). @param {Ctx} ctx */
export function act(ctx, token) {
  const { g } = ctx;
  const seat = activeSeat(g);
  if (seat === null || g.pending || g.busy || g.conn !== "open") return;
  const sent = ctx.socket.send({ type: "action", seat, version: g.version, action: token });
  if (!sent) {
    showNotice(ctx, t("game.reconnecting"));
    return;
  }
  g.pending = true;
  g.lastSeat = seat;
  renderControls(ctx);
}

/** Ask the server for advice on this page's decision (once per position). @param {Ctx} ctx */
export function askHint(ctx) {
  const { g } = ctx;
  const seat = activeSeat(g);
  if (seat === null || !hintsAllowed(g) || g.pending || g.busy || g.conn !== "open" || g.handover !== null) return;
  if (g.view.phase !== "orient" && g.view.phase !== "place") return;
  if (currentHint(g)) return void showHint(ctx);
  if (g.hintAsked === g.version) return;
  if (!ctx.socket.send({ type: "hint", seat })) {
    showNotice(ctx, t("game.reconnecting"));
    return;
  }
  g.hintAsked = g.version;
  renderControls(ctx);
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
  renderControls(ctx);
}

/** A touch previews the facing (and what each die result would cost); a second tap
 * on it, or the confirm button, sends it. A click or a key sends it at once. @param {Ctx} ctx */
export function chooseOrient(ctx, tok) {
  if (touching() && ctx.g.orientPreview !== tok) {
    ctx.g.orientPreview = tok;
    renderControls(ctx);
    return;
  }
  act(ctx, tok);
}

/** No carpet previewed any more. @param {Ctx} ctx */
export function clearPlace(ctx) {
  ctx.g.placeFirst = null;
  ctx.g.placeChoice = null;
  renderControls(ctx);
}

/** Preview the next (1) or previous (-1) legal carpet. @param {Ctx} ctx */
export function cycle(ctx, step) {
  const { g } = ctx;
  const list = placements(g);
  if (!list.length) return;
  let i = g.placeChoice ? list.findIndex((p) => p.token === g.placeChoice.token) : -1;
  i = i < 0 ? (step > 0 ? 0 : list.length - 1) : (i + step + list.length) % list.length;
  g.placeChoice = list[i];
  g.placeFirst = null;
  renderControls(ctx);
}

/** A square of the board pressed while placing: pick a carpet square by square. @param {Ctx} ctx */
export function clickSquare(ctx, square) {
  const { g } = ctx;
  if (!g.view || g.view.phase !== "place" || activeSeat(g) === null || g.busy || g.pending || g.handover !== null) return;
  const choice = g.placeChoice;
  if (choice && (square === choice.a || square === choice.b)) {
    // A second tap on the carpet shown places it; a mouse keeps its Place button.
    if (touching()) act(ctx, choice.token);
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
  renderControls(ctx);
}

const ORIENT_KEYS = { ArrowLeft: "L", ArrowRight: "R", ArrowUp: "S" };

/** A key while orienting; true when it was one of the phase's. @param {Ctx} ctx */
function orientKey(ctx, e, enter) {
  const { g } = ctx;
  if (e.key in ORIENT_KEYS) g.orientPreview = ORIENT_KEYS[e.key];
  else if (e.key === "Escape") g.orientPreview = null;
  else if (enter && g.orientPreview) {
    act(ctx, g.orientPreview);
    return true;
  } else return false;
  renderControls(ctx);
  return true;
}

/** A key while placing; true when it was one of the phase's. @param {Ctx} ctx */
function placeKey(ctx, e, enter) {
  const { g } = ctx;
  if (e.key === "ArrowRight" || e.key === "ArrowDown") cycle(ctx, 1);
  else if (e.key === "ArrowLeft" || e.key === "ArrowUp") cycle(ctx, -1);
  else if (e.key === "Escape") clearPlace(ctx);
  else if (enter && g.placeChoice) act(ctx, g.placeChoice.token);
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
    act(ctx, "roll");
    handled = true;
  } else if (phase === "place") handled = placeKey(ctx, e, enter);
  if (handled) e.preventDefault();
}
