// The tournaments elsewhere: the lobby's list of those about to start or under way
// (GET /api/tournaments), and a profile's results (GET /api/tournaments/player/{name}).

import { h, clear } from "../dom.js";
import { t } from "../i18n.js";
import { api } from "../api.js";
import { tournamentLine, tournamentTime } from "./page.js";
import { createTournamentForm } from "./create.js";

/** The lobby's card of public tournaments, filled when the server answers. */
export function tournamentsCard() {
  const body = h("div", {});
  const card = h(
    "section",
    { class: "card", "aria-labelledby": "tournaments-title", "data-testid": "lobby-tournaments" },
    h("h2", { id: "tournaments-title" }, t("tournament.list")),
    body,
    createTournamentForm(),
  );
  api
    .tournaments()
    .then((/** @type {Record<string, any>[]} */ listed) => {
      clear(body).append(
        listed.length
          ? h(
              "ul",
              { class: "last-games" },
              listed.map((tour) =>
                h("li", { "data-testid": "lobby-tournament" }, h("a", { href: tour.link }, tour.name), " · ", tournamentTime(tour), h("br", {}), h("span", { class: "hint" }, tournamentLine(tour))),
              ),
            )
          : h("p", { class: "hint" }, t("tournament.none")),
      );
    })
    .catch(() => clear(body).append(h("p", { class: "hint" }, t("tournament.none"))));
  return card;
}

/** A profile's tournaments played to their end, with the player's rank. @param {string} name */
export function tournamentResults(name) {
  const body = h("div", { "data-testid": "profile-tournaments" });
  api
    .tournamentResults(name)
    .then((/** @type {Record<string, any>[]} */ results) => {
      if (!results.length) return;
      clear(body).append(
        h("h2", {}, t("tournament.results")),
        h(
          "ul",
          { class: "last-games" },
          results.map((one) =>
            h("li", { "data-testid": "profile-tournament" }, h("a", { href: one.tournament.link }, one.tournament.name), " · ", t("tournament.rank", { n: one.rank, of: one.entrants }), " · ", t("tournament.score", { n: one.score })),
          ),
        ),
      );
    })
    .catch(() => {});
  return body;
}
