// The lobby's offer of the tutorial to a first-time visitor: a small banner with a link
// to /learn and a button to dismiss it (both remembered, see progress.js).

import { h } from "../dom.js";
import { t } from "../i18n.js";
import { firstVisit, saveProgress, loadProgress } from "./progress.js";

/** The banner, or null once this device has opened or dismissed the tutorial. */
export function learnOffer() {
  if (!firstVisit()) return null;
  const dismiss = h("button", { type: "button", class: "btn small", "data-testid": "learn-dismiss" }, t("learn.dismiss"));
  const banner = h(
    "aside",
    { class: "notice info learn-offer", "data-testid": "learn-offer", "aria-label": t("learn.title") },
    h("span", {}, t("learn.offer"), " "),
    h("a", { href: "/learn", class: "btn small", "data-testid": "learn-link" }, t("learn.open")),
    " ",
    dismiss,
  );
  dismiss.addEventListener("click", () => {
    saveProgress(loadProgress());
    banner.remove();
  });
  return banner;
}
