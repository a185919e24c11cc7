// The game's chat (docs/web.md, "Chat"): the lines the server sends (`chat`,
// `chat_hidden`), quick reactions shown in this reader's language, a mute toggle per
// seat and a report button per line. Mutes and reports are remembered on this device
// (localStorage) and said to the server again after each welcome. Every text is put in
// as text (textContent), never as HTML.

import { h, clear, announce } from "../dom.js";
import { t, plural } from "../i18n.js";
import { config } from "../config.js";
import { seatName } from "../panels.js";
import { activeSeat } from "./state.js";
import { words } from "./format.js";

/** @typedef {import("./layout.js").Ctx} Ctx */
/** @typedef {{id: number, seat: number|null, channel: string, kind: string, text: string, at: string}} ChatLine */

/**
 * @typedef {object} ChatState  What the page knows of its game's chat.
 * @property {ChatLine[]} lines  The lines received, oldest first.
 * @property {Set<number>} muted  The seats muted on this device.
 * @property {Set<number>} reported  The lines this device reported.
 * @property {boolean} open  The panel is unfolded.
 * @property {number} unread  Lines that came while it was folded.
 * @property {string} status  The last refusal or confirmation, shown in the panel.
 */

const KEY = "marrakech.chat.";
/** Lines kept by the page (the server sends at most as many after a welcome). */
const MAX_LINES = 200;

/** @param {string} gameId @param {string} what */
function loadSet(gameId, what) {
  try {
    const list = JSON.parse(localStorage.getItem(`${KEY}${what}.${gameId}`) || "[]");
    return new Set(Array.isArray(list) ? list.filter((x) => Number.isInteger(x)) : []);
  } catch (_) {
    return new Set();
  }
}

/** @param {string} gameId @param {string} what @param {Set<number>} set */
function saveSet(gameId, what, set) {
  try {
    localStorage.setItem(`${KEY}${what}.${gameId}`, JSON.stringify([...set]));
  } catch (_) {
    // Storage full or disabled: the choice holds until the page closes.
  }
}

/** The chat of a game as this device remembers it. @param {string} gameId @returns {ChatState} */
export function newChat(gameId) {
  const phone = typeof matchMedia === "function" && matchMedia("(max-width: 600px)").matches;
  return { lines: [], muted: loadSet(gameId, "muted"), reported: loadSet(gameId, "reported"), open: !phone, unread: 0, status: "" };
}

/** Whether a line is shown here: not muted, not reported by this device. @param {ChatState} chat @param {ChatLine} line */
export function shown(chat, line) {
  return !(line.seat !== null && chat.muted.has(line.seat)) && !chat.reported.has(line.id);
}

/** Take a `chat` message's lines in (a history replaces them). @returns {ChatLine[]} the new ones @param {ChatState} chat @param {import("./state.js").Message} msg  its `lines`, and `history` after a welcome */
export function addLines(chat, msg) {
  const known = new Set(msg.history ? [] : chat.lines.map((line) => line.id));
  const fresh = msg.lines.filter((/** @type {ChatLine} */ line) => !known.has(line.id));
  const lines = msg.history ? fresh : [...chat.lines, ...fresh];
  lines.sort((/** @type {ChatLine} */ a, /** @type {ChatLine} */ b) => a.id - b.id);
  chat.lines = lines.slice(-MAX_LINES);
  return msg.history ? [] : fresh;
}

/** The lines of a `chat_hidden` message go. @param {ChatState} chat @param {number[]} ids */
export function dropLines(chat, ids) {
  const gone = new Set(ids);
  chat.lines = chat.lines.filter((line) => !gone.has(line.id));
}

/** A `chat` message arrived. @param {Ctx} ctx @param {import("./state.js").Message} msg */
export function receiveChat(ctx, msg) {
  const chat = ctx.chat;
  const fresh = addLines(chat, msg).filter((line) => shown(chat, line));
  if (!chat.open) chat.unread += fresh.length;
  for (const line of fresh) announce(`${author(ctx, line)}: ${words(line)}`);
  renderChat(ctx);
}

/** A `chat_hidden` message arrived. @param {Ctx} ctx @param {import("./state.js").Message} msg */
export function receiveHidden(ctx, msg) {
  dropLines(ctx.chat, msg.ids);
  if (msg.reason === "hidden") ctx.chat.status = t("chat.hidden");
  else if (msg.reason === "held") ctx.chat.status = t("chat.held");
  renderChat(ctx);
}

/** After a welcome: say the mutes to the server again. @param {Ctx} ctx */
export function chatWelcomed(ctx) {
  for (const seat of ctx.chat.muted) if (!ctx.g.you.includes(seat)) ctx.socket.send({ type: "mute", seat, muted: true });
  renderChat(ctx);
}

/** A refusal of the chat's (its reason is shown in the panel too). @param {Ctx} ctx @param {string} text */
export function chatRefused(ctx, text) {
  ctx.chat.status = text;
  renderChat(ctx);
}

/** Who wrote a line, in words. @param {Ctx} ctx @param {ChatLine} line */
function author(ctx, line) {
  if (line.seat === null) return t("chat.spectator");
  return name(ctx, line.seat);
}

/** @param {Ctx} ctx @param {number} seat */
function name(ctx, seat) {
  const { g } = ctx;
  if (g.view && g.view.seats[seat]) return seatName(g.view, g.meta, seat);
  return t("lobby.seat", { n: seat + 1 });
}

/** Who a page holding several seats (the same screen) writes as: the seat to play. @param {Ctx} ctx */
function writerSeat(ctx) {
  const { g } = ctx;
  if (g.you.length < 2) return null;
  const seat = activeSeat(g);
  return seat === null ? g.you[0] : seat;
}

/** @param {Ctx} ctx @param {Record<string, any>} msg */
function send(ctx, msg) {
  if ((msg.type === "chat" || msg.type === "react") && writerSeat(ctx) !== null) msg = { ...msg, seat: writerSeat(ctx) };
  ctx.chat.status = "";
  if (!ctx.socket.send(msg)) ctx.chat.status = t("game.reconnecting");
  renderChat(ctx);
}

/** The chat panel, built with the page (again when the language changes). @param {Ctx} ctx */
export function buildChat(ctx) {
  const host = ctx.ui.chatHost;
  clear(host);
  const chat = ctx.chat;
  const summary = h("summary", { "data-testid": "chat-toggle" }, t("chat.title"));
  const panel = h("details", { class: "chat", "data-testid": "chat" }, summary);
  panel.open = chat.open;
  panel.addEventListener("toggle", () => {
    chat.open = panel.open;
    if (chat.open) chat.unread = 0;
    renderChat(ctx);
  });
  const list = h("ol", { class: "chat-lines", "data-testid": "chat-lines", tabindex: "0", "aria-label": t("chat.title") });
  const empty = h("p", { class: "hint", "data-testid": "chat-empty" }, t("chat.empty"));
  const status = h("p", { class: "chat-status", role: "status", "data-testid": "chat-status" });
  const reactions = h(
    "div",
    { class: "chat-reactions", role: "group", "aria-label": t("chat.reactions") },
    config.reactions.map((code) =>
      h("button", { type: "button", class: "btn small ghost", "data-testid": `react-${code}`, onclick: () => send(ctx, { type: "react", reaction: code }) }, t(`chat.reaction.${code}`)),
    ),
  );
  const input = h("input", {
    type: "text",
    id: "chat-input",
    "data-testid": "chat-input",
    maxlength: String(config.chatMax),
    autocomplete: "off",
    placeholder: t("chat.placeholder", { n: config.chatMax }),
  });
  const form = h(
    "form",
    { class: "chat-form" },
    h("label", { for: "chat-input", class: "sr-only" }, t("chat.input")),
    input,
    h("button", { type: "submit", class: "btn small", "data-testid": "chat-send" }, t("chat.send")),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const text = input.value.trim();
    if (!text) return;
    send(ctx, { type: "chat", text });
    input.value = "";
  });
  const mutes = h("div", { class: "chat-mutes", role: "group", "aria-label": t("chat.mutes") });
  const watching = h("p", { class: "hint", hidden: true }, t("chat.spectators.help"));
  const off = h("p", { class: "hint", hidden: true, "data-testid": "chat-off" }, t("chat.off"));
  const body = h("div", { class: "chat-body" }, off, empty, list, status, watching, reactions, form, mutes);
  panel.append(body);
  host.append(panel);
  ctx.ui.chat = { panel, summary, list, empty, status, reactions, form, mutes, watching, off };
  renderChat(ctx);
}

/** Draw the chat's lines and controls. @param {Ctx} ctx */
export function renderChat(ctx) {
  const parts = ctx.ui && ctx.ui.chat;
  if (!parts) return;
  const { g, chat } = ctx;
  const on = !g.meta || g.meta.chat !== false;
  parts.summary.textContent = chat.unread ? plural("chat.title.unread", chat.unread) : t("chat.title");
  parts.off.hidden = on;
  for (const el of [parts.reactions, parts.form, parts.mutes]) el.hidden = !on;
  parts.watching.hidden = !on || g.you.length > 0;
  const visible = chat.lines.filter((line) => shown(chat, line));
  parts.empty.hidden = !on || visible.length > 0;
  parts.list.hidden = visible.length === 0;
  clear(parts.list);
  for (const line of visible) parts.list.append(lineItem(ctx, line));
  parts.list.scrollTop = parts.list.scrollHeight;
  parts.status.textContent = chat.status;
  parts.status.hidden = !chat.status;
  clear(parts.mutes);
  const players = g.meta ? g.meta.players : 0;
  for (let seat = 0; seat < players; seat += 1) {
    if (g.you.includes(seat) || (g.meta.seats[seat] && g.meta.seats[seat].kind === "bot")) continue;
    const muted = chat.muted.has(seat);
    const who = name(ctx, seat);
    parts.mutes.append(
      h(
        "button",
        { type: "button", class: "btn small ghost", "aria-pressed": muted ? "true" : "false", "data-testid": `mute-${seat}`, onclick: () => toggleMute(ctx, seat) },
        muted ? t("chat.unmute", { seat: who }) : t("chat.mute", { seat: who }),
      ),
    );
  }
}

/** One line: who, what, and a report button (not on this page's own lines). @param {Ctx} ctx @param {ChatLine} line */
function lineItem(ctx, line) {
  const who = author(ctx, line);
  const mine = line.seat !== null && ctx.g.you.includes(line.seat);
  const item = h(
    "li",
    { class: `chat-line ${line.kind} ${line.channel}`, "data-testid": "chat-line", "data-id": String(line.id), "data-seat": line.seat === null ? "" : String(line.seat) },
    h("span", { class: "chat-author" }, who, line.channel === "spectators" ? ` (${t("chat.spectators")})` : "", ": "),
    h("span", { class: "chat-text", dir: "auto" }, words(line)),
  );
  if (!mine) {
    item.append(
      h(
        "button",
        { type: "button", class: "btn small ghost chat-report", "data-testid": "chat-report", "aria-label": t("chat.report.label", { who }), onclick: () => report(ctx, line) },
        t("chat.report"),
      ),
    );
  }
  return item;
}

/** @param {Ctx} ctx @param {ChatLine} line */
function report(ctx, line) {
  const chat = ctx.chat;
  chat.reported.add(line.id);
  saveSet(ctx.gameId, "reported", chat.reported);
  send(ctx, { type: "report", id: line.id });
  chat.status = t("chat.reported");
  renderChat(ctx);
  ctx.ui.chat.list.focus();
}

/** @param {Ctx} ctx @param {number} seat */
function toggleMute(ctx, seat) {
  const chat = ctx.chat;
  const muted = !chat.muted.has(seat);
  if (muted) chat.muted.add(seat);
  else chat.muted.delete(seat);
  saveSet(ctx.gameId, "muted", chat.muted);
  send(ctx, { type: "mute", seat, muted });
  chat.status = t(muted ? "chat.muted" : "chat.unmuted", { seat: name(ctx, seat) });
  renderChat(ctx);
  const again = ctx.ui.chat.mutes.querySelector(`[data-testid="mute-${seat}"]`);
  if (again instanceof HTMLElement) again.focus();
}
