// The lobby's create request (static/js/lobby.js createRequest): what the form sends.
import { test } from "node:test";
import assert from "node:assert/strict";

import { createRequest } from "../../src/marrakech/web/static/js/lobby.js";

function form(extra = {}) {
  return {
    players: 3,
    rules: "standard",
    first: "random",
    lang: "en",
    clock: "none",
    options: { orient_last: false },
    hints: true,
    name: " Ana ",
    seats: [
      { kind: "here", level: "medium", name: "" },
      { kind: "bot", level: "easy", name: "" },
      { kind: "human", level: "medium", name: " Bo " },
      { kind: "bot", level: "hard", name: "" },
    ],
    ...extra,
  };
}

test("the defaults are left out; the first seat played here gets your name", () => {
  assert.deepEqual(createRequest(form()), {
    players: 3,
    rules: "standard",
    seats: [{ kind: "human", name: "Ana" }, { kind: "bot", level: "easy" }, { kind: "human", name: "Bo" }],
    first_seat: "random",
    lang: "en",
  });
});

test("rule options on are sent in options, by name", () => {
  const body = createRequest(form({ options: { orient_last: true, other: false }, first: "1", clock: "blitz", hints: false, rules: "bga" }));
  assert.deepEqual(body.options, { orient_last: true });
  assert.equal(body.orient_last, undefined, "not the old top-level field");
  assert.equal(body.first_seat, 1);
  assert.equal(body.clock, "blitz");
  assert.equal(body.hints, false);
  assert.equal(body.rules, "bga");
});

test("a rated game says so; an unrated one leaves the default out", () => {
  assert.equal(createRequest(form({ rated: true })).rated, true);
  assert.equal(createRequest(form({ rated: false })).rated, undefined);
  assert.equal(createRequest(form()).rated, undefined);
});
