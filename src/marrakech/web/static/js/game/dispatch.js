// The server's messages, one handler per type (HANDLERS), applied in order: an update
// animates its events, and what arrives meanwhile waits in the queue (docs/web-protocol.md).

import { announce } from "../dom.js";
import { t, lang, setLang, langForGame } from "../i18n.js";
import { playEvents, timings, addToTurn } from "../animate.js";
import { seatName } from "../panels.js";
import { remember } from "../store.js";
import * as state from "./state.js";
import { renderClock } from "./view.js";
import { showFatal } from "./dialogs.js";
import { signalTurn } from "./meta.js";
import { receiveChat, receiveHidden, chatWelcomed, chatRefused } from "./chat.js";

/** The chat's messages, shown at once (never behind a move's animation). */
/** @type {Record<string, Handler>} */
export const CHAT = { chat: receiveChat, chat_hidden: receiveHidden };
/** The refusals of the chat's, also shown in its panel. */
const CHAT_CODES = new Set(["chat_off", "chat_too_fast", "chat_too_long", "chat_bad_text", "chat_channel", "no_such_message", "banned"]);

/** @typedef {import("./layout.js").Ctx} Ctx */
/** @typedef {import("./state.js").Message} Message */
/** @typedef {(ctx: Ctx, msg: Message) => void | Promise<void>} Handler */

/** A message arrived: queue it (a welcome replaces whatever waits) and apply the queue. @param {Ctx} ctx @param {Message} msg */
export function receive(ctx, msg) {
  if (Object.hasOwn(CHAT, msg.type)) {
    CHAT[msg.type](ctx, msg);
    return;
  }
  if (msg.type === "welcome") ctx.g.queue.length = 0;
  ctx.g.queue.push(msg);
  pump(ctx);
}

/** @type {Record<string, (ctx: Ctx, msg: any) => void|Promise<void>>} */
/** @type {Record<string, Handler>} */
export const HANDLERS = {
  welcome,
  update,
  game: changed,
  bots: (ctx, msg) => {
    ctx.g.botsBusy = msg.busy;
    if (ctx.g.view) ctx.ctrl.redrawStatus();
  },
  rematch: rematchReady,
  hint: (ctx, msg) => {
    if (state.applyHint(ctx.g, msg)) ctx.ctrl.showHint();
  },
  analysis: (ctx, msg) => {
    ctx.g.analysis = msg.analysis;
    if (ctx.g.endDialog) ctx.ctrl.refreshEnd();
  },
  error: refused,
};

/** Apply the queued messages in order, one at a time; then settle. @param {Ctx} ctx */
async function pump(ctx) {
  const { g } = ctx;
  if (g.busy) return;
  g.busy = true;
  try {
    while (g.queue.length) {
      const msg = /** @type {Message} */ (g.queue.shift()); // the loop runs while one waits
      const handler = Object.hasOwn(HANDLERS, msg.type) ? HANDLERS[msg.type] : null;
      try {
        if (handler) await handler(ctx, msg);
      } catch (error) {
        console.error("could not show a message", msg, error);
      }
    }
  } finally {
    g.busy = false;
  }
  afterSettle(ctx);
}

/** @param {Ctx} ctx @param {Message} msg */
function welcome(ctx, msg) {
  const { g, root, ui } = ctx;
  state.applyWelcome(g, msg, performance.now());
  root.dataset.welcomes = String(g.welcomes);
  renderClock(ctx);
  if (ctx.tokens.length) remember(ctx.gameId, { tokens: ctx.tokens, seats: g.you, players: g.meta.players });
  ui.log.set(g.log);
  ui.die.show(null);
  chatWelcomed(ctx);
  ctx.ctrl.resend(); // an action the connection dropped before its answer
  // The player's choice, else the browser's language; the game's own (the host's) only
  // for a browser that speaks neither English nor French.
  const shown = langForGame(g.meta.lang);
  if (shown !== lang()) setLang(shown, { remember: false });
}

/** @param {Ctx} ctx @param {Message} msg */
async function update(ctx, msg) {
  const { g } = ctx;
  if (msg.version <= g.version) return;
  if (state.updateGap(g, msg)) {
    ctx.socket.reconnectNow(); // a gap: the welcome brings the whole view again
    return;
  }
  const events = msg.events || [];
  const next = state.updatedView(g, msg);
  const backlog = g.queue.length;
  const before = g.lastTurn;
  g.lastTurn = addToTurn(g.lastTurn, events);
  // A new turn begins: the previous one's marks make way for its walk.
  if (g.lastTurn.length && g.lastTurn[0] !== before[0]) ctx.ui.board.showLastMove(null);
  g.preview = null;
  ctx.ctrl.redrawStatus();
  ctx.ctrl.redrawControls();
  const { board, panels, die } = ctx.ui;
  await playEvents({
    board,
    panels,
    die,
    events,
    next,
    ms: timings(g.speed, backlog),
    render: (shown) => {
      g.view = shown;
      ctx.ui.board.render(shown);
      ctx.ui.panels.render(shown, g.meta, g.you);
      // The status follows the panels at once (never "Your turn" beside another's).
      ctx.ctrl.redrawStatus();
    },
  });
  state.applyUpdate(g, msg, next, performance.now());
  ctx.ui.log.add(msg.log || []);
  announce((msg.log || []).join(" "));
}

/** A `game` message: the game's meta changed (seats, status, clock), maybe with a reason to tell. @param {Ctx} ctx @param {Message} msg */
function changed(ctx, msg) {
  const { g } = ctx;
  g.meta = msg.game;
  state.setClock(g, msg.game.clock, performance.now());
  renderClock(ctx);
  const seat = msg.seat === null || msg.seat === undefined ? null : msg.seat;
  const key = `reason.${msg.reason}`;
  if (g.view && msg.reason && t(key) !== key) {
    const name = seat === null ? "" : seatName(g.view, g.meta, seat);
    const text = g.you.includes(seat) && t(`${key}.you`) !== `${key}.you` ? t(`${key}.you`) : t(key, { seat: name });
    ctx.ctrl.notice(text, "info");
    announce(text);
  }
  if (g.view) ctx.ctrl.redraw();
  if (g.endDialog) ctx.ctrl.refreshEnd(); // the end screen names who resigned, and the rematch once it exists
}

/** @param {Ctx} ctx @param {Message} msg */
function rematchReady(ctx, msg) {
  const { g } = ctx;
  g.rematch = msg;
  const seats = msg.seats.map((/** @type {{seat: number}} */ x) => x.seat);
  remember(msg.game_id, { tokens: msg.seats.map((/** @type {{token: string}} */ x) => x.token), seats, players: g.meta ? g.meta.players : null });
  if (g.view) ctx.ctrl.redrawControls();
  if (g.endDialog) ctx.ctrl.refreshEnd();
}

/** @param {Ctx} ctx @param {Message} msg */
function refused(ctx, msg) {
  if (state.applyRefusal(ctx.g, msg, t("game.not_found"))) {
    // Nothing changed on the server (a database restarting): the same action, again.
    const u = /** @type {import("./state.js").Unanswered} */ (ctx.g.unanswered);
    const { tries, sends } = u;
    ctx.ctrl.notice(t("game.resending"), "info");
    // Unless something came meanwhile (an answer, a welcome after which it was sent again).
    setTimeout(() => {
      if (ctx.g.unanswered === u && u.tries === tries && u.sends === sends) ctx.ctrl.resend();
    }, state.resendDelay(tries));
    return;
  }
  const key = `game.error.${msg.code}`;
  const text = t(key) === key ? t("game.error.generic", { message: msg.message }) : t(key);
  ctx.ctrl.notice(msg.code === "illegal_action" ? `${text} (${msg.message})` : text);
  if (CHAT_CODES.has(msg.code)) chatRefused(ctx, text);
  if (msg.code === "stale_version") ctx.socket.reconnectNow();
}

/** The queue is empty: hand a hotseat over, draw, signal a new turn, show the end. @param {Ctx} ctx */
export function afterSettle(ctx) {
  const { g } = ctx;
  if (!g.view) {
    if (g.fatal) showFatal(ctx);
    return;
  }
  const seat = state.settleSeat(g);
  ctx.ctrl.redraw();
  const mine = seat !== null;
  if (mine && !g.wasMine) signalTurn(ctx);
  g.wasMine = mine;
  if (g.view.phase === "over" && !g.endShown) {
    g.endShown = true;
    ctx.ctrl.showEnd();
  }
}
