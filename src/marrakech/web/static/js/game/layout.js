// The game page's layout: the board, and beside it the turn card (die, status, clock,
// "since your turn", the controls, notices), the seat controls, the chat, the players' panels,
// the log and the meta line. Built again when the language changes.

import { h, clear } from "../dom.js";
import { Board } from "../board.js";
import { Panels, Die, Log } from "../panels.js";

/**
 * @typedef {object} Layout  The page's parts that the game modules fill in.
 * @property {HTMLElement} boardWrap
 * @property {Board} board
 * @property {Panels} panels
 * @property {Die} die
 * @property {Log} log
 * @property {HTMLElement} statusText
 * @property {HTMLElement} statusSwatches
 * @property {HTMLElement} conn
 * @property {HTMLElement} clockEl
 * @property {HTMLElement} controls
 * @property {HTMLElement} controlsCard
 * @property {HTMLElement} noticeEl
 * @property {HTMLElement} sinceEl
 * @property {HTMLElement} seatCtl
 * @property {HTMLElement} chatHost  Where game/chat.js builds the chat panel.
 * @property {any} chat  The chat panel's parts (game/chat.js).
 * @property {HTMLElement} metaLine
 * @property {HTMLElement|null} overlay  The hotseat handover, while shown.
 * @property {HTMLElement|null} orientInfo  The orientation preview's table host.
 * @property {any} noticeTimer
 */

/**
 * Empty `root` and lay the game page out in it.
 * @param {HTMLElement} root
 * @param {(square: string) => void} onSquare  A square of the board was clicked.
 * @returns {Layout}
 */
export function build(root, onSquare) {
  clear(root);
  const boardWrap = h("div", { class: "board-wrap" });
  const board = new Board(boardWrap, { onSquare });
  const side = h("div", { class: "side" });
  const statusSwatches = h("span", { class: "status-swatches" });
  const statusText = h("span", { "data-testid": "status", id: "turn-status" });
  const conn = h("span", { class: "conn", "data-testid": "connection", role: "status" });
  const clockEl = h("span", { class: "clock", "data-testid": "clock", hidden: true, "aria-live": "off" });
  const statusLine = h("div", { class: "status-line" }, statusSwatches, statusText);
  const dieHost = h("div", {});
  const die = new Die(dieHost);
  const controls = h("div", { class: "control-body", "data-testid": "controls" });
  const sinceEl = h("div", { class: "since-host" });
  const noticeEl = h("p", { class: "notice", hidden: true, role: "alert", "data-testid": "notice" });
  const controlsCard = h(
    "section",
    { class: "controls", "aria-labelledby": "turn-status" },
    h(
      "div",
      { class: "turn-row" },
      dieHost,
      h("div", { style: { flex: "1", minWidth: "0" } }, statusLine, h("div", { class: "conn-row" }, conn, clockEl)),
    ),
    sinceEl,
    controls,
    noticeEl,
  );
  side.append(controlsCard);
  const seatCtl = h("div", { class: "seat-controls", "data-testid": "seat-controls" });
  side.append(seatCtl);
  const chatHost = h("div", { class: "chat-host" });
  side.append(chatHost);
  const panels = new Panels(side);
  const log = new Log(side);
  const metaLine = h("div", { class: "meta-line" });
  side.append(metaLine);
  root.append(h("div", { class: "game", "data-testid": "game" }, boardWrap, side));
  return {
    boardWrap,
    board,
    panels,
    die,
    log,
    statusText,
    statusSwatches,
    conn,
    clockEl,
    controls,
    controlsCard,
    noticeEl,
    sinceEl,
    seatCtl,
    chatHost,
    chat: null,
    metaLine,
    overlay: null,
    orientInfo: null,
    noticeTimer: null,
  };
}

/**
 * @typedef {object} Ctx  One mounted game page: what its modules share.
 * @property {HTMLElement} root  The page's element (its data-* say the page's state).
 * @property {string} gameId
 * @property {string[]} tokens  The seat tokens of the link.
 * @property {import("./state.js").GameState} g
 * @property {import("./chat.js").ChatState} chat
 * @property {Layout} ui
 * @property {import("../net.js").GameSocket} socket
 * @property {import("./controller.js").Controller} ctrl  What the views ask of the page.
 */
