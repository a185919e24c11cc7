// The lobby's new-game form: its model (built from GET /api/config: player counts, rule
// sets, one checkbox per rule option), the create request, and the invitations card
// once the game exists.

import { h, copyText } from "../dom.js";
import { t, lang, LANGS, seatColoursName, levelName, clockLabel } from "../i18n.js";
import { swatch } from "../board.js";
import { api } from "../api.js";
import { remember, gameLink } from "../store.js";
import { config, localized, levelsFor } from "../config.js";
import { savedName, saveName, failure, seatColours } from "./lines.js";

/** @typedef {import("../lobby.js").Lobby} Lobby */

const KINDS = ["here", "human", "open", "bot"];
const CLOCKS = ["none", "relaxed", "blitz", "turn_1h", "turn_12h", "turn_1d", "turn_3d"];

/** The form as a new lobby shows it: four players (or the most the server allows), you
 * and three bots, the first rule set, every rule option at its default, hints allowed. */
export function newForm() {
  return {
    players: config.players.includes(4) ? 4 : config.players[config.players.length - 1],
    rules: config.ruleSets.length ? config.ruleSets[0].name : "standard",
    first: "random",
    lang: lang(),
    clock: "none",
    // Each yes/no rule option the server offers (config.ruleOptions), by name.
    options: Object.fromEntries(config.ruleOptions.map((option) => [option.name, Boolean(option.default)])),
    hints: true,
    chat: true,
    rated: false,
    name: savedName(),
    seats: ["here", "bot", "bot", "bot"].map((kind) => ({ kind, level: config.defaultLevel, name: "" })),
  };
}

/** One seat of a new game: a person (with a name) or a bot (with its level). @typedef {{kind: string, level?: string | null, name?: string}} SeatSpec */

/**
 * The body of POST /api/games for the new-game form (docs/web-protocol.md). Defaults are
 * left out: no clock, every rule option off, hints and chat allowed.
 * @param {{players: number, rules: string, first: string, lang: string, clock: string,
 *   options: Record<string, boolean>, hints: boolean, chat?: boolean, rated?: boolean, name: string,
 *   seats: {kind: string, level: string|null, name: string}[]}} form
 */
export function createRequest(form) {
  const chosen = form.seats.slice(0, form.players);
  const yourName = form.name.trim();
  // The server makes the first human seat the host. The name given above is the name
  // of the first seat played here (the host's, unless a friend's seat comes first).
  const firstHere = chosen.findIndex((s) => s.kind === "here");
  const seats = chosen.map((s, seat) => {
    const kind = s.kind === "here" ? "human" : s.kind;
    /** @type {SeatSpec} */
    const spec = { kind };
    if (kind === "bot") spec.level = s.level;
    else if (s.name.trim()) spec.name = s.name.trim();
    else if (seat === firstHere && yourName) spec.name = yourName;
    return spec;
  });
  /** @type {{seats: SeatSpec[]} & Record<string, any>} */
  const body = {
    players: form.players,
    rules: form.rules,
    seats,
    first_seat: form.first === "random" ? "random" : Number(form.first),
    lang: form.lang,
  };
  const options = Object.fromEntries(Object.entries(form.options).filter(([, on]) => on));
  if (Object.keys(options).length) body.options = options;
  if (!form.hints) body.hints = false;
  if (form.chat === false) body.chat = false;
  if (form.rated) body.rated = true;
  if (form.clock !== "none") body.clock = form.clock;
  return body;
}
/** A seat named by its colours at the form's player count. @param {Lobby} L @param {number} seat */
function seatLabel(L, seat) {
  return seatColoursName(seatColours(L.form.players, seat));
}

/** The player counts the server allows (config.players), as radio buttons. @param {Lobby} L */
function playerCounts(L) {
  const form = L.form;
  return h(
    "div",
    { class: "radio-row", role: "radiogroup", "aria-label": t("lobby.players") },
    config.players.map((n) =>
      h(
        "label",
        {},
        h("input", {
          type: "radio",
          name: "players",
          value: n,
          checked: form.players === n,
          "data-testid": `players-${n}`,
          onchange: () => {
            form.players = n;
            if (form.first !== "random" && Number(form.first) >= n) form.first = "random";
            // A level that does not play n players (learned at three) gives way to the default.
            for (const spec of form.seats) if (!levelsFor(n).includes(spec.level ?? "")) spec.level = config.defaultLevel;
            L.render();
            /** @type {HTMLElement} */ (L.root.querySelector(`[data-testid=players-${n}]`)).focus();
          },
        }),
        t("lobby.players.n", { n }),
      ),
    ),
  );
}

/** The named rule sets (config.ruleSets): a choice, and each one's help below it. @param {Lobby} L */
function ruleSetField(L) {
  const form = L.form;
  const rules = h(
    "select",
    { id: "rules", "data-testid": "rules" },
    config.ruleSets.map((r) => h("option", { value: r.name, selected: form.rules === r.name }, localized(r.label))),
  );
  rules.addEventListener("change", () => (form.rules = rules.value));
  const help = config.ruleSets.map((r) => t("lobby.rules.help", { name: r.name, help: localized(r.help) })).join(" ");
  return h("div", {}, h("label", { for: "rules" }, t("lobby.rules")), rules, h("p", { class: "hint" }, help));
}

/** A checkbox of the form with its help line, kept in step with `target[key]`. @param {string} id @param {Record<string, any>} target @param {string} key @param {string} label @param {string} help */
function checkField(id, target, key, label, help) {
  const box = h("input", { type: "checkbox", id, "data-testid": id, checked: target[key] });
  box.addEventListener("change", () => (target[key] = box.checked));
  return h("div", { class: "check-field" }, h("label", { class: "check-row", for: id }, box, label), h("p", { class: "hint" }, help));
}

/** One checkbox per yes/no rule option of the server's (config.ruleOptions). @param {Lobby} L */
function ruleOptionFields(L) {
  return config.ruleOptions.map((option) => checkField(option.word, L.form.options, option.name, localized(option.label), localized(option.help)));
}

/** A row per seat: who plays it, the bot's level (those that play the form's player
 * count), the player's name. @param {Lobby} L */
function seatRows(L) {
  const form = L.form;
  const rows = h("div", { class: "seat-rows" });
  for (let seat = 0; seat < form.players; seat++) {
    const spec = form.seats[seat];
    const label = seatLabel(L, seat);
    const kind = h(
      "select",
      { "aria-label": `${t("lobby.seat", { n: seat + 1 })} ${label} — ${t("lobby.kind")}`, "data-testid": `seat-kind-${seat}`, class: "seat-kind" },
      KINDS.map((k) => h("option", { value: k, selected: spec.kind === k }, t(`lobby.kind.${k}`))),
    );
    const level = h(
      "select",
      { "aria-label": `${label} — ${t("lobby.level")}`, "data-testid": `seat-level-${seat}`, class: "seat-level", disabled: spec.kind !== "bot" },
      levelsFor(form.players).map((l) => h("option", { value: l, selected: spec.level === l }, levelName(l))),
    );
    const name = h("input", {
      type: "text",
      maxlength: 40,
      value: spec.name,
      placeholder: t("lobby.name.placeholder"),
      "aria-label": `${label} — ${t("lobby.name")}`,
      "data-testid": `seat-name-${seat}`,
      disabled: spec.kind === "bot",
    });
    const row = h(
      "div",
      { class: `seat-row${spec.kind === "bot" ? " bot" : ""}` },
      h("span", { class: "seat-tag" }, seatColours(form.players, seat).map((c) => swatch(c, 24)), label),
      kind,
      level,
      name,
    );
    kind.addEventListener("change", () => {
      spec.kind = kind.value;
      level.disabled = spec.kind !== "bot";
      name.disabled = spec.kind === "bot";
      row.classList.toggle("bot", spec.kind === "bot");
    });
    level.addEventListener("change", () => (spec.level = level.value));
    name.addEventListener("input", () => (spec.name = name.value));
    rows.append(row);
  }
  return rows;
}

/** A select of the form kept in step with `form[key]`. @param {Record<string, any>} form @param {string} key @param {import("../dom.js").Attrs} attrs @param {import("../dom.js").Child[]} options */
function selectField(form, key, attrs, options) {
  const select = h("select", attrs, options);
  select.addEventListener("change", () => (form[key] = select.value));
  return select;
}

/** The new-game form. @param {Lobby} L */
export function createCard(L) {
  const form = L.form;
  const first = selectField(
    form,
    "first",
    { id: "first", "data-testid": "first-seat" },
    [
      h("option", { value: "random", selected: form.first === "random" }, t("lobby.first.random")),
      Array.from({ length: form.players }, (_, seat) =>
        h("option", { value: String(seat), selected: String(form.first) === String(seat) }, form.seats[seat].name || seatLabel(L, seat)),
      ),
    ],
  );
  const gameLang = selectField(
    form,
    "lang",
    { id: "game-lang", "data-testid": "game-lang" },
    LANGS.map((l) => h("option", { value: l, selected: form.lang === l }, l === "en" ? "English" : "Français")),
  );
  const clock = selectField(
    form,
    "clock",
    { id: "clock", "data-testid": "clock" },
    CLOCKS.map((mode) =>
      h("option", { value: mode, selected: form.clock === mode }, config.clocks[mode] ? clockLabel(mode, config.clocks[mode]) : t(`lobby.clock.${mode}`)),
    ),
  );
  const yourName = h("input", { type: "text", id: "your-name", maxlength: 40, autocomplete: "nickname", value: form.name, "data-testid": "your-name" });
  yourName.addEventListener("input", () => (form.name = yourName.value));
  const submit = h(
    "button",
    { type: "submit", class: "btn big warm", "data-testid": "create", disabled: L.busy },
    L.busy ? t("lobby.creating") : t("lobby.submit"),
  );
  return h(
    "form",
    { class: "card", "aria-labelledby": "create-title", onsubmit: (/** @type {Event} */ e) => (e.preventDefault(), create(L)) },
    h("h2", { id: "create-title" }, t("lobby.create")),
    h(
      "div",
      { class: "form-grid name-grid" },
      h("div", {}, h("label", { for: "your-name" }, t("lobby.your_name")), yourName, h("p", { class: "hint" }, t("lobby.your_name.help"))),
    ),
    h("fieldset", {}, h("legend", {}, t("lobby.players")), playerCounts(L)),
    h("fieldset", {}, h("legend", {}, t("lobby.kind")), seatRows(L)),
    h(
      "div",
      { class: "form-grid" },
      h("div", {}, h("label", { for: "first" }, t("lobby.first")), first, h("p", { class: "hint" }, t("lobby.first.help"))),
      ruleSetField(L),
      h("div", {}, h("label", { for: "clock" }, t("lobby.clock")), clock, h("p", { class: "hint" }, t("lobby.clock.help"))),
      h("div", {}, h("label", { for: "game-lang" }, t("lobby.lang")), gameLang),
    ),
    ruleOptionFields(L),
    checkField("allow-hints", form, "hints", t("lobby.hints"), t("lobby.hints.help")),
    // The server offers a chat when its config lists the quick reactions.
    config.reactions.length ? checkField("allow-chat", form, "chat", t("lobby.chat"), t("lobby.chat.help")) : null,
    checkField("rated", form, "rated", t("lobby.rated"), t("lobby.rated.help")),
    h("div", { class: "dialog-actions" }, submit),
    L.createError ? h("p", { class: "notice error", role: "alert" }, L.createError) : null,
  );
}

/** Create the game: go to its board, or show the invitations to hand out. @param {Lobby} L */
async function create(L) {
  if (L.busy) return;
  const form = L.form;
  L.busy = true;
  L.createError = null;
  L.render();
  const yourName = form.name.trim();
  const body = createRequest(form);
  const seats = body.seats;
  const host = seats.find((spec) => spec.kind === "human");
  if (seats.some((spec) => spec.kind === "open") && !(host && host.name)) {
    L.createError = t("lobby.name.needed");
    L.busy = false;
    L.render();
    const field = L.root.querySelector("[data-testid=your-name]");
    if (field instanceof HTMLElement) field.focus();
    return;
  }
  if (body.rated && seats.filter((spec) => spec.kind === "human").length > 1) {
    // A rated game's people sign in on their own devices: one seat here, open seats for them.
    L.createError = t("lobby.rated.one_seat");
    L.busy = false;
    L.render();
    return;
  }
  saveName(yourName);
  try {
    const answer = await api.createGame(body);
    const here = [];
    const hereSeats = [];
    /** @type {Record<string, string>} */
    const invites = {};
    for (const seat of answer.seats) {
      if (!seat.token) continue;
      if (form.seats[seat.seat].kind === "here") {
        here.push(seat.token);
        hereSeats.push(seat.seat);
      } else invites[seat.seat] = seat.link;
    }
    remember(answer.game_id, { tokens: here, seats: hereSeats, invites, players: form.players });
    L.created = { ...answer, here, players: form.players, invites };
    // Only invitations to hand out: show them; otherwise go straight to the board.
    if (!Object.keys(invites).length) {
      location.href = gameLink(answer.game_id, here);
      return;
    }
  } catch (error) {
    L.createError = failure(error);
  }
  L.busy = false;
  L.render();
  // On a phone the invitations are below the form: bring them into view.
  const card = L.root.querySelector("[data-testid=created]");
  if (card) {
    card.scrollIntoView({ block: "start" });
    card.querySelector("h2")?.focus();
  }
  L.refresh();
}

/** @param {string} label @param {string} path @param {string} testid */
function linkRow(label, path, testid) {
  const url = new URL(path, location.origin).href;
  const input = h("input", { type: "text", readonly: true, value: url, "data-testid": testid, "aria-label": label });
  input.addEventListener("focus", () => input.select());
  const copy = h("button", { type: "button", class: "btn secondary small" }, t("lobby.copy"));
  copy.addEventListener("click", async () => {
    if (await copyText(url)) copy.textContent = t("lobby.copied");
  });
  const open = t("lobby.open.link", { seat: label });
  return h("div", { class: "link-row" }, h("label", {}, label), input, copy, h("a", { class: "btn ghost small", href: path, "aria-label": open, title: open }, "↗"));
}

/** The game just created: its invitation links, the spectators' link, the way in. @param {Lobby} L */
export function createdCard(L) {
  const c = L.created;
  const rows = [];
  for (const seat of c.seats) {
    if (c.invites[seat.seat]) {
      rows.push(linkRow(t("lobby.link.seat", { seat: seatColoursName(seatColours(c.players, seat.seat)) }), seat.link, `invite-${seat.seat}`));
    }
  }
  rows.push(linkRow(t("lobby.link.spectator"), c.spectator_link, "spectator-link"));
  return h(
    "section",
    { class: "card", "data-testid": "created", "aria-labelledby": "created-title" },
    h("h2", { id: "created-title", tabindex: "-1" }, t("lobby.created")),
    h("h3", {}, t("lobby.invite")),
    h("p", { class: "hint" }, t("lobby.invite.help")),
    h("div", { class: "links" }, rows),
    h("div", { class: "dialog-actions" }, h("a", { class: "btn big warm", href: gameLink(c.game_id, c.here), "data-testid": "open-created" }, t("lobby.open.here"))),
  );
}
