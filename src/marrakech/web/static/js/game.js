// The live game page: /g/{id}#t=TOKEN[,TOKEN…] for seats, /g/{id} for spectators.
//
// The server sends the state and, for each seat this page holds, the tokens it may send
// now; the page draws them and sends one back. No rule is computed here.

import { h, clear, isTyping, announce, copyText } from "./dom.js";
import { t, plural, lang, setLang, langChosen, onLangChange, colourName, levelName, rulesLabel, clockLabel } from "./i18n.js";
import { Board } from "./board.js";
import { Panels, Die, Log, endScreen, moverSeat, seatName, swatches } from "./panels.js";
import { GameSocket } from "./net.js";
import { playEvents, speedSetting, setSpeed, SPEEDS, timings, addToTurn, lastMove, summaryMove } from "./animate.js";
import { remember, gameLink, getGame } from "./store.js";
import { api } from "./api.js";
import { config } from "./config.js";
import * as signals from "./signals.js";

const TURN = { L: 3, S: 0, R: 1 }; // quarter turns clockwise, for the preview arrow only
const FACINGS = "NESW";

/**
 * Merge what changed in the state view (an update's `changes`) into the view the page
 * has: objects, and arrays by index, get what changed; anything else is replaced. Pure
 * data, no rule: the server says what changed (docs/web-protocol.md).
 */
export function applyChanges(target, changes) {
  if (changes === null || typeof changes !== "object" || Array.isArray(changes)) return changes;
  if (target === null || typeof target !== "object") return changes;
  const merged = Array.isArray(target) ? target.slice() : { ...target };
  for (const [key, value] of Object.entries(changes)) merged[key] = applyChanges(merged[key], value);
  return merged;
}

export function tokensFromHash(hash) {
  const m = /(?:^#|&)t=([^&]*)/.exec(hash || "");
  if (!m) return [];
  return decodeURIComponent(m[1])
    .split(",")
    .map((x) => x.trim())
    .filter(Boolean);
}

// How the last press reached the page: a touch previews first and acts on a second tap
// (or the confirm button); a mouse click or a key acts at once (hover and arrows preview).
let lastPointer = "mouse";
document.addEventListener("pointerdown", (e) => (lastPointer = e.pointerType || "mouse"), true);
document.addEventListener("keydown", () => (lastPointer = "keyboard"), true);
function touching() {
  return lastPointer === "touch" || lastPointer === "pen";
}

function formatNumber(x, digits = 1) {
  return new Intl.NumberFormat(lang(), { maximumFractionDigits: digits }).format(x);
}

function formatPercent(p, digits = 0) {
  return new Intl.NumberFormat(lang(), { style: "percent", maximumFractionDigits: digits }).format(p);
}

/** "2:05" for 125 seconds (a countdown: whole seconds, rounded up). */
export function clockText(seconds) {
  const whole = Math.max(0, Math.ceil(seconds));
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}`;
}

export function mountGame(root, gameId) {
  const tokens = tokensFromHash(location.hash);
  const g = {
    meta: null,
    you: [],
    version: 0,
    view: null,
    legal: {},
    log: [],
    queue: [],
    busy: false,
    pending: false,
    orientPreview: null,
    placeFirst: null,
    placeChoice: null,
    lastSeat: null,
    handover: null,
    endShown: false,
    endDialog: null,
    speed: speedSetting(),
    notice: null,
    conn: "connecting",
    fatal: null,
    botsBusy: false,
    // The server's orient preview (preview_view) while a seat orients, else null.
    preview: null,
    // The hint for this position (the server's "hint" message), and the version a hint
    // was asked for while it is on its way.
    hint: null,
    hintAsked: null,
    // The turn drawn on the board until the next: events seen live, else the summary.
    lastTurn: [],
    lastSummary: null,
    // The turns since this page's seats last played (TurnSummary), for "since your turn".
    since: [],
    clock: null,
    clockAt: 0,
    rematch: null,
    analysis: null,
    wasMine: false,
    signals: { turns: 0, chimes: 0, notices: 0 },
  };

  // ---- layout ----------------------------------------------------------------------
  let board, panels, die, log, statusText, statusSwatches, conn, controls, noticeEl, metaLine;
  let boardWrap, overlay, clockEl, sinceEl, seatCtl;

  function build() {
    clear(root);
    boardWrap = h("div", { class: "board-wrap" });
    board = new Board(boardWrap, { onSquare: clickSquare });
    const side = h("div", { class: "side" });
    statusSwatches = h("span", { class: "status-swatches" });
    statusText = h("span", { "data-testid": "status", id: "turn-status" });
    conn = h("span", { class: "conn", "data-testid": "connection", role: "status" });
    clockEl = h("span", { class: "clock", "data-testid": "clock", hidden: true, "aria-live": "off" });
    const statusLine = h("div", { class: "status-line" }, statusSwatches, statusText);
    const dieHost = h("div", {});
    die = new Die(dieHost);
    controls = h("div", { class: "control-body", "data-testid": "controls" });
    sinceEl = h("div", { class: "since-host" });
    noticeEl = h("p", { class: "notice", hidden: true, role: "alert", "data-testid": "notice" });
    const controlsCard = h(
      "section",
      { class: "controls", "aria-labelledby": "turn-status" },
      h(
        "div",
        { class: "turn-row" },
        dieHost,
        h("div", { style: { flex: "1", minWidth: "0" } }, statusLine, h("div", { class: "conn-row" }, conn, clockEl)),
      ),
      sinceEl,
      controls,
      noticeEl,
    );
    side.append(controlsCard);
    seatCtl = h("div", { class: "seat-controls", "data-testid": "seat-controls" });
    side.append(seatCtl);
    panels = new Panels(side);
    log = new Log(side);
    metaLine = h("div", { class: "meta-line" });
    side.append(metaLine);
    root.append(h("div", { class: "game", "data-testid": "game" }, boardWrap, side));
    g.controlsCard = controlsCard;
  }

  // ---- rendering -------------------------------------------------------------------
  function activeSeat() {
    if (g.meta && g.meta.status === "waiting") return null;
    for (const seat of g.you) {
      const list = g.legal[String(seat)];
      if (list && list.length) return seat;
    }
    return null;
  }

  function seatInfo(seat) {
    return g.meta && g.meta.seats ? g.meta.seats[seat] || null : null;
  }

  function renderAll() {
    if (!g.view) return;
    board.render(g.view);
    board.showLastMove(g.lastTurn.length ? lastMove(g.lastTurn) : summaryMove(g.lastSummary));
    panels.render(g.view, g.meta, g.you);
    renderStatus();
    renderControls();
    renderSeatControls();
    renderMeta();
  }

  function renderStatus() {
    const view = g.view;
    clear(statusSwatches);
    const mover = moverSeat(view);
    const waiting = g.meta && g.meta.status === "waiting";
    let mine = false;
    if (view.phase === "over") {
      statusText.textContent = t("game.over");
    } else if (waiting) {
      const open = g.meta.seats.filter((x) => x.kind === "open").length;
      statusText.textContent = plural("game.waiting", open);
    } else if (mover !== null) {
      statusSwatches.append(swatches(view.seats[mover].colours, 26));
      const name = seatName(view, g.meta, mover);
      const info = seatInfo(mover);
      const kind = info ? info.kind : "human";
      mine = g.you.includes(mover) && !(info && info.stand_in);
      if (info && info.stand_in) {
        statusText.textContent = t("game.turn.stand_in", { seat: name, level: levelName(info.stand_in) });
      } else if (g.you.includes(mover)) statusText.textContent = t("game.turn.you", { seat: name });
      else if (kind === "bot" && g.botsBusy) statusText.textContent = t("game.turn.bot_busy", { seat: name });
      else if (kind === "bot") statusText.textContent = t("game.turn.bot", { seat: name });
      else if (kind === "open") statusText.textContent = t("game.turn.open", { seat: name });
      else if (info && info.presence === "away") statusText.textContent = t("game.turn.away", { seat: name });
      else statusText.textContent = t("game.turn.other", { seat: name });
    } else statusText.textContent = "";
    conn.textContent =
      g.conn === "open"
        ? t("game.connected")
        : g.conn === "fatal"
          ? ""
          : g.conn === "down"
            ? t("game.reconnecting")
            : t("game.loading");
    conn.classList.toggle("down", g.conn === "down");
    signals.markTab(mine, mine ? t("title.your_turn", { title: t("app.title") }) : t("app.title"));
    renderClock();
    root.dataset.version = String(g.version);
    root.dataset.phase = view.phase;
    root.dataset.status = g.meta ? g.meta.status : "";
    root.dataset.busy = g.busy || g.queue.length ? "1" : "0";
    root.dataset.botsBusy = g.botsBusy ? "1" : "0";
  }

  function setClock(clock) {
    if (!clock) return;
    g.clock = clock;
    g.clockAt = performance.now();
    renderClock();
  }

  /** The seconds left on the running clock (null when no seat's time runs). */
  function clockLeft() {
    const clock = g.clock;
    if (!clock || clock.mode === "none" || clock.seat === null || clock.seat === undefined) return null;
    if (clock.remaining === null || clock.remaining === undefined) return null;
    return clock.remaining - (performance.now() - g.clockAt) / 1000;
  }

  function renderClock() {
    if (!clockEl) return;
    const left = clockLeft();
    if (left === null || !g.view || g.view.phase === "over") {
      clockEl.hidden = true;
      return;
    }
    const seat = g.clock.seat;
    const time = clockText(left);
    clockEl.hidden = false;
    clockEl.textContent = g.you.includes(seat)
      ? t("clock.you", { time })
      : t("clock.other", { seat: seatName(g.view, g.meta, seat), time });
    clockEl.classList.toggle("urgent", left <= 10);
    clockEl.dataset.seat = String(seat);
    clockEl.dataset.left = String(Math.max(0, Math.ceil(left)));
  }

  function placements() {
    const seat = activeSeat();
    if (seat === null) return [];
    return g.legal[String(seat)]
      .filter((tok) => tok.includes("-"))
      .map((tok) => {
        const [a, b] = tok.split("-");
        return { token: tok, a, b };
      });
  }

  function partnersOf(square) {
    return placements()
      .filter((p) => p.a === square || p.b === square)
      .map((p) => (p.a === square ? p.b : p.a));
  }

  function findPlacement(x, y) {
    return placements().find((p) => (p.a === x && p.b === y) || (p.a === y && p.b === x)) || null;
  }

  function button(label, attrs, key = null) {
    return h(
      "button",
      { type: "button", class: "btn", ...attrs },
      label,
      key ? [" ", h("kbd", { "aria-hidden": "true" }, key)] : null,
    );
  }

  function renderControls() {
    clear(controls);
    board.previewFacing(null);
    board.showPreview(null);
    board.mark({});
    const view = g.view;
    const seat = activeSeat();
    const animating = g.busy || g.queue.length > 0;
    g.controlsCard.classList.toggle("active", seat !== null && !animating && g.handover === null);
    // What the page waits for now (tests and assistive tools read it).
    root.dataset.input =
      view.phase === "over" && !animating
        ? "over"
        : seat === null || animating || g.pending || g.conn !== "open"
          ? "wait"
          : g.handover !== null
            ? "handover"
            : view.phase;
    renderSince(seat !== null && !animating);
    if (g.fatal) {
      controls.append(h("p", { class: "notice error" }, g.fatal));
      return;
    }
    if (view.phase === "over") {
      controls.append(
        h(
          "div",
          { class: "control-row" },
          button(t("game.show_result"), { onclick: showEnd, "data-testid": "show-result" }),
          h("a", { class: "btn secondary", href: `/r/${gameId}`, "data-testid": "replay-link" }, t("game.replay")),
          rematchControl(),
        ),
      );
      return;
    }
    if (seat === null || animating) {
      if (!g.you.length) controls.append(h("p", { class: "hint" }, t("game.spectator")));
      return;
    }
    if (g.handover !== null) {
      showHandover();
      return;
    }
    const legal = g.legal[String(seat)];
    // Nothing can be sent while the connection is down; the buttons say so.
    const disabled = g.pending || g.conn !== "open";
    if (view.phase === "orient") renderOrient(legal, disabled);
    else if (view.phase === "roll") {
      controls.append(h("p", {}, t("game.phase.roll")));
      controls.append(
        h(
          "div",
          { class: "control-row" },
          button(t("game.roll"), { onclick: () => act("roll"), "data-testid": "roll", class: "btn big warm", disabled }, "Enter"),
        ),
      );
    } else if (view.phase === "place") {
      renderPlace(seat, disabled);
    }
    if ((view.phase === "orient" || view.phase === "place") && hintsAllowed()) renderHint(disabled);
  }

  // ---- hints ---------------------------------------------------------------------------
  function hintsAllowed() {
    return Boolean(g.meta && g.meta.hints);
  }

  /** The advice for the position shown (null: none asked, or it was for another). */
  function currentHint() {
    return g.hint && g.hint.version === g.version ? g.hint : null;
  }

  function advised() {
    const hint = currentHint();
    return hint ? hint.options[0].action : null;
  }

  /** "Hint: turn left — 54% to win (straight 50%, right 47%)" or "Hint: c6-c7 — 61% to win". */
  function hintText(hint) {
    const [best, ...rest] = hint.options;
    const placing = best.action.includes("-");
    // A tenth of a percent: the orientations' chances are often close.
    const line = t("game.hint.line", { choice: placing ? best.action : t(`game.hint.${best.action}`), p: formatPercent(best.chance, 1) });
    if (placing || !rest.length) return line;
    const others = rest.map((o) => `${t(`game.hint.short.${o.action}`)} ${formatPercent(o.chance, 1)}`).join(", ");
    return t("game.hint.others", { line, others });
  }

  function renderHint(disabled) {
    const hint = currentHint();
    const asking = g.hintAsked === g.version;
    controls.append(
      h(
        "div",
        { class: "hint-host" },
        h(
          "div",
          { class: "control-row" },
          button(
            asking ? t("game.hint.asking") : t("game.hint"),
            { onclick: askHint, class: "btn secondary", "data-testid": "hint", disabled: disabled || asking, "aria-describedby": hint ? "hint-text" : null },
            "H",
          ),
        ),
        hint ? h("p", { class: "hint-text", id: "hint-text", "data-testid": "hint-text", "aria-live": "polite" }, hintText(hint)) : null,
      ),
    );
  }

  /** Ask the server for advice on this page's decision (once per position). */
  function askHint() {
    const seat = activeSeat();
    if (seat === null || !hintsAllowed() || g.pending || g.busy || g.conn !== "open" || g.handover !== null) return;
    if (g.view.phase !== "orient" && g.view.phase !== "place") return;
    if (currentHint()) return void showHint();
    if (g.hintAsked === g.version) return;
    if (!socketConn.send({ type: "hint", seat })) {
      showNotice(t("game.reconnecting"));
      return;
    }
    g.hintAsked = g.version;
    renderControls();
  }

  function hintArrived(msg) {
    if (!g.view || msg.version !== g.version) return; // for a position that is gone
    g.hint = msg;
    g.hintAsked = null;
    showHint();
  }

  /** Preview the advised choice as hovering or tapping it would; the player confirms. */
  function showHint() {
    const best = advised();
    if (!best) return;
    if (g.view.phase === "orient") g.orientPreview = best;
    else {
      const [a, b] = best.split("-");
      g.placeFirst = null;
      g.placeChoice = findPlacement(a, b);
    }
    renderControls();
  }

  function orientLast() {
    return Boolean(g.meta && String(g.meta.rules).includes("orient-last"));
  }

  function previewOf(tok) {
    return (g.preview || []).find((o) => o.orient === tok) || null;
  }

  function renderOrient(legal, disabled) {
    controls.append(h("p", {}, t(orientLast() ? "game.phase.orient_last" : "game.phase.orient")));
    const row = h("div", { class: "orient-row", role: "group", "aria-label": t("game.phase.orient") });
    const arrows = { L: "↶", S: "↑", R: "↷" };
    const keys = { L: "←", S: "↑", R: "→" };
    for (const tok of ["L", "S", "R"]) {
      if (!legal.includes(tok)) continue;
      const option = previewOf(tok);
      const b = button(
        [
          h("span", { class: "orient-label" }, h("span", { "aria-hidden": "true" }, arrows[tok]), " ", t(`game.orient.${tok}`)),
          option
            ? h("small", { class: "orient-cost", "data-testid": `expected-${tok}` }, t("preview.expected", { n: formatNumber(option.expected_tithe) }))
            : null,
        ],
        {
          onclick: () => chooseOrient(tok),
          onmouseenter: () => showOrientInfo(tok),
          onmouseleave: () => showOrientInfo(g.orientPreview),
          onfocus: () => showOrientInfo(tok),
          "data-testid": `orient-${tok}`,
          "aria-pressed": g.orientPreview === tok ? "true" : "false",
          disabled,
          class: `btn orient${tok === "S" ? " secondary" : ""}${advised() === tok ? " advised" : ""}`,
        },
        keys[tok],
      );
      row.append(b);
    }
    controls.append(row);
    g.orientInfo = h("div", { class: "orient-info", "data-testid": "orient-info", "aria-live": "polite" });
    controls.append(g.orientInfo);
    showOrientInfo(g.orientPreview);
    if (g.orientPreview) {
      controls.append(
        h(
          "div",
          { class: "control-row" },
          button(
            t("game.orient.confirm_as", { choice: t(`game.orient.${g.orientPreview}`) }),
            { onclick: () => act(g.orientPreview), "data-testid": "orient-confirm", class: "btn warm", disabled },
            "Enter",
          ),
        ),
      );
    }
  }

  /** A touch previews the facing (and what each die result would cost); a second tap
   * on it, or the confirm button, sends it. A click or a key sends it at once. */
  function chooseOrient(tok) {
    if (touching() && g.orientPreview !== tok) {
      g.orientPreview = tok;
      renderControls();
      return;
    }
    act(tok);
  }

  /** The facing a choice gives, its landing squares on the board, and the table. */
  function showOrientInfo(tok) {
    const option = tok ? previewOf(tok) : null;
    board.previewFacing(previewFacing(tok));
    board.showLandings(option ? option.rolls : null);
    const host = g.orientInfo;
    if (!host || host.dataset.shown === String(tok)) return;
    // Redrawn only when the choice shown changes, so a screen reader hears it once.
    host.dataset.shown = String(tok);
    clear(host);
    if (!option) {
      if (g.preview) host.append(h("p", { class: "hint" }, t(touching() ? "preview.tap" : "preview.hover")));
      return;
    }
    const payee = (roll) => (roll.payee === null || roll.payee === undefined ? "" : seatName(g.view, g.meta, roll.payee));
    host.append(
      h("p", { class: "preview-title" }, t("preview.title", { choice: t(`game.orient.${tok}`), facing: t(`facing.${option.facing}`) })),
      h(
        "table",
        { class: "preview-table", "data-testid": "preview-table" },
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            h("th", { scope: "col" }, t("preview.die")),
            h("th", { scope: "col", class: "num" }, t("preview.chance")),
            h("th", { scope: "col" }, t("preview.lands")),
            h("th", { scope: "col" }, t("preview.tithe")),
          ),
        ),
        h(
          "tbody",
          {},
          option.rolls.map((roll) =>
            h(
              "tr",
              { "data-roll": roll.roll, class: roll.due > 0 ? "costly" : "" },
              h("td", {}, String(roll.roll).replace(/^r/, "")),
              h("td", { class: "num" }, formatPercent(roll.probability)),
              h("td", {}, roll.landing),
              h(
                "td",
                {},
                roll.eliminates
                  ? t("preview.out", { n: roll.due, seat: payee(roll) })
                  : roll.due > 0
                    ? t("preview.pay", { n: roll.due, seat: payee(roll) })
                    : t("preview.free"),
              ),
            ),
          ),
        ),
      ),
      h(
        "p",
        { class: "hint" },
        t("preview.expected.long", { n: formatNumber(option.expected_tithe) }),
        option.elimination_chance > 0 ? [" ", t("preview.risk", { p: formatPercent(option.elimination_chance) })] : null,
      ),
    );
  }

  function previewFacing(tok) {
    if (!tok || !g.view) return null;
    const i = FACINGS.indexOf(g.view.assam.facing);
    return FACINGS[(i + TURN[tok]) % 4];
  }

  function renderPlace(seat, disabled) {
    const list = placements();
    const colour = g.view.seats[seat].next_carpet;
    controls.append(h("p", {}, swatches([colour], 20), " ", t("game.phase.place", { colour: colourName(colour).toLowerCase() })));
    const squares = new Set();
    list.forEach((p) => {
      squares.add(p.a);
      squares.add(p.b);
    });
    const partners = g.placeFirst ? partnersOf(g.placeFirst) : [];
    board.mark({ legal: g.placeFirst ? [] : [...squares], selected: g.placeFirst, partners });
    let label;
    if (g.placeChoice) {
      const i = list.findIndex((p) => p.token === g.placeChoice.token);
      board.showPreview([g.placeChoice.a, g.placeChoice.b], colour);
      label = t("game.place.choice", { i: i + 1, n: list.length, a: g.placeChoice.a, b: g.placeChoice.b });
      if (touching()) label += ` ${t("game.place.again")}`;
    } else if (g.placeFirst) {
      label = t(touching() ? "game.place.pick2.touch" : "game.place.pick2");
    } else {
      label = `${t("game.place.count", { n: list.length })}. ${t(touching() ? "game.place.pick.touch" : "game.place.pick")}`;
    }
    controls.append(h("p", { class: "hint", "data-testid": "place-hint", "aria-live": "polite" }, label));
    controls.append(
      h(
        "div",
        { class: "control-row" },
        button("◀", { onclick: () => cycle(-1), class: "btn secondary", "aria-label": t("game.place.prev"), "data-testid": "place-prev", disabled }),
        button("▶", { onclick: () => cycle(1), class: "btn secondary", "aria-label": t("game.place.next"), "data-testid": "place-next", disabled }),
        button(t("game.place.confirm"), {
          onclick: () => g.placeChoice && act(g.placeChoice.token),
          class: "btn warm",
          "data-testid": "place-confirm",
          disabled: disabled || !g.placeChoice,
        }, "Enter"),
        g.placeFirst || g.placeChoice
          ? button(t("game.place.clear"), { onclick: clearPlace, class: "btn ghost", "data-testid": "place-clear" }, "Esc")
          : null,
      ),
    );
  }

  // ---- what happened since your last turn -------------------------------------------------
  function sinceLine(turn) {
    const view = g.view;
    const parts = [];
    if (turn.roll) parts.push(t("since.roll", { n: turn.roll, square: turn.path[turn.path.length - 1] || "" }));
    if (turn.tithe && turn.tithe.paid > 0) {
      parts.push(
        g.you.includes(turn.tithe.payee)
          ? t("since.paid_you", { n: turn.tithe.paid })
          : t("since.paid", { n: turn.tithe.paid, seat: seatName(view, g.meta, turn.tithe.payee) }),
      );
    }
    if (turn.placed) parts.push(t("since.placed", { a: turn.placed[0], b: turn.placed[1] }));
    for (const seat of turn.eliminated || []) parts.push(t("since.out", { seat: seatName(view, g.meta, seat) }));
    for (const seat of turn.resigned || []) parts.push(t("since.resigned", { seat: seatName(view, g.meta, seat) }));
    return h(
      "li",
      { "data-turn": turn.turn },
      swatches(view.seats[turn.seat].colours, 16),
      " ",
      h("strong", {}, seatName(view, g.meta, turn.seat)),
      ": ",
      parts.join(", ") || t("since.nothing"),
    );
  }

  function renderSince(show) {
    clear(sinceEl);
    const turns = g.since.filter((turn) => !g.you.includes(turn.seat));
    if (!show || !turns.length || !g.view) return;
    // A long absence: the last few turns say enough; the log has the rest.
    const shown = turns.slice(-6);
    sinceEl.append(
      h(
        "section",
        { class: "since", "data-testid": "since", "aria-label": t("since.title") },
        h("h3", {}, t("since.title")),
        turns.length > shown.length ? h("p", { class: "hint" }, plural("since.more", turns.length - shown.length)) : null,
        h("ul", {}, shown.map(sinceLine)),
      ),
    );
  }

  // ---- seats: resign, the host's start / replace / kick, stand-ins, take back -----------
  function send(msg) {
    if (!socketConn.send(msg)) showNotice(t("game.reconnecting"));
  }

  function levelSelect(testid, label) {
    return h(
      "select",
      { "data-testid": testid, "aria-label": label },
      config.levels.map((l) => h("option", { value: l, selected: l === config.defaultLevel }, levelName(l))),
    );
  }

  function renderSeatControls() {
    clear(seatCtl);
    const meta = g.meta;
    if (!meta || !g.view || g.fatal) return;
    const rows = [];
    const hosting = g.you.some((seat) => seatInfo(seat) && seatInfo(seat).host);
    const name = (seat) => seatName(g.view, meta, seat);
    // A bot stands in for one of this page's seats: say so, and offer the seat back.
    for (const seat of g.you) {
      const info = seatInfo(seat);
      if (!info || !info.stand_in || meta.status === "over") continue;
      rows.push(
        h(
          "div",
          { class: "notice", "data-testid": `stand-in-notice-${seat}` },
          h("p", {}, t("seat.stand_in.notice", { seat: name(seat), level: levelName(info.stand_in) })),
          button(t("seat.take_back"), {
            class: "btn warm",
            "data-testid": `take-back-${seat}`,
            onclick: () => send({ type: "take_back", seat }),
          }),
        ),
      );
    }
    if (meta.status === "waiting") {
      if (hosting) {
        const level = levelSelect("start-level", t("host.start.level"));
        rows.push(
          h(
            "div",
            { class: "host-row" },
            h("p", {}, t("host.start.help")),
            h(
              "div",
              { class: "control-row" },
              h("label", { class: "inline-label" }, t("host.start.level"), " ", level),
              button(t("host.start"), {
                class: "btn warm",
                "data-testid": "host-start",
                onclick: () => send({ type: "start", level: level.value }),
              }),
            ),
          ),
        );
        // Seats this browser invited at creation cannot be opened again (the server
        // says so); the others were claimed from the lobby.
        const invited = new Set(Object.keys((getGame(gameId) || {}).invites || {}).map(Number));
        for (const info of meta.seats) {
          if (info.kind !== "human" || info.host || info.presence !== "away" || invited.has(info.seat)) continue;
          rows.push(
            h(
              "div",
              { class: "control-row" },
              h("span", {}, t("host.kick.why", { seat: name(info.seat) })),
              button(t("host.kick"), {
                class: "btn secondary",
                "data-testid": `host-kick-${info.seat}`,
                onclick: () => send({ type: "kick", seat: info.seat }),
              }),
            ),
          );
        }
      } else {
        rows.push(h("p", { class: "hint" }, t("host.waiting.guest")));
      }
    }
    if (meta.status === "playing" && hosting) {
      for (const info of meta.seats) {
        if (info.kind !== "human" || info.presence !== "away" || info.stand_in || info.resigned) continue;
        if (g.you.includes(info.seat) || !g.view.seats[info.seat].in_game) continue;
        const level = levelSelect(`replace-level-${info.seat}`, t("host.replace.level"));
        rows.push(
          h(
            "div",
            { class: "host-row" },
            h("p", {}, t("host.away", { seat: name(info.seat) })),
            h(
              "div",
              { class: "control-row" },
              level,
              button(t("host.replace"), {
                class: "btn secondary",
                "data-testid": `host-replace-${info.seat}`,
                onclick: () => send({ type: "replace", seat: info.seat, level: level.value }),
              }),
            ),
          ),
        );
      }
    }
    if (meta.status === "playing") {
      const mine = g.you.filter((seat) => g.view.seats[seat].in_game && !(seatInfo(seat) && seatInfo(seat).resigned));
      for (const seat of mine) {
        rows.push(
          h(
            "div",
            { class: "control-row resign-row" },
            button(mine.length > 1 ? t("resign.button.seat", { seat: name(seat) }) : t("resign.button"), {
              class: "btn ghost",
              "data-testid": `resign-${seat}`,
              onclick: () => confirmResign(seat),
            }),
          ),
        );
      }
    }
    if (rows.length) seatCtl.append(h("section", { class: "card seat-card" }, rows));
  }

  function confirmResign(seat) {
    const name = seatName(g.view, g.meta, seat);
    const dialog = h(
      "dialog",
      { class: "confirm", "data-testid": "resign-dialog", "aria-labelledby": "resign-title" },
      h("h2", { id: "resign-title" }, t("resign.title", { seat: name })),
      h("p", {}, t("resign.text")),
      h(
        "div",
        { class: "dialog-actions" },
        button(t("resign.cancel"), { class: "btn secondary", "data-testid": "resign-cancel", onclick: () => dialog.close() }),
        button(t("resign.confirm"), {
          class: "btn warm",
          "data-testid": "resign-confirm",
          onclick: () => {
            dialog.close();
            send({ type: "resign", seat });
          },
        }),
      ),
    );
    dialog.addEventListener("close", () => dialog.remove());
    document.body.append(dialog);
    dialog.showModal();
  }

  function rematchControl() {
    if (g.rematch) {
      return h(
        "a",
        { class: "btn warm", href: rematchLink(), "data-testid": "rematch-open-row" },
        t("end.rematch.open"),
      );
    }
    if (!g.you.length) return null;
    return button(t("end.rematch"), { class: "btn warm", "data-testid": "rematch-row", onclick: askRematch });
  }

  function rematchLink() {
    const r = g.rematch;
    return r ? gameLink(r.game_id, r.seats.map((x) => x.token)) : null;
  }

  function askRematch() {
    send({ type: "rematch" });
  }

  // ---- meta line: rules, clock, links, settings, turn signals ------------------------------
  function renderMeta() {
    clear(metaLine);
    if (!g.meta) return;
    const spectator = `${location.origin}/g/${gameId}`;
    const copy = h("button", { type: "button", class: "btn ghost small", "data-testid": "copy-spectator" }, t("game.copy_link"));
    copy.addEventListener("click", async () => {
      if (await copyText(spectator)) copy.textContent = t("lobby.copied");
    });
    const speed = h(
      "select",
      { "aria-label": t("game.speed"), "data-testid": "speed" },
      SPEEDS.map((sp) => h("option", { value: sp, selected: sp === g.speed }, t(`game.speed.${sp}`))),
    );
    speed.addEventListener("change", () => {
      g.speed = speed.value;
      setSpeed(g.speed);
    });
    const parts = [
      h("span", { "data-testid": "rules-label" }, t("game.rules", { rules: rulesLabel(g.meta.rules) })),
      g.meta.clock && g.meta.clock.mode !== "none"
        ? h("span", { "data-testid": "clock-mode" }, clockLabel(g.meta.clock.mode, g.meta.clock.seconds))
        : null,
      copy,
      h("a", { href: `/r/${gameId}` }, t("game.replay")),
      h("a", { href: api.recordUrl(gameId), download: `marrakech-${gameId}.json` }, t("game.download")),
      h("label", {}, t("game.speed"), " ", speed),
      ...(g.you.length ? signalButtons() : []),
    ];
    metaLine.append(...parts.filter(Boolean));
  }

  function signalButtons() {
    const sound = button(signals.soundOn() ? t("signal.sound.on") : t("signal.sound.off"), {
      class: "btn ghost small",
      "data-testid": "sound-toggle",
      "aria-pressed": signals.soundOn() ? "true" : "false",
      onclick: () => {
        signals.setSound(!signals.soundOn());
        if (signals.soundOn()) signals.chime();
        renderMeta();
      },
    });
    const state = signals.notifyState();
    const notifyButton =
      state === "denied"
        ? h("span", { class: "hint", "data-testid": "notify-denied" }, signals.notifySupported() ? t("signal.notify.denied") : "")
        : button(t(`signal.notify.${state}`), {
            class: "btn ghost small",
            "data-testid": "notify-toggle",
            "aria-pressed": state === "granted" ? "true" : "false",
            onclick: async () => {
              if (state === "default") await signals.askNotify();
              else signals.setNotify(state !== "granted");
              renderMeta();
            },
          });
    return [sound, notifyButton];
  }

  /** It just became this page's turn: the tab, a chime, a notification (as chosen). */
  function signalTurn() {
    g.signals.turns += 1;
    if (signals.soundOn() && signals.chime()) g.signals.chimes += 1;
    const seat = activeSeat();
    const body = seat === null ? "" : t("game.turn.you", { seat: seatName(g.view, g.meta, seat) });
    if (signals.notify(t("title.your_turn", { title: t("app.title") }), body)) g.signals.notices += 1;
    root.dataset.signals = String(g.signals.turns);
  }

  // ---- hotseat handover ----------------------------------------------------------------
  function showHandover() {
    if (overlay) overlay.remove();
    const seat = g.handover;
    const name = seatName(g.view, g.meta, seat);
    const ok = button(t("game.handover.ok", { seat: name }), {
      onclick: () => {
        g.handover = null;
        overlay.remove();
        overlay = null;
        renderControls();
        board.svg.focus();
      },
      class: "btn big warm",
      "data-testid": "handover-ok",
    });
    overlay = h(
      "div",
      { class: "handover", role: "dialog", "aria-modal": "true", "aria-labelledby": "handover-title", "data-testid": "handover" },
      h(
        "div",
        { class: "card" },
        h("h2", { id: "handover-title" }, swatches(g.view.seats[seat].colours, 28), " ", t("game.handover.title", { seat: name })),
        h("p", {}, t("game.handover.text", { seat: name })),
        ok,
      ),
    );
    boardWrap.append(overlay);
    ok.focus();
  }

  // ---- actions -------------------------------------------------------------------------
  function act(token) {
    const seat = activeSeat();
    if (seat === null || g.pending || g.busy || g.conn !== "open") return;
    const sent = socketConn.send({ type: "action", seat, version: g.version, action: token });
    if (!sent) {
      showNotice(t("game.reconnecting"));
      return;
    }
    g.pending = true;
    g.lastSeat = seat;
    renderControls();
  }

  function clearPlace() {
    g.placeFirst = null;
    g.placeChoice = null;
    renderControls();
  }

  function cycle(step) {
    const list = placements();
    if (!list.length) return;
    let i = g.placeChoice ? list.findIndex((p) => p.token === g.placeChoice.token) : -1;
    i = i < 0 ? (step > 0 ? 0 : list.length - 1) : (i + step + list.length) % list.length;
    g.placeChoice = list[i];
    g.placeFirst = null;
    renderControls();
  }

  function clickSquare(square) {
    if (!g.view || g.view.phase !== "place" || activeSeat() === null || g.busy || g.pending || g.handover !== null) return;
    const choice = g.placeChoice;
    if (choice && (square === choice.a || square === choice.b)) {
      // A second tap on the carpet shown places it; a mouse keeps its Place button.
      if (touching()) act(choice.token);
      return;
    }
    const partners = g.placeFirst ? partnersOf(g.placeFirst) : [];
    if (g.placeFirst && partners.includes(square)) {
      g.placeChoice = findPlacement(g.placeFirst, square);
    } else if (g.placeFirst === square) {
      g.placeFirst = null;
      g.placeChoice = null;
    } else if (partnersOf(square).length) {
      g.placeFirst = square;
      const mine = partnersOf(square);
      g.placeChoice = mine.length === 1 ? findPlacement(square, mine[0]) : null;
    }
    renderControls();
  }

  function onKey(e) {
    if (e.defaultPrevented || isTyping(e) || e.altKey || e.ctrlKey || e.metaKey) return;
    if (document.querySelector("dialog[open]")) return;
    if (!g.view || g.handover !== null) return;
    const seat = activeSeat();
    if (seat === null || g.busy || g.pending || g.conn !== "open") return;
    const onButton = e.target instanceof HTMLElement && ["BUTTON", "A", "SUMMARY", "SELECT"].includes(e.target.tagName);
    const enter = (e.key === "Enter" || e.key === " ") && !onButton;
    const phase = g.view.phase;
    if ((e.key === "h" || e.key === "H") && hintsAllowed() && (phase === "orient" || phase === "place")) {
      e.preventDefault();
      askHint();
      return;
    }
    let handled = true;
    if (phase === "orient") {
      if (e.key === "ArrowLeft") g.orientPreview = "L";
      else if (e.key === "ArrowRight") g.orientPreview = "R";
      else if (e.key === "ArrowUp") g.orientPreview = "S";
      else if (e.key === "Escape") g.orientPreview = null;
      else if (enter && g.orientPreview) return void (e.preventDefault(), act(g.orientPreview));
      else handled = false;
      if (handled) renderControls();
    } else if (phase === "roll") {
      if (enter) act("roll");
      else handled = false;
    } else if (phase === "place") {
      if (e.key === "ArrowRight" || e.key === "ArrowDown") cycle(1);
      else if (e.key === "ArrowLeft" || e.key === "ArrowUp") cycle(-1);
      else if (e.key === "Escape") clearPlace();
      else if (enter && g.placeChoice) act(g.placeChoice.token);
      else handled = false;
    } else handled = false;
    if (handled) e.preventDefault();
  }

  function showNotice(text, kind = "alert") {
    noticeEl.textContent = text;
    noticeEl.hidden = false;
    noticeEl.classList.toggle("info", kind === "info");
    noticeEl.setAttribute("role", kind === "info" ? "status" : "alert");
    clearTimeout(g.noticeTimer);
    g.noticeTimer = setTimeout(() => {
      noticeEl.hidden = true;
    }, 6000);
  }

  // ---- messages --------------------------------------------------------------------------
  function onMessage(msg) {
    if (msg.type === "welcome") g.queue.length = 0;
    g.queue.push(msg);
    pump();
  }

  async function pump() {
    if (g.busy) return;
    g.busy = true;
    try {
      while (g.queue.length) {
        const msg = g.queue.shift();
        try {
          if (msg.type === "welcome") welcome(msg);
          else if (msg.type === "update") await update(msg);
          else if (msg.type === "game") changed(msg);
          else if (msg.type === "bots") {
            g.botsBusy = msg.busy;
            if (g.view) renderStatus();
          } else if (msg.type === "rematch") rematchReady(msg);
          else if (msg.type === "hint") hintArrived(msg);
          else if (msg.type === "analysis") {
            g.analysis = msg.analysis;
            refreshEnd();
          } else if (msg.type === "error") refused(msg);
        } catch (error) {
          console.error("could not show a message", msg, error);
        }
      }
    } finally {
      g.busy = false;
    }
    afterSettle();
  }

  function welcome(msg) {
    g.botsBusy = false; // the server says so again after the welcome if they still are
    g.meta = msg.game;
    g.you = msg.you || [];
    g.version = msg.version;
    g.view = msg.state;
    g.legal = msg.legal || {};
    g.log = msg.log || [];
    g.preview = msg.preview || null;
    g.lastTurn = [];
    g.lastSummary = msg.last_move || null;
    g.since = msg.since || [];
    g.analysis = msg.analysis || null;
    g.pending = false;
    g.welcomes = (g.welcomes || 0) + 1;
    root.dataset.welcomes = String(g.welcomes);
    setClock(g.meta.clock);
    resetChoice();
    if (tokens.length) remember(gameId, { tokens, seats: g.you, players: g.meta.players });
    log.set(g.log);
    die.show(null);
    if (g.lastSeat === null) g.lastSeat = activeSeat();
    // A player who never picked a language sees the game in the one it was created in.
    if (!langChosen() && g.meta.lang && g.meta.lang !== lang()) setLang(g.meta.lang, { remember: false });
  }

  async function update(msg) {
    if (msg.version <= g.version) return;
    const events = msg.events || [];
    if (msg.changes && msg.version - events.length !== g.version) {
      socketConn.reconnectNow(); // a gap: the welcome brings the whole view again
      return;
    }
    const next = msg.changes ? applyChanges(g.view, msg.changes) : msg.state;
    const backlog = g.queue.length;
    const before = g.lastTurn;
    g.lastTurn = addToTurn(g.lastTurn, events);
    // A new turn begins: the previous one's marks make way for its walk.
    if (g.lastTurn.length && g.lastTurn[0] !== before[0]) board.showLastMove(null);
    g.preview = null;
    renderStatus();
    renderControls();
    await playEvents({
      board,
      panels,
      die,
      events,
      next,
      ms: timings(g.speed, backlog),
      render: (shown) => {
        g.view = shown;
        board.render(shown);
        panels.render(shown, g.meta, g.you);
        // The status follows the panels at once (never "Your turn" beside another's).
        renderStatus();
      },
    });
    g.version = msg.version;
    g.view = next;
    g.legal = msg.legal || {};
    // Someone else's move: the next time this page may act is a new turn to signal,
    // even if the updates between come faster than the page settles.
    if (activeSeat() === null) g.wasMine = false;
    g.preview = msg.preview || null;
    if (msg.clock) setClock(msg.clock);
    noteTurn(msg.last_move);
    g.pending = false;
    resetChoice();
    log.add(msg.log || []);
    g.log = [...g.log, ...(msg.log || [])];
    announce((msg.log || []).join(" "));
  }

  /** A finished turn: this page's own clears "since your last turn", another's joins it. */
  function noteTurn(turn) {
    if (!turn || (g.lastSummary && g.lastSummary.end === turn.end)) return;
    g.lastSummary = turn;
    if (!g.you.length) return;
    if (g.you.includes(turn.seat)) g.since = [];
    else if (!g.since.some((x) => x.end === turn.end)) g.since = [...g.since, turn];
  }

  function changed(msg) {
    g.meta = msg.game;
    setClock(msg.game.clock);
    const seat = msg.seat === null || msg.seat === undefined ? null : msg.seat;
    const key = `reason.${msg.reason}`;
    if (g.view && msg.reason && t(key) !== key) {
      const name = seat === null ? "" : seatName(g.view, g.meta, seat);
      const text = g.you.includes(seat) && t(`${key}.you`) !== `${key}.you` ? t(`${key}.you`) : t(key, { seat: name });
      showNotice(text, "info");
      announce(text);
    }
    if (g.view) renderAll();
    refreshEnd(); // the end screen names who resigned, and the rematch once it exists
  }

  function rematchReady(msg) {
    g.rematch = msg;
    const seats = msg.seats.map((x) => x.seat);
    remember(msg.game_id, { tokens: msg.seats.map((x) => x.token), seats, players: g.meta ? g.meta.players : null });
    if (g.view) renderControls();
    refreshEnd();
  }

  function refused(msg) {
    g.pending = false;
    g.hintAsked = null;
    const key = `game.error.${msg.code}`;
    const text = t(key) === key ? t("game.error.generic", { message: msg.message }) : t(key);
    if (msg.code === "not_found") g.fatal = t("game.not_found");
    showNotice(msg.code === "illegal_action" ? `${text} (${msg.message})` : text);
    if (msg.code === "stale_version") socketConn.reconnectNow();
  }

  function resetChoice() {
    // A new position: the advice of the last one no longer applies.
    g.hint = null;
    g.hintAsked = null;
    g.orientPreview = null;
    g.placeFirst = null;
    g.placeChoice = null;
  }

  function afterSettle() {
    if (!g.view) {
      if (g.fatal) showFatal();
      return;
    }
    const seat = activeSeat();
    if (seat !== null && g.you.length > 1 && g.lastSeat !== null && seat !== g.lastSeat && g.handover === null) {
      g.handover = seat;
    }
    if (seat !== null && g.handover === null) g.lastSeat = seat;
    renderAll();
    const mine = seat !== null;
    if (mine && !g.wasMine) signalTurn();
    g.wasMine = mine;
    if (g.view.phase === "over" && !g.endShown) {
      g.endShown = true;
      showEnd();
    }
  }

  /** No such game: one clear message and the way back, nothing left "connecting". */
  function showFatal() {
    clear(root);
    root.dataset.input = "fatal";
    root.append(
      h(
        "section",
        { class: "card fatal-card", "data-testid": "fatal" },
        h("h1", {}, g.fatal),
        h("p", {}, t("game.not_found.help")),
        h("a", { class: "btn warm", href: "/", "data-testid": "fatal-home" }, t("nav.home")),
      ),
    );
  }

  function endOptions() {
    const over = g.meta && g.meta.status === "over";
    return {
      onClose: () => g.endDialog && g.endDialog.close(),
      onReplay: () => {
        location.href = `/r/${gameId}`;
      },
      onDownload: () => {
        location.href = api.recordUrl(gameId);
      },
      onNew: () => {
        location.href = "/";
      },
      onRematch: g.you.length ? askRematch : null,
      rematchLink: rematchLink(),
      analysis: g.analysis,
      analysisPending: over && !g.analysis,
    };
  }

  function showEnd() {
    if (g.endDialog) g.endDialog.remove();
    const dialog = endScreen(g.view, g.meta, endOptions());
    dialog.addEventListener("close", () => {
      dialog.remove();
      if (g.endDialog === dialog) g.endDialog = null;
    });
    document.body.append(dialog);
    g.endDialog = dialog;
    dialog.showModal();
  }

  /** The end screen again with what arrived since (the analysis, the rematch link). */
  function refreshEnd() {
    if (!g.endDialog || !g.view) return;
    const old = g.endDialog;
    const dialog = endScreen(g.view, g.meta, endOptions());
    dialog.addEventListener("close", () => {
      dialog.remove();
      if (g.endDialog === dialog) g.endDialog = null;
    });
    g.endDialog = dialog;
    old.replaceWith(dialog);
    dialog.showModal();
  }

  // ---- start -----------------------------------------------------------------------------
  build();
  statusText.textContent = t("game.loading");
  const socketConn = new GameSocket(gameId, {
    tokens,
    lang: lang(),
    onMessage,
    onStatus: (status, detail) => {
      g.conn = status;
      if (status === "fatal") {
        g.fatal = detail && detail.code === "not_found" ? t("game.not_found") : t("game.error.generic", { message: detail ? detail.message : "" });
        if (!g.busy) afterSettle();
      } else if (g.view) {
        renderStatus();
        if (!g.busy) renderControls();
      } else conn.textContent = status === "down" ? t("game.reconnecting") : "";
    },
  });
  socketConn.connect();
  document.addEventListener("keydown", onKey);
  const ticker = setInterval(renderClock, 250);
  const offLang = onLangChange((next) => {
    build();
    renderAll();
    log.set(g.log);
    socketConn.setLang(next);
  });
  // Tests and curious players can look at the page's model.
  window.marrakechGame = g;
  return () => {
    socketConn.close();
    clearInterval(ticker);
    document.removeEventListener("keydown", onKey);
    offLang();
    if (g.endDialog) g.endDialog.remove();
  };
}
