// The replay page's layout and drawing: the board at the position shown, the controls,
// the position, the end and download buttons, the turning points.

import { h, s, clear, download, openDialog } from "../dom.js";
import { t, lang } from "../i18n.js";
import { Board } from "../board.js";
import { Panels, Die, Log, endScreen, swatches, moverSeat, seatName } from "../panels.js";
import { lastMove, addToTurn } from "../animate.js";
import { words } from "../game/format.js";

/** @typedef {import("../replay.js").Replay} Replay */

// Media-control icons drawn in SVG (fonts often lack the ⏮ ⏭ ⏸ glyphs).
/** @type {Record<string, string>} */
export const ICONS = {
  // Previous and next are one step: a triangle against a bar (|◀, ▶|), so Next never
  // looks like Play (a lone triangle); first and last are two triangles and a bar.
  first: "M1 2h2v12H1z M9 2v12L3 8z M15 2v12L9 8z",
  prev: "M3 2h2v12H3z M13 2v12L6 8z",
  play: "M4 2v12l10-6z",
  pause: "M3 2h4v12H3z M9 2h4v12H9z",
  next: "M3 2v12l7-6z M11 2h2v12h-2z",
  last: "M1 2v12l6-6z M7 2v12l6-6z M13 2h2v12h-2z",
};

/** @param {string} name */
export function icon(name) {
  return s("svg", { viewBox: "0 0 16 16", width: 16, height: 16, "aria-hidden": "true", class: "icon" }, s("path", { d: ICONS[name], fill: "currentColor" }));
}

/** The play button as the replay plays or pauses. @param {Replay} R */
export function showPlaying(R) {
  const { r, ui } = R;
  clear(ui.playBtn).append(icon(r.playing ? "pause" : "play"));
  ui.playBtn.setAttribute("aria-label", r.playing ? t("replay.pause") : t("replay.play"));
}

/** The replay's controls: first, previous, play, next, last, and the slider. @param {Replay} R */
function controlsRow(R) {
  const { ui } = R;
  ui.slider = h("input", { type: "range", min: 0, max: 0, value: 0, "aria-label": t("replay.position", { i: 0, n: 0 }), "data-testid": "replay-slider" });
  ui.slider.addEventListener("input", () => R.ctrl.go(Number(ui.slider.value), false));
  const btn = (/** @type {string} */ label, /** @type {string} */ testid, /** @type {() => void} */ fn, /** @type {string} */ name) =>
    h("button", { type: "button", class: "btn secondary", "aria-label": label, title: label, "data-testid": testid, onclick: fn }, icon(name));
  ui.playBtn = btn(t("replay.play"), "replay-play", () => R.ctrl.togglePlay(), "play");
  return h(
    "div",
    { class: "replay-controls", role: "group", "aria-label": t("replay.title") },
    btn(t("replay.first"), "replay-first", () => R.ctrl.go(0, false), "first"),
    btn(t("replay.prev"), "replay-prev", () => R.ctrl.step(-1), "prev"),
    ui.playBtn,
    btn(t("replay.next"), "replay-next", () => R.ctrl.step(1), "next"),
    btn(t("replay.last"), "replay-last", () => R.ctrl.last(), "last"),
    ui.slider,
  );
}

/** Empty the page and lay the replay out (again when the language changes). @param {Replay} R */
export function build(R) {
  const { root, r, ui } = R;
  clear(root);
  const boardWrap = h("div", { class: "board-wrap" });
  ui.board = new Board(boardWrap);
  const side = h("div", { class: "side" });
  const dieHost = h("div", {});
  ui.die = new Die(dieHost);
  ui.posLabel = h("span", { "data-testid": "replay-position", "aria-live": "polite" });
  const controls = controlsRow(R);
  ui.endBtnHost = h("div", { class: "control-row" });
  ui.swingsHost = h("div", { "data-testid": "swings-host" });
  const card = h(
    "section",
    { class: "controls" },
    h("h1", {}, t("replay.title")),
    h("div", { class: "turn-row" }, dieHost, h("div", { style: { flex: "1" } }, ui.posLabel)),
    controls,
    ui.endBtnHost,
    ui.swingsHost,
  );
  side.append(card);
  if (r.error) card.append(h("p", { class: "notice error", "data-testid": "replay-error" }, r.error));
  ui.panels = new Panels(side);
  ui.log = new Log(side);
  ui.log.list.addEventListener("click", (/** @type {MouseEvent} */ e) => {
    const li = e.target instanceof Element ? e.target.closest("li") : null;
    if (li) R.ctrl.go([...ui.log.list.children].indexOf(li) + 1, false);
  });
  if (r.data && r.data.chat && r.data.chat.length) side.append(chatSection(R));
  root.append(h("div", { class: "game replay", "data-testid": "replay" }, boardWrap, side));
}

/** The game's chat as its replay keeps it (text, never HTML). @param {Replay} R */
function chatSection(R) {
  const { r } = R;
  const last = r.data.states[r.data.states.length - 1];
  const author = (/** @type {import("../game/chat.js").ChatLine} */ line) => (line.seat === null ? `${t("chat.spectator")} (${t("chat.spectators")})` : seatName(last, r.meta, line.seat));
  const item = (/** @type {import("../game/chat.js").ChatLine} */ line) =>
    h("li", { class: `chat-line ${line.kind} ${line.channel}`, "data-testid": "replay-chat-line" }, h("span", { class: "chat-author" }, author(line), ": "), h("span", { class: "chat-text", dir: "auto" }, words(line)));
  return h("section", { class: "chat", "aria-labelledby": "replay-chat-title" }, h("h2", { id: "replay-chat-title" }, t("chat.title")), h("ol", { class: "chat-lines", tabindex: "0" }, r.data.chat.map(item)));
}

/** The events of the turn that the move at `pos` ends (a turn is at most a handful). @param {Replay} R @param {number} pos */
export function turnBefore(R, pos) {
  return addToTurn([], withStarts(R, Math.max(0, pos - 8), pos));
}

/** Events from..to with where each walk began (the position before it). @param {Replay} R @param {number} from @param {number} to */
function withStarts(R, from, to) {
  const data = R.r.data;
  return data.events.slice(from, to).map((/** @type {import("../animate.js").GameEvent} */ ev, /** @type {number} */ i) => {
    const before = data.states[from + i].assam;
    return ev.phase === "roll" ? { ...ev, from: { square: before.square, facing: before.facing } } : ev;
  });
}

/** The position shown: board, die, panels, log, position, buttons. @param {Replay} R */
export function render(R) {
  const { r, ui, root } = R;
  if (!r.data) return;
  const n = r.data.states.length - 1;
  const view = r.data.states[r.pos];
  ui.board.render(view);
  const ev = r.pos > 0 ? r.data.events[r.pos - 1] : null;
  ui.board.mark({});
  ui.board.showLastMove(lastMove(turnBefore(R, r.pos)));
  if (ev && ev.phase === "roll") ui.die.show(Number(String(ev.action).slice(1)));
  else if (!ev) ui.die.show(null);
  ui.panels.render(view, r.meta, []);
  ui.log.set(r.data.log.slice(0, r.pos), r.pos > 0 ? r.pos - 1 : null);
  ui.posLabel.textContent = r.pos === 0 ? t("replay.start") : positionText(r.data.turns || [], r.pos, n);
  ui.slider.max = String(n);
  ui.slider.value = String(r.pos);
  ui.slider.setAttribute("aria-valuetext", ui.posLabel.textContent);
  root.dataset.position = String(r.pos);
  renderButtons(R, view, n);
  renderSwings(R);
}

/**
 * Where the replay stands, turns counted as the lobby counts them (the server's): "Turn 3
 * of 30 (move 8 of 90)"; by moves only for a server that sent no turns.
 * @param {number[]} turns  The player turn at each position.
 * @param {number} pos
 * @param {number} n
 */
export function positionText(turns, pos, n) {
  if (turns.length !== n + 1) return t("replay.position", { i: pos, n });
  return t("replay.position.turn", { turn: turns[pos], turns: turns[n], i: pos, n });
}

/** Whose turn it is, the result at the end, download, and the live game if it goes on. @param {Replay} R @param {import("../board.js").StateView} view @param {number} n */
function renderButtons(R, view, n) {
  const { r, ui } = R;
  clear(ui.endBtnHost);
  const mover = moverSeat(view);
  if (mover !== null) {
    ui.endBtnHost.append(swatches(view.seats[mover].colours, 20), " ", t("game.turn.other", { seat: seatName(view, r.meta, mover) }));
  }
  if (view.phase === "over") {
    ui.endBtnHost.append(h("button", { type: "button", class: "btn", "data-testid": "replay-result", onclick: () => showEnd(R) }, t("game.show_result")));
  }
  ui.endBtnHost.append(
    h("button", { type: "button", class: "btn ghost", "data-testid": "replay-download", onclick: () => downloadRecord(R) }, t("replay.download")),
  );
  if (!R.upload && r.data.states[n].phase !== "over") {
    ui.endBtnHost.append(h("a", { class: "btn ghost", href: `/g/${R.gameId}` }, t("replay.live")));
  }
}

/** The turns where a seat's winning chances moved most: one tap jumps there. @param {Replay} R */
function renderSwings(R) {
  const { r, ui } = R;
  clear(ui.swingsHost);
  const swings = r.analysis ? r.analysis.swings : [];
  if (!swings.length) return;
  const last = r.data.states[r.data.states.length - 1];
  const percent = (/** @type {number} */ p) => new Intl.NumberFormat(lang(), { style: "percent", maximumFractionDigits: 0 }).format(p);
  const item = (/** @type {Record<string, any>} */ swing) =>
    h(
      "li",
      {},
      h(
        "button",
        {
          type: "button",
          class: `btn secondary${swing.version === r.pos ? " current" : ""}`,
          "data-testid": `swing-${swing.version}`,
          "aria-pressed": swing.version === r.pos ? "true" : "false",
          onclick: () => R.ctrl.go(swing.version, false),
        },
        swatches(last.seats[swing.seat].colours, 16),
        " ",
        t("replay.swing", { turn: swing.turn, seat: seatName(last, r.meta, swing.seat), before: percent(swing.before), after: percent(swing.after) }),
      ),
    );
  ui.swingsHost.append(h("h2", {}, t("replay.swings")), h("ul", { class: "swings", "data-testid": "swings" }, swings.map(item)));
}

/** The end screen of the game replayed. @param {Replay} R */
function showEnd(R) {
  const { r } = R;
  const view = r.data.states[r.data.states.length - 1];
  const dialog = endScreen(view, r.meta, { onClose: () => dialog.close(), analysis: r.analysis });
  dialog.addEventListener("close", () => dialog.remove());
  document.body.append(dialog);
  openDialog(dialog);
}

/** @param {Replay} R */
function downloadRecord(R) {
  const name = R.upload ? "marrakech-record.json" : `marrakech-${R.gameId}.json`;
  download(name, JSON.stringify(R.r.data.record, null, 1));
}
