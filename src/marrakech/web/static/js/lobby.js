// The lobby (/): create a game, invitation links, your games, open games, upload a record.

import { h, clear, copyText } from "./dom.js";
import { t, plural, lang, onLangChange, LANGS, seatColoursName, levelName, clockLabel } from "./i18n.js";
import { swatch } from "./board.js";
import { api } from "./api.js";
import { myGames, remember, forget, gameLink } from "./store.js";
import { UPLOAD_KEY } from "./replay.js";
import { config, localized, rulesLabel } from "./config.js";

const KINDS = ["here", "human", "open", "bot"];
const CLOCKS = ["none", "relaxed", "blitz"];
const NAME_KEY = "marrakech.name";
/** The largest record the lobby hands to the replay page (sessionStorage holds ~5 MB). */
const UPLOAD_LIMIT = 5 * 1024 * 1024;

function savedName() {
  try {
    return localStorage.getItem(NAME_KEY) || "";
  } catch (_) {
    return "";
  }
}

function saveName(name) {
  try {
    if (name) localStorage.setItem(NAME_KEY, name);
  } catch (_) {
    // Not remembered then; the form still works.
  }
}

/** What went wrong with a request: the server unreachable, or its refusal and why. */
function failure(error) {
  return error.status ? t("lobby.refused", { message: error.message }) : t("lobby.error", { message: error.message });
}

/** "5 minutes ago" in the page's language. */
function ago(seconds) {
  const format = new Intl.RelativeTimeFormat(lang(), { numeric: "auto" });
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return format.format(-s, "second");
  if (s < 3600) return format.format(-Math.floor(s / 60), "minute");
  if (s < 86400) return format.format(-Math.floor(s / 3600), "hour");
  return format.format(-Math.floor(s / 86400), "day");
}

/** Who sits in a listed game: host, seats taken and open, bots and their levels. */
function whoLine(summary) {
  const parts = [];
  if (summary.host) parts.push(t("lobby.host", { name: summary.host }));
  if (typeof summary.taken === "number") {
    parts.push(t("lobby.seats", { taken: summary.taken, n: summary.players }));
  }
  const open = (summary.open_seats || []).length;
  if (open) parts.push(plural("lobby.seats.open", open));
  const bots = (summary.seats || []).filter((x) => x.kind === "bot").map((x) => levelName(x.level));
  parts.push(bots.length ? t("lobby.bots", { levels: bots.join(", ") }) : t("lobby.no_bots"));
  return parts.join(" · ");
}

/** How far a listed game is: status, player turn, clock, age. */
function progressLine(summary) {
  const parts = [t(`lobby.status.${summary.status}`)];
  const turn = typeof summary.turn === "number" ? summary.turn : null;
  if (turn !== null && summary.status !== "waiting") parts.push(t("lobby.turn", { n: turn }));
  if (summary.clock && summary.clock.mode && summary.clock.mode !== "none") {
    parts.push(clockLabel(summary.clock.mode, summary.clock.seconds));
  }
  if (typeof summary.hints === "boolean") parts.push(t(summary.hints ? "lobby.hints.on" : "lobby.hints.off"));
  if (typeof summary.age === "number") parts.push(ago(summary.age));
  else if (summary.created) parts.push(t("lobby.created.at", { when: new Date(summary.created).toLocaleString(lang()) }));
  return parts.join(" · ");
}

/** The colours of each seat (R4–R7): one colour each, two each at two players. */
function seatColours(players, seat) {
  const letters = "RBYP";
  return players === 2 ? [letters[seat], letters[seat + 2]] : [letters[seat]];
}

/**
 * The body of POST /api/games for the new-game form (docs/web-protocol.md). Defaults are
 * left out: no clock, every rule option off, hints allowed.
 * @param {{players: number, rules: string, first: string, lang: string, clock: string,
 *   options: Record<string, boolean>, hints: boolean, name: string,
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
    /** @type {{kind: string, level?: string, name?: string}} */
    const spec = { kind };
    if (kind === "bot") spec.level = s.level;
    else if (s.name.trim()) spec.name = s.name.trim();
    else if (seat === firstHere && yourName) spec.name = yourName;
    return spec;
  });
  /** @type {Record<string, any>} */
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
  if (form.clock !== "none") body.clock = form.clock;
  return body;
}

export function mountLobby(root) {
  const form = {
    players: config.players.includes(4) ? 4 : config.players[config.players.length - 1],
    rules: config.ruleSets.length ? config.ruleSets[0].name : "standard",
    first: "random",
    lang: lang(),
    clock: "none",
    // Each yes/no rule option the server offers (config.ruleOptions), by name.
    options: Object.fromEntries(config.ruleOptions.map((option) => [option.name, Boolean(option.default)])),
    hints: true,
    name: savedName(),
    seats: ["here", "bot", "bot", "bot"].map((kind) => ({ kind, level: config.defaultLevel, name: "" })),
  };
  let joining = null; // {game, seat, error} while a name is asked to join an open seat
  let created = null;
  let createError = null;
  let busy = false;
  let mine = [];
  let open = [];
  let listError = null;

  let mineHost = null;
  let openHost = null;

  function render() {
    clear(root);
    mineHost = h("div", {});
    openHost = h("div", {});
    root.append(
      h(
        "div",
        { class: "lobby", "data-testid": "lobby" },
        hero(),
        h("div", {}, createCard()),
        h("div", {}, created ? createdCard() : null, mineHost, openHost, uploadCard()),
      ),
    );
    renderLists();
  }

  /** Only the lists: a refresh never disturbs the form someone is filling in. */
  function renderLists() {
    if (!mineHost) return;
    clear(mineHost).append(mineCard());
    clear(openHost).append(openCard());
  }

  function hero() {
    const art = h("div", { "aria-hidden": "true", class: "hero-art" });
    art.append(swatch("R", 56), swatch("B", 56), swatch("Y", 56), swatch("P", 56));
    return h(
      "section",
      { class: "lobby-hero" },
      h("div", {}, h("h1", {}, t("app.title")), h("p", {}, t("app.tagline")), h("p", {}, t("help.goal"))),
      art,
    );
  }

  function seatLabel(seat) {
    return seatColoursName(seatColours(form.players, seat));
  }

  /** The player counts the server allows (config.players), as radio buttons. */
  function playerCounts() {
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
              render();
              root.querySelector(`[data-testid=players-${n}]`).focus();
            },
          }),
          t("lobby.players.n", { n }),
        ),
      ),
    );
  }

  /** The named rule sets (config.ruleSets): a choice, and each one's help below it. */
  function ruleSetField() {
    const rules = h(
      "select",
      { id: "rules", "data-testid": "rules" },
      config.ruleSets.map((r) => h("option", { value: r.name, selected: form.rules === r.name }, localized(r.label))),
    );
    rules.addEventListener("change", () => (form.rules = rules.value));
    const help = config.ruleSets.map((r) => t("lobby.rules.help", { name: r.name, help: localized(r.help) })).join(" ");
    return h("div", {}, h("label", { for: "rules" }, t("lobby.rules")), rules, h("p", { class: "hint" }, help));
  }

  /** A checkbox of the form with its help line, kept in step with `target[key]`. */
  function checkField(id, target, key, label, help) {
    const box = h("input", { type: "checkbox", id, "data-testid": id, checked: target[key] });
    box.addEventListener("change", () => (target[key] = box.checked));
    return h("div", { class: "check-field" }, h("label", { class: "check-row", for: id }, box, label), h("p", { class: "hint" }, help));
  }

  /** One checkbox per yes/no rule option of the server's (config.ruleOptions). */
  function ruleOptionFields() {
    return config.ruleOptions.map((option) =>
      checkField(option.word, form.options, option.name, localized(option.label), localized(option.help)),
    );
  }

  /** A row per seat: who plays it, the bot's level, the player's name. */
  function seatRows() {
    const rows = h("div", { class: "seat-rows" });
    for (let seat = 0; seat < form.players; seat++) {
      const spec = form.seats[seat];
      const kind = h(
        "select",
        {
          "aria-label": `${t("lobby.seat", { n: seat + 1 })} ${seatLabel(seat)} — ${t("lobby.kind")}`,
          "data-testid": `seat-kind-${seat}`,
          class: "seat-kind",
        },
        KINDS.map((k) => h("option", { value: k, selected: spec.kind === k }, t(`lobby.kind.${k}`))),
      );
      const level = h(
        "select",
        {
          "aria-label": `${seatLabel(seat)} — ${t("lobby.level")}`,
          "data-testid": `seat-level-${seat}`,
          class: "seat-level",
          disabled: spec.kind !== "bot",
        },
        config.levels.map((l) => h("option", { value: l, selected: spec.level === l }, levelName(l))),
      );
      const name = h("input", {
        type: "text",
        maxlength: 40,
        value: spec.name,
        placeholder: t("lobby.name.placeholder"),
        "aria-label": `${seatLabel(seat)} — ${t("lobby.name")}`,
        "data-testid": `seat-name-${seat}`,
        disabled: spec.kind === "bot",
      });
      kind.addEventListener("change", () => {
        spec.kind = kind.value;
        level.disabled = spec.kind !== "bot";
        name.disabled = spec.kind === "bot";
        row.classList.toggle("bot", spec.kind === "bot");
      });
      level.addEventListener("change", () => (spec.level = level.value));
      name.addEventListener("input", () => (spec.name = name.value));
      const row = h(
        "div",
        { class: `seat-row${spec.kind === "bot" ? " bot" : ""}` },
        h("span", { class: "seat-tag" }, seatColours(form.players, seat).map((c) => swatch(c, 24)), seatLabel(seat)),
        kind,
        level,
        name,
      );
      rows.append(row);
    }
    return rows;
  }

  function createCard() {
    const first = h(
      "select",
      { id: "first", "data-testid": "first-seat" },
      h("option", { value: "random", selected: form.first === "random" }, t("lobby.first.random")),
      Array.from({ length: form.players }, (_, seat) =>
        h("option", { value: String(seat), selected: String(form.first) === String(seat) }, form.seats[seat].name || seatLabel(seat)),
      ),
    );
    first.addEventListener("change", () => (form.first = first.value));
    const gameLang = h(
      "select",
      { id: "game-lang", "data-testid": "game-lang" },
      LANGS.map((l) => h("option", { value: l, selected: form.lang === l }, l === "en" ? "English" : "Français")),
    );
    gameLang.addEventListener("change", () => (form.lang = gameLang.value));
    const clock = h(
      "select",
      { id: "clock", "data-testid": "clock" },
      CLOCKS.map((mode) =>
        h(
          "option",
          { value: mode, selected: form.clock === mode },
          config.clocks[mode] ? clockLabel(mode, config.clocks[mode]) : t(`lobby.clock.${mode}`),
        ),
      ),
    );
    clock.addEventListener("change", () => (form.clock = clock.value));
    const yourName = h("input", {
      type: "text",
      id: "your-name",
      maxlength: 40,
      autocomplete: "nickname",
      value: form.name,
      "data-testid": "your-name",
    });
    yourName.addEventListener("input", () => (form.name = yourName.value));
    const submit = h(
      "button",
      { type: "submit", class: "btn big warm", "data-testid": "create", disabled: busy },
      busy ? t("lobby.creating") : t("lobby.submit"),
    );
    const formEl = h(
      "form",
      { class: "card", "aria-labelledby": "create-title", onsubmit: (e) => (e.preventDefault(), create()) },
      h("h2", { id: "create-title" }, t("lobby.create")),
      h(
        "div",
        { class: "form-grid name-grid" },
        h("div", {}, h("label", { for: "your-name" }, t("lobby.your_name")), yourName, h("p", { class: "hint" }, t("lobby.your_name.help"))),
      ),
      h("fieldset", {}, h("legend", {}, t("lobby.players")), playerCounts()),
      h("fieldset", {}, h("legend", {}, t("lobby.kind")), seatRows()),
      h(
        "div",
        { class: "form-grid" },
        h("div", {}, h("label", { for: "first" }, t("lobby.first")), first, h("p", { class: "hint" }, t("lobby.first.help"))),
        ruleSetField(),
        h("div", {}, h("label", { for: "clock" }, t("lobby.clock")), clock, h("p", { class: "hint" }, t("lobby.clock.help"))),
        h("div", {}, h("label", { for: "game-lang" }, t("lobby.lang")), gameLang),
      ),
      ruleOptionFields(),
      checkField("allow-hints", form, "hints", t("lobby.hints"), t("lobby.hints.help")),
      h("div", { class: "dialog-actions" }, submit),
      createError ? h("p", { class: "notice error", role: "alert" }, createError) : null,
    );
    return formEl;
  }

  async function create() {
    if (busy) return;
    busy = true;
    createError = null;
    render();
    const yourName = form.name.trim();
    const body = createRequest(form);
    const seats = body.seats;
    const host = seats.find((spec) => spec.kind === "human");
    if (seats.some((spec) => spec.kind === "open") && !(host && host.name)) {
      createError = t("lobby.name.needed");
      busy = false;
      render();
      const field = root.querySelector("[data-testid=your-name]");
      if (field) field.focus();
      return;
    }
    saveName(yourName);
    try {
      const answer = await api.createGame(body);
      const here = [];
      const hereSeats = [];
      const invites = {};
      for (const seat of answer.seats) {
        if (!seat.token) continue;
        if (form.seats[seat.seat].kind === "here") {
          here.push(seat.token);
          hereSeats.push(seat.seat);
        } else invites[seat.seat] = seat.link;
      }
      remember(answer.game_id, { tokens: here, seats: hereSeats, invites, players: form.players });
      created = { ...answer, here, players: form.players, invites };
      // Only invitations to hand out: show them; otherwise go straight to the board.
      if (!Object.keys(invites).length) {
        location.href = gameLink(answer.game_id, here);
        return;
      }
    } catch (error) {
      createError = failure(error);
    }
    busy = false;
    render();
    // On a phone the invitations are below the form: bring them into view.
    const card = root.querySelector("[data-testid=created]");
    if (card) {
      card.scrollIntoView({ block: "start" });
      card.querySelector("h2").focus();
    }
    refresh();
  }

  function linkRow(label, path, testid) {
    const url = new URL(path, location.origin).href;
    const input = h("input", { type: "text", readonly: true, value: url, "data-testid": testid, "aria-label": label });
    input.addEventListener("focus", () => input.select());
    const copy = h("button", { type: "button", class: "btn secondary small" }, t("lobby.copy"));
    copy.addEventListener("click", async () => {
      if (await copyText(url)) copy.textContent = t("lobby.copied");
    });
    return h("div", { class: "link-row" }, h("label", {}, label), input, copy, h("a", { class: "btn ghost small", href: path, "aria-label": t("lobby.open.link", { seat: label }), title: t("lobby.open.link", { seat: label }) }, "↗"));
  }

  function createdCard() {
    const c = created;
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
      h(
        "div",
        { class: "dialog-actions" },
        h("a", { class: "btn big warm", href: gameLink(c.game_id, c.here), "data-testid": "open-created" }, t("lobby.open.here")),
      ),
    );
  }

  function mineCard() {
    const list = h("ul", { class: "game-list", "data-testid": "my-games" });
    const byId = new Map(mine.map((s) => [s.game_id, s]));
    const entries = myGames();
    for (const entry of entries) {
      const summary = byId.get(entry.id);
      if (!summary) continue;
      const players = summary.players;
      const seats = entry.seats || [];
      const colours = seats.flatMap((s) => seatColours(players, s));
      const actions = [];
      if (summary.status !== "over" && entry.tokens && entry.tokens.length) {
        actions.push(h("a", { class: "btn small", href: gameLink(entry.id, entry.tokens) }, t("lobby.resume")));
      } else {
        actions.push(h("a", { class: "btn small secondary", href: gameLink(entry.id, entry.tokens || []) }, t("lobby.watch")));
      }
      actions.push(
        h(
          "a",
          { class: "btn small secondary", href: summary.replay_link || `/r/${entry.id}`, "data-testid": `replay-${entry.id}` },
          t("lobby.replay"),
        ),
      );
      const forgetBtn = h("button", { type: "button", class: "btn small ghost" }, t("lobby.mine.forget"));
      forgetBtn.addEventListener("click", () => {
        forget(entry.id);
        renderLists();
      });
      actions.push(forgetBtn);
      list.append(
        h(
          "li",
          { "data-game": entry.id },
          h(
            "div",
            { class: "meta" },
            h("strong", {}, colours.length ? h("span", { class: "swatches" }, colours.map((c) => swatch(c, 18))) : null, " ", t("lobby.players.n", { n: players }), " · ", rulesLabel(summary)),
            h("small", {}, whoLine(summary)),
            h("small", { "data-testid": `progress-${entry.id}` }, progressLine(summary)),
          ),
          h("div", { class: "actions" }, actions),
        ),
      );
    }
    return h(
      "section",
      { class: "card", "aria-labelledby": "mine-title" },
      h("h2", { id: "mine-title" }, t("lobby.mine")),
      list.children.length ? list : h("p", { class: "hint" }, t("lobby.mine.empty")),
      listError ? h("p", { class: "notice error" }, listError) : null,
    );
  }

  function openCard() {
    const list = h("ul", { class: "game-list", "data-testid": "open-games" });
    for (const game of open) {
      const actions = game.open_seats.map((seat) => {
        const b = h("button", { type: "button", class: "btn small", "data-testid": `join-${game.game_id}-${seat}` },
          swatch(seatColours(game.players, seat)[0], 16), " ", t("lobby.join", { seat: seatColoursName(seatColours(game.players, seat)) }));
        b.addEventListener("click", () => {
          joining = { game, seat, error: null };
          renderLists();
          const field = root.querySelector("[data-testid=join-name]");
          if (field) field.focus();
        });
        return b;
      });
      const asking = joining && joining.game.game_id === game.game_id ? joinForm() : null;
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
    refreshBtn.addEventListener("click", refresh);
    return h(
      "section",
      { class: "card", "aria-labelledby": "open-title" },
      h("div", { class: "control-row", style: { justifyContent: "space-between" } }, h("h2", { id: "open-title" }, t("lobby.open")), refreshBtn),
      open.length ? list : h("p", { class: "hint" }, t("lobby.open.empty")),
    );
  }

  /** A name before taking an open seat (the server needs one; the lobby remembers it). */
  function joinForm() {
    const { game, seat } = joining;
    const input = h("input", {
      type: "text",
      maxlength: 40,
      autocomplete: "nickname",
      value: savedName(),
      id: "join-name",
      "data-testid": "join-name",
    });
    const go = h("button", { type: "submit", class: "btn", "data-testid": "join-go" }, t("lobby.join.go"));
    const cancel = h("button", { type: "button", class: "btn ghost", "data-testid": "join-cancel" }, t("lobby.join.cancel"));
    cancel.addEventListener("click", () => {
      joining = null;
      renderLists();
    });
    return h(
      "form",
      {
        class: "join-form",
        "data-testid": "join-form",
        onsubmit: (e) => {
          e.preventDefault();
          const name = input.value.trim();
          if (!name) {
            joining.error = t("lobby.join.needed");
            renderLists();
            root.querySelector("[data-testid=join-name]").focus();
            return;
          }
          join(game, seat, name);
        },
      },
      h("label", { for: "join-name" }, t("lobby.join", { seat: seatColoursName(seatColours(game.players, seat)) }), " — ", t("lobby.join.name")),
      h("div", { class: "control-row" }, input, go, cancel),
      joining.error ? h("p", { class: "notice error", role: "alert", "data-testid": "join-error" }, joining.error) : null,
    );
  }

  async function join(game, seat, name) {
    try {
      const answer = await api.join(game.game_id, seat, name);
      saveName(name);
      remember(game.game_id, { tokens: [answer.token], seats: [seat], players: game.players });
      location.href = answer.link;
    } catch (error) {
      joining = { game, seat, error: failure(error) };
      refresh();
    }
  }

  function uploadCard() {
    const input = h("input", { type: "file", accept: ".json,application/json", id: "upload", "data-testid": "upload-file" });
    const go = h("button", { type: "button", class: "btn secondary", "data-testid": "upload-go" }, t("lobby.upload.button"));
    const error = h("p", { class: "notice error", hidden: true, role: "alert", "data-testid": "upload-error" });
    go.addEventListener("click", async () => {
      const file = input.files && input.files[0];
      const fail = (text) => {
        error.textContent = text;
        error.hidden = false;
      };
      error.hidden = true;
      if (!file) {
        fail(t("lobby.upload.none"));
        input.focus();
        return;
      }
      if (file.size > UPLOAD_LIMIT) {
        const size = new Intl.NumberFormat(lang(), { maximumFractionDigits: 1 }).format(file.size / (1024 * 1024));
        fail(t("lobby.upload.too_big", { size }));
        return;
      }
      const text = await file.text();
      try {
        sessionStorage.setItem(UPLOAD_KEY, text);
      } catch (e) {
        fail(t("lobby.upload.storage", { message: String(e.message || e) }));
        return;
      }
      location.href = "/r/upload";
    });
    return h(
      "section",
      { class: "card", "aria-labelledby": "upload-title" },
      h("h2", { id: "upload-title" }, t("lobby.upload")),
      h("p", { class: "hint" }, t("lobby.upload.help")),
      h("div", { class: "control-row" }, h("label", { for: "upload", class: "sr-only" }, t("lobby.upload")), input, go),
      error,
    );
  }

  async function refresh() {
    listError = null;
    try {
      const ids = myGames().map((g) => g.id).slice(0, 50);
      [mine, open] = await Promise.all([api.games(ids), api.openGames()]);
    } catch (error) {
      listError = t("lobby.error", { message: error.message });
    }
    renderLists();
  }

  render();
  refresh();
  const off = onLangChange(() => {
    form.lang = lang();
    render();
  });
  const timer = setInterval(refresh, 15000);
  return () => {
    off();
    clearInterval(timer);
  };
}
