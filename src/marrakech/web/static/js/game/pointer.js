// How the last press reached the page (shared by every game page of the tab): a touch
// previews first and acts on a second tap, a mouse click or a key acts at once. Read by
// the controls (what they say) and by input.js (what a press does).

let lastPointer = "mouse";
if (typeof document !== "undefined") {
  document.addEventListener("pointerdown", (e) => (lastPointer = e.pointerType || "mouse"), true);
  document.addEventListener("keydown", () => (lastPointer = "keyboard"), true);
}

/** The last press was a touch (or a pen): previews come before actions. */
export function touching() {
  return lastPointer === "touch" || lastPointer === "pen";
}
