// The lobby's friends panel (docs/web.md, "Friends and challenges"): the players you
// follow, online or not, the game each plays (a link to watch it), a challenge for each,
// and following a player by name; the players you blocked, to unblock.

import { h, clear } from "../dom.js";
import { t } from "../i18n.js";
import { api, ApiError } from "../api.js";
import { challengeButton, challengeError } from "../challenges.js";

/** Seconds between two looks at who is online. */
const REFRESH = 20;

/** The friends card, which keeps itself up to date while it is on the page. */
export function friendsCard() {
  const body = h("div", { class: "friends-body" });
  const card = h(
    "section",
    { class: "card friends", "data-testid": "friends", "aria-labelledby": "friends-title" },
    h("h2", { id: "friends-title" }, t("friends.title")),
    body,
  );
  /** @type {string|null} */
  let problem = null;

  /** @param {any} answer */
  function show(answer) {
    clear(body);
    if (problem) body.append(h("p", { class: "notice error", role: "alert" }, problem));
    if (!answer) return;
    const list = answer.friends.map((/** @type {any} */ f) =>
      h(
        "li",
        { class: "friend", "data-testid": "friend", "data-name": f.name },
        h("span", { class: `presence ${f.online ? "connected" : "away"}`, "aria-hidden": "true" }, h("span", { class: "dot" })),
        " ",
        h("a", { href: `/players/${encodeURIComponent(f.name)}` }, f.name),
        " ",
        h("span", { class: "friend-status", "data-testid": "friend-status" }, t(f.playing ? "friends.playing" : f.waiting ? "friends.waiting" : f.online ? "friends.online" : "friends.offline")),
        f.playing ? [" ", h("a", { class: "btn ghost small", href: `/g/${encodeURIComponent(f.playing)}`, "data-testid": "friend-watch" }, t("friends.watch"))] : null,
        " ",
        challengeButton(f.name),
        " ",
        h("button", { type: "button", class: "btn ghost small", "aria-label": t("friends.unfollow", { name: f.name }), onclick: () => change("unfollow", f.name) }, "×"),
      ),
    );
    body.append(answer.friends.length ? h("ul", { class: "friend-list" }, list) : h("p", {}, t("friends.none")));
    const input = h("input", { type: "text", id: "follow-name", maxlength: "40", autocomplete: "off", "data-testid": "follow-name" });
    const form = h(
      "form",
      { class: "follow-form" },
      h("label", { for: "follow-name" }, t("friends.follow.label")),
      " ",
      input,
      " ",
      h("button", { type: "submit", class: "btn secondary small", "data-testid": "follow-submit" }, t("friends.follow")),
    );
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const name = input.value.trim();
      if (name) change("follow", name);
    });
    body.append(form);
    if (answer.blocked.length) {
      body.append(
        h(
          "p",
          { class: "blocked-list" },
          t("friends.blocked"),
          " ",
          answer.blocked.map((/** @type {string} */ name) => [
            h("button", { type: "button", class: "btn ghost small", onclick: () => change("unblock", name) }, t("friends.unblock", { name })),
            " ",
          ]),
        ),
      );
    }
  }

  /** @param {string} what @param {string} name */
  async function change(what, name) {
    try {
      problem = null;
      show(await api.changeFriend(what, name));
    } catch (error) {
      problem = challengeError(error);
      await load();
    }
  }

  async function load() {
    try {
      const answer = await api.friends();
      show(answer);
      return true;
    } catch (error) {
      clear(body);
      if (error instanceof ApiError && error.status === 401) {
        body.append(h("p", {}, t("friends.signin")));
        return true;
      }
      body.append(h("p", { class: "notice error", role: "alert" }, challengeError(error)));
      return true;
    }
  }

  async function keep() {
    if (!card.isConnected && card.dataset.started) return; // the lobby was left or redrawn
    card.dataset.started = "1";
    await load();
    setTimeout(keep, REFRESH * 1000);
  }
  keep();
  return card;
}
