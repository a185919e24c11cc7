// The game's connection as the page shows it: the socket's status changes (connecting,
// open, down, fatal) and its messages handed to the dispatch table.

import { t, lang } from "../i18n.js";
import { GameSocket } from "../net.js";
import { receive, afterSettle } from "./dispatch.js";

/** @typedef {import("./layout.js").Ctx} Ctx */

/**
 * The game's socket for this page's seat tokens (not connected yet).
 * @param {Ctx} ctx
 * @returns {GameSocket}
 */
export function openSocket(ctx) {
  return new GameSocket(ctx.gameId, {
    tokens: ctx.tokens,
    lang: lang(),
    onMessage: (msg) => receive(ctx, msg),
    onStatus: (status, detail) => statusChanged(ctx, status, detail),
  });
}

/** @param {Ctx} ctx @param {string} status @param {any} [detail] */
function statusChanged(ctx, status, detail) {
  const { g } = ctx;
  g.conn = status;
  if (status === "fatal") {
    const code = detail ? detail.code : "";
    if (code === "not_found") g.fatal = t("game.not_found");
    else if (code === "banned") g.fatal = t("game.error.banned");
    else g.fatal = t("game.error.generic", { message: detail ? detail.message : "" });
    if (!g.busy) afterSettle(ctx);
  } else if (g.view) {
    ctx.ctrl.redrawStatus();
    if (!g.busy) ctx.ctrl.redrawControls();
  } else ctx.ui.conn.textContent = status === "down" ? t("game.reconnecting") : "";
}
