// The replay page: /r/{id} for a stored game, /r/upload for a record chosen in the lobby.
// The server computes every position and event from the record; the page steps through.

import { h, s, clear, isTyping, download } from "./dom.js";
import { t, lang, onLangChange } from "./i18n.js";
import { Board } from "./board.js";
import { Panels, Die, Log, endScreen, swatches, moverSeat, seatName } from "./panels.js";
import { playEvents, speedSetting, timings, addToTurn, lastMove } from "./animate.js";
import { api } from "./api.js";

export const UPLOAD_KEY = "marrakech.upload";

// Media-control icons drawn in SVG (fonts often lack the ⏮ ⏭ ⏸ glyphs).
const ICONS = {
  first: "M3 2h2v12H3z M14 2v12L6 8z",
  prev: "M12 2v12L4 8z",
  play: "M4 2v12l10-6z",
  pause: "M3 2h4v12H3z M9 2h4v12H9z",
  next: "M4 2v12l8-6z",
  last: "M11 2h2v12h-2z M2 2v12l8-6z",
};

function icon(name) {
  return s(
    "svg",
    { viewBox: "0 0 16 16", width: 16, height: 16, "aria-hidden": "true", class: "icon" },
    s("path", { d: ICONS[name], fill: "currentColor" }),
  );
}

/** A game meta built from a record's seat labels ("Ann", "human", "bot:easy"). */
function metaFromRecord(record) {
  return {
    players: record.players,
    rules: record.rules,
    seats: (record.seats || []).map((label, seat) => {
      const text = String(label || "");
      if (text.startsWith("bot:")) return { seat, kind: "bot", level: text.slice(4), name: "" };
      if (text === "human" || text === "open" || text === "") return { seat, kind: "human", name: "" };
      return { seat, kind: "human", name: text };
    }),
  };
}

export function mountReplay(root, gameId) {
  const upload = gameId === "upload";
  const r = {
    data: null,
    meta: null,
    pos: 0,
    target: null,
    queued: null,
    playing: false,
    timer: null,
    busy: false,
    error: null,
    analysis: null,
  };
  let board, panels, die, log, slider, playBtn, endBtnHost, swingsHost;
  /** @type {HTMLElement} */
  let posLabel;

  function build() {
    clear(root);
    const boardWrap = h("div", { class: "board-wrap" });
    board = new Board(boardWrap);
    const side = h("div", { class: "side" });
    const dieHost = h("div", {});
    die = new Die(dieHost);
    posLabel = h("span", { "data-testid": "replay-position", "aria-live": "polite" });
    slider = h("input", {
      type: "range",
      min: 0,
      max: 0,
      value: 0,
      "aria-label": t("replay.position", { i: 0, n: 0 }),
      "data-testid": "replay-slider",
    });
    slider.addEventListener("input", () => go(Number(slider.value), false));
    const btn = (label, testid, fn, name) =>
      h(
        "button",
        { type: "button", class: "btn secondary", "aria-label": label, title: label, "data-testid": testid, onclick: fn },
        icon(name),
      );
    playBtn = btn(t("replay.play"), "replay-play", togglePlay, "play");
    const controlsRow = h(
      "div",
      { class: "replay-controls", role: "group", "aria-label": t("replay.title") },
      btn(t("replay.first"), "replay-first", () => go(0, false), "first"),
      btn(t("replay.prev"), "replay-prev", () => go(cur() - 1, false), "prev"),
      playBtn,
      btn(t("replay.next"), "replay-next", () => go(cur() + 1, true), "next"),
      btn(t("replay.last"), "replay-last", () => go(r.data ? r.data.states.length - 1 : 0, false), "last"),
      slider,
    );
    endBtnHost = h("div", { class: "control-row" });
    swingsHost = h("div", { "data-testid": "swings-host" });
    const card = h(
      "section",
      { class: "controls" },
      h("h1", {}, t("replay.title")),
      h("div", { class: "turn-row" }, dieHost, h("div", { style: { flex: "1" } }, posLabel)),
      controlsRow,
      endBtnHost,
      swingsHost,
    );
    side.append(card);
    if (r.error) card.append(h("p", { class: "notice error", "data-testid": "replay-error" }, r.error));
    panels = new Panels(side);
    log = new Log(side);
    log.list.addEventListener("click", (e) => {
      const li = e.target.closest("li");
      if (li) go([...log.list.children].indexOf(li) + 1, false);
    });
    root.append(h("div", { class: "game replay", "data-testid": "replay" }, boardWrap, side));
  }

  function render() {
    if (!r.data) return;
    const n = r.data.states.length - 1;
    const view = r.data.states[r.pos];
    board.render(view);
    const ev = r.pos > 0 ? r.data.events[r.pos - 1] : null;
    board.mark({});
    board.showLastMove(lastMove(turnBefore(r.pos)));
    if (ev && ev.phase === "roll") die.show(Number(String(ev.action).slice(1)));
    else if (!ev) die.show(null);
    panels.render(view, r.meta, []);
    log.set(r.data.log.slice(0, r.pos), r.pos > 0 ? r.pos - 1 : null);
    posLabel.textContent = r.pos === 0 ? t("replay.start") : t("replay.position", { i: r.pos, n });
    slider.max = String(n);
    slider.value = String(r.pos);
    slider.setAttribute("aria-valuetext", posLabel.textContent);
    root.dataset.position = String(r.pos);
    clear(endBtnHost);
    const mover = moverSeat(view);
    if (mover !== null) {
      endBtnHost.append(swatches(view.seats[mover].colours, 20), " ", t("game.turn.other", { seat: seatName(view, r.meta, mover) }));
    }
    if (view.phase === "over") {
      endBtnHost.append(
        h("button", { type: "button", class: "btn", "data-testid": "replay-result", onclick: showEnd }, t("game.show_result")),
      );
    }
    endBtnHost.append(
      h("button", { type: "button", class: "btn ghost", "data-testid": "replay-download", onclick: downloadRecord }, t("replay.download")),
    );
    if (!upload && r.data.states[n].phase !== "over") {
      endBtnHost.append(h("a", { class: "btn ghost", href: `/g/${gameId}` }, t("replay.live")));
    }
    renderSwings();
  }

  /** The turns where a seat's winning chances moved most: one tap jumps there. */
  function renderSwings() {
    clear(swingsHost);
    const swings = r.analysis ? r.analysis.swings : [];
    if (!swings.length) return;
    const last = r.data.states[r.data.states.length - 1];
    const percent = (p) => new Intl.NumberFormat(lang(), { style: "percent", maximumFractionDigits: 0 }).format(p);
    swingsHost.append(
      h("h2", {}, t("replay.swings")),
      h(
        "ul",
        { class: "swings", "data-testid": "swings" },
        swings.map((swing) =>
          h(
            "li",
            {},
            h(
              "button",
              {
                type: "button",
                class: `btn secondary${swing.version === r.pos ? " current" : ""}`,
                "data-testid": `swing-${swing.version}`,
                "aria-pressed": swing.version === r.pos ? "true" : "false",
                onclick: () => go(swing.version, false),
              },
              swatches(last.seats[swing.seat].colours, 16),
              " ",
              t("replay.swing", {
                turn: swing.turn,
                seat: seatName(last, r.meta, swing.seat),
                before: percent(swing.before),
                after: percent(swing.after),
              }),
            ),
          ),
        ),
      ),
    );
  }

  /** The events of the turn that the move at `pos` ends (a turn is at most a handful). */
  function turnBefore(pos) {
    return addToTurn([], withStarts(Math.max(0, pos - 8), pos));
  }

  /** Events from..to with where each walk began (the position before it). */
  function withStarts(from, to) {
    return r.data.events.slice(from, to).map((ev, i) => {
      const before = r.data.states[from + i].assam;
      return ev.phase === "roll" ? { ...ev, from: { square: before.square, facing: before.facing } } : ev;
    });
  }

  /** Where the replay is going: steps asked during an animation add up. */
  function cur() {
    return r.queued ?? r.target ?? r.pos;
  }

  async function go(pos, animate) {
    if (!r.data) return;
    const n = r.data.states.length - 1;
    pos = Math.max(0, Math.min(n, pos));
    if (r.busy) {
      r.queued = pos; // shown as soon as the running animation ends
      return;
    }
    if (pos === r.pos) return;
    if (animate && pos === r.pos + 1) {
      r.busy = true;
      r.target = pos;
      try {
        board.mark({});
        await playEvents({
          board,
          panels,
          die,
          events: [r.data.events[pos - 1]],
          next: r.data.states[pos],
          ms: timings(speedSetting(), 0),
          render: (next) => board.render(next),
        });
      } finally {
        r.busy = false;
        r.target = null;
      }
    }
    r.pos = pos;
    render();
    if (r.queued !== null && r.queued !== undefined) {
      const next = r.queued;
      r.queued = null;
      go(next, false);
    }
  }

  function togglePlay() {
    r.playing = !r.playing;
    clear(playBtn).append(icon(r.playing ? "pause" : "play"));
    playBtn.setAttribute("aria-label", r.playing ? t("replay.pause") : t("replay.play"));
    if (r.playing) step();
    else clearTimeout(r.timer);
  }

  async function step() {
    if (!r.playing || !r.data) return;
    if (r.pos >= r.data.states.length - 1) {
      togglePlay();
      return;
    }
    await go(r.pos + 1, true);
    r.timer = setTimeout(step, speedSetting() === "off" ? 150 : 450);
  }

  function showEnd() {
    const view = r.data.states[r.data.states.length - 1];
    const dialog = endScreen(view, r.meta, { onClose: () => dialog.close(), analysis: r.analysis });
    dialog.addEventListener("close", () => dialog.remove());
    document.body.append(dialog);
    dialog.showModal();
  }

  function downloadRecord() {
    const name = upload ? "marrakech-record.json" : `marrakech-${gameId}.json`;
    download(name, JSON.stringify(r.data.record, null, 1));
  }

  function onKey(e) {
    if (isTyping(e) || e.altKey || e.ctrlKey || e.metaKey || document.querySelector("dialog[open]")) return;
    if (!r.data) return;
    const onButton = e.target instanceof HTMLElement && ["BUTTON", "A"].includes(e.target.tagName);
    let handled = true;
    if (e.key === "ArrowRight") go(cur() + 1, true);
    else if (e.key === "ArrowLeft") go(cur() - 1, false);
    else if (e.key === "Home") go(0, false);
    else if (e.key === "End") go(r.data.states.length - 1, false);
    else if (e.key === " " && !onButton) togglePlay();
    else handled = false;
    if (handled) e.preventDefault();
  }

  async function load() {
    r.error = null;
    try {
      if (upload) {
        const text = sessionStorage.getItem(UPLOAD_KEY);
        if (!text) throw new Error(t("replay.upload.none"));
        r.data = await api.replayRecord(text, lang());
      } else {
        r.data = await api.replay(gameId, lang());
      }
      r.meta = metaFromRecord(r.data.record);
      r.pos = Math.min(r.pos, r.data.states.length - 1);
      if (!upload) {
        // The analysis of a finished game (luck, chances, turning points), when ready.
        try {
          const answer = await api.analysis(gameId);
          r.analysis = answer && answer.status === "ready" ? answer.analysis : null;
        } catch (_) {
          r.analysis = null; // an older server, or not over: the replay works without it
        }
      }
    } catch (error) {
      r.data = null;
      r.error = error.status === 404 ? t("game.not_found") : t("replay.error", { message: error.message });
    }
    build();
    render();
  }

  build();
  posLabel.textContent = t("game.loading");
  document.addEventListener("keydown", onKey);
  const off = onLangChange(() => load());
  load();
  return () => {
    clearTimeout(r.timer);
    document.removeEventListener("keydown", onKey);
    off();
  };
}
