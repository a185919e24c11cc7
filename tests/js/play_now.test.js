// "Play now"'s choice (static/js/lobby/play_now.js): the first one, the last one used,
// a damaged one, and the join message sent for it.
import { test } from "node:test";
import assert from "node:assert/strict";

/** @type {Map<string, string>} */
const stored = new Map();
Object.defineProperty(globalThis, "localStorage", {
  configurable: true,
  value: {
    getItem: (/** @type {string} */ k) => stored.get(k) ?? null,
    setItem: (/** @type {string} */ k, /** @type {string} */ v) => void stored.set(k, v),
    removeItem: (/** @type {string} */ k) => void stored.delete(k),
  },
});

const { poolChoice, joinMessage } = await import("../../src/marrakech/web/static/js/lobby/play_now.js");

test("the first choice is 2 players, casual, relaxed, bots after the wait", () => {
  stored.clear();
  assert.deepEqual(poolChoice(), { players: 2, clock: "relaxed", rated: false, bots: true });
});

test("the last choice used is read back; a damaged one gives the first", () => {
  stored.set("marrakech.playNow", JSON.stringify({ players: "any", clock: "turn_1d", rated: true, bots: false }));
  assert.deepEqual(poolChoice(), { players: "any", clock: "turn_1d", rated: true, bots: false });
  stored.set("marrakech.playNow", JSON.stringify({ players: 7, clock: "relaxed" }));
  assert.equal(poolChoice().players, 2);
  stored.set("marrakech.playNow", "{not json");
  assert.equal(poolChoice().clock, "relaxed");
});

test("the join message says the choice", () => {
  const message = joinMessage({ players: 3, clock: "blitz", rated: false, bots: true });
  assert.equal(message.type, "join");
  assert.deepEqual([message.players, message.clock, message.rated, message.bots], [3, "blitz", false, true]);
});
