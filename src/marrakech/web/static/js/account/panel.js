// The account dialog's views: signed out, a sign-in or sign-up form (password or
// passkey); signed in, the account and what can be done with it. Each action asks the
// server and redraws with its answer; refusals say why, in the page's language.

import { h, download } from "../dom.js";
import { t, lang } from "../i18n.js";
import { api } from "../api.js";
import { myGames } from "../store.js";
import { createPasskey, usePasskey, pagePasskeyObstacle, obstacleSentence } from "./webauthn.js";
import { accountMailSection } from "./mail.js";
import { accountPushSection } from "./push.js";

/** @typedef {import("../account.js").AccountModel} AccountModel */

/** A refusal in the page's words (the server's reason after it when it gives one). @param {any} error */
function failure(error) {
  if (error && error.name === "NotAllowedError") return t("account.error.passkey_cancelled");
  const code = error && error.code;
  const key = `account.error.${code}`;
  const known = t(key);
  if (known === key) return t("lobby.error", { message: (error && error.message) || String(error) });
  // The server's sentence says which rule (English); the page's says what happened.
  return ["weak_password", "bad_name", "name_taken"].includes(code) ? `${known} (${error.message})` : known;
}

/**
 * Run an action: busy while it runs, its note (or the note made of its result) or its
 * refusal after. @param {AccountModel} M @param {() => Promise<any>} action
 * @param {string|null|((result: any) => string)} note
 */
async function run(M, action, note = null) {
  M.busy = true;
  M.error = null;
  M.note = null;
  M.render();
  try {
    const result = await action();
    if (M.account) M.setAccount(M.account);
    M.note = typeof note === "function" ? note(result) : note;
    M.done = true;
  } catch (error) {
    M.error = failure(error);
  } finally {
    M.busy = false;
    M.render();
    // The dialog was drawn anew: keyboard and screen-reader users land on what happened.
    const said = /** @type {HTMLElement|null} */ (document.querySelector("#account [role=alert], #account [role=status]"));
    if (said) said.focus();
  }
}

/** A labelled input. @param {string} id @param {string} label @param {import("../dom.js").Attrs} attrs */
function field(id, label, attrs) {
  return h("p", { class: "field" }, h("label", { for: id }, label), h("input", { id, name: id, ...attrs }));
}

/** Why passkeys cannot work on this page, in the page's words (null when they can). */
function passkeysBlocked() {
  const obstacle = pagePasskeyObstacle();
  if (obstacle === null) return null;
  const { key, values } = obstacleSentence(obstacle, location);
  return h("p", { class: "hint", "data-testid": "account-passkey-unavailable" }, t(key, values));
}

/** The value of an input of the dialog. @param {HTMLFormElement} form @param {string} name */
function value(form, name) {
  return /** @type {HTMLInputElement} */ (form.elements.namedItem(name)).value;
}

/** Sign in, or create an account, with a password; or with a passkey. @param {AccountModel} M */
function signedOut(M) {
  const signup = M.tab === "signup";
  const tabs = h(
    "div",
    { class: "account-tabs", role: "group", "aria-label": t("account.title") },
    /** @type {("signin"|"signup")[]} */ (["signin", "signup"]).map((tab) =>
      h(
        "button",
        {
          type: "button",
          class: "btn secondary",
          "aria-pressed": M.tab === tab ? "true" : "false",
          "data-testid": `account-tab-${tab}`,
          onclick: () => {
            M.tab = tab;
            M.error = M.note = null;
            M.render();
          },
        },
        t(`account.tab.${tab}`),
      ),
    ),
  );
  const form = h(
    "form",
    { class: "account-form", "data-testid": `account-${M.tab}-form` },
    field("account-name", t("account.name"), {
      autocomplete: signup ? "username" : "username webauthn",
      required: true,
      maxlength: 40,
      "data-testid": "account-name",
    }),
    field("account-password", t("account.password"), {
      type: "password",
      autocomplete: signup ? "new-password" : "current-password",
      required: true,
      maxlength: 256,
      "data-testid": "account-password",
    }),
    signup ? h("p", { class: "hint" }, t("account.password.rules")) : null,
    h("button", { type: "submit", class: "btn", disabled: M.busy, "data-testid": `account-${M.tab}-password` }, t(signup ? "account.signup.password" : "account.signin.password")),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const name = value(form, "account-name");
    const password = value(form, "account-password");
    run(M, async () => {
      const answer = signup ? await api.signUp(name, password) : await api.signIn(name, password);
      M.account = answer.account;
    }, t(signup ? "account.note.created" : "account.note.signed_in"));
  });
  const blocked = passkeysBlocked();
  const passkey = h(
    "button",
    { type: "button", class: "btn secondary", disabled: M.busy, "data-testid": `account-${M.tab}-passkey` },
    t(signup ? "account.signup.passkey" : "account.signin.passkey"),
  );
  passkey.addEventListener("click", () => {
    const name = value(form, "account-name");
    run(M, async () => {
      if (signup) {
        const started = await api.passkeyOptions("register", { name });
        const credential = await createPasskey(started.options);
        M.account = (await api.passkeyAnswer("register", started.challenge_id, credential)).account;
      } else {
        const started = await api.passkeyOptions("signin");
        const credential = await usePasskey(started.options);
        M.account = (await api.passkeyAnswer("signin", started.challenge_id, credential)).account;
      }
    }, t(signup ? "account.note.created" : "account.note.signed_in"));
  });
  return [
    h("p", {}, t("account.optional")),
    tabs,
    form,
    // Where passkeys cannot work, no button that would fail: the reason instead.
    blocked ? null : h("p", { class: "account-or" }, t(signup ? "account.signup.or" : "account.signin.or")),
    blocked || h("p", {}, passkey),
  ];
}

/** The seat tokens this device holds, for a claim (the server finds each one's seat). */
function guestSeats() {
  return myGames()
    .flatMap((g) => (g.tokens || []).map((token) => ({ game_id: g.id, token })))
    .slice(0, 200);
}

/** The change-password form (the current one too when there is one). @param {AccountModel} M */
function passwordForm(M) {
  const has = M.account.password;
  const form = h(
    "form",
    { class: "account-form", "data-testid": "account-password-form" },
    has ? field("account-current", t("account.password.current"), { type: "password", autocomplete: "current-password", required: true, "data-testid": "account-current" }) : null,
    field("account-new", t("account.password.new"), { type: "password", autocomplete: "new-password", required: true, maxlength: 256, "data-testid": "account-new" }),
    h("p", { class: "hint" }, t("account.password.rules")),
    h("button", { type: "submit", class: "btn", disabled: M.busy, "data-testid": "account-password-save" }, t(has ? "account.password.change" : "account.password.add")),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const current = has ? value(form, "account-current") : null;
    const next = value(form, "account-new");
    run(M, async () => {
      M.account = (await api.setPassword(next, current)).account;
    }, t("account.note.password"));
  });
  return h("details", {}, h("summary", {}, t(has ? "account.password.change" : "account.password.add")), form);
}

/** Deleting the account: typed name to confirm. @param {AccountModel} M */
function deleteForm(M) {
  const form = h(
    "form",
    { class: "account-form", "data-testid": "account-delete-form" },
    h("p", {}, t("account.delete.explain")),
    field("account-confirm", t("account.delete.confirm", { name: M.account.name }), { autocomplete: "off", required: true, "data-testid": "account-confirm" }),
    h("button", { type: "submit", class: "btn warm", disabled: M.busy, "data-testid": "account-delete" }, t("account.delete")),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const name = value(form, "account-confirm");
    run(M, async () => {
      await api.deleteAccount(name);
      M.account = null;
      M.tab = "signup";
    }, t("account.note.deleted"));
  });
  return h("details", {}, h("summary", {}, t("account.delete")), form);
}

/** The account's passkeys, each with a button to remove it (not the last way in). @param {AccountModel} M */
function passkeyList(M) {
  const a = M.account;
  const day = (/** @type {string} */ iso) => new Date(iso).toLocaleDateString(lang());
  const last = !a.password && a.passkeys <= 1;
  return h(
    "ul",
    { class: "account-passkeys", "data-testid": "account-passkeys" },
    (a.passkey_list || []).map((/** @type {Record<string, any>} */ p) =>
      h(
        "li",
        {},
        t("account.passkey.item", { date: day(p.created) }),
        " · ",
        p.last_used ? t("account.passkey.used", { date: day(p.last_used) }) : t("account.passkey.never"),
        " ",
        h(
          "button",
          {
            type: "button",
            class: "btn ghost small",
            disabled: M.busy || last,
            title: last ? t("account.passkey.last") : null,
            "data-testid": "account-remove-passkey",
            onclick: () =>
              run(M, async () => {
                M.account = (await api.removePasskey(p.id)).account;
              }, t("account.note.passkey_removed")),
          },
          t("account.passkey.remove"),
        ),
      ),
    ),
  );
}

/** What a signed-in player sees. @param {AccountModel} M */
function signedIn(M) {
  const a = M.account;
  const since = new Date(a.created).toLocaleDateString(lang());
  const seats = guestSeats();
  const blocked = passkeysBlocked();
  const act = (/** @type {string} */ label, /** @type {string} */ testid, /** @type {() => Promise<any>} */ action, /** @type {string | ((result: any) => string)} */ note, attrs = {}) =>
    h("button", { type: "button", class: "btn secondary", disabled: M.busy, "data-testid": testid, onclick: () => run(M, action, note), ...attrs }, label);
  return [
    h("p", { "data-testid": "account-name-shown" }, h("strong", {}, a.name), " · ", t("account.since", { date: since })),
    h(
      "p",
      { class: "account-links" },
      h("a", { class: "btn secondary", href: `/players/${encodeURIComponent(a.name)}`, "data-testid": "account-profile" }, t("profile.open")),
      " ",
      h("a", { class: "btn secondary", href: "/leaderboard", "data-testid": "account-leaderboard" }, t("ratings.leaderboard")),
    ),
    h("p", { "data-testid": "account-credentials" }, t(a.password ? "account.has.password" : "account.has.no_password"), " · ", t("account.has.passkeys", { n: a.passkeys })),
    a.passkeys ? passkeyList(M) : null,
    blocked,
    h(
      "div",
      { class: "account-actions" },
      blocked
        ? null
        : act(t("account.passkey.add"), "account-add-passkey", async () => {
            const started = await api.passkeyOptions("register");
            const credential = await createPasskey(started.options);
            M.account = (await api.passkeyAnswer("register", started.challenge_id, credential)).account;
          }, t("account.note.passkey")),
      act(
        t("account.claim", { n: seats.length }),
        "account-claim",
        async () => (await api.claim(seats)).games.length,
        (/** @type {number} */ n) => t("account.note.claimed", { n }),
        { disabled: M.busy || !seats.length },
      ),
      act(t("account.export"), "account-export", async () => {
        const reply = await fetch(api.exportUrl);
        if (!reply.ok) throw new Error(reply.statusText);
        download("marrakech-account.json", await reply.text());
      }, t("account.note.exported")),
      act(t("account.signout"), "account-signout", async () => {
        await api.signOut();
        M.account = null;
        M.tab = "signin";
      }, t("account.note.signed_out")),
      act(t("account.signout.everywhere"), "account-signout-everywhere", async () => {
        await api.signOutEverywhere();
        M.account = null;
        M.tab = "signin";
      }, t("account.note.signed_out.everywhere")),
    ),
    accountMailSection(),
    accountPushSection(),
    passwordForm(M),
    deleteForm(M),
  ];
}

/** Draw the dialog for `M` in `root`. @param {HTMLElement} root @param {AccountModel} M @param {() => void} close */
export function renderPanel(root, M, close) {
  const closeButton = h("button", { type: "button", class: "btn ghost", "data-testid": "account-close", onclick: close }, t("help.close"));
  const note = M.note;
  const parts = [
    h("h2", { id: "account-title" }, M.account ? t("account.title.signed") : t("account.title")),
    M.error ? h("p", { class: "notice error", role: "alert", tabindex: "-1", "data-testid": "account-error" }, M.error) : null,
    note ? h("p", { class: "notice info", role: "status", tabindex: "-1", "data-testid": "account-note" }, note) : null,
    ...(M.account ? signedIn(M) : signedOut(M)),
    h("div", { class: "dialog-actions" }, closeButton),
  ];
  root.append(.../** @type {(Node | string)[]} */ (parts.filter(Boolean)));
}
