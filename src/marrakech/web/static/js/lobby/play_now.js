// "Play now" (issue 37): the lobby's first card. One tap joins a pool with the last
// settings used (the first time: 2 players, casual, the relaxed clock); "Settings" opens
// the table size, the clock, rated or casual and the bots after the wait. While the
// player waits the card says so, with the bots' level and a Cancel button; once a table
// is formed, the page goes to the game (docs/web-protocol.md, "Quick pairing").

import { h } from "../dom.js";
import { t, lang, levelName } from "../i18n.js";
import { remember } from "../store.js";
import { savedName } from "./lines.js";

/** @typedef {import("../lobby.js").Lobby} Lobby */
/** @typedef {{players: number|string, clock: string, rated: boolean, bots: boolean}} PoolChoice */

const KEY = "marrakech.playNow";
const SIZES = [2, 3, 4, "any"];
const CLOCKS = ["blitz", "relaxed", "turn_1d"];
/** @type {PoolChoice} */
const FIRST = { players: 2, clock: "relaxed", rated: false, bots: true };

/** The settings last used (the first time: 2 players, casual, relaxed). @returns {PoolChoice} */
export function poolChoice() {
  try {
    const stored = JSON.parse(localStorage.getItem(KEY) || "null");
    if (stored && SIZES.includes(stored.players) && CLOCKS.includes(stored.clock)) {
      return { ...FIRST, ...stored, rated: Boolean(stored.rated), bots: stored.bots !== false };
    }
  } catch (_) {
    // a damaged entry: the first settings
  }
  return { ...FIRST };
}

/** @param {PoolChoice} choice */
function saveChoice(choice) {
  try {
    localStorage.setItem(KEY, JSON.stringify(choice));
  } catch (_) {
    // private browsing: the choice lasts for this page
  }
}

/**
 * The pool's state on this page: the choice, the settings shown, the socket while
 * waiting, what the server said.
 * @type {{choice: PoolChoice, open: boolean, socket: WebSocket|null, waiting: any, error: string|null, since: number}}
 */
const P = { choice: poolChoice(), open: false, socket: null, waiting: null, error: null, since: 0 };

/** The join message for a choice. @param {PoolChoice} choice */
export function joinMessage(choice) {
  return { type: "join", players: choice.players, clock: choice.clock, rated: choice.rated, bots: choice.bots, name: savedName(), lang: lang() };
}

/** A choice in a few words: "2 players · casual · relaxed". @param {PoolChoice} c */
function summary(c) {
  const size = c.players === "any" ? t("pool.players.any") : t("lobby.players.n", { n: c.players });
  return [size, t(c.rated ? "pool.rated" : "pool.casual"), t(`pool.clock.${c.clock}`)].join(" · ");
}

/** Join the pool of the current choice. @param {Lobby} L */
function start(L) {
  saveChoice(P.choice);
  P.error = null;
  P.waiting = { pending: true };
  P.since = Date.now();
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${location.host}/pool/socket`);
  P.socket = socket;
  socket.onopen = () => socket.send(JSON.stringify(joinMessage(P.choice)));
  socket.onmessage = (e) => {
    let msg;
    try {
      msg = JSON.parse(e.data);
    } catch (_) {
      return;
    }
    if (msg.type === "waiting") P.waiting = msg;
    else if (msg.type === "paired") {
      P.socket = null;
      const players = typeof P.choice.players === "number" ? P.choice.players : null;
      remember(msg.game_id, { tokens: [msg.token], seats: [msg.seat], players });
      location.href = msg.link;
      return;
    } else if (msg.type === "refused") {
      P.socket = null;
      P.waiting = null;
      const key = `pool.error.${msg.code}`;
      P.error = t(key) === key ? t("pool.error.generic", { message: msg.message }) : t(key);
    }
    rerender(L);
  };
  socket.onclose = () => {
    if (P.socket !== socket) return; // paired, refused or cancelled: said already
    P.socket = null;
    P.waiting = null;
    P.error = t("pool.error.closed");
    L.render();
  };
  L.render();
  focusCard(L, "play-now-cancel");
}

/** Leave the pool: closing the socket is leaving. @param {Lobby} L */
function cancel(L) {
  const socket = P.socket;
  P.socket = null;
  P.waiting = null;
  if (socket) socket.close();
  L.render();
  focusCard(L, "play-now-go");
}

/** Draw the lobby again, the focus kept on the card's control that had it (a message
 * from the server redraws while the player may be on Cancel). @param {Lobby} L */
function rerender(L) {
  const had = document.activeElement instanceof HTMLElement ? document.activeElement.dataset.testid : undefined;
  L.render();
  if (had) focusCard(L, had);
}

/** @param {Lobby} L @param {string} testid */
function focusCard(L, testid) {
  const el = /** @type {HTMLElement|null} */ (L.root.querySelector(`[data-testid=${testid}]`));
  if (el) el.focus();
}

/** The lobby unmounted (another page of this one): its wait ends. */
export function leavePool() {
  const socket = P.socket;
  P.socket = null;
  P.waiting = null;
  if (socket) socket.close();
}

/** A row of radio buttons. @param {string} name @param {string} legend @param {any[]} values @param {any} current @param {(v: any) => string} label @param {(v: any) => void} pick */
function radios(name, legend, values, current, label, pick) {
  return h(
    "fieldset",
    { class: "pool-field" },
    h("legend", {}, legend),
    h(
      "div",
      { class: "radio-row" },
      values.map((value) =>
        h(
          "label",
          {},
          h("input", { type: "radio", name, value: String(value), checked: value === current, "data-testid": `pool-${name}-${value}`, onchange: () => pick(value) }),
          label(value),
        ),
      ),
    ),
  );
}

/** The settings: size, clock, rated or casual, bots after the wait. @param {Lobby} L */
function settings(L) {
  const c = P.choice;
  const set = (/** @type {Partial<PoolChoice>} */ change) => {
    P.choice = { ...P.choice, ...change };
    saveChoice(P.choice);
    L.render();
    focusCard(L, "play-now-settings");
  };
  return h(
    "div",
    { class: "pool-settings", id: "pool-settings", "data-testid": "pool-settings" },
    radios("players", t("lobby.players"), SIZES, c.players, (v) => (v === "any" ? t("pool.players.any") : String(v)), (v) => set({ players: v })),
    radios("clock", t("lobby.clock"), CLOCKS, c.clock, (v) => t(`pool.clock.${v}`), (v) => set({ clock: v })),
    radios("rated", t("pool.kind"), [false, true], c.rated, (v) => t(v ? "pool.rated" : "pool.casual"), (v) => set({ rated: v })),
    h(
      "label",
      { class: "check-row" },
      h("input", { type: "checkbox", checked: c.bots, "data-testid": "pool-bots", onchange: (/** @type {Event} */ e) => set({ bots: /** @type {HTMLInputElement} */ (e.target).checked }) }),
      t("pool.bots"),
    ),
  );
}

/** What the card says while the player waits. */
function waitingLines() {
  const w = P.waiting;
  const lines = [h("p", { class: "pool-status", role: "status", "data-testid": "pool-waiting" }, t("pool.waiting", { what: summary(P.choice) }))];
  // A turn-based game is not played at once: its empty seats stay open to the pool.
  const note = P.choice.clock.startsWith("turn_") ? "pool.bots.note.turn" : "pool.bots.note";
  if (w && w.level) lines.push(h("p", { "data-testid": "pool-bots-note" }, t(note, { level: levelName(w.level), seconds: Math.round(w.bot_after) })));
  else if (w && !w.pending) lines.push(h("p", {}, t("pool.bots.none")));
  return lines;
}

/** The "Play now" card, first on the lobby. @param {Lobby} L */
export function playNowCard(L) {
  const waiting = Boolean(P.socket);
  const go = h("button", { type: "button", class: "btn play-now-go", "data-testid": "play-now-go", onclick: () => start(L) }, t("pool.play"));
  const toggle = h(
    "button",
    { type: "button", class: "btn ghost small", "aria-expanded": String(P.open), "aria-controls": "pool-settings", "data-testid": "play-now-settings", onclick: () => ((P.open = !P.open), L.render(), focusCard(L, "play-now-settings")) },
    t("pool.settings"),
  );
  const body = waiting
    ? [...waitingLines(), h("button", { type: "button", class: "btn secondary", "data-testid": "play-now-cancel", onclick: () => cancel(L) }, t("pool.cancel"))]
    : [h("div", { class: "control-row" }, go, toggle), h("p", { class: "pool-summary", "data-testid": "pool-summary" }, summary(P.choice)), P.open ? settings(L) : null];
  return h(
    "section",
    { class: "card play-now", "data-testid": "play-now", "aria-labelledby": "play-now-title" },
    h("h2", { id: "play-now-title" }, t("pool.title")),
    ...body,
    P.error ? h("p", { class: "notice error", role: "alert", "data-testid": "pool-error" }, P.error) : null,
  );
}
