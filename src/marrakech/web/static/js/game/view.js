// The status line and the clock, and the notice under the controls (the whole page is
// drawn by the controller's `redraw`).

import { clear } from "../dom.js";
import { t, plural, levelName } from "../i18n.js";
import { moverSeat, seatName, swatches } from "../panels.js";
import * as signals from "../signals.js";
import { seatInfo, clockLeft } from "./state.js";
import { clockText } from "./format.js";

/** @typedef {import("./layout.js").Ctx} Ctx */

/** Whose turn it is, in words: also whether it is this page's (returned). @param {Ctx} ctx @param {number} mover */
function statusSentence(ctx, mover) {
  const { g } = ctx;
  const name = seatName(g.view, g.meta, mover);
  const info = seatInfo(g, mover);
  const kind = info ? info.kind : "human";
  if (info && info.stand_in) return t("game.turn.stand_in", { seat: name, level: levelName(info.stand_in) });
  // "Your turn" waits for the last animation (the carpet just placed): the controls come
  // with it, and the board has finished showing the move before.
  if (g.you.includes(mover)) return t(g.busy || g.queue.length ? "game.turn.you_next" : "game.turn.you", { seat: name });
  if (kind === "bot" && g.botsBusy) return t("game.turn.bot_busy", { seat: name });
  if (kind === "bot") return t("game.turn.bot", { seat: name });
  if (kind === "open") return t("game.turn.open", { seat: name });
  if (info && info.presence === "away") return t("game.turn.away", { seat: name });
  return t("game.turn.other", { seat: name });
}

/** @param {string} conn  The connection's state. */
function connectionText(conn) {
  if (conn === "open") return t("game.connected");
  if (conn === "fatal") return "";
  return conn === "down" ? t("game.reconnecting") : t("game.loading");
}

/** @param {Ctx} ctx */
export function renderStatus(ctx) {
  const { g, ui, root } = ctx;
  const view = g.view;
  clear(ui.statusSwatches);
  const mover = moverSeat(view);
  const waiting = g.meta && g.meta.status === "waiting";
  let mine = false;
  if (view.phase === "over") {
    ui.statusText.textContent = t("game.over");
  } else if (waiting) {
    const open = g.meta.seats.filter((/** @type {{kind: string}} */ x) => x.kind === "open").length;
    ui.statusText.textContent = plural("game.waiting", open);
  } else if (mover !== null) {
    ui.statusSwatches.append(swatches(view.seats[mover].colours, 26));
    const info = seatInfo(g, mover);
    mine = g.you.includes(mover) && !(info && info.stand_in);
    ui.statusText.textContent = statusSentence(ctx, mover);
  } else ui.statusText.textContent = "";
  ui.conn.textContent = connectionText(g.conn);
  ui.conn.classList.toggle("down", g.conn === "down");
  signals.markTab(mine, mine ? t("title.your_turn", { title: t("app.title") }) : t("app.title"));
  renderClock(ctx);
  root.dataset.version = String(g.version);
  root.dataset.phase = view.phase;
  root.dataset.status = g.meta ? g.meta.status : "";
  root.dataset.busy = g.busy || g.queue.length ? "1" : "0";
  root.dataset.botsBusy = g.botsBusy ? "1" : "0";
}

/** The running clock: whose time, how much is left. @param {Ctx} ctx */
export function renderClock(ctx) {
  const { g, ui } = ctx;
  if (!ui || !ui.clockEl) return;
  const clockEl = ui.clockEl;
  const left = clockLeft(g, performance.now());
  // The clock speaks of the turn the board shows: while the move before is still drawn
  // (or the next one's clock has not come yet) it waits, never naming another seat.
  if (left === null || !g.view || g.view.phase === "over" || g.clock.seat !== moverSeat(g.view)) {
    clockEl.hidden = true;
    return;
  }
  const seat = g.clock.seat;
  const time = clockText(left);
  clockEl.hidden = false;
  clockEl.textContent = g.you.includes(seat) ? t("clock.you", { time }) : t("clock.other", { seat: seatName(g.view, g.meta, seat), time });
  clockEl.classList.toggle("urgent", left <= 10);
  clockEl.dataset.seat = String(seat);
  clockEl.dataset.left = String(Math.max(0, Math.ceil(left)));
}

/**
 * A notice under the controls for six seconds: an alert, or `info` (read politely).
 * @param {Ctx} ctx
 * @param {string} text
 */
export function showNotice(ctx, text, kind = "alert") {
  const { ui } = ctx;
  const noticeEl = ui.noticeEl;
  noticeEl.textContent = text;
  noticeEl.hidden = false;
  noticeEl.classList.toggle("info", kind === "info");
  noticeEl.setAttribute("role", kind === "info" ? "status" : "alert");
  clearTimeout(ui.noticeTimer);
  ui.noticeTimer = setTimeout(() => {
    noticeEl.hidden = true;
  }, 6000);
}
