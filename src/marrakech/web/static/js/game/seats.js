// The seat controls under the turn card: take back a seat a bot stands in for, the
// host's start / kick (waiting) and replace (playing), and each seat's Resign.

import { h, clear, button } from "../dom.js";
import { t, levelName } from "../i18n.js";
import { seatName } from "../panels.js";
import { getGame } from "../store.js";
import { config, levelsFor } from "../config.js";
import { seatInfo } from "./state.js";

/** @typedef {import("./layout.js").Ctx} Ctx */

/** A choice of the bot levels that play the game's player count. @param {string} testid @param {string} label @param {number} players */
function levelSelect(testid, label, players) {
  return h(
    "select",
    { "data-testid": testid, "aria-label": label },
    levelsFor(players).map((l) => h("option", { value: l, selected: l === config.defaultLevel }, levelName(l))),
  );
}

/** @param {Ctx} ctx */
export function renderSeatControls(ctx) {
  const { g, ui } = ctx;
  clear(ui.seatCtl);
  const meta = g.meta;
  if (!meta || !g.view || g.fatal) return;
  const hosting = g.you.some((seat) => seatInfo(g, seat) && seatInfo(g, seat).host);
  const rows = [...standInRows(ctx)];
  if (meta.status === "waiting") rows.push(...(hosting ? hostWaitingRows(ctx) : [h("p", { class: "hint" }, t("host.waiting.guest"))]));
  if (meta.status === "playing" && hosting) rows.push(...replaceRows(ctx));
  if (meta.status === "playing") rows.push(...resignRows(ctx));
  if (rows.length) ui.seatCtl.append(h("section", { class: "card seat-card" }, rows));
}

/** A bot stands in for one of this page's seats: say so, and offer the seat back. @param {Ctx} ctx */
function standInRows(ctx) {
  const { g } = ctx;
  const rows = [];
  for (const seat of g.you) {
    const info = seatInfo(g, seat);
    if (!info || !info.stand_in || g.meta.status === "over") continue;
    rows.push(
      h(
        "div",
        { class: "notice", "data-testid": `stand-in-notice-${seat}` },
        h("p", {}, t("seat.stand_in.notice", { seat: seatName(g.view, g.meta, seat), level: levelName(info.stand_in) })),
        button(t("seat.take_back"), { class: "btn warm", "data-testid": `take-back-${seat}`, onclick: () => ctx.ctrl.send({ type: "take_back", seat }) }),
      ),
    );
  }
  return rows;
}

/** The host of a waiting game: start it (bots in the open seats), kick who left. @param {Ctx} ctx */
function hostWaitingRows(ctx) {
  const { g } = ctx;
  const level = levelSelect("start-level", t("host.start.level"), g.meta.players);
  const rows = [
    h(
      "div",
      { class: "host-row" },
      h("p", {}, t("host.start.help")),
      h(
        "div",
        { class: "control-row" },
        h("label", { class: "inline-label" }, t("host.start.level"), " ", level),
        button(t("host.start"), { class: "btn warm", "data-testid": "host-start", onclick: () => ctx.ctrl.send({ type: "start", level: level.value }) }),
      ),
    ),
  ];
  // Seats this browser invited at creation cannot be opened again (the server says so);
  // the others were claimed from the lobby.
  const invited = new Set(Object.keys((getGame(ctx.gameId) || {}).invites || {}).map(Number));
  for (const info of g.meta.seats) {
    if (info.kind !== "human" || info.host || info.presence !== "away" || invited.has(info.seat)) continue;
    rows.push(
      h(
        "div",
        { class: "control-row" },
        h("span", {}, t("host.kick.why", { seat: seatName(g.view, g.meta, info.seat) })),
        button(t("host.kick"), { class: "btn secondary", "data-testid": `host-kick-${info.seat}`, onclick: () => ctx.ctrl.send({ type: "kick", seat: info.seat }) }),
      ),
    );
  }
  return rows;
}

/** The host of a game under way: a bot of a chosen level for a player who left. @param {Ctx} ctx */
function replaceRows(ctx) {
  const { g } = ctx;
  const rows = [];
  for (const info of g.meta.seats) {
    if (info.kind !== "human" || info.presence !== "away" || info.stand_in || info.resigned) continue;
    if (g.you.includes(info.seat) || !g.view.seats[info.seat].in_game) continue;
    const level = levelSelect(`replace-level-${info.seat}`, t("host.replace.level"), g.meta.players);
    rows.push(
      h(
        "div",
        { class: "host-row" },
        h("p", {}, t("host.away", { seat: seatName(g.view, g.meta, info.seat) })),
        h(
          "div",
          { class: "control-row" },
          level,
          button(t("host.replace"), {
            class: "btn secondary",
            "data-testid": `host-replace-${info.seat}`,
            onclick: () => ctx.ctrl.send({ type: "replace", seat: info.seat, level: level.value }),
          }),
        ),
      ),
    );
  }
  return rows;
}

/** Resign, for each of this page's seats still in the game. @param {Ctx} ctx */
function resignRows(ctx) {
  const { g } = ctx;
  const mine = g.you.filter((seat) => g.view.seats[seat].in_game && !(seatInfo(g, seat) && seatInfo(g, seat).resigned));
  return mine.map((seat) =>
    h(
      "div",
      { class: "control-row resign-row" },
      button(mine.length > 1 ? t("resign.button.seat", { seat: seatName(g.view, g.meta, seat) }) : t("resign.button"), {
        class: "btn ghost",
        "data-testid": `resign-${seat}`,
        onclick: () => ctx.ctrl.confirmResign(seat),
      }),
    ),
  );
}
