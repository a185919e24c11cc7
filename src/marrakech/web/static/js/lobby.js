// The lobby (/): play now (lobby/play_now.js: quick pairing), create a game, invitation links, tournaments, games to watch (lobby/watch.js), friends, your games, open games, upload a record.
// Its modules: lobby/form.js (the new-game form from GET /api/config, the create request,
// the invitations), lobby/lists.js (your games, open games, joining), lobby/upload.js,
// lobby/lines.js (the lines that describe a game, the name remembered).

import { h, clear } from "./dom.js";
import { t, lang, onLangChange } from "./i18n.js";
import { swatch } from "./board.js";
import { newForm, createCard, createdCard } from "./lobby/form.js";
import { mineCard, openCard, refresh } from "./lobby/lists.js";
import { uploadCard } from "./lobby/upload.js";
import { friendsCard } from "./lobby/friends.js";
import { learnOffer } from "./learn/offer.js";
import { playNowCard, leavePool } from "./lobby/play_now.js";
import { tournamentsCard } from "./tournaments/lists.js";
import { renderWatchlist, refreshWatchlist } from "./lobby/watch.js";

export { createRequest } from "./lobby/form.js";

/**
 * @typedef {object} Lobby  One mounted lobby: what its modules share.
 * @property {HTMLElement} root
 * @property {ReturnType<typeof newForm>} form  The new-game form's choices.
 * @property {any} joining  {game, seat, error} while a name is asked to join an open seat.
 * @property {any} created  The game just created (its invitations).
 * @property {string|null} createError
 * @property {boolean} busy  The game is being created.
 * @property {any[]} mine  The summaries of the games this browser remembers.
 * @property {any[]} open  The games with open seats.
 * @property {string|null} listError
 * @property {HTMLElement|null} mineHost
 * @property {HTMLElement|null} openHost
 * @property {any[]} watching  The games to watch (lobby/watch.js).
 * @property {HTMLElement|null} watchHost
 * @property {() => void} render  Everything again.
 * @property {() => void} renderLists  Only the lists (never the form being filled in).
 * @property {() => Promise<void>} refresh  Ask the server for the lists again.
 */

function hero() {
  const art = h("div", { "aria-hidden": "true", class: "hero-art" });
  art.append(swatch("R", 56), swatch("B", 56), swatch("Y", 56), swatch("P", 56));
  return h(
    "section",
    { class: "lobby-hero" },
    h(
      "div",
      {},
      h("h1", {}, t("app.title")),
      h("p", {}, t("app.tagline")),
      h("p", {}, t("help.goal")),
      h("p", {}, h("a", { class: "btn secondary", href: "/leaderboard", "data-testid": "lobby-leaderboard" }, t("lobby.leaderboard"))),
    ),
    art,
  );
}

/** Show the lobby in `root`; returns what unmounts it. @param {HTMLElement} root */
export function mountLobby(root) {
  /** @type {Lobby} */
  const L = {
    root,
    form: newForm(),
    joining: null,
    created: null,
    createError: null,
    busy: false,
    mine: [],
    open: [],
    listError: null,
    mineHost: null,
    openHost: null,
    watching: [],
    watchHost: null,
    render: () => {
      clear(root);
      L.mineHost = h("div", {});
      L.openHost = h("div", {});
      L.watchHost = h("div", {});
      root.append(
        h(
          "div",
          { class: "lobby", "data-testid": "lobby" },
          playNowCard(L),
          learnOffer(),
          hero(),
          h("div", {}, createCard(L)),
          h("div", {}, L.created ? createdCard(L) : null, tournamentsCard(), L.watchHost, friendsCard(), L.mineHost, L.openHost, uploadCard()),
        ),
      );
      L.renderLists();
      renderWatchlist(L);
    },
    renderLists: () => {
      if (!L.mineHost) return;
      clear(L.mineHost).append(mineCard(L));
      clear(/** @type {HTMLElement} */ (L.openHost)).append(openCard(L));
    },
    refresh: () => Promise.all([refresh(L), refreshWatchlist(L)]).then(() => {}),
  };
  L.render();
  L.refresh();
  const off = onLangChange(() => {
    L.form.lang = lang();
    L.render();
  });
  const timer = setInterval(L.refresh, 15000);
  return () => {
    off();
    clearInterval(timer);
    leavePool();
  };
}
