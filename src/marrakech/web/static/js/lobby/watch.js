// The lobby's games to watch (GET /api/watchlist): a few live games, the most
// interesting first (rated, higher ratings, then the latest move), each with its
// players and how far it is, and a link to its spectator view. Read again with the
// lobby's other lists.

import { h, clear } from "../dom.js";
import { t, levelName, playerName } from "../i18n.js";
import { swatch } from "../board.js";
import { api } from "../api.js";
import { rulesLabel } from "../config.js";
import { progressLine, seatColours } from "./lines.js";

/** @typedef {import("./lines.js").GameSummary} GameSummary */
/** @typedef {import("../lobby.js").Lobby} Lobby */

/** A seat's player as the card names it: a person's name, a bot's level. @param {Record<string, any>} seat */
export function seatLabel(seat) {
  if (seat.external) return t("seat.external.short");
  if (seat.kind === "bot") return t("seat.bot", { level: levelName(seat.level) });
  return seat.name ? playerName(seat.name) : t("lobby.watchlist.guest");
}

/** The players of a game, "Ana vs Bot (medium)". @param {GameSummary} game */
function players(game) {
  return game.seats.map(seatLabel).join(` ${t("lobby.watchlist.vs")} `);
}

/** One game to watch. @param {GameSummary} game */
function watchLine(game) {
  const who = players(game);
  return h(
    "li",
    { "data-game": game.game_id, "data-testid": "watch-game" },
    h(
      "div",
      { class: "meta" },
      h(
        "strong",
        {},
        h(
          "span",
          { class: "swatches" },
          game.seats.map((/** @type {Record<string, any>} */ seat) => swatch(seatColours(game.players, seat.seat)[0], 16)),
        ),
        " ",
        who,
      ),
      h("small", {}, t("lobby.players.n", { n: game.players }), " · ", rulesLabel(game)),
      h("small", { "data-testid": `watch-progress-${game.game_id}` }, progressLine(game)),
    ),
    h(
      "div",
      { class: "actions" },
      h("a", { class: "btn small secondary", href: game.watch_link, "aria-label": t("lobby.watchlist.watch", { players: who }), "data-testid": `watch-${game.game_id}` }, t("lobby.watch")),
    ),
  );
}

/** The card of the games to watch. @param {GameSummary[]} games */
export function watchlistCard(games) {
  return h(
    "section",
    { class: "card watchlist", "aria-labelledby": "watchlist-title", "data-testid": "lobby-watchlist" },
    h("h2", { id: "watchlist-title" }, t("lobby.watchlist")),
    games.length ? h("ul", { class: "game-list" }, games.map(watchLine)) : h("p", { class: "hint" }, t("lobby.watchlist.empty")),
  );
}

/** Show the games to watch in the lobby's place for them. @param {Lobby} L */
export function renderWatchlist(L) {
  if (L.watchHost) clear(L.watchHost).append(watchlistCard(L.watching));
}

/** Ask the server for the games to watch, then show them (only this card: a name being typed elsewhere stays); a failure keeps what is shown, the other lists say the server is unreachable. @param {Lobby} L */
export async function refreshWatchlist(L) {
  try {
    L.watching = await api.watchlist();
  } catch (_) {
    return;
  }
  renderWatchlist(L);
}
