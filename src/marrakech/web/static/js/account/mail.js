// The account dialog's email reminders: one address for every game of the account's
// seats (docs/playing.md, "Reminders"), when the server sends reminders.

import { h } from "../dom.js";
import { t } from "../i18n.js";
import { api } from "../api.js";
import { config } from "../config.js";
import { renderMailForm } from "../reminders.js";

/** The section, or null when the server sends no reminders. */
export function accountMailSection() {
  if (!config.reminders) return null;
  const form = h("div", {});
  renderMailForm(form, {
    id: "account-mail",
    email: null,
    load: async () => (await api.accountMail()).email,
    give: async (address, language) => (await api.setAccountMail(address, language)).email,
    remove: async () => (await api.removeAccountMail()).email,
  });
  return h("section", { class: "account-mail", "aria-labelledby": "account-mail-title", "data-testid": "account-mail" }, h("h3", { id: "account-mail-title" }, t("mail.title")), h("p", { class: "hint" }, t("mail.explain.account")), form);
}
