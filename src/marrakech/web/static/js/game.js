// The live game page: /g/{id}#t=TOKEN[,TOKEN…] for seats, /g/{id} for spectators.
//
// The server sends the state and, for each seat this page holds, the tokens it may send
// now; the page draws them and sends one back. No rule is computed here. The page's
// modules, by concern (docs/web.md):
//   game/state.js       the model and how each message changes it (pure)
//   game/dispatch.js    the messages' handlers by type, the queue, the settling
//   game/connection.js  the socket's status and messages
//   game/layout.js      the page's parts; game/view.js draws the status and the clock
//   game/controls.js    orient, roll, place, hint; game/input.js what presses do
//   game/seats.js, game/meta.js  the seat controls and the meta line (the side panels)
//   game/dialogs.js     handover, resignation, end screen, rematch, no such game
//   game/chat.js        the chat: lines, quick reactions, mutes and reports
//   game/format.js      numbers and sentences (pure)

import { t, onLangChange } from "./i18n.js";
import { speedSetting } from "./animate.js";
import { newState, tokensFromHash } from "./game/state.js";
import { build } from "./game/layout.js";
import { openSocket } from "./game/connection.js";
import { renderAll, renderClock } from "./game/view.js";
import { clickSquare, onKey } from "./game/input.js";
import { newChat, buildChat } from "./game/chat.js";

export { applyChanges, tokensFromHash } from "./game/state.js";
export { clockText } from "./game/format.js";

/**
 * Show the game `gameId` in `root` and keep it live; returns what unmounts it.
 * @param {HTMLElement} root
 * @param {string} gameId
 */
export function mountGame(root, gameId) {
  /** @type {import("./game/layout.js").Ctx} */
  const ctx = { root, gameId, tokens: tokensFromHash(location.hash), g: newState(speedSetting()), chat: newChat(gameId), ui: null, socket: null };
  const layout = () => {
    ctx.ui = build(root, (square) => clickSquare(ctx, square));
    buildChat(ctx);
  };
  layout();
  ctx.ui.statusText.textContent = t("game.loading");
  ctx.socket = openSocket(ctx);
  ctx.socket.connect();
  const keys = (e) => onKey(ctx, e);
  document.addEventListener("keydown", keys);
  const ticker = setInterval(() => renderClock(ctx), 250);
  const offLang = onLangChange((next) => {
    layout();
    renderAll(ctx);
    ctx.ui.log.set(ctx.g.log);
    ctx.socket.setLang(next);
  });
  // Tests and curious players can look at the page's model.
  window["marrakechGame"] = ctx.g;
  return () => {
    ctx.socket.close();
    clearInterval(ticker);
    document.removeEventListener("keydown", keys);
    offLang();
    if (ctx.g.endDialog) ctx.g.endDialog.remove();
  };
}
