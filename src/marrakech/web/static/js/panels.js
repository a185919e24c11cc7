// The pieces around the board, shared by the game and replay pages: player panels, the
// die, the game log and the end screen. They show what the server's state_view says.

import { h, clear } from "./dom.js";
import { t, plural, seatColoursName, levelName, playerName } from "./i18n.js";
import { swatch } from "./board.js";
import { seriesChart } from "./chart.js";

/**
 * @typedef {import("./board.js").StateView} StateView
 * @typedef {{players: number, seats: Record<string, any>[]} & Record<string, any>} GameMeta
 *   The server's GameMeta: players, rules, seats.
 */

/** The seat that must act now: the mover at orient/place, the roller at roll. @param {StateView} view */
export function moverSeat(view) {
  if (view.phase === "orient" || view.phase === "place") return view.to_move;
  if (view.phase === "roll") return view.turn;
  return null;
}

/** A seat's display name: its player's name if given, else its colours ("Red"). @param {StateView} view @param {GameMeta | null} meta @param {number} seat */
export function seatName(view, meta, seat) {
  const colours = view.seats[seat].colours;
  const name = meta && meta.seats && meta.seats[seat] && meta.seats[seat].name;
  return name ? `${playerName(name)} (${seatColoursName(colours)})` : seatColoursName(colours);
}

/** @param {GameMeta | null} meta @param {number} seat */
export function seatKind(meta, seat) {
  const info = meta && meta.seats && meta.seats[seat];
  if (!info) return "";
  if (info.kind === "bot") return t("seat.bot", { level: levelName(info.level) });
  if (info.kind === "open") return t("seat.open");
  if (info.external) {
    return h("span", { class: "external-bot", "data-testid": `external-${seat}`, title: t("seat.external.help") }, t("seat.external"));
  }
  return t("seat.human");
}

/** A dot saying whether the seat's player is here (live games only: the meta has it). @param {GameMeta | null} meta @param {number} seat */
export function presenceDot(meta, seat) {
  const info = meta && meta.seats && meta.seats[seat];
  if (!info || !info.presence) return null;
  const label = t(`presence.${info.presence}`);
  return h(
    "span",
    {
      class: `presence ${info.presence}`,
      "data-testid": `presence-${seat}`,
      "data-presence": info.presence,
      title: label,
    },
    h("span", { class: "dot", "aria-hidden": "true" }),
    h("span", { class: "presence-text" }, label),
  );
}

/** @param {string[]} colours */
export function swatches(colours, size = 22) {
  return h("span", { class: "swatches" }, colours.map((c) => swatch(c, size)));
}

export class Panels {
  /** @param {HTMLElement} host */
  constructor(host) {
    this.host = h("div", { class: "panels", "data-testid": "panels" });
    host.append(this.host);
    /** @type {HTMLElement[]} */
    this.cards = [];
  }

  /** @param {StateView} view @param {GameMeta | null} meta @param {number[]} you */
  render(view, meta, you = []) {
    clear(this.host);
    this.cards = [];
    const mover = moverSeat(view);
    const over = view.phase === "over";
    for (const seat of view.seats) {
      const n = seat.seat;
      const out = !seat.in_game;
      const winner = over && view.winners.includes(n);
      const badges = [];
      const info = meta && meta.seats ? meta.seats[n] : null;
      if (you.includes(n)) badges.push(h("span", { class: "badge you" }, t("seat.you")));
      if (info && info.host) badges.push(h("span", { class: "badge host" }, t("seat.host")));
      if (info && info.stand_in) {
        badges.push(
          h("span", { class: "badge stand-in", "data-testid": `stand-in-${n}` }, t("seat.stand_in", { level: levelName(info.stand_in) })),
        );
      }
      if (info && info.hints) badges.push(h("span", { class: "badge hints", "data-testid": `hints-${n}` }, plural("seat.hints", info.hints)));
      if (info && info.resigned) badges.push(h("span", { class: "badge out" }, t("seat.resigned")));
      if (out && !(info && info.resigned)) badges.push(h("span", { class: "badge out" }, t("seat.out")));
      if (winner) badges.push(h("span", { class: "badge win" }, t("seat.winner")));
      if (!over && mover === n) badges.push(h("span", { class: "badge" }, t("seat.to_move")));
      /** @param {string} label @param {number} value @param {string} testid @param {Node | null} [extra] */
      const stat = (label, value, testid, extra = null) =>
        h("div", {}, h("dt", {}, label), h("dd", { "data-testid": testid }, extra, value));
      const pile =
        view.players === 2
          ? h(
              "div",
              { class: "pile" },
              Object.entries(seat.carpets_by_colour).map(([c, k]) =>
                h("span", { class: "pile-count" }, swatch(c, 16), ` ${k} `),
              ),
              seat.pile_top
                ? [h("span", {}, `· ${t("panel.pile")}`), swatch(seat.pile_top, 18)]
                : null,
            )
          : null;
      const card = h(
        "section",
        {
          class: `panel${mover === n && !over ? " to-move" : ""}${out ? " out" : ""}`,
          "data-testid": `panel-${n}`,
          "data-seat": n,
          "aria-label": t("panel.summary", {
            seat: seatName(view, meta, n),
            dirhams: seat.dirhams,
            carpets: seat.carpets,
            score: seat.score,
          }),
        },
        h(
          "div",
          { class: "panel-head" },
          swatches(seat.colours),
          h("span", { class: "panel-name" }, seatName(view, meta, n)),
        ),
        h("div", { class: "panel-sub" }, presenceDot(meta, n), seatKind(meta, n), " ", badges),
        h(
          "dl",
          { class: "stats" },
          stat(t("panel.dirhams"), seat.dirhams, `dirhams-${n}`, h("span", { class: "coin" })),
          stat(t("panel.carpets"), seat.carpets, `carpets-${n}`),
          stat(t("panel.score"), seat.score, `score-${n}`),
        ),
        pile,
      );
      this.cards[n] = card;
      this.host.append(card);
    }
  }

  /** A rising "−4" / "+4" on a seat's panel. @param {number} seat @param {number} amount */
  delta(seat, amount) {
    const card = this.cards[seat];
    if (!card || !amount) return;
    const el = h(
      "span",
      { class: `delta ${amount < 0 ? "minus" : "plus"}`, "aria-hidden": "true" },
      `${amount < 0 ? "−" : "+"}${Math.abs(amount)}`,
    );
    card.append(el);
    setTimeout(() => el.remove(), 1500);
  }

  /** Coins flying from the payer's panel to the payee's (skipped when ms is 0). @param {number} from @param {number | null} to @param {number} count @param {number} ms */
  async flyCoins(from, to, count, ms) {
    const a = this.cards[from];
    const b = to === null ? undefined : this.cards[to];
    if (!a || !b || ms <= 0 || !count) return;
    const ra = a.getBoundingClientRect();
    const rb = b.getBoundingClientRect();
    const coins = Math.min(count, 6);
    const flights = [];
    for (let i = 0; i < coins; i++) {
      const coin = h("span", { class: "coin flying-coin", "aria-hidden": "true" });
      document.body.append(coin);
      const x0 = ra.left + ra.width / 2 - 11;
      const y0 = ra.top + ra.height / 2 - 11;
      const x1 = rb.left + rb.width / 2 - 11;
      const y1 = rb.top + rb.height / 2 - 11;
      coin.style.left = `${x0}px`;
      coin.style.top = `${y0}px`;
      const anim = coin.animate(
        [
          { transform: "translate(0, 0) scale(0.6)", opacity: 0 },
          { transform: `translate(${(x1 - x0) / 2}px, ${(y1 - y0) / 2 - 40}px) scale(1.1)`, opacity: 1 },
          { transform: `translate(${x1 - x0}px, ${y1 - y0}px) scale(0.8)`, opacity: 0.2 },
        ],
        { duration: ms, delay: i * (ms / 8), easing: "ease-in-out", fill: "forwards" },
      );
      flights.push(anim.finished.then(() => coin.remove()));
    }
    await Promise.all(flights);
  }
}

/** The die: 1 to 4 babouches shown as pips; `roll(n, ms)` tumbles then lands on n. */
export class Die {
  /** @param {HTMLElement} host */
  constructor(host) {
    this.el = h("div", {
      class: "die blank",
      role: "img",
      "data-testid": "die",
      "aria-label": t("game.die"),
    });
    for (let i = 0; i < 9; i++) this.el.append(h("span", { class: "pip" }));
    host.append(this.el);
    this.show(null);
  }

  /** @param {number | null} n */
  show(n) {
    /** @type {Record<number, number[]>} */
    const layout = {
      1: [4],
      2: [0, 8],
      3: [0, 4, 8],
      4: [0, 2, 6, 8],
    };
    const on = new Set(n ? layout[n] : []);
    [.../** @type {HTMLCollectionOf<HTMLElement>} */ (this.el.children)].forEach((pip, i) => {
      pip.style.visibility = on.has(i) ? "visible" : "hidden";
    });
    this.el.classList.toggle("blank", !n);
    this.el.dataset.value = String(n || "");
    this.el.setAttribute("aria-label", n ? t("game.die.rolled", { n }) : t("game.die"));
  }

  /** @param {number} n @param {number} ms */
  async roll(n, ms) {
    if (ms > 0) {
      this.el.classList.remove("landed");
      this.el.classList.add("rolling");
      const start = performance.now();
      while (performance.now() - start < ms) {
        this.show(1 + Math.floor(Math.random() * 4));
        await new Promise((r) => setTimeout(r, 70));
      }
      this.el.classList.remove("rolling");
      this.el.classList.add("landed");
    }
    this.show(n);
  }
}

export class Log {
  /** @param {HTMLElement} host */
  constructor(host) {
    this.section = h(
      "section",
      { class: "log", "aria-labelledby": "log-title" },
      h("h2", { id: "log-title" }, t("game.log")),
    );
    this.list = h("ol", { "data-testid": "log", tabindex: "0", "aria-live": "off" });
    this.empty = h("p", { class: "hint" }, t("game.log.empty"));
    this.section.append(this.empty, this.list);
    host.append(this.section);
  }

  /** @param {string[]} lines */
  set(lines, current = null) {
    clear(this.list);
    lines.forEach((line, i) => this.list.append(this.item(line, i === current)));
    this.empty.hidden = lines.length > 0;
    this.scroll(current);
  }

  /** @param {string[]} lines */
  add(lines) {
    for (const line of lines) this.list.append(this.item(line, false));
    this.empty.hidden = this.list.children.length > 0;
    this.scroll(null);
  }

  /** @param {string} line @param {boolean} current */
  item(line, current) {
    return h("li", { class: current ? "current" : "" }, line);
  }

  /** @param {number | null} current */
  scroll(current) {
    const target = /** @type {HTMLElement | null} */ (current === null ? this.list.lastElementChild : this.list.children[current]);
    if (target) this.list.scrollTop = target.offsetTop - this.list.offsetTop - 40;
  }
}

/** How the winning chances were estimated, in words ("playouts:200" from the server). @param {string} method */
function methodText(method) {
  const playouts = /^playouts:(\d+)$/.exec(String(method));
  if (playouts) return t("end.method.playouts", { n: playouts[1] }); // games analysed before the value
  return method === "value" ? t("end.method.value") : t("end.method", { method });
}

/** A signed number of dirhams with one decimal ("+2.5", "−1.0"). @param {number} value */
function signed(value) {
  const text = Math.abs(value).toLocaleString(undefined, { minimumFractionDigits: 1, maximumFractionDigits: 1 });
  return `${value < 0 ? "−" : "+"}${text}`;
}

/** How many hints a seat's player used (the server counts one per position asked). @param {GameMeta | null} meta @param {number} seat */
function hintsUsed(meta, seat) {
  return (meta && meta.seats && meta.seats[seat] && meta.seats[seat].hints) || 0;
}

/**
 * What the end screen's buttons do (a null leaves the button out) and what it shows.
 * @typedef {{onReplay?: (() => void) | null, onDownload?: (() => void) | null,
 *   onNew?: (() => void) | null, onClose?: (() => void) | null, onRematch?: (() => void) | null,
 *   rematchLink?: string | null, analysis?: any, analysisPending?: boolean,
 *   challenge?: ((seat: number) => Node | null) | null}} EndOptions
 */

/**
 * The end screen: result, tie-break note, ranking table (with each seat's dice luck once
 * the analysis is there), the score and winning-chance charts, and the buttons.
 * `analysis` is the server's Analysis or null; `analysisPending` says it is coming.
 * @param {StateView} view
 * @param {GameMeta | null} meta
 * @param {EndOptions} [opts]
 */
export function endScreen(view, meta, opts = {}) {
  const { onReplay, onDownload, onNew, onClose, onRematch, rematchLink, analysis, analysisPending, challenge } = opts;
  const seats = [...view.seats].sort((a, b) => a.rank - b.rank || a.seat - b.seat);
  const winners = view.winners;
  let result;
  if (winners.length === 1) {
    // A tie on score broken by dirhams (R21) is said in the result itself.
    const best = view.seats[winners[0]];
    const tied = view.seats.some((x) => x.seat !== best.seat && x.in_game && x.score === best.score);
    result = t(tied ? "game.result.win_dirhams" : "game.result.win", { seat: seatName(view, meta, winners[0]) });
  }
  else if (winners.length > 1)
    result = t("game.result.shared", { seats: winners.map((w) => seatName(view, meta, w)).join(", ") });
  else result = t("game.over");
  const notes = [];
  const inGame = seats.filter((x) => x.in_game);
  const tiedScores = inGame.some((a) => inGame.some((b) => a !== b && a.score === b.score));
  if (tiedScores) {
    const shared = inGame.some((a) =>
      inGame.some((b) => a !== b && a.score === b.score && a.dirhams === b.dirhams),
    );
    const broken = inGame.some((a) =>
      inGame.some((b) => a !== b && a.score === b.score && a.dirhams !== b.dirhams),
    );
    if (broken) notes.push(t("game.tiebreak"));
    if (shared && winners.length > 1) notes.push(t("game.shared"));
  }
  if (seats.some((x) => !x.in_game)) notes.push(t("game.eliminated.note"));
  const table = h(
    "table",
    { class: "ranking", "data-testid": "ranking" },
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        h("th", { scope: "col" }, t("game.rank")),
        h("th", { scope: "col" }, t("game.seat")),
        h("th", { scope: "col", class: "num" }, t("game.score")),
        h("th", { scope: "col", class: "num" }, t("panel.dirhams")),
        h("th", { scope: "col", class: "num", title: t("game.squares.long") }, t("game.squares")),
        analysis ? h("th", { scope: "col", class: "num", title: t("end.luck.help") }, t("end.luck")) : null,
      ),
    ),
    h(
      "tbody",
      {},
      seats.map((x) =>
        h(
          "tr",
          { class: winners.includes(x.seat) ? "winner" : "", "data-testid": `rank-row-${x.seat}` },
          h("td", {}, h("span", { class: "rank-medal" }, x.rank)),
          h(
            "td",
            {},
            swatches(x.colours, 20),
            " ",
            seatName(view, meta, x.seat),
            x.in_game
              ? null
              : [" ", h("span", { class: "badge out" }, meta && meta.seats && meta.seats[x.seat] && meta.seats[x.seat].resigned ? t("seat.resigned") : t("seat.out"))],
            // Only a merchant who asked: no "0 hints" badge.
            meta && meta.hints && hintsUsed(meta, x.seat)
              ? [" ", h("span", { class: "badge hints", "data-testid": `end-hints-${x.seat}` }, plural("seat.hints", hintsUsed(meta, x.seat)))]
              : null,
            challenge ? [" ", challenge(x.seat)] : null,
          ),
          h("td", { class: "num", "data-testid": `final-score-${x.seat}` }, x.score),
          h("td", { class: "num" }, x.dirhams),
          h("td", { class: "num" }, x.score - x.dirhams),
          analysis
            ? h("td", { class: "num", "data-testid": `luck-${x.seat}` }, signed(analysis.luck[x.seat] || 0))
            : null,
        ),
      ),
    ),
  );
  let charts = null;
  if (analysis && analysis.turns.length) {
    const firstColours = view.seats.map((x) => x.colours[0]);
    const seatNames = view.seats.map((x) => seatName(view, meta, x.seat));
    charts = h(
      "div",
      { class: "charts", "data-testid": "end-charts" },
      seriesChart(analysis, firstColours, "scores", { title: t("end.chart.scores"), seatNames }),
      seriesChart(analysis, firstColours, "chances", { title: t("end.chart.chances"), seatNames }),
      h("p", { class: "hint" }, t("end.luck.help"), " ", methodText(analysis.method)),
    );
  } else if (analysisPending) {
    charts = h("p", { class: "hint", "data-testid": "analysis-pending" }, t("end.analysing"));
  }
  const rematch = rematchLink
    ? h("a", { class: "btn warm", href: rematchLink, "data-testid": "rematch-open" }, t("end.rematch.open"))
    : onRematch
      ? h("button", { class: "btn warm", type: "button", "data-testid": "rematch", onclick: onRematch }, t("end.rematch"))
      : null;
  const dialog = h(
    "dialog",
    { class: "end-screen", "data-testid": "end-screen", "aria-labelledby": "end-title" },
    // Focused when the dialog opens, so it opens on the result (not on its last button).
    h("h2", { id: "end-title", tabindex: "-1", autofocus: true }, t("game.over")),
    h("p", { class: "result", "data-testid": "result" }, result),
    h("div", { class: "table-wrap" }, table),
    notes.map((n) => h("p", { class: "hint" }, n)),
    charts,
    h(
      "div",
      { class: "dialog-actions" },
      onClose
        ? h("button", { class: "btn secondary", type: "button", "data-testid": "end-close", onclick: onClose }, t("game.close"))
        : null,
      onDownload
        ? h("button", { class: "btn secondary", type: "button", onclick: onDownload }, t("game.download"))
        : null,
      onReplay
        ? h("button", { class: "btn secondary", type: "button", "data-testid": "end-replay", onclick: onReplay }, t("game.replay"))
        : null,
      onNew ? h("button", { class: "btn", type: "button", "data-testid": "end-new", onclick: onNew }, t("game.new")) : null,
      rematch,
    ),
  );
  return dialog;
}
