// The live game page: /g/{id}#t=TOKEN[,TOKEN…] for seats, /g/{id} for spectators.
//
// The server sends the state and, for each seat this page holds, the tokens it may send
// now; the page draws them and sends one back. No rule is computed here. The page's
// modules, by concern and layer (docs/web.md, docs/architecture.md "Inside the page"):
//   model        game/state.js (the model and how each message changes it),
//                game/format.js (numbers and sentences), game/pointer.js (the last press)
//   views        game/layout.js (the page's parts), game/view.js (status, clock, notice),
//                game/controls.js (orient, roll, place, hint), game/seats.js and
//                game/meta.js (the side panels), game/reminders.js, game/dialogs.js
//                (handover, resignation, end screen, no such game), game/chat.js
//   controller   game/controller.js (owns send, act and redraw; wires the views),
//                game/input.js (what presses do), game/dispatch.js (the messages'
//                handlers, the queue, the settling), game/connection.js (the socket)
// A view gets the page's Ctx and calls ctx.ctrl; no view imports another.

import { t, onLangChange } from "./i18n.js";
import { speedSetting } from "./animate.js";
import { newState, tokensFromHash } from "./game/state.js";
import { build } from "./game/layout.js";
import { openSocket } from "./game/connection.js";
import { renderClock } from "./game/view.js";
import { newController } from "./game/controller.js";
import { newChat, buildChat } from "./game/chat.js";

export { applyChanges, tokensFromHash } from "./game/state.js";
export { clockText } from "./game/format.js";

/**
 * Show the game `gameId` in `root` and keep it live; returns what unmounts it.
 * @param {HTMLElement} root
 * @param {string} gameId
 */
export function mountGame(root, gameId) {
  const later = /** @type {any} */ (null); // set just below, before anything reads it
  /** @type {import("./game/layout.js").Ctx} */
  const ctx = { root, gameId, tokens: tokensFromHash(location.hash), g: newState(speedSetting()), chat: newChat(gameId), ui: later, socket: later, ctrl: later };
  ctx.ctrl = newController(ctx);
  const layout = () => {
    ctx.ui = build(root, (square) => ctx.ctrl.clickSquare(square));
    buildChat(ctx);
  };
  layout();
  ctx.ui.statusText.textContent = t("game.loading");
  ctx.socket = openSocket(ctx);
  ctx.socket.connect();
  const keys = (/** @type {KeyboardEvent} */ e) => ctx.ctrl.onKey(e);
  document.addEventListener("keydown", keys);
  const ticker = setInterval(() => renderClock(ctx), 250);
  const offLang = onLangChange((next) => {
    layout();
    ctx.ctrl.redraw();
    ctx.ui.log.set(ctx.g.log);
    ctx.socket.setLang(next);
  });
  // Tests and curious players can look at the page's model.
  /** @type {any} */ (window).marrakechGame = ctx.g;
  return () => {
    ctx.socket.close();
    clearInterval(ticker);
    document.removeEventListener("keydown", keys);
    offLang();
    if (ctx.g.endDialog) ctx.g.endDialog.remove();
  };
}
