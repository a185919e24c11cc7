// "My games" (/my-games, where the installed app opens): the games of this device's
// seats (their tokens stay on the device, sent in a request body) and of the signed-in
// account, those where it is your turn first with the time left. The count of those
// shows in the tab's title and, where the platform allows, on the app's icon
// (navigator.setAppBadge). Refreshed every 30 s and when the page comes back to view.

import { h, clear } from "./dom.js";
import { t, onLangChange, durationText, playerName, levelName, seatColoursName } from "./i18n.js";
import { api } from "./api.js";
import { myGames, gameLink } from "./store.js";
import { rulesLabel } from "./config.js";
import { seatColours } from "./lobby/lines.js";

const REFRESH_MS = 30000;

/** The seats this device holds, as the server wants them: [{game_id, token}]. */
export function heldSeats(entries = myGames()) {
  return entries.flatMap((g) => (g.tokens || []).filter(Boolean).map((token) => ({ game_id: g.id, token })));
}

/** "(2) My games — Marrakech": the title with the count of games where it is your turn. @param {number} count */
export function titleWith(count) {
  const base = `${t("mygames.title")} — ${t("app.title")}`;
  return count > 0 ? `(${count}) ${base}` : base;
}

/** Show `count` on the installed app's icon where the platform allows it. @param {number} count */
export function setBadge(count) {
  const nav = /** @type {any} */ (navigator);
  try {
    if (count > 0 && typeof nav.setAppBadge === "function") nav.setAppBadge(count).catch(() => {});
    else if (count === 0 && typeof nav.clearAppBadge === "function") nav.clearAppBadge().catch(() => {});
  } catch (_) {
    // No badge here: the title still counts.
  }
}

/**
 * The page's model: the server's answer (the seats' games, how many wait for this
 * player), what went wrong, when it came.
 * @typedef {{game: import("./lobby/lines.js").GameSummary, your_turn: boolean} & Record<string, any>} MyGame
 * @typedef {{answer: {games: MyGame[], your_turn: number} | null, error: string | null, at: number}} MyGames
 */

/** Mount the page in `root`. @param {HTMLElement} root */
export function mountMyGames(root) {
  /** @type {MyGames} */
  const M = { answer: null, error: null, at: 0 };
  const render = () => renderPage(root, M);
  const refresh = async () => {
    try {
      M.answer = await api.myGames(heldSeats());
      M.error = null;
    } catch (error) {
      M.error = t("lobby.error", { message: /** @type {Error} */ (error).message });
    }
    M.at = Date.now();
    render();
  };
  render();
  refresh();
  setInterval(refresh, REFRESH_MS);
  // The time left counts down between two refreshes (in place: the focus stays).
  setInterval(() => tick(root, M), 1000);
  document.addEventListener("visibilitychange", () => document.visibilityState === "visible" && refresh());
  onLangChange(render);
}

/** The time left of each game, counted down since the last answer. @param {HTMLElement} root @param {MyGames} M */
function tick(root, M) {
  const elapsed = (Date.now() - M.at) / 1000;
  for (const el of /** @type {NodeListOf<HTMLElement>} */ (root.querySelectorAll("[data-remaining]"))) {
    el.textContent = leftText(Number(el.dataset.remaining) - elapsed);
  }
}

/** @param {number} seconds */
function leftText(seconds) {
  return seconds > 0 ? t("mygames.left", { time: durationText(seconds) }) : t("mygames.late");
}

/** @param {HTMLElement} root @param {MyGames} M */
function renderPage(root, M) {
  const count = M.answer ? M.answer.your_turn : 0;
  document.title = titleWith(count);
  setBadge(count);
  // A refresh redraws the list: the focus goes back where it was (keyboard players).
  const focused = document.activeElement instanceof HTMLElement && root.contains(document.activeElement) ? document.activeElement.dataset.testid : null;
  clear(root);
  const games = M.answer ? M.answer.games : [];
  const mine = new Map(myGames().map((g) => [g.id, g]));
  /** @type {[string, MyGame[]][]} */
  const sections = [
    ["yourturn", games.filter((g) => g.your_turn)],
    ["waiting", games.filter((g) => !g.your_turn && g.game.status !== "over")],
    ["over", games.filter((g) => g.game.status === "over")],
  ];
  const elapsed = (Date.now() - M.at) / 1000;
  root.append(
    h(
      "section",
      { class: "card my-games", "aria-labelledby": "my-games-title", "data-testid": "my-games-page" },
      h("h1", { id: "my-games-title" }, t("mygames.title")),
      h("p", { class: "hint" }, t("mygames.intro")),
      h("p", { class: "sr-only", "aria-live": "polite", "data-testid": "my-games-count" }, t("mygames.count", { n: count })),
      M.error ? h("p", { class: "notice error", role: "alert" }, M.error) : null,
      M.answer && !games.length ? h("p", { class: "hint", "data-testid": "my-games-empty" }, t("mygames.empty")) : null,
      sections.filter(([, list]) => list.length).map(([key, list]) => [
        h("h2", {}, t(`mygames.${key}`), " ", h("span", { class: "count" }, `(${list.length})`)),
        h(
          "ul",
          { class: "game-list", "data-testid": `my-games-${key}` },
          list.map((g) => gameLine(g, mine.get(g.game.game_id), elapsed)),
        ),
      ]),
      h("p", {}, h("a", { class: "btn secondary", href: "/", "data-testid": "my-games-lobby" }, t("mygames.lobby"))),
    ),
  );
  if (focused) {
    const again = root.querySelector(`[data-testid="${focused}"]`);
    if (again instanceof HTMLElement) again.focus();
  }
}

/** A seat as a card names it: its player's name and colours, a bot's level, an open seat.
 * @param {import("./lobby/lines.js").GameSummary} summary @param {number} seat */
function seatLabel(summary, seat) {
  const info = (summary.seats || [])[seat] || {};
  const colours = seatColoursName(seatColours(summary.players, seat));
  if (info.kind === "open") return t("mygames.seat.open", { colours });
  if (info.kind === "bot") return t("mygames.seat.bot", { level: levelName(info.level), colours });
  return info.name ? `${playerName(info.name)} (${colours})` : colours;
}

/** Whose turn it is: yours first, else who is to move, else how the game stands. @param {MyGame} g */
function turnLine(g) {
  const summary = g.game;
  if (g.your_turn) return t("mygames.turn.you");
  if (summary.status === "over") return t("mygames.turn.over");
  if (summary.status === "waiting") return t("mygames.turn.waiting");
  if (typeof g.to_move === "number") return t("mygames.turn.other", { name: seatLabel(summary, g.to_move) });
  return t("mygames.turn.bots");
}

/** Who the player plays against: every seat not theirs. @param {MyGame} g */
function againstLine(g) {
  const summary = g.game;
  const others = [];
  for (let seat = 0; seat < summary.players; seat++) if (!g.seats.includes(seat)) others.push(seatLabel(summary, seat));
  return others.length ? t("mygames.against", { names: others.join(", ") }) : t("mygames.against.self");
}

/** @param {MyGame} g @param {import("./store.js").StoredGame | undefined} entry @param {number} elapsed */
function gameLine(g, entry, elapsed) {
  const summary = g.game;
  const tokens = entry ? entry.tokens || [] : [];
  let action;
  if (summary.status === "over") action = h("a", { class: "btn small secondary", href: `/r/${summary.game_id}` }, t("mygames.replay"));
  else if (tokens.length) action = h("a", { class: "btn small", href: gameLink(summary.game_id, tokens), "data-testid": `play-${summary.game_id}` }, t("mygames.open"));
  else action = h("a", { class: "btn small secondary", href: `/g/${summary.game_id}` }, t("mygames.watch"));
  let left = null;
  if (g.remaining !== null && g.remaining !== undefined && summary.status !== "over") {
    left = h("small", { class: g.your_turn ? "time-left urgent" : "time-left", "data-testid": `left-${summary.game_id}`, "data-remaining": String(g.remaining) }, leftText(g.remaining - elapsed));
  }
  return h(
    "li",
    { "data-game": summary.game_id, class: g.your_turn ? "your-turn" : null },
    h(
      "div",
      { class: "meta" },
      h("strong", { "data-testid": `turn-${summary.game_id}` }, turnLine(g)),
      h("span", { "data-testid": `against-${summary.game_id}` }, againstLine(g)),
      h("small", {}, t("lobby.players.n", { n: summary.players }), " · ", rulesLabel(summary)),
      left,
    ),
    h("div", { class: "actions" }, action),
  );
}
