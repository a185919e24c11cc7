// The lobby's lists: the games this browser remembers (resume, watch, replay, forget) and
// the games with open seats (join with a name), refreshed every 15 s.

import { h } from "../dom.js";
import { t, seatColoursName } from "../i18n.js";
import { swatch } from "../board.js";
import { api } from "../api.js";
import { myGames, remember, forget, gameLink } from "../store.js";
import { rulesLabel } from "../config.js";
import { savedName, saveName, failure, whoLine, progressLine, seatColours } from "./lines.js";

/** @typedef {import("../lobby.js").Lobby} Lobby */

/** Ask the server about this browser's games and the open ones; redraw the lists. @param {Lobby} L */
export async function refresh(L) {
  L.listError = null;
  try {
    const ids = myGames()
      .map((g) => g.id)
      .slice(0, 50);
    [L.mine, L.open] = await Promise.all([api.games(ids), api.openGames()]);
  } catch (error) {
    L.listError = t("lobby.error", { message: /** @type {Error} */ (error).message });
  }
  L.renderLists();
}

/** A remembered game's buttons: resume (or watch), replay, forget. @param {Lobby} L @param {import("../store.js").StoredGame} entry @param {import("./lines.js").GameSummary} summary */
function mineActions(L, entry, summary) {
  const actions = [];
  if (summary.status !== "over" && entry.tokens && entry.tokens.length) {
    actions.push(h("a", { class: "btn small", href: gameLink(entry.id, entry.tokens) }, t("lobby.resume")));
  } else {
    actions.push(h("a", { class: "btn small secondary", href: gameLink(entry.id, entry.tokens || []) }, t("lobby.watch")));
  }
  actions.push(h("a", { class: "btn small secondary", href: summary.replay_link || `/r/${entry.id}`, "data-testid": `replay-${entry.id}` }, t("lobby.replay")));
  const forgetBtn = h("button", { type: "button", class: "btn small ghost" }, t("lobby.mine.forget"));
  forgetBtn.addEventListener("click", () => {
    forget(entry.id);
    L.renderLists();
  });
  actions.push(forgetBtn);
  return actions;
}

/** The games this browser created or joined. @param {Lobby} L */
export function mineCard(L) {
  const list = h("ul", { class: "game-list", "data-testid": "my-games" });
  const byId = new Map(L.mine.map((s) => [s.game_id, s]));
  for (const entry of myGames()) {
    const summary = byId.get(entry.id);
    if (!summary) continue;
    const players = summary.players;
    const colours = (entry.seats || []).flatMap((s) => seatColours(players, s));
    list.append(
      h(
        "li",
        { "data-game": entry.id },
        h(
          "div",
          { class: "meta" },
          h(
            "strong",
            {},
            colours.length ? h("span", { class: "swatches" }, colours.map((c) => swatch(c, 18))) : null,
            " ",
            t("lobby.players.n", { n: players }),
            " · ",
            rulesLabel(summary),
          ),
          h("small", {}, whoLine(summary)),
          h("small", { "data-testid": `progress-${entry.id}` }, progressLine(summary)),
        ),
        h("div", { class: "actions" }, mineActions(L, entry, summary)),
      ),
    );
  }
  return h(
    "section",
    { class: "card", "aria-labelledby": "mine-title" },
    h("h2", { id: "mine-title" }, t("lobby.mine")),
    list.children.length ? list : h("p", { class: "hint" }, t("lobby.mine.empty")),
    h("p", {}, h("a", { href: "/my-games", "data-testid": "my-games-link" }, t("mygames.link"))),
    L.listError ? h("p", { class: "notice error" }, L.listError) : null,
  );
}

/** The games with open seats: a Join button per seat. @param {Lobby} L */
export function openCard(L) {
  const list = h("ul", { class: "game-list", "data-testid": "open-games" });
  for (const game of L.open) {
    const actions = game.open_seats.map((/** @type {number} */ seat) => {
      const b = h(
        "button",
        { type: "button", class: "btn small", "data-testid": `join-${game.game_id}-${seat}` },
        swatch(seatColours(game.players, seat)[0], 16),
        " ",
        t("lobby.join", { seat: seatColoursName(seatColours(game.players, seat)) }),
      );
      b.addEventListener("click", () => {
        L.joining = { game, seat, error: null };
        L.renderLists();
        const field = L.root.querySelector("[data-testid=join-name]");
        if (field instanceof HTMLElement) field.focus();
      });
      return b;
    });
    const asking = L.joining && L.joining.game.game_id === game.game_id ? joinForm(L) : null;
    list.append(
      h(
        "li",
        { "data-game": game.game_id },
        h(
          "div",
          { class: "meta" },
          h("strong", {}, t("lobby.players.n", { n: game.players }), " · ", rulesLabel(game)),
          h("small", { "data-testid": `who-${game.game_id}` }, whoLine(game)),
          h("small", { "data-testid": `progress-${game.game_id}` }, progressLine(game)),
        ),
        h("div", { class: "actions" }, actions),
        asking,
      ),
    );
  }
  const refreshBtn = h("button", { type: "button", class: "btn small secondary" }, t("lobby.refresh"));
  refreshBtn.addEventListener("click", () => refresh(L));
  return h(
    "section",
    { class: "card", "aria-labelledby": "open-title" },
    h("div", { class: "control-row", style: { justifyContent: "space-between" } }, h("h2", { id: "open-title" }, t("lobby.open")), refreshBtn),
    L.open.length ? list : h("p", { class: "hint" }, t("lobby.open.empty")),
  );
}

/** A name before taking an open seat (the server needs one; the lobby remembers it). @param {Lobby} L */
function joinForm(L) {
  const { game, seat } = L.joining;
  const input = h("input", { type: "text", maxlength: 40, autocomplete: "nickname", value: savedName(), id: "join-name", "data-testid": "join-name" });
  const go = h("button", { type: "submit", class: "btn", "data-testid": "join-go" }, t("lobby.join.go"));
  const cancel = h("button", { type: "button", class: "btn ghost", "data-testid": "join-cancel" }, t("lobby.join.cancel"));
  cancel.addEventListener("click", () => {
    L.joining = null;
    L.renderLists();
  });
  const submit = (/** @type {Event} */ e) => {
    e.preventDefault();
    const name = input.value.trim();
    if (!name) {
      L.joining.error = t("lobby.join.needed");
      L.renderLists();
      /** @type {HTMLElement} */ (L.root.querySelector("[data-testid=join-name]")).focus();
      return;
    }
    join(L, game, seat, name);
  };
  return h(
    "form",
    { class: "join-form", "data-testid": "join-form", onsubmit: submit },
    h("label", { for: "join-name" }, t("lobby.join", { seat: seatColoursName(seatColours(game.players, seat)) }), " — ", t("lobby.join.name")),
    h("div", { class: "control-row" }, input, go, cancel),
    L.joining.error ? h("p", { class: "notice error", role: "alert", "data-testid": "join-error" }, L.joining.error) : null,
  );
}

/** Take an open seat, then go to the game. @param {Lobby} L @param {import("./lines.js").GameSummary} game @param {number} seat @param {string} name */
async function join(L, game, seat, name) {
  try {
    const answer = await api.join(game.game_id, seat, name);
    saveName(name);
    remember(game.game_id, { tokens: [answer.token], seats: [seat], players: game.players });
    location.href = answer.link;
  } catch (error) {
    L.joining = { game, seat, error: failure(error) };
    refresh(L);
  }
}
