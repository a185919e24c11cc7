// The turn card's controls: orient (with the server's preview of each facing), roll,
// place (squares marked on the board, a carpet previewed), the hint, "since your last
// turn", and the finished game's buttons. What a press does is the controller's
// (ctx.ctrl).

import { h, clear, button } from "../dom.js";
import { t, plural, colourName } from "../i18n.js";
import { seatName, swatches } from "../panels.js";
import { activeSeat, placements, partnersOf, previewOf, previewFacing, advised, currentHint, hintsAllowed, orientLast, inputState } from "./state.js";
import { formatNumber, formatPercent, hintText, turnText } from "./format.js";
import { rematchLink } from "../store.js";
import { touching } from "./pointer.js";

/** @typedef {import("./layout.js").Ctx} Ctx */

/** The controls for what the page may do now (and the board's marks for it). @param {Ctx} ctx */
export function renderControls(ctx) {
  const { g, ui, root } = ctx;
  const controls = ui.controls;
  clear(controls);
  ui.board.previewFacing(null);
  ui.board.showPreview(null);
  ui.board.mark({});
  const view = g.view;
  const seat = activeSeat(g);
  const animating = g.busy || g.queue.length > 0;
  ui.controlsCard.classList.toggle("active", seat !== null && !animating && g.handover === null);
  root.dataset.input = inputState(g, seat);
  renderSince(ctx, seat !== null && !animating);
  if (g.fatal) {
    controls.append(h("p", { class: "notice error" }, g.fatal));
    return;
  }
  if (view.phase === "over") {
    controls.append(
      h(
        "div",
        { class: "control-row" },
        button(t("game.show_result"), { onclick: () => ctx.ctrl.showEnd(), "data-testid": "show-result" }),
        h("a", { class: "btn secondary", href: `/r/${ctx.gameId}`, "data-testid": "replay-link" }, t("game.replay")),
        rematchControl(ctx),
      ),
    );
    return;
  }
  if (seat === null || animating) {
    if (!g.you.length) controls.append(h("p", { class: "hint" }, t("game.spectator")));
    return;
  }
  if (g.handover !== null) {
    ctx.ctrl.handover();
    return;
  }
  const legal = g.legal[String(seat)];
  // Nothing can be sent while the connection is down; the buttons say so.
  const disabled = g.pending || g.conn !== "open";
  if (view.phase === "orient") renderOrient(ctx, legal, disabled);
  else if (view.phase === "roll") {
    controls.append(h("p", {}, t("game.phase.roll")));
    controls.append(
      h(
        "div",
        { class: "control-row" },
        button(t("game.roll"), { onclick: () => ctx.ctrl.act("roll"), "data-testid": "roll", class: "btn big warm", disabled }, "Enter"),
      ),
    );
  } else if (view.phase === "place") {
    renderPlace(ctx, seat, disabled);
  }
  if ((view.phase === "orient" || view.phase === "place") && hintsAllowed(g)) renderHint(ctx, disabled);
}

/** The Hint button, and the advice once it came. @param {Ctx} ctx @param {boolean} disabled */
function renderHint(ctx, disabled) {
  const { g, ui } = ctx;
  const hint = currentHint(g);
  const asking = g.hintAsked === g.version;
  ui.controls.append(
    h(
      "div",
      { class: "hint-host" },
      h(
        "div",
        { class: "control-row" },
        button(
          asking ? t("game.hint.asking") : t("game.hint"),
          { onclick: () => ctx.ctrl.askHint(), class: "btn secondary", "data-testid": "hint", disabled: disabled || asking, "aria-describedby": hint ? "hint-text" : null },
          "H",
        ),
      ),
      hint ? h("p", { class: "hint-text", id: "hint-text", "data-testid": "hint-text", "aria-live": "polite" }, hintText(hint)) : null,
    ),
  );
}

/** A number as formatNumber shows it (one decimal), for the plural rules: "≈ 1 dirham". */
const roundedTenth = (/** @type {number} */ x) => Math.round(x * 10) / 10;

/** @type {Record<string, string>} */
const ARROWS = { L: "↶", S: "↑", R: "↷" };
/** @type {Record<string, string>} */
const KEYS = { L: "←", S: "↑", R: "→" };

/** Turn left, keep straight, turn right: each with its expected tithe. @param {Ctx} ctx @param {string[]} legal @param {boolean} disabled */
function renderOrient(ctx, legal, disabled) {
  const { g, ui } = ctx;
  const controls = ui.controls;
  controls.append(h("p", { class: g.orientPreview ? "phase-prompt previewing" : "phase-prompt" }, t(orientLast(g) ? "game.phase.orient_last" : "game.phase.orient")));
  const row = h("div", { class: "orient-row", role: "group", "aria-label": t("game.phase.orient") });
  for (const tok of ["L", "S", "R"]) {
    if (!legal.includes(tok)) continue;
    const option = previewOf(g, tok);
    const b = button(
      [
        h("span", { class: "orient-label" }, h("span", { "aria-hidden": "true" }, ARROWS[tok]), " ", t(`game.orient.${tok}`)),
        option
          ? h("small", { class: "orient-cost", "data-testid": `expected-${tok}` }, plural("preview.expected", roundedTenth(option.expected_tithe), { n: formatNumber(option.expected_tithe) }))
          : null,
      ],
      {
        onclick: () => ctx.ctrl.chooseOrient(tok),
        onmouseenter: () => showOrientInfo(ctx, tok),
        onmouseleave: () => showOrientInfo(ctx, g.orientPreview),
        onfocus: () => showOrientInfo(ctx, tok),
        "data-testid": `orient-${tok}`,
        "aria-pressed": g.orientPreview === tok ? "true" : "false",
        disabled,
        class: `btn orient${tok === "S" ? " secondary" : ""}${advised(g) === tok ? " advised" : ""}`,
      },
      KEYS[tok],
    );
    row.append(b);
  }
  controls.append(row);
  ui.orientInfo = h("div", { class: "orient-info", "data-testid": "orient-info", "aria-live": "polite" });
  controls.append(ui.orientInfo);
  showOrientInfo(ctx, g.orientPreview);
  if (g.orientPreview) {
    controls.append(
      h(
        "div",
        { class: "control-row" },
        button(
          t("game.orient.confirm_as", { choice: t(`game.orient.${g.orientPreview}`) }),
          { onclick: () => ctx.ctrl.act(/** @type {string} */ (g.orientPreview)), "data-testid": "orient-confirm", class: "btn warm", disabled },
          "Enter",
        ),
      ),
    );
  }
}

/** The facing a choice gives, its landing squares on the board, and the table. @param {Ctx} ctx @param {string | null} tok */
export function showOrientInfo(ctx, tok) {
  const { g, ui } = ctx;
  const option = tok ? previewOf(g, tok) : null;
  ui.board.previewFacing(previewFacing(g, tok));
  ui.board.showLandings(option ? option.rolls : null);
  const host = ui.orientInfo;
  if (!host || host.dataset.shown === String(tok)) return;
  // Redrawn only when the choice shown changes, so a screen reader hears it once.
  host.dataset.shown = String(tok);
  clear(host);
  if (!option) {
    if (g.preview) host.append(h("p", { class: "hint" }, t(touching() ? "preview.tap" : "preview.hover")));
    return;
  }
  host.append(
    h("p", { class: "preview-title" }, t("preview.title", { choice: t(`game.orient.${tok}`), facing: t(`facing.${option.facing}`) })),
    previewTable(ctx, option),
    h(
      "p",
      { class: "hint" },
      h("span", { class: "preview-expected" }, plural("preview.expected.long", roundedTenth(option.expected_tithe), { n: formatNumber(option.expected_tithe) })),
      option.elimination_chance > 0 ? [" ", h("span", { "data-testid": "preview-risk" }, t("preview.risk", { p: formatPercent(option.elimination_chance) }))] : null,
    ),
  );
}

/** Each die result of an orientation: chance, landing square, what it costs. @param {Ctx} ctx @param {Record<string, any>} option */
function previewTable(ctx, option) {
  const { g } = ctx;
  const payee = (/** @type {Record<string, any>} */ roll) => (roll.payee === null || roll.payee === undefined ? "" : seatName(g.view, g.meta, roll.payee));
  const cost = (/** @type {Record<string, any>} */ roll) =>
    roll.eliminates
      ? t("preview.out", { n: roll.due, seat: payee(roll) })
      : roll.due > 0
        ? t("preview.pay", { n: roll.due, seat: payee(roll) })
        : t("preview.free");
  return h(
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
      option.rolls.map((/** @type {Record<string, any>} */ roll) =>
        h(
          "tr",
          { "data-roll": roll.roll, class: roll.due > 0 ? "costly" : "" },
          h("td", {}, String(roll.roll).replace(/^r/, "")),
          h("td", { class: "num" }, formatPercent(roll.probability)),
          h("td", {}, roll.landing),
          h("td", {}, cost(roll)),
        ),
      ),
    ),
  );
}

/** Where a carpet may go: squares marked, the carpet chosen previewed. @param {Ctx} ctx @param {number} seat @param {boolean} disabled */
function renderPlace(ctx, seat, disabled) {
  const { g, ui } = ctx;
  const list = placements(g);
  const colour = g.view.seats[seat].next_carpet;
  ui.controls.append(h("p", {}, swatches([colour], 20), " ", t("game.phase.place", { colour: colourName(colour).toLowerCase() })));
  const squares = new Set();
  list.forEach((p) => {
    squares.add(p.a);
    squares.add(p.b);
  });
  const partners = g.placeFirst ? partnersOf(g, g.placeFirst) : [];
  ui.board.mark({ legal: g.placeFirst ? [] : [...squares], selected: g.placeFirst, partners });
  let label;
  const chosen = g.placeChoice;
  if (chosen) {
    const i = list.findIndex((p) => p.token === chosen.token);
    ui.board.showPreview([chosen.a, chosen.b], colour);
    label = t("game.place.choice", { i: i + 1, n: list.length, a: chosen.a, b: chosen.b });
    if (touching()) label += ` ${t("game.place.again")}`;
  } else if (g.placeFirst) {
    label = t(touching() ? "game.place.pick2.touch" : "game.place.pick2");
  } else {
    label = `${plural("game.place.count", list.length)}. ${t(touching() ? "game.place.pick.touch" : "game.place.pick")}`;
  }
  ui.controls.append(h("p", { class: "hint", "data-testid": "place-hint", "aria-live": "polite" }, label));
  ui.controls.append(
    h(
      "div",
      { class: "control-row" },
      button("◀", { onclick: () => ctx.ctrl.cycle(-1), class: "btn secondary", "aria-label": t("game.place.prev"), "data-testid": "place-prev", disabled }),
      button("▶", { onclick: () => ctx.ctrl.cycle(1), class: "btn secondary", "aria-label": t("game.place.next"), "data-testid": "place-next", disabled }),
      button(
        t("game.place.confirm"),
        {
          onclick: () => g.placeChoice && ctx.ctrl.act(g.placeChoice.token),
          class: "btn warm",
          "data-testid": "place-confirm",
          disabled: disabled || !g.placeChoice,
        },
        "Enter",
      ),
      g.placeFirst || g.placeChoice
        ? button(t("game.place.clear"), { onclick: () => ctx.ctrl.clearPlace(), class: "btn ghost", "data-testid": "place-clear" }, "Esc")
        : null,
    ),
  );
}

/** What happened since this page's seats last played (the last six turns). @param {Ctx} ctx @param {boolean} show */
function renderSince(ctx, show) {
  const { g, ui } = ctx;
  clear(ui.sinceEl);
  const turns = g.since.filter((turn) => !g.you.includes(turn.seat));
  if (!show || !turns.length || !g.view) return;
  // A long absence: the last few turns say enough; the log has the rest.
  const shown = turns.slice(-6);
  const name = (/** @type {number} */ seat) => seatName(g.view, g.meta, seat);
  const line = (/** @type {import("./state.js").TurnSummary} */ turn) =>
    h("li", { "data-turn": turn.turn }, swatches(g.view.seats[turn.seat].colours, 16), " ", h("strong", {}, name(turn.seat)), ": ", turnText(turn, g.you, name));
  ui.sinceEl.append(
    h(
      "section",
      { class: "since", "data-testid": "since", "aria-label": t("since.title") },
      h("h3", {}, t("since.title")),
      turns.length > shown.length ? h("p", { class: "hint" }, plural("since.more", turns.length - shown.length)) : null,
      h("ul", {}, shown.map(line)),
    ),
  );
}

/** The rematch button of a finished game (or the link to it). @param {Ctx} ctx */
function rematchControl(ctx) {
  if (ctx.g.rematch) {
    return h("a", { class: "btn warm", href: rematchLink(ctx.g.rematch), "data-testid": "rematch-open-row" }, t("end.rematch.open"));
  }
  if (!ctx.g.you.length) return null;
  return button(t("end.rematch"), { class: "btn warm", "data-testid": "rematch-row", onclick: () => ctx.ctrl.send({ type: "rematch" }) });
}
