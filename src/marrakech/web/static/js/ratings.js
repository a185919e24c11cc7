// The leaderboard (/leaderboard?players=N) and a player's profile (/players/{name}):
// rated games' standings from GET /api/leaderboard and GET /api/players/{name}
// (docs/web.md, "Ratings"). The rating chart is drawn here in SVG (chart.js).

import { h, clear } from "./dom.js";
import { t, lang, onLangChange, levelName } from "./i18n.js";
import { api } from "./api.js";
import { ratingChart } from "./chart.js";
import { challengeButton, friendButtons } from "./challenges.js";
import { tournamentResults } from "./tournaments/lists.js";

const COUNTS = [2, 3, 4];

/** What a refusal says in the page's language. @param {any} error */
function failure(error) {
  const key = `ratings.error.${error.code}`;
  const known = t(key);
  return known === key ? t("lobby.error", { message: error.message }) : known;
}

/** @param {string} name */
function profileLink(name) {
  return h("a", { href: `/players/${encodeURIComponent(name)}`, "data-testid": "profile-link" }, name);
}

/** @param {string} testid @param {string[][]} heads @param {HTMLElement[]} rows */
function table(testid, heads, rows) {
  return h(
    "div",
    { class: "table-wrap" },
    h(
      "table",
      { class: "ratings-table", "data-testid": testid },
      h("thead", {}, h("tr", {}, heads.map(([label, cls]) => h("th", { scope: "col", class: cls || "" }, label)))),
      h("tbody", {}, rows),
    ),
  );
}

/**
 * A table of ranked accounts; `provisional` marks each rating so.
 * @param {string} testid @param {string} rowid @param {Record<string, any>[]} leaders @param {boolean} provisional
 */
function leaderTable(testid, rowid, leaders, provisional) {
  return table(
    testid,
    [[t("ratings.place"), "num"], [t("ratings.player")], [t("ratings.rating"), "num"], [t("ratings.games"), "num"], [t("ratings.wins"), "num"]],
    leaders.map((leader) =>
      h(
        "tr",
        { "data-testid": rowid },
        h("td", { class: "num" }, String(leader.place)),
        h("td", {}, profileLink(leader.name), " ", challengeButton(leader.name, { rated: true })),
        h(
          "td",
          { class: "num", "data-testid": "leader-rating" },
          String(leader.rating),
          provisional ? [" ", h("span", { class: "badge provisional", "data-testid": "provisional-badge" }, t("ratings.provisional.badge"))] : null,
        ),
        h("td", { class: "num" }, String(leader.games)),
        h("td", { class: "num" }, String(leader.wins)),
      ),
    ),
  );
}

/** The count a leaderboard opens on: ?players=N, else 2. */
function askedCount() {
  const n = Number(new URLSearchParams(location.search).get("players"));
  return COUNTS.includes(n) ? n : 2;
}

/** Show the leaderboard in `root`. @param {HTMLElement} root */
export function mountLeaderboard(root) {
  let players = askedCount();
  /** @type {any} */
  let board = null;
  /** @type {string|null} */
  let error = null;
  // A count was chosen: the tabs are drawn again, and the keyboard stays on the chosen one.
  let keep = false;

  function render() {
    clear(root);
    const tabs = h(
      "div",
      { class: "count-tabs", role: "group", "aria-label": t("ratings.counts") },
      COUNTS.map((n) =>
        h(
          "button",
          {
            type: "button",
            class: "btn secondary",
            "aria-pressed": n === players ? "true" : "false",
            "data-testid": `leaderboard-${n}`,
            onclick: () => choose(n),
          },
          t("profile.count", { n }),
        ),
      ),
    );
    const body = [];
    if (error) body.push(h("p", { class: "notice error", role: "alert" }, error));
    else if (board) {
      const n = board.min_games;
      body.push(h("p", { class: "hint" }, t("ratings.help", { n })));
      if (board.leaders.length) body.push(leaderTable("leaderboard", "leader", board.leaders, false));
      else body.push(h("p", { "data-testid": "leaderboard-empty" }, t(board.provisional.length ? "ratings.empty.provisional" : "ratings.empty", { n })));
      // Who has fewer games is shown apart, marked, while nobody is listed: a new
      // server's leaderboard is not empty after its first rated games.
      if (!board.leaders.length && board.provisional.length) {
        body.push(
          h("h2", {}, t("ratings.provisional")),
          h("p", { class: "hint" }, t("ratings.provisional.help", { n })),
          leaderTable("leaderboard-provisional", "provisional-leader", board.provisional, true),
        );
      }
      body.push(
        h("h2", {}, t("ratings.bots")),
        h("p", { class: "hint" }, t("ratings.bots.help")),
        table(
          "bot-ratings",
          [[t("ratings.bot")], [t("ratings.rating"), "num"], [t("ratings.games"), "num"]],
          board.bots.map((/** @type {Record<string, any>} */ bot) =>
            h("tr", {}, h("td", {}, levelName(bot.level)), h("td", { class: "num" }, String(bot.rating)), h("td", { class: "num" }, String(bot.games))),
          ),
        ),
      );
    }
    root.append(
      h(
        "section",
        { class: "card ratings-page", "data-testid": "leaderboard-page", "aria-labelledby": "ratings-title", "aria-busy": board || error ? "false" : "true" },
        h("h1", { id: "ratings-title" }, t("ratings.leaderboard")),
        tabs,
        ...body,
      ),
    );
    const tab = root.querySelector(`[data-testid=leaderboard-${players}]`);
    if (keep && tab instanceof HTMLElement) tab.focus();
  }

  async function load() {
    try {
      board = await api.leaderboard(players);
      error = null;
    } catch (e) {
      error = failure(e);
    }
    render();
  }

  /** @param {number} n */
  function choose(n) {
    players = n;
    board = null;
    history.replaceState(null, "", `/leaderboard?players=${n}`);
    keep = true;
    render();
    load().then(() => (keep = false));
  }

  render();
  load();
  onLangChange(render);
}

/** Show the profile of the player `name` in `root`. @param {HTMLElement} root @param {string} name */
export function mountProfile(root, name) {
  /** @type {any} */
  let profile = null;
  /** @type {string|null} */
  let error = null;
  let mine = false;

  function render() {
    clear(root);
    const parts = [];
    if (error) parts.push(h("p", { class: "notice error", role: "alert" }, error));
    else if (profile) parts.push(...profileParts(profile, mine));
    root.append(
      h(
        "section",
        { class: "card ratings-page", "data-testid": "profile-page", "aria-labelledby": "profile-title", "aria-busy": profile || error ? "false" : "true" },
        h("h1", { id: "profile-title", "data-testid": "profile-name" }, profile ? profile.name : name),
        ...parts,
        profile ? tournamentResults(profile.name) : null,
        h("p", {}, h("a", { href: "/leaderboard", "data-testid": "leaderboard-link" }, t("ratings.leaderboard"))),
      ),
    );
  }

  async function load() {
    try {
      profile = await api.profile(name);
      try {
        const account = (await api.account()).account;
        mine = Boolean(account && account.name === profile.name);
      } catch (_) {
        mine = false;
      }
    } catch (e) {
      error = failure(e);
    }
    render();
  }

  render();
  load();
  onLangChange(render);
}

/** @param {Record<string, any>} p @param {boolean} mine */
function profileParts(p, mine) {
  const since = new Date(p.member_since).toLocaleDateString(lang());
  /** @type {Node[]} */
  const parts = [h("p", { "data-testid": "profile-since" }, t("profile.since", { date: since }))];
  if (!mine) parts.push(h("p", { class: "profile-actions", "data-testid": "profile-actions" }, challengeButton(p.name), " ", friendButtons(p.name)));
  // The sentence carries the two numbers it compares, as the leaderboard shows them.
  const at = p.ratings.find((/** @type {Record<string, any>} */ r) => r.players === p.plays_like_players);
  if (p.plays_like && at) {
    const values = { level: levelName(p.plays_like), rating: at.rating, n: at.players, bot: at.plays_like_rating };
    parts.push(h("p", { class: "plays-like", "data-testid": "plays-like" }, t(mine ? "profile.plays_like.you" : "profile.plays_like", values)));
  }
  parts.push(h("h2", {}, t("profile.ratings")));
  parts.push(
    p.ratings.length
      ? table(
          "profile-ratings",
          [[t("ratings.counts")], [t("ratings.rating"), "num"], [t("ratings.games"), "num"], [t("ratings.wins"), "num"]],
          p.ratings.map((/** @type {Record<string, any>} */ r) =>
            h(
              "tr",
              { "data-players": r.players },
              h("td", {}, h("a", { href: `/leaderboard?players=${r.players}` }, t("profile.count", { n: r.players }))),
              h("td", { class: "num", "data-testid": `profile-rating-${r.players}` }, String(r.rating)),
              h("td", { class: "num" }, String(r.games)),
              h("td", { class: "num" }, String(r.wins)),
            ),
          ),
        )
      : h("p", {}, t("profile.unrated")),
  );
  if (p.history.length) {
    parts.push(ratingChart(p.history, { title: t("profile.chart"), count: (n) => t("profile.count", { n }) }));
  }
  parts.push(h("h2", {}, t("profile.results")));
  parts.push(
    p.results.length
      ? table(
          "profile-results",
          [[t("ratings.counts")], [t("profile.played"), "num"], [t("profile.won"), "num"]],
          p.results.map((/** @type {Record<string, any>} */ r) => h("tr", {}, h("td", {}, t("profile.count", { n: r.players })), h("td", { class: "num" }, String(r.played)), h("td", { class: "num" }, String(r.won)))),
        )
      : h("p", {}, t("profile.none")),
  );
  parts.push(h("h2", {}, t("profile.bots")));
  parts.push(
    p.bots_beaten.length
      ? h(
          "ul",
          { class: "bots-beaten", "data-testid": "bots-beaten" },
          p.bots_beaten.map((/** @type {Record<string, any>} */ b) => h("li", {}, t("profile.bots.times", { level: levelName(b.level), n: b.times }))),
        )
      : h("p", { "data-testid": "bots-beaten-none" }, t("profile.bots.none")),
  );
  if (p.last_games.length) {
    parts.push(h("h2", {}, t("profile.last")));
    parts.push(
      h(
        "ul",
        { class: "last-games", "data-testid": "last-games" },
        p.last_games.map((/** @type {Record<string, any>} */ g) => {
          const when = new Date(g.at).toLocaleDateString(lang());
          const bits = [t("profile.game", { n: g.players, when })];
          if (g.rated) bits.push(t("lobby.rated.badge"));
          if (g.place) bits.push(t("profile.place", { n: g.place }));
          const label = g.status === "over" ? t("lobby.replay") : t("lobby.watch");
          return h("li", {}, h("a", { href: g.link, "data-testid": "last-game", "data-game": g.game_id }, label), " · ", bits.join(" · "));
        }),
      ),
    );
  }
  return parts;
}
