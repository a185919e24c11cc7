// The live game page: /g/{id}#t=TOKEN[,TOKEN…] for seats, /g/{id} for spectators.
//
// The server sends the state and, for each seat this page holds, the tokens it may send
// now; the page draws them and sends one back. No rule is computed here.

import { h, clear, isTyping, announce, copyText } from "./dom.js";
import { t, lang, setLang, langChosen, onLangChange, colourName } from "./i18n.js";
import { Board } from "./board.js";
import { Panels, Die, Log, endScreen, moverSeat, seatName, swatches } from "./panels.js";
import { GameSocket } from "./net.js";
import { playEvents, speedSetting, setSpeed, SPEEDS, timings } from "./animate.js";
import { remember } from "./store.js";
import { api } from "./api.js";

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
  };

  // ---- layout ----------------------------------------------------------------------
  let board, panels, die, log, statusText, statusSwatches, conn, controls, noticeEl, metaLine;
  let boardWrap, overlay;

  function build() {
    clear(root);
    boardWrap = h("div", { class: "board-wrap" });
    board = new Board(boardWrap, { onSquare: clickSquare });
    const side = h("div", { class: "side" });
    statusSwatches = h("span", { class: "status-swatches" });
    statusText = h("span", { "data-testid": "status", id: "turn-status" });
    conn = h("span", { class: "conn", "data-testid": "connection", role: "status" });
    const statusLine = h("div", { class: "status-line" }, statusSwatches, statusText);
    const dieHost = h("div", {});
    die = new Die(dieHost);
    controls = h("div", { class: "control-body", "data-testid": "controls" });
    noticeEl = h("p", { class: "notice", hidden: true, role: "alert", "data-testid": "notice" });
    const controlsCard = h(
      "section",
      { class: "controls", "aria-labelledby": "turn-status" },
      h("div", { class: "turn-row" }, dieHost, h("div", { style: { flex: "1" } }, statusLine, conn)),
      controls,
      noticeEl,
    );
    side.append(controlsCard);
    panels = new Panels(side);
    log = new Log(side);
    metaLine = h("div", { class: "meta-line" });
    side.append(metaLine);
    root.append(h("div", { class: "game", "data-testid": "game" }, boardWrap, side));
    g.controlsCard = controlsCard;
  }

  // ---- rendering -------------------------------------------------------------------
  function activeSeat() {
    for (const seat of g.you) {
      const list = g.legal[String(seat)];
      if (list && list.length) return seat;
    }
    return null;
  }

  function renderAll() {
    if (!g.view) return;
    board.render(g.view);
    panels.render(g.view, g.meta, g.you);
    renderStatus();
    renderControls();
    renderMeta();
  }

  function renderStatus() {
    const view = g.view;
    clear(statusSwatches);
    const mover = moverSeat(view);
    if (view.phase === "over") {
      statusText.textContent = t("game.over");
    } else if (mover !== null) {
      statusSwatches.append(swatches(view.seats[mover].colours, 26));
      const name = seatName(view, g.meta, mover);
      const kind = g.meta && g.meta.seats[mover] ? g.meta.seats[mover].kind : "human";
      if (g.you.includes(mover)) statusText.textContent = t("game.turn.you", { seat: name });
      else if (kind === "bot" && g.botsBusy) statusText.textContent = t("game.turn.bot_busy", { seat: name });
      else if (kind === "bot") statusText.textContent = t("game.turn.bot", { seat: name });
      else if (kind === "open") statusText.textContent = t("game.turn.open", { seat: name });
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
    root.dataset.version = String(g.version);
    root.dataset.phase = view.phase;
    root.dataset.busy = g.busy || g.queue.length ? "1" : "0";
    root.dataset.botsBusy = g.botsBusy ? "1" : "0";
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
    if (view.phase === "orient") {
      controls.append(h("p", {}, t("game.phase.orient")));
      const row = h("div", { class: "control-row", role: "group", "aria-label": t("game.phase.orient") });
      const arrows = { L: "↶", S: "↑", R: "↷" };
      const keys = { L: "←", S: "↑", R: "→" };
      for (const tok of ["L", "S", "R"]) {
        if (!legal.includes(tok)) continue;
        const b = button(
          [h("span", { "aria-hidden": "true" }, arrows[tok]), " ", t(`game.orient.${tok}`)],
          {
            onclick: () => act(tok),
            onmouseenter: () => board.previewFacing(previewFacing(tok)),
            onmouseleave: () => board.previewFacing(previewFacing(g.orientPreview)),
            onfocus: () => board.previewFacing(previewFacing(tok)),
            "data-testid": `orient-${tok}`,
            "aria-pressed": g.orientPreview === tok ? "true" : "false",
            disabled,
            class: `btn${tok === "S" ? " secondary" : ""}`,
          },
          keys[tok],
        );
        row.append(b);
      }
      controls.append(row);
      if (g.orientPreview) {
        board.previewFacing(previewFacing(g.orientPreview));
        controls.append(
          h(
            "div",
            { class: "control-row" },
            button(t("game.orient.confirm"), {
              onclick: () => act(g.orientPreview),
              "data-testid": "orient-confirm",
              class: "btn warm",
              disabled,
            }, "Enter"),
          ),
        );
      }
    } else if (view.phase === "roll") {
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
    } else if (g.placeFirst) {
      label = t("game.place.pick2");
    } else {
      label = `${t("game.place.count", { n: list.length })}. ${t("game.place.pick")}`;
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
    metaLine.append(
      h("span", {}, t("game.rules", { rules: g.meta.rules })),
      copy,
      h("a", { href: `/r/${gameId}` }, t("game.replay")),
      h("a", { href: api.recordUrl(gameId), download: `marrakech-${gameId}.json` }, t("game.download")),
      h("label", {}, t("game.speed"), " ", speed),
    );
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
    } else if (g.placeChoice && (square === g.placeChoice.a || square === g.placeChoice.b)) {
      return;
    }
    renderControls();
  }

  function onKey(e) {
    if (e.defaultPrevented || isTyping(e) || e.altKey || e.ctrlKey || e.metaKey) return;
    if (document.querySelector("dialog[open]")) return;
    if (!g.view || g.handover !== null) return;
    const seat = activeSeat();
    if (seat === null || g.busy || g.pending || g.conn !== "open") return;
    const onButton = e.target instanceof HTMLElement && ["BUTTON", "A", "SUMMARY"].includes(e.target.tagName);
    const enter = (e.key === "Enter" || e.key === " ") && !onButton;
    const phase = g.view.phase;
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

  function showNotice(text) {
    noticeEl.textContent = text;
    noticeEl.hidden = false;
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
          else if (msg.type === "game") {
            g.meta = msg.game;
            if (g.view) panels.render(g.view, g.meta, g.you);
          } else if (msg.type === "bots") {
            g.botsBusy = msg.busy;
            if (g.view) renderStatus();
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
    g.pending = false;
    g.welcomes = (g.welcomes || 0) + 1;
    root.dataset.welcomes = String(g.welcomes);
    resetChoice();
    if (tokens.length) remember(gameId, { tokens, seats: g.you, players: g.meta.players });
    log.set(g.log);
    board.markLast(null);
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
    renderStatus();
    renderControls();
    await playEvents({
      board,
      panels,
      die,
      events,
      next,
      ms: timings(g.speed, backlog),
      render: (next) => {
        g.view = next;
        board.render(next);
        panels.render(next, g.meta, g.you);
      },
    });
    g.version = msg.version;
    g.view = next;
    g.legal = msg.legal || {};
    g.pending = false;
    resetChoice();
    log.add(msg.log || []);
    announce((msg.log || []).join(" "));
  }

  function refused(msg) {
    g.pending = false;
    const key = `game.error.${msg.code}`;
    const text = t(key) === key ? t("game.error.generic", { message: msg.message }) : t(key);
    if (msg.code === "not_found") g.fatal = t("game.not_found");
    showNotice(msg.code === "illegal_action" ? `${text} (${msg.message})` : text);
    if (msg.code === "stale_version") socketConn.reconnectNow();
  }

  function resetChoice() {
    g.orientPreview = null;
    g.placeFirst = null;
    g.placeChoice = null;
  }

  function afterSettle() {
    if (!g.view) {
      if (g.fatal) {
        clear(controls);
        controls.append(h("p", { class: "notice error", "data-testid": "fatal" }, g.fatal));
      }
      return;
    }
    const seat = activeSeat();
    if (seat !== null && g.you.length > 1 && g.lastSeat !== null && seat !== g.lastSeat && g.handover === null) {
      g.handover = seat;
    }
    if (seat !== null && g.handover === null) g.lastSeat = seat;
    renderAll();
    if (g.view.phase === "over" && !g.endShown) {
      g.endShown = true;
      showEnd();
    }
  }

  function showEnd() {
    if (g.endDialog) g.endDialog.remove();
    const dialog = endScreen(g.view, g.meta, {
      onClose: () => dialog.close(),
      onReplay: () => {
        location.href = `/r/${gameId}`;
      },
      onDownload: () => {
        location.href = api.recordUrl(gameId);
      },
      onNew: () => {
        location.href = "/";
      },
    });
    dialog.addEventListener("close", () => {
      dialog.remove();
      g.endDialog = null;
    });
    document.body.append(dialog);
    g.endDialog = dialog;
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
        afterSettle();
      } else if (g.view) {
        renderStatus();
        if (!g.busy) renderControls();
      }
      else conn.textContent = status === "down" ? t("game.reconnecting") : t("game.loading");
    },
  });
  socketConn.connect();
  document.addEventListener("keydown", onKey);
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
    document.removeEventListener("keydown", onKey);
    offLang();
    if (g.endDialog) g.endDialog.remove();
  };
}
