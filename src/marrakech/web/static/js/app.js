// The page's entry point: the top bar (help, language) and the route.
//   /            lobby
//   /g/{id}      live game (seat tokens in the fragment: #t=TOKEN,TOKEN)
//   /r/{id}      replay of a stored game
//   /r/upload    replay of a record chosen in the lobby
//   /learn       the tutorial
//   /leaderboard the rated players by player count (?players=N)
//   /players/{name}  a player's profile
//   /my-games    this device's and account's games, yours to play first (the app opens here)
//   /t/{id}      a tournament: standings, games, podium

import { h, clear, byId } from "./dom.js";
import { errorText } from "./api.js";
import { t, lang, setLang, onLangChange } from "./i18n.js";
import { mountLobby } from "./lobby.js";
import { mountGame } from "./game.js";
import { mountReplay } from "./replay.js";
import { mountLearn } from "./learn/page.js";
import { mountMyGames } from "./mygames.js";
import { loadConfig } from "./config.js";
import { registerWorker } from "./signals.js";
import { mountAccount } from "./account.js";
import { mountLeaderboard, mountProfile } from "./ratings.js";
import { watchChallenges } from "./challenges.js";
import { mountTournament } from "./tournaments/page.js";

/** Which page an address shows, and of what (a game's or a player's id). @typedef {{page: string, id?: string}} Where */

/** @param {string} path @returns {Where} */
function route(path) {
  let m = /^\/g\/([^/]+)\/?$/.exec(path);
  if (m) return { page: "game", id: decodeURIComponent(m[1]) };
  m = /^\/r\/([^/]+)\/?$/.exec(path);
  if (m) return { page: "replay", id: decodeURIComponent(m[1]) };
  if (/^\/learn\/?$/.test(path)) return { page: "learn" };
  if (/^\/leaderboard\/?$/.test(path)) return { page: "leaderboard" };
  m = /^\/players\/([^/]+)\/?$/.exec(path);
  if (m) return { page: "profile", id: decodeURIComponent(m[1]) };
  if (/^\/my-games\/?$/.test(path)) return { page: "mygames" };
  m = /^\/t\/([^/]+)\/?$/.exec(path);
  if (m) return { page: "tournament", id: decodeURIComponent(m[1]) };
  return { page: "lobby" };
}

/** @param {Where} where */
function renderChrome(where) {
  byId("tagline").textContent = t("app.tagline");
  const help = byId("help-button");
  help.textContent = t("nav.help");
  help.setAttribute("aria-keyshortcuts", "?");
  for (const el of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll("[data-i18n]"))) el.textContent = t(/** @type {string} */ (el.dataset.i18n));
  document.querySelector(".brand")?.setAttribute("aria-label", t("nav.home"));
  const group = byId("lang-switch");
  group.setAttribute("aria-label", t("nav.lang"));
  for (const b of group.querySelectorAll("button")) {
    b.setAttribute("aria-pressed", b.dataset.lang === lang() ? "true" : "false");
  }
  /** @type {Record<string, string>} */
  const titles = { lobby: t("app.title"), game: `${t("app.title")} — ${t("game.log")}`, replay: `${t("app.title")} — ${t("replay.title")}`, learn: `${t("app.title")} — ${t("learn.title")}`, leaderboard: `${t("app.title")} — ${t("ratings.leaderboard")}`, profile: `${t("app.title")} — ${where.id}`, mygames: `${t("mygames.title")} — ${t("app.title")}`, tournament: `${t("tournament.title")} — ${t("app.title")}` };
  document.title = where.page === "game" ? t("app.title") : titles[where.page];
}

/** The help dialog of index.html. */
function helpDialog() {
  return /** @type {HTMLDialogElement} */ (document.getElementById("help"));
}

function renderHelp() {
  const dialog = helpDialog();
  clear(dialog);
  const close = h("button", { type: "button", class: "btn", "data-testid": "help-close" }, t("help.close"));
  close.addEventListener("click", () => dialog.close());
  dialog.append(
    h("h2", { id: "help-title" }, t("help.title")),
    h("p", {}, t("help.turn")),
    h("p", {}, t("help.goal")),
    h("p", {}, t("help.colours")),
    h("p", {}, h("a", { href: "/learn", "data-testid": "help-learn" }, t("learn.open"))),
    h("p", { "data-testid": "help-touch" }, t("help.touch")),
    h("h3", {}, t("help.keys")),
    h(
      "ul",
      { "data-testid": "help-keys" },
      ["orient", "roll", "place", "hint", "replay", "help", "tab"].map((k) => h("li", {}, t(`help.key.${k}`))),
    ),
    h("div", { class: "dialog-actions" }, close),
  );
}

function openHelp() {
  const dialog = helpDialog();
  if (!dialog.open) dialog.showModal();
}

async function start() {
  const configured = loadConfig();
  registerWorker();
  const where = route(location.pathname);
  const main = byId("app");
  renderChrome(where);
  renderHelp();
  mountAccount();
  watchChallenges();
  byId("help-button").addEventListener("click", openHelp);
  for (const b of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll("#lang-switch button"))) {
    b.addEventListener("click", () => setLang(/** @type {string} */ (b.dataset.lang)));
  }
  document.addEventListener("keydown", (e) => {
    if (e.key !== "?" || e.ctrlKey || e.metaKey || e.altKey) return;
    const el = e.target;
    if (el instanceof HTMLElement && ["INPUT", "SELECT", "TEXTAREA"].includes(el.tagName)) return;
    e.preventDefault();
    openHelp();
  });
  onLangChange(() => {
    renderChrome(where);
    renderHelp();
  });
  clear(main);
  try {
    await configured;
  } catch (error) {
    main.append(h("p", { class: "notice error", role: "alert" }, t("lobby.error", { message: errorText(error) })));
    return;
  }
  if (where.page === "game") mountGame(main, /** @type {string} */ (where.id));
  else if (where.page === "replay") mountReplay(main, /** @type {string} */ (where.id));
  else if (where.page === "learn") mountLearn(main);
  else if (where.page === "leaderboard") mountLeaderboard(main);
  else if (where.page === "profile") mountProfile(main, /** @type {string} */ (where.id));
  else if (where.page === "mygames") mountMyGames(main);
  else if (where.page === "tournament") mountTournament(main, /** @type {string} */ (where.id));
  else mountLobby(main);
  document.body.dataset.page = where.page;
  document.body.dataset.ready = "1";
}

start();
