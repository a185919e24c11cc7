// Email reminders (docs/playing.md, "Reminders"): the form where a player gives, sees and
// removes the address reminders go to, for the account (account dialog) or for one
// game's seat (the game's menu). Giving an address sends a confirmation link to it;
// nothing else comes until that link is followed.

import { h, clear } from "./dom.js";
import { t, lang } from "./i18n.js";
import { errorText } from "./api.js";

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
 * Build the form into `root` and keep it up to date with each answer (focus on what it
 * said). The address field is made once and never redrawn: the stored address may arrive
 * while the player is typing, and their text, focus and caret must survive it.
 * @param {HTMLElement} root @param {MailView} view
 */
export function renderMailForm(root, view) {
  /** @type {string | null} */
  let note = null;
  /** @type {string | null} */
  let error = null;
  let busy = false;
  // Whether the field holds the player's own text rather than the stored address.
  let edited = false;
  // Once the player acted, the action's answer is newer than a load still on its way.
  let acted = false;
  // Until the server answers, the form says so rather than "no address".
  let loading = Boolean(view.load);
  const input = /** @type {HTMLInputElement} */ (
    h("input", {
      id: `${view.id}-address`,
      type: "email",
      autocomplete: "email",
      required: true,
      maxlength: 254,
      "data-testid": `${view.id}-address`,
      oninput: () => {
        edited = true;
      },
    })
  );
  const give = /** @type {HTMLButtonElement} */ (h("button", { type: "submit", class: "btn small", "data-testid": `${view.id}-give` }, t("mail.give")));
  const remove = /** @type {HTMLButtonElement} */ (
    h("button", { type: "button", class: "btn ghost small", "data-testid": `${view.id}-remove`, onclick: () => act(view.remove, t("mail.note.removed")) }, t("mail.remove"))
  );
  const form = h("form", { class: "mail-form", "data-testid": `${view.id}-form` }, h("p", { class: "field" }, h("label", { for: `${view.id}-address` }, t("mail.address")), input), give);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const address = input.value.trim();
    act(() => view.give(address, lang()), t("mail.note.sent", { address }));
  });
  const status = h("p", { class: "mail-status", "data-testid": `${view.id}-status` });
  const said = h("div", {});
  clear(root).append(status, said, form);
  const draw = () => {
    status.dataset.status = loading ? "loading" : view.email ? view.email.status : "none";
    status.textContent = loading ? t("mail.loading") : emailStatus(view.email);
    clear(said).append(
      ...[
        error ? h("p", { class: "notice error", role: "alert", tabindex: "-1", "data-testid": `${view.id}-error` }, error) : null,
        note ? h("p", { class: "notice info", role: "status", tabindex: "-1", "data-testid": `${view.id}-note` }, note) : null,
      ].filter((el) => el !== null),
    );
    if (!edited) input.value = view.email ? view.email.address : "";
    give.disabled = remove.disabled = busy;
    // Removed rather than hidden: the buttons' display rule would show a hidden one.
    if (view.email) form.append(remove);
    else remove.remove();
  };
  const act = async (/** @type {() => Promise<Email | null>} */ action, /** @type {string} */ done) => {
    acted = true;
    loading = false;
    busy = true;
    note = error = null;
    draw();
    try {
      view.email = await action();
      edited = false;
      note = done;
    } catch (e) {
      error = t("mail.error", { message: errorText(e) });
    } finally {
      busy = false;
      draw();
      const answer = /** @type {HTMLElement|null} */ (said.firstElementChild);
      if (answer) answer.focus();
    }
  };
  draw();
  if (view.load) {
    const loaded = (/** @type {Email|null} */ email) => {
      if (acted) return;
      view.email = email;
      loading = false;
      draw();
    };
    view.load().then(loaded, () => loaded(view.email));
  }
}
