// The game menu's email reminders (docs/playing.md, "Reminders"): for the seat(s) this
// page holds, an address for this game (a guest's; a signed-in account's address covers
// all its games and is shown) and a switch muting this game's reminders. Shown only when
// the server sends reminders; kept across the meta line's redrawings.

import { h, clear } from "../dom.js";
import { t } from "../i18n.js";
import { api, errorText } from "../api.js";
import { config } from "../config.js";
import { renderMailForm, emailStatus } from "../reminders.js";

/** @typedef {import("./layout.js").Ctx} Ctx */

/** The reminders' menu of this page (made once, filled when first opened). @param {Ctx} ctx */
export function remindersMenu(ctx) {
  if (!config.reminders || !ctx.tokens.length) return null;
  const ui = /** @type {any} */ (ctx.ui);
  if (ui.reminders) return ui.reminders;
  const body = h("div", { class: "reminders-body" });
  const menu = h("details", { class: "reminders-menu", "data-testid": "reminders-menu" }, h("summary", {}, t("mail.menu")), body);
  let filled = false;
  menu.addEventListener("toggle", () => {
    if (menu.open && !filled) {
      filled = true;
      fill(ctx, body);
    }
  });
  ui.reminders = menu;
  return menu;
}

/** Ask the server for the seat's reminders and draw them. @param {Ctx} ctx @param {HTMLElement} body */
async function fill(ctx, body) {
  const game = ctx.gameId;
  const [first, ...others] = ctx.tokens;
  /** @type {Record<string, any>} */
  let state;
  try {
    state = await api.seatMail(game, first);
  } catch (error) {
    body.append(h("p", { class: "notice error", role: "alert" }, t("mail.error", { message: errorText(error) })));
    return;
  }
  const draw = () => {
    clear(body);
    const mute = h("input", { type: "checkbox", id: "reminders-mute", checked: state.muted, "data-testid": "reminders-mute" });
    mute.addEventListener("change", async () => {
      const muted = /** @type {HTMLInputElement} */ (mute).checked;
      for (const token of [first, ...others]) state = await api.muteSeat(game, token, muted);
      draw();
      const again = /** @type {HTMLElement|null} */ (body.querySelector("#reminders-mute"));
      if (again) again.focus();
    });
    const form = h("div", {});
    body.append(
      h("p", { class: "hint" }, t("mail.explain")),
      // (append() would write a null as the word "null")
      ...(state.account_email ? [h("p", { "data-testid": "reminders-account" }, t("mail.account"), " ", emailStatus(state.account_email))] : []),
      form,
      h("p", { class: "field" }, mute, " ", h("label", { for: "reminders-mute" }, t("mail.mute"))),
    );
    renderMailForm(form, {
      id: "reminders",
      email: state.email,
      give: async (address, language) => {
        for (const token of [first, ...others]) state = await api.setSeatMail(game, token, address, language);
        return state.email;
      },
      remove: async () => {
        for (const token of [first, ...others]) state = await api.removeSeatMail(game, token);
        return state.email;
      },
    });
  };
  draw();
}
