// The meta line under the game: its rules and clock, the spectator link, replay and
// download, the animation speed, and this page's turn signals (sound, notifications).

import { h, clear, copyText, button } from "../dom.js";
import { t, clockLabel } from "../i18n.js";
import { SPEEDS, setSpeed } from "../animate.js";
import { seatName } from "../panels.js";
import { api } from "../api.js";
import { rulesLabel } from "../config.js";
import * as signals from "../signals.js";
import { activeSeat } from "./state.js";

/** @typedef {import("./layout.js").Ctx} Ctx */

/**
 * The meta line; `reminders` is the reminders' menu (game/reminders.js), built by the
 * controller for a page holding seats.
 * @param {Ctx} ctx
 * @param {HTMLElement|null} reminders
 */
export function renderMeta(ctx, reminders) {
  const { g, ui, gameId } = ctx;
  clear(ui.metaLine);
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
    h("span", { "data-testid": "rules-label" }, t("game.rules", { rules: rulesLabel(g.meta) })),
    g.meta.clock && g.meta.clock.mode !== "none" ? h("span", { "data-testid": "clock-mode" }, clockLabel(g.meta.clock.mode, g.meta.clock.seconds)) : null,
    g.meta.rated ? h("a", { href: `/leaderboard?players=${g.meta.players}`, "data-testid": "rated-game" }, t("lobby.rated")) : null,
    copy,
    h("a", { href: `/r/${gameId}` }, t("game.replay")),
    h("a", { href: api.recordUrl(gameId), download: `marrakech-${gameId}.json` }, t("game.download")),
    h("label", {}, t("game.speed"), " ", speed),
    ...(g.you.length ? signalButtons(ctx) : []),
    reminders,
  ];
  ui.metaLine.append(.../** @type {(Node | string)[]} */ (parts.filter(Boolean)));
}

/** Sound on/off and notifications (asked for, on, off or denied). @param {Ctx} ctx */
function signalButtons(ctx) {
  const sound = button(signals.soundOn() ? t("signal.sound.on") : t("signal.sound.off"), {
    class: "btn ghost small",
    "data-testid": "sound-toggle",
    "aria-pressed": signals.soundOn() ? "true" : "false",
    onclick: () => {
      signals.setSound(!signals.soundOn());
      if (signals.soundOn()) signals.chime();
      ctx.ctrl.redrawMeta();
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
            ctx.ctrl.redrawMeta();
          },
        });
  return [sound, notifyButton];
}

/** It just became this page's turn: the tab, a chime, a notification (as chosen). @param {Ctx} ctx */
export function signalTurn(ctx) {
  const { g, root } = ctx;
  g.signals.turns += 1;
  if (signals.soundOn() && signals.chime()) g.signals.chimes += 1;
  const seat = activeSeat(g);
  const body = seat === null ? "" : t("game.turn.you", { seat: seatName(g.view, g.meta, seat) });
  if (signals.notify(t("title.your_turn", { title: t("app.title") }), body)) g.signals.notices += 1;
  root.dataset.signals = String(g.signals.turns);
}
