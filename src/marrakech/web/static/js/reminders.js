// Email reminders (docs/playing.md, "Reminders"): the form where a player gives, sees and
// removes the address reminders go to, for the account (account dialog) or for one
// game's seat (the game's menu). Giving an address sends a confirmation link to it;
// nothing else comes until that link is followed.

import { h, clear } from "./dom.js";
import { t, lang } from "./i18n.js";

/**
 * @typedef {{address: string, lang: string, status: string}} Email
 * @typedef {object} MailView  What one form shows and does.
 * @property {string} id  A prefix for the form's ids and test ids.
 * @property {Email|null} email  The address given, if any.
 * @property {() => Promise<Email|null>} [load]  Asks the server (when first shown).
 * @property {(address: string, language: string) => Promise<Email|null>} give
 * @property {() => Promise<Email|null>} remove
 */

/** The sentence saying where reminders go, or why they do not. @param {Email|null} email */
export function emailStatus(email) {
  if (!email) return t("mail.none");
  return t(`mail.status.${email.status}`, { address: email.address });
}

/**
 * Draw the form into `root` (again after each answer, focus on what it said).
 * @param {HTMLElement} root @param {MailView} view
 */
export function renderMailForm(root, view) {
  let note = null;
  let error = null;
  let busy = false;
  const draw = () => {
    clear(root);
    const input = h("input", {
      id: `${view.id}-address`,
      type: "email",
      autocomplete: "email",
      required: true,
      maxlength: 254,
      value: view.email ? view.email.address : "",
      "data-testid": `${view.id}-address`,
    });
    const form = h(
      "form",
      { class: "mail-form", "data-testid": `${view.id}-form` },
      h("p", { class: "field" }, h("label", { for: `${view.id}-address` }, t("mail.address")), input),
      h("button", { type: "submit", class: "btn small", disabled: busy, "data-testid": `${view.id}-give` }, t("mail.give")),
      view.email
        ? h("button", { type: "button", class: "btn ghost small", disabled: busy, "data-testid": `${view.id}-remove`, onclick: () => act(view.remove, t("mail.note.removed")) }, t("mail.remove"))
        : null,
    );
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const address = /** @type {HTMLInputElement} */ (input).value.trim();
      act(() => view.give(address, lang()), t("mail.note.sent", { address }));
    });
    root.append(
      h("p", { class: "mail-status", "data-testid": `${view.id}-status`, "data-status": view.email ? view.email.status : "none" }, emailStatus(view.email)),
      error ? h("p", { class: "notice error", role: "alert", tabindex: "-1", "data-testid": `${view.id}-error` }, error) : null,
      note ? h("p", { class: "notice info", role: "status", tabindex: "-1", "data-testid": `${view.id}-note` }, note) : null,
      form,
    );
  };
  const act = async (action, done) => {
    busy = true;
    note = error = null;
    draw();
    try {
      view.email = await action();
      note = done;
    } catch (e) {
      error = t("mail.error", { message: (e && e.message) || String(e) });
    } finally {
      busy = false;
      draw();
      const said = /** @type {HTMLElement|null} */ (root.querySelector("[role=alert], [role=status]"));
      if (said) said.focus();
    }
  };
  draw();
  if (view.load) {
    view
      .load()
      .then((email) => {
        view.email = email;
        draw();
      })
      .catch(() => {});
  }
}
