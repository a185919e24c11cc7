// A tournament's page (/t/{id}): its standings live (read again every 3 s), its games to
// watch, joining and withdrawing, the link of your game under way, and the podium at the
// end (GET /api/tournaments/{id}; docs/web.md, "Tournaments").

import { h, clear } from "../dom.js";
import { t, lang, onLangChange, levelName } from "../i18n.js";
import { api } from "../api.js";

/** What a refusal says in the page's language. @param {any} error */
export function tournamentFailure(error) {
  const key = `tournament.error.${error.code}`;
  const known = t(key);
  return known === key ? t("lobby.error", { message: error.message }) : known;
}

/** A time of the page's language, from the API's ISO string. @param {string} iso */
export function when(iso) {
  return new Date(iso).toLocaleString(lang(), { dateStyle: "medium", timeStyle: "short" });
}

/** The line saying what a tournament is. @param {Record<string, any>} tour */
export function tournamentLine(tour) {
  const kind = tour.kind === "arena" ? t("tournament.arena") : t("tournament.swiss", { n: tour.rounds });
  const bits = [kind, t("profile.count", { n: tour.players }), t(`tournament.clock.${tour.clock}`)];
  if (tour.rated) bits.push(t("lobby.rated.badge"));
  if (tour.max_rating) bits.push(t("tournament.max_rating", { n: tour.max_rating }));
  return bits.join(" · ");
}

/** When a tournament starts or ends, or that it is over. @param {Record<string, any>} tour */
export function tournamentTime(tour) {
  if (tour.status === "scheduled") return t("tournament.starts", { when: when(tour.starts) });
  if (tour.status === "over") return t("tournament.over");
  return tour.ends ? t("tournament.ends", { when: when(tour.ends) }) : t("tournament.running");
}

/** @param {Record<string, any>} line */
function who(line) {
  if (line.bot) return t("tournament.bot", { level: levelName(line.name) });
  return h("a", { href: `/players/${encodeURIComponent(line.name)}` }, line.name);
}

/** @param {Record<string, any>[]} lines */
function standingsTable(lines) {
  const heads = [t("ratings.place"), t("ratings.player"), t("tournament.points"), t("ratings.games"), t("tournament.sheet")];
  return h(
    "div",
    { class: "table-wrap" },
    h(
      "table",
      { class: "ratings-table", "data-testid": "tournament-standings" },
      h("caption", {}, t("tournament.standings")),
      h("thead", {}, h("tr", {}, heads.map((label, i) => h("th", { scope: "col", class: i === 1 || i === 4 ? "" : "num" }, label)))),
      h(
        "tbody",
        {},
        lines.map((line) =>
          h(
            "tr",
            { "data-testid": "standing" },
            h("td", { class: "num" }, String(line.rank)),
            h(
              "td",
              {},
              who(line),
              line.playing ? [" ", h("span", { class: "badge" }, t("tournament.playing"))] : null,
              line.withdrawn ? [" ", h("span", { class: "badge" }, t("tournament.withdrawn"))] : null,
            ),
            h("td", { class: "num", "data-testid": "standing-score" }, String(line.score), line.on_fire ? h("span", { title: t("tournament.fire"), "aria-label": t("tournament.fire") }, " 🔥") : null),
            h("td", { class: "num" }, String(line.games)),
            h("td", {}, line.sheet.join(" ")),
          ),
        ),
      ),
    ),
  );
}

/** @param {Record<string, any>[]} podium */
function podiumList(podium) {
  return h(
    "section",
    { class: "podium", "data-testid": "tournament-podium", "aria-labelledby": "podium-title" },
    h("h2", { id: "podium-title" }, t("tournament.podium")),
    h(
      "ol",
      {},
      podium.map((line) => h("li", { "data-testid": "podium-step" }, t("profile.place", { n: line.rank }), " · ", who(line), " · ", t("tournament.score", { n: line.score }))),
    ),
  );
}

/** @param {Record<string, any>[]} games */
function gameList(games) {
  if (!games.length) return h("p", { class: "hint" }, t("tournament.no_games"));
  return h(
    "ul",
    { class: "last-games", "data-testid": "tournament-games" },
    games.map((game) => {
      const over = Boolean(game.places);
      const names = game.names.map((/** @type {string} */ name, /** @type {number} */ i) => (over ? `${name} (${game.places[i]})` : name));
      const label = over ? t("lobby.replay") : t("lobby.watch");
      const href = over ? `/r/${game.game_id}` : game.link;
      return h("li", {}, h("a", { href, "data-testid": over ? "tournament-replay" : "tournament-watch" }, label), " · ", names.join(" – "));
    }),
  );
}

/** Show the tournament `id` in `root`. @param {HTMLElement} root @param {string} id */
export function mountTournament(root, id) {
  /** @type {any} */
  let page = null;
  /** @type {string|null} */
  let error = null;
  /** @type {string|null} */
  let actionError = null;
  let signedIn = false;
  let busy = false;

  function actions() {
    if (!page || page.tournament.status === "over") return null;
    if (!signedIn) return h("p", { class: "hint", "data-testid": "tournament-sign-in" }, t("tournament.sign_in"));
    const join = !page.joined;
    const button = h(
      "button",
      { type: "button", class: join ? "btn" : "btn secondary", disabled: busy, "data-testid": join ? "tournament-join" : "tournament-withdraw" },
      join ? t("tournament.join") : t("tournament.withdraw"),
    );
    button.addEventListener("click", () => act(join));
    return h("p", {}, button);
  }

  function render() {
    const focused = document.activeElement?.getAttribute("data-testid");
    clear(root);
    const parts = [];
    if (error) parts.push(h("p", { class: "notice error", role: "alert" }, error));
    if (page) {
      const tour = page.tournament;
      parts.push(h("p", { "data-testid": "tournament-line" }, tournamentLine(tour)));
      parts.push(h("p", { "data-testid": "tournament-time", "data-status": tour.status }, tournamentTime(tour), page.round && tour.kind === "swiss" ? ` · ${t("tournament.round", { n: page.round, of: tour.rounds })}` : ""));
      if (actionError) parts.push(h("p", { class: "notice error", role: "alert", "data-testid": "tournament-error" }, actionError));
      if (page.my_game) {
        parts.push(h("p", { class: "notice", role: "status" }, t("tournament.your_game"), " ", h("a", { class: "btn", href: page.my_game.link, "data-testid": "tournament-play" }, t("tournament.play"))));
      }
      parts.push(actions());
      if (page.podium.length) parts.push(podiumList(page.podium));
      parts.push(page.standings.length ? standingsTable(page.standings) : h("p", { class: "hint" }, t("tournament.nobody")));
      parts.push(h("h2", {}, t("tournament.games")), gameList(page.games));
    }
    root.append(
      h(
        "section",
        { class: "card ratings-page", "data-testid": "tournament-page", "aria-labelledby": "tournament-title", "aria-busy": page || error ? "false" : "true" },
        h("h1", { id: "tournament-title", "data-testid": "tournament-name" }, page ? page.tournament.name : t("tournament.title")),
        ...parts,
      ),
    );
    if (focused) /** @type {HTMLElement|null} */ (root.querySelector(`[data-testid="${focused}"]`))?.focus();
  }

  /** @param {boolean} join */
  async function act(join) {
    busy = true;
    actionError = null;
    render();
    try {
      await (join ? api.joinTournament(id) : api.withdrawTournament(id));
    } catch (e) {
      actionError = tournamentFailure(e);
    }
    busy = false;
    await load();
  }

  async function load() {
    try {
      page = await api.tournament(id);
      error = null;
    } catch (e) {
      error = tournamentFailure(e);
    }
    render();
  }

  render();
  api
    .account()
    .then((answer) => {
      signedIn = Boolean(answer && answer.account);
    })
    .catch(() => {
      signedIn = false;
    })
    .finally(load);
  const timer = setInterval(() => {
    if (!busy && !document.hidden) load();
  }, 3000);
  const off = onLangChange(render);
  return () => {
    off();
    clearInterval(timer);
  };
}
