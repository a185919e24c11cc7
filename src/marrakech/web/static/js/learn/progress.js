// The tutorial's progress, remembered on this device (localStorage): the lessons done or
// skipped, and whether the lobby's offer was seen.

const KEY = "marrakech.learn";

/** The lessons done and skipped, and whether the offer was seen. @typedef {{done: string[], skipped: string[], seen: boolean}} Progress */

/** @returns {Progress} */
export function loadProgress() {
  try {
    const raw = JSON.parse(localStorage.getItem(KEY) || "null");
    if (raw && Array.isArray(raw.done) && Array.isArray(raw.skipped)) {
      return { done: raw.done.map(String), skipped: raw.skipped.map(String), seen: Boolean(raw.seen) };
    }
  } catch (_) {
    // A broken or missing entry: start again.
  }
  return { done: [], skipped: [], seen: false };
}

/** Remember the progress (ignored where storage is refused: the page still works). @param {Progress} progress */
export function saveProgress(progress) {
  try {
    localStorage.setItem(KEY, JSON.stringify({ ...progress, seen: true }));
  } catch (_) {
    // Only for this visit then.
  }
}

/** Mark one lesson done or skipped (done wins over skipped). @param {Progress} progress @param {string} id @param {boolean} done */
export function markLesson(progress, id, done) {
  const next = { done: [...progress.done], skipped: progress.skipped.filter((s) => s !== id), seen: true };
  if (done) {
    if (!next.done.includes(id)) next.done.push(id);
  } else if (!next.done.includes(id)) next.skipped.push(id);
  saveProgress(next);
  return next;
}

/** Whether this device has never opened or dismissed the tutorial. */
export function firstVisit() {
  try {
    return localStorage.getItem(KEY) === null;
  } catch (_) {
    return false;
  }
}
