// The optional account (docs/web.md, "Accounts"): the top bar's button and its dialog,
// where a player signs up or in (a passkey or a password), and, signed in, adds a
// passkey or a password, claims this device's games, downloads the account's data, signs
// out (here or everywhere) or deletes the account. Playing never needs it.
// Its views: account/panel.js; the passkey ceremonies: account/webauthn.js.

import { clear } from "./dom.js";
import { t, onLangChange } from "./i18n.js";
import { api } from "./api.js";
import { renderPanel } from "./account/panel.js";
import { savedName, saveName } from "./lobby/lines.js";

/**
 * @typedef {object} AccountModel  The dialog's state, shared with account/panel.js.
 * @property {any} account  The signed-in account ({id, name, created, password, passkeys}) or null.
 * @property {"signin"|"signup"} tab  What a signed-out player sees.
 * @property {string|null} error  The last refusal, in the page's words.
 * @property {string|null} note  The last success, in the page's words.
 * @property {boolean} busy  A request is under way.
 * @property {boolean} done  The last action succeeded: the next drawing empties the fields.
 * @property {() => void} render
 * @property {(account: any) => void} setAccount
 */

/** The account dialog of index.html. */
function dialog() {
  return /** @type {HTMLDialogElement} */ (document.getElementById("account"));
}

function button() {
  return /** @type {HTMLButtonElement} */ (document.getElementById("account-button"));
}

/** @type {AccountModel} */
const model = {
  account: null,
  tab: "signin",
  error: null,
  note: null,
  busy: false,
  done: false,
  render: () => {
    const b = button();
    if (b) {
      b.textContent = model.account ? model.account.name : t("account.open");
      b.setAttribute("aria-label", model.account ? t("account.open.signed", { name: model.account.name }) : t("account.open"));
      b.dataset.signedIn = model.account ? "1" : "0";
    }
    // What the page offers only to accounts (challenges) follows: hidden from a guest.
    document.documentElement.dataset.signedIn = model.account ? "1" : "0";
    document.documentElement.dataset.accountName = model.account ? model.account.name : "";
    const d = dialog();
    if (!d || !d.open) return;
    // What was typed survives the drawing (a refusal keeps the name and password to fix).
    const typed = new Map();
    if (!model.done) for (const input of d.querySelectorAll("input")) typed.set(input.id, input.value);
    model.done = false;
    renderPanel(clear(d), model, close);
    for (const input of d.querySelectorAll("input")) if (typed.has(input.id)) input.value = typed.get(input.id);
  },
  setAccount: (account) => {
    model.account = account;
    // A browser that never gave a name offers the account's when joining a game.
    if (account && !savedName()) saveName(account.name);
    model.render();
  },
};

function close() {
  const d = dialog();
  if (d.open) d.close();
}

function open() {
  model.error = null;
  model.note = null;
  const d = dialog();
  if (!d.open) d.showModal();
  model.render();
  const first = /** @type {HTMLElement|null} */ (d.querySelector("input") || d.querySelector("button"));
  if (first) first.focus();
}

/** Wire the top bar's account button; ask the server who is signed in. */
export function mountAccount() {
  const b = button();
  if (!b) return;
  b.addEventListener("click", open);
  onLangChange(() => model.render());
  model.render();
  api
    .account()
    .then((answer) => model.setAccount(answer.account))
    .catch(() => {
      // No answer: the page works without an account; the button stays "Sign in".
    });
}
