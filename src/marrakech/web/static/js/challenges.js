// Challenges (docs/web.md, "Friends and challenges"): the Challenge button (a profile,
// the leaderboard, a finished game's table) and the challenges every page shows. Every
// page of a signed-in player asks GET /api/challenges now and then (its heartbeat: the
// server knows a page is open, so friends see you online and no push is sent); an
// incoming challenge is accepted or declined here, and an accepted one takes both
// players to the game (the challenger's page at its next ask, within 3 s).

import { h, clear } from "./dom.js";
import { t, lang, onLangChange, clockLabel } from "./i18n.js";
import { api, ApiError } from "./api.js";
import { config, rulesLabel } from "./config.js";

/** Challenges already answered on this device, or gone to (their ids). */
const DONE_KEY = "marrakech.challenges.done";

/** @returns {string[]} */
function done() {
  try {
    return JSON.parse(localStorage.getItem(DONE_KEY) || "[]");
  } catch (_) {
    return [];
  }
}

/** @param {string} id */
function markDone(id) {
  const ids = done().filter((x) => x !== id);
  ids.push(id);
  try {
    localStorage.setItem(DONE_KEY, JSON.stringify(ids.slice(-100)));
  } catch (_) {
    /* private mode: the page asks again, nothing lost */
  }
}

/** What a refusal says, in the page's language. @param {unknown} error */
export function challengeError(error) {
  if (error instanceof ApiError) {
    const key = `challenge.error.${error.code}`;
    const known = t(key);
    return known === key ? error.message : known;
  }
  return String(error);
}

/**
 * A challenge's game settings from a game's meta (GameMeta, GameSummary): its rules,
 * options, clock, hints, chat, rating and language.
 * @param {any} meta
 */
export function settingsOf(meta) {
  if (!meta) return {};
  const named = config.ruleSets.some((r) => r.name === meta.rule_set);
  return {
    rules: named ? meta.rule_set : "standard",
    options: meta.options || {},
    clock: (meta.clock && meta.clock.mode) || "none",
    hints: Boolean(meta.hints),
    chat: meta.chat !== false,
    rated: Boolean(meta.rated),
    lang: meta.lang === "fr" ? "fr" : "en",
  };
}

/** "Standard, Blitz: 0:30 per turn, rated". @param {any} game */
function describe(game) {
  const clock = game.clock || "none";
  return [
    rulesLabel({ rule_set: game.rules || "standard", options: game.options || {} }),
    clockLabel(clock, config.clocks[clock] || 0),
    t(game.rated ? "challenge.rated" : "challenge.unrated"),
  ].join(", ");
}

/**
 * The Challenge button for the player `name`, with a game's `settings`, and a line that
 * says what happened (sent, or why not).
 * @param {string} name @param {object} [settings]
 */
export function challengeButton(name, settings = {}) {
  // No challenge to oneself (a guest sees none at all: the style sheet hides them).
  if (document.documentElement.dataset.accountName === name) return h("span", { class: "challenge-box" });
  const said = h("span", { class: "challenge-said", role: "status", "data-testid": "challenge-said" });
  const button = h(
    "button",
    { type: "button", class: "btn secondary small", "data-testid": "challenge-button", "aria-label": t("challenge.button.label", { name }) },
    t("challenge.button"),
  );
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      // The game's log speaks the challenger's language unless the settings say.
      await api.challenge(name, { lang: lang(), ...settings });
      said.textContent = t("challenge.sent", { name });
      said.classList.remove("error");
      poll();
    } catch (error) {
      said.textContent = challengeError(error);
      said.classList.add("error");
    } finally {
      button.disabled = false;
    }
  });
  return h("span", { class: "challenge-box" }, button, " ", said);
}

/** @type {any[]} */
let shown = [];
/** @type {string|null} */
let problem = null;
/** @type {ReturnType<typeof setTimeout> | null} */
let timer = null;
let asking = false;

/** The region of every page that lists the challenges. */
function region() {
  let el = document.getElementById("challenges");
  if (!el) {
    el = h("section", { id: "challenges", class: "challenges", "data-testid": "challenges", "aria-live": "polite" });
    document.body.append(el);
  }
  return el;
}

/** @param {string} id @param {"accept"|"decline"|"cancel"} answer */
async function answer(id, answer) {
  problem = null;
  try {
    const { challenge } = await api.answerChallenge(id, answer);
    markDone(id);
    if (answer === "accept" && challenge.link) {
      location.assign(challenge.link);
      return;
    }
  } catch (error) {
    problem = challengeError(error);
  }
  poll();
}

/** One challenge's line and buttons. @param {any} c */
function item(c) {
  const other = c.incoming ? c.by : c.to;
  /** @type {Node[]} */
  const buttons = [];
  let text;
  if (c.status === "open" && c.incoming) {
    text = t("challenge.incoming", { name: other, what: describe(c.game) });
    buttons.push(
      h("button", { type: "button", class: "btn small", "data-testid": "challenge-accept", onclick: () => answer(c.id, "accept") }, t("challenge.accept")),
      h("button", { type: "button", class: "btn ghost small", "data-testid": "challenge-decline", onclick: () => answer(c.id, "decline") }, t("challenge.decline")),
    );
  } else if (c.status === "open") {
    text = t("challenge.waiting", { name: other, minutes: Math.max(1, Math.ceil(c.expires_in / 60)) });
    buttons.push(h("button", { type: "button", class: "btn ghost small", "data-testid": "challenge-cancel", onclick: () => answer(c.id, "cancel") }, t("challenge.cancel")));
  } else {
    text = t(`challenge.${c.status}`, { name: other });
    buttons.push(
      h(
        "button",
        {
          type: "button",
          class: "btn ghost small",
          "data-testid": "challenge-dismiss",
          onclick: () => {
            markDone(c.id);
            render();
          },
        },
        t("challenge.dismiss"),
      ),
    );
  }
  return h("li", { class: "challenge", "data-testid": `challenge-${c.incoming ? "in" : "out"}`, "data-status": c.status }, h("p", {}, text), h("div", { class: "challenge-actions" }, buttons));
}

function render() {
  const el = region();
  const seen = done();
  const list = shown.filter((c) => c.status === "open" || (!c.incoming && !seen.includes(c.id)));
  clear(el);
  el.setAttribute("aria-label", t("challenge.region"));
  el.hidden = !list.length && !problem;
  if (problem) el.append(h("p", { class: "notice error", role: "alert" }, problem));
  if (list.length) el.append(h("ul", {}, list.map(item)));
}

/** Ask for the challenges now, then again when the server says. */
async function poll() {
  if (timer) clearTimeout(timer);
  timer = null;
  if (asking) return;
  const account = document.getElementById("account-button");
  if (!account || account.dataset.signedIn !== "1") {
    shown = []; // a guest has no challenges: nothing asked
    render();
    return;
  }
  asking = true;
  let again = 20;
  try {
    const answerNow = await api.challenges();
    shown = answerNow.challenges;
    again = answerNow.again_in;
    const seen = done();
    const here = location.pathname;
    for (const c of shown) {
      // Accepted: the challenger's pages go to the game, once.
      if (!c.incoming && c.status === "accepted" && c.link && !seen.includes(c.id)) {
        markDone(c.id);
        if (!here.startsWith(`/g/${c.game_id}`)) {
          location.assign(c.link);
          return;
        }
      }
    }
  } catch (error) {
    // Signed out: nothing to show; asked again when the account changes.
    shown = [];
    if (error instanceof ApiError && error.status === 401) again = 0;
  } finally {
    asking = false;
  }
  render();
  if (again > 0) timer = setTimeout(poll, again * 1000);
}

/** Show this page's challenges and keep asking (started once by app.js). */
export function watchChallenges() {
  poll();
  onLangChange(render);
  // Signed in or out: ask again (the account button says who is signed in).
  const account = document.getElementById("account-button");
  if (account) new MutationObserver(() => poll()).observe(account, { attributes: true, attributeFilter: ["data-signed-in"] });
  // A challenge pushed while this page is in front: show it now.
  if ("serviceWorker" in navigator) {
    navigator.serviceWorker.addEventListener("message", (event) => {
      if (event.data && event.data.type === "push" && event.data.kind === "challenge") poll();
    });
  }
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") poll();
  });
}

/**
 * Follow and Block for the player `name` (a profile), with a line saying it was done.
 * @param {string} name
 */
export function friendButtons(name) {
  const said = h("span", { class: "challenge-said", role: "status", "data-testid": "friend-said" });
  /** @param {string} change @param {string} label @param {string} done */
  const button = (change, label, done) =>
    h(
      "button",
      {
        type: "button",
        class: "btn ghost small",
        "data-testid": `friend-${change}`,
        onclick: async () => {
          try {
            await api.changeFriend(change, name);
            said.textContent = done;
            said.classList.remove("error");
          } catch (error) {
            said.textContent = challengeError(error);
            said.classList.add("error");
          }
        },
      },
      label,
    );
  return h(
    "span",
    { class: "challenge-box" },
    button("follow", t("friends.follow"), t("friends.followed", { name })),
    " ",
    button("block", t("friends.block"), t("friends.blocked.one", { name })),
    " ",
    said,
  );
}
