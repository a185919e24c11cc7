// The game page's dialogs: the hotseat handover, the resignation's confirmation, the end
// screen (again with the analysis and the rematch when they arrive), and the page shown when the game does not exist.

import { h, clear, button, openDialog } from "../dom.js";
import { t } from "../i18n.js";
import { endScreen, seatName, swatches } from "../panels.js";
import { rematchLink } from "../store.js";
import { api } from "../api.js";
import { challengeButton, settingsOf } from "../challenges.js";

/** @typedef {import("./layout.js").Ctx} Ctx */

/** One screen, several seats: hand it over before the next one's turn shows. @param {Ctx} ctx @param {() => void} onDone */
export function showHandover(ctx, onDone) {
  const { g, ui } = ctx;
  if (ui.overlay) ui.overlay.remove();
  const seat = /** @type {number} */ (g.handover); // a handover is shown for a seat
  const name = seatName(g.view, g.meta, seat);
  const ok = button(t("game.handover.ok", { seat: name }), {
    onclick: () => {
      g.handover = null;
      ui.overlay?.remove();
      ui.overlay = null;
      onDone();
      ui.board.svg.focus();
    },
    class: "btn big warm",
    "data-testid": "handover-ok",
  });
  ui.overlay = h(
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
  ui.boardWrap.append(ui.overlay);
  ok.focus();
}

/** Ask before a seat resigns. @param {Ctx} ctx @param {number} seat */
export function confirmResign(ctx, seat) {
  const name = seatName(ctx.g.view, ctx.g.meta, seat);
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
          ctx.ctrl.send({ type: "resign", seat });
        },
      }),
    ),
  );
  dialog.addEventListener("close", () => dialog.remove());
  document.body.append(dialog);
  dialog.showModal();
}

/** @param {Ctx} ctx */
function endOptions(ctx) {
  const { g, gameId } = ctx;
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
    onRematch: g.you.length ? () => ctx.ctrl.send({ type: "rematch" }) : null,
    rematchLink: rematchLink(g.rematch),
    analysis: g.analysis,
    analysisPending: over && !g.analysis,
    // A player of the game, challenged to another with its settings (2 players).
    challenge: (/** @type {number} */ seat) => {
      const info = g.meta && g.meta.seats ? g.meta.seats[seat] : null;
      if (!info || info.kind !== "human" || !info.name || g.you.includes(seat)) return null;
      return challengeButton(info.name, settingsOf(g.meta));
    },
  };
}

/** A new end screen, forgotten when it closes. @param {Ctx} ctx */
function endDialog(ctx) {
  const { g } = ctx;
  const dialog = endScreen(g.view, g.meta, endOptions(ctx));
  dialog.addEventListener("close", () => {
    dialog.remove();
    if (g.endDialog === dialog) g.endDialog = null;
  });
  return dialog;
}

/** The end screen: ranking, scores, the analysis, replay and rematch. @param {Ctx} ctx */
export function showEnd(ctx) {
  const { g } = ctx;
  if (g.endDialog) g.endDialog.remove();
  const dialog = endDialog(ctx);
  document.body.append(dialog);
  g.endDialog = dialog;
  openDialog(dialog);
}

/** The end screen again with what arrived since (the analysis, the rematch link). @param {Ctx} ctx */
export function refreshEnd(ctx) {
  const { g } = ctx;
  if (!g.endDialog || !g.view) return;
  const old = g.endDialog;
  const dialog = endDialog(ctx);
  g.endDialog = dialog;
  const read = old.scrollTop;
  old.replaceWith(dialog);
  openDialog(dialog, read);
}

/** No such game: one clear message and the way back, nothing left "connecting". @param {Ctx} ctx */
export function showFatal(ctx) {
  const { root, g } = ctx;
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
