// The game page's controller: the one module that owns what is sent (`send`, `act`) and
// what is redrawn (`redraw` and its parts), and the one that wires the views together.
// Each view gets the page's Ctx, whose `ctrl` is this object, and calls it for whatever
// a press does; no view imports another (docs/architecture.md, "Inside the page").

import { t } from "../i18n.js";
import { lastMove, summaryMove } from "../animate.js";
import { activeSeat, noteSent, toResend } from "./state.js";
import * as input from "./input.js";
import { renderStatus, showNotice } from "./view.js";
import { renderControls } from "./controls.js";
import { renderSeatControls } from "./seats.js";
import { renderMeta } from "./meta.js";
import { remindersMenu } from "./reminders.js";
import { renderChat } from "./chat.js";
import { showEnd, showHandover, confirmResign, refreshEnd } from "./dialogs.js";

/** @typedef {import("./layout.js").Ctx} Ctx */

/**
 * What the views may ask of the page: a message sent, an action played, a part redrawn.
 * @typedef {object} Controller
 * @property {(msg: object) => void} send  Send a message; say so when the connection is down.
 * @property {(token: string) => void} act  Send the active seat's action (L, roll, c3-c4…).
 * @property {() => void} resend  Send the unanswered action again, if the game is still at its version.
 * @property {() => void} redraw  Draw everything: board, panels, status, controls, side.
 * @property {() => void} redrawControls  The turn card's controls (and the board's marks).
 * @property {() => void} redrawStatus  The status line and the clock.
 * @property {() => void} redrawMeta  The meta line under the game.
 * @property {(text: string, kind?: string) => void} notice  A notice under the controls.
 * @property {() => void} askHint
 * @property {() => void} showHint  Preview the advice that came.
 * @property {(tok: string) => void} chooseOrient
 * @property {(step: number) => void} cycle  Preview the next (1) or previous (-1) carpet.
 * @property {() => void} clearPlace
 * @property {(square: string) => void} clickSquare
 * @property {(e: KeyboardEvent) => void} onKey
 * @property {() => void} showEnd  The end screen.
 * @property {() => void} refreshEnd  The end screen again with what arrived since.
 * @property {() => void} handover  Hand the screen to the next hotseat seat.
 * @property {(seat: number) => void} confirmResign
 */

/**
 * The controller of the game page mounted as `ctx`.
 * @param {Ctx} ctx
 * @returns {Controller}
 */
export function newController(ctx) {
  /** @type {Controller} */
  const ctrl = {
    send(msg) {
      if (!ctx.socket.send(msg)) showNotice(ctx, t("game.reconnecting"));
    },
    act(token) {
      const { g } = ctx;
      const seat = activeSeat(g);
      if (seat === null || g.pending || g.busy || g.conn !== "open") return;
      const sent = ctx.socket.send({ type: "action", seat, version: g.version, action: token });
      if (!sent) {
        showNotice(ctx, t("game.reconnecting"));
        return;
      }
      noteSent(g, seat, token);
      renderControls(ctx);
    },
    resend() {
      const { g } = ctx;
      const msg = toResend(g);
      // Not connected: the reconnection's welcome sends it (dispatch.js).
      if (!msg || g.conn !== "open" || !ctx.socket.send(msg)) return;
      /** @type {import("./state.js").Unanswered} */ (g.unanswered).sends += 1;
      g.pending = true;
      renderControls(ctx);
    },
    redraw() {
      const { g, ui } = ctx;
      if (!g.view) return;
      ui.board.render(g.view);
      ui.board.showLastMove(g.lastTurn.length ? lastMove(g.lastTurn) : summaryMove(g.lastSummary));
      ui.panels.render(g.view, g.meta, g.you);
      renderStatus(ctx);
      renderControls(ctx);
      renderSeatControls(ctx);
      ctrl.redrawMeta();
      renderChat(ctx);
    },
    redrawControls: () => renderControls(ctx),
    redrawStatus: () => renderStatus(ctx),
    redrawMeta: () => renderMeta(ctx, ctx.g.you.length ? remindersMenu(ctx) : null),
    notice: (text, kind) => showNotice(ctx, text, kind),
    askHint: () => input.askHint(ctx),
    showHint: () => input.showHint(ctx),
    chooseOrient: (tok) => input.chooseOrient(ctx, tok),
    cycle: (step) => input.cycle(ctx, step),
    clearPlace: () => input.clearPlace(ctx),
    clickSquare: (square) => input.clickSquare(ctx, square),
    onKey: (e) => input.onKey(ctx, e),
    showEnd: () => showEnd(ctx),
    refreshEnd: () => refreshEnd(ctx),
    handover: () => showHandover(ctx, () => renderControls(ctx)),
    confirmResign: (seat) => confirmResign(ctx, seat),
  };
  return ctrl;
}
