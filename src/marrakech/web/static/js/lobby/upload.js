// The lobby's upload card: a game record chosen here is replayed at /r/upload.

import { h } from "../dom.js";
import { t, lang } from "../i18n.js";
import { errorText } from "../api.js";
import { UPLOAD_KEY } from "../replay.js";

/** The largest record the lobby hands to the replay page (sessionStorage holds ~5 MB). */
const UPLOAD_LIMIT = 5 * 1024 * 1024;

export function uploadCard() {
  const input = h("input", { type: "file", accept: ".json,application/json", id: "upload", "data-testid": "upload-file" });
  const go = h("button", { type: "button", class: "btn secondary", "data-testid": "upload-go" }, t("lobby.upload.button"));
  const error = h("p", { class: "notice error", hidden: true, role: "alert", "data-testid": "upload-error" });
  go.addEventListener("click", async () => {
    const file = input.files && input.files[0];
    const fail = (/** @type {string} */ text) => {
      error.textContent = text;
      error.hidden = false;
    };
    error.hidden = true;
    if (!file) {
      fail(t("lobby.upload.none"));
      input.focus();
      return;
    }
    if (file.size > UPLOAD_LIMIT) {
      const size = new Intl.NumberFormat(lang(), { maximumFractionDigits: 1 }).format(file.size / (1024 * 1024));
      fail(t("lobby.upload.too_big", { size }));
      return;
    }
    const text = await file.text();
    try {
      sessionStorage.setItem(UPLOAD_KEY, text);
    } catch (e) {
      fail(t("lobby.upload.storage", { message: errorText(e) }));
      return;
    }
    location.href = "/r/upload";
  });
  return h(
    "section",
    { class: "card", "aria-labelledby": "upload-title" },
    h("h2", { id: "upload-title" }, t("lobby.upload")),
    h("p", { class: "hint" }, t("lobby.upload.help")),
    h("div", { class: "control-row" }, h("label", { for: "upload", class: "sr-only" }, t("lobby.upload")), input, go),
    error,
  );
}
