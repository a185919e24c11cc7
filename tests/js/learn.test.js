// The tutorial's progress (static/js/learn/progress.js): lessons done or skipped, kept in
// localStorage; a broken entry starts afresh; a lesson done stays done when skipped later.
import { test } from "node:test";
import assert from "node:assert/strict";

const store = new Map();
globalThis.localStorage = {
  getItem: (key) => (store.has(key) ? store.get(key) : null),
  setItem: (key, value) => store.set(key, String(value)),
  removeItem: (key) => store.delete(key),
};

const { loadProgress, markLesson, firstVisit } = await import("../../src/marrakech/web/static/js/learn/progress.js");

test("a first visit has no progress; marking lessons remembers them", () => {
  store.clear();
  assert.equal(firstVisit(), true);
  let progress = loadProgress();
  assert.deepEqual(progress, { done: [], skipped: [], seen: false });
  progress = markLesson(progress, "orient", true);
  progress = markLesson(progress, "die", false);
  progress = markLesson(progress, "orient", false); // done stays done
  assert.deepEqual(loadProgress(), { done: ["orient"], skipped: ["die"], seen: true });
  markLesson(progress, "die", true); // a skipped lesson done later
  assert.deepEqual(loadProgress(), { done: ["orient", "die"], skipped: [], seen: true });
  assert.equal(firstVisit(), false);
});

test("a broken entry starts afresh", () => {
  store.clear();
  store.set("marrakech.learn", "{not json");
  assert.deepEqual(loadProgress(), { done: [], skipped: [], seen: false });
  store.set("marrakech.learn", JSON.stringify({ done: "orient" }));
  assert.deepEqual(loadProgress(), { done: [], skipped: [], seen: false });
});
