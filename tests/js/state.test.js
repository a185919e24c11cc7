// The game page's model (static/js/game/state.js): how each server message changes it.
import { test } from "node:test";
import assert from "node:assert/strict";

import * as state from "../../src/marrakech/web/static/js/game/state.js";

/** A game's meta as the server sends it (GameMeta). */
function meta(extra = {}) {
  return {
    game_id: "g1",
    players: 2,
    status: "playing",
    rules: "standard",
    rule_set: "standard",
    options: { orient_last: false },
    hints: true,
    lang: "en",
    clock: { mode: "none", seconds: 0, seat: null, remaining: null },
    seats: [
      { seat: 0, kind: "human", host: true, presence: "connected" },
      { seat: 1, kind: "bot", level: "easy" },
    ],
    ...extra,
  };
}

function welcomed(extra = {}) {
  const g = state.newState("normal");
  state.applyWelcome(
    g,
    {
      type: "welcome",
      game: meta(),
      you: [0],
      version: 4,
      state: { phase: "place", assam: { square: "d4", facing: "N" }, seats: [{}, {}] },
      legal: { 0: ["c3-c4", "c4-d5", "d5-e5"] },
      log: ["Red rolled 2."],
      ...extra,
    },
    1000,
  );
  return g;
}

test("applyChanges merges objects, and arrays by index; other values are replaced", () => {
  const view = { phase: "roll", seats: [{ dirhams: 30 }, { dirhams: 30 }], assam: { square: "d4", facing: "N" } };
  const next = state.applyChanges(view, { phase: "place", seats: { 1: { dirhams: 27 } }, assam: { square: "d6" } });
  assert.deepEqual(next, { phase: "place", seats: [{ dirhams: 30 }, { dirhams: 27 }], assam: { square: "d6", facing: "N" } });
  assert.equal(view.phase, "roll", "the old view is left as it was");
  assert.equal(view.seats[1].dirhams, 30);
  assert.deepEqual(state.applyChanges({ a: 1 }, [1, 2]), [1, 2]);
  assert.equal(state.applyChanges(null, { a: 1 }).a, 1);
});

test("tokensFromHash reads the seat tokens of a link", () => {
  assert.deepEqual(state.tokensFromHash("#t=abc,def"), ["abc", "def"]);
  assert.deepEqual(state.tokensFromHash("#x=1&t=abc"), ["abc"]);
  assert.deepEqual(state.tokensFromHash("#t=%20a%20,,b"), ["a", "b"]);
  assert.deepEqual(state.tokensFromHash(""), []);
});

test("a welcome replaces the whole game and forgets the choice being made", () => {
  const g = state.newState("normal");
  g.hint = { version: 1 };
  g.placeFirst = "c3";
  g.pending = true;
  g.botsBusy = true;
  state.applyWelcome(g, { type: "welcome", game: meta({ clock: { mode: "blitz", seat: 0, remaining: 20 } }), version: 7, state: { phase: "roll" } }, 500);
  assert.equal(g.version, 7);
  assert.deepEqual(g.you, []);
  assert.deepEqual(g.legal, {});
  assert.equal(g.pending, false);
  assert.equal(g.botsBusy, false);
  assert.equal(g.hint, null);
  assert.equal(g.placeFirst, null);
  assert.equal(g.welcomes, 1);
  assert.equal(state.clockLeft(g, 2500), 18);
});

test("the active seat, its placements and the squares that pair", () => {
  const g = welcomed();
  assert.equal(state.activeSeat(g), 0);
  assert.equal(g.lastSeat, 0);
  assert.deepEqual(state.placements(g).map((p) => p.token), ["c3-c4", "c4-d5", "d5-e5"]);
  assert.deepEqual(state.partnersOf(g, "c4"), ["c3", "d5"]);
  assert.equal(state.findPlacement(g, "d5", "c4").token, "c4-d5");
  assert.equal(state.findPlacement(g, "c3", "e5"), null);
  g.meta.status = "waiting";
  assert.equal(state.activeSeat(g), null, "nobody acts before the game starts");
  assert.deepEqual(state.placements(g), []);
});

test("an update follows the version shown, or asks for a welcome", () => {
  const g = welcomed();
  assert.equal(state.updateGap(g, { version: 5, changes: {}, events: [{}] }), false);
  assert.equal(state.updateGap(g, { version: 7, changes: {}, events: [{}] }), true);
  assert.equal(state.updateGap(g, { version: 9, state: {} }), false, "a whole state needs nothing before it");
  const msg = {
    type: "update",
    version: 5,
    changes: { phase: "orient" },
    events: [{ kind: "place" }],
    legal: { 1: ["L", "S", "R"] },
    log: ["Red placed a carpet."],
    last_move: { seat: 0, end: 5, turn: 3 },
  };
  g.placeChoice = { token: "c3-c4", a: "c3", b: "c4" };
  g.pending = true;
  g.wasMine = true;
  const next = state.updatedView(g, msg);
  assert.equal(next.phase, "orient");
  assert.equal(next.assam.square, "d4");
  state.applyUpdate(g, msg, next, 2000);
  assert.equal(g.version, 5);
  assert.equal(g.view, next);
  assert.equal(state.activeSeat(g), null);
  assert.equal(g.wasMine, false, "another's move: the page's next turn is signalled again");
  assert.equal(g.pending, false);
  assert.equal(g.placeChoice, null);
  assert.deepEqual(g.log, ["Red rolled 2.", "Red placed a carpet."]);
  assert.deepEqual(g.lastSummary, msg.last_move);
  assert.deepEqual(g.since, [], "this page's own turn clears 'since your last turn'");
});

test("turns of others gather for 'since your last turn', once each", () => {
  const g = welcomed();
  const theirs = { seat: 1, end: 9, turn: 4 };
  state.noteTurn(g, theirs);
  state.noteTurn(g, theirs);
  assert.deepEqual(g.since, [theirs]);
  state.noteTurn(g, { seat: 1, end: 12, turn: 5 });
  assert.equal(g.since.length, 2);
  state.noteTurn(g, { seat: 0, end: 15, turn: 6 });
  assert.deepEqual(g.since, []);
  const spectator = welcomed({ you: [] });
  state.noteTurn(spectator, theirs);
  assert.deepEqual(spectator.since, [], "a spectator has no turn of its own");
});

test("a hint counts for the position it was asked for only", () => {
  const g = welcomed();
  g.hintAsked = 4;
  const hint = { type: "hint", version: 4, options: [{ action: "c4-d5", chance: 0.61 }] };
  assert.equal(state.applyHint(g, { ...hint, version: 3 }), false);
  assert.equal(g.hint, null);
  assert.equal(state.applyHint(g, hint), true);
  assert.equal(g.hintAsked, null);
  assert.equal(state.advised(g), "c4-d5");
  g.version = 5;
  assert.equal(state.currentHint(g), null);
  assert.equal(state.hintsAllowed(g), true);
});

test("a refusal stops waiting; a game that does not exist is fatal", () => {
  const g = welcomed();
  g.pending = true;
  g.hintAsked = 4;
  state.applyRefusal(g, { code: "illegal_action" }, "gone");
  assert.equal(g.pending, false);
  assert.equal(g.hintAsked, null);
  assert.equal(g.fatal, null);
  state.applyRefusal(g, { code: "not_found" }, "gone");
  assert.equal(g.fatal, "gone");
});

test("an unanswered action is sent again after a reconnection, only at its version (issue 36)", () => {
  const g = welcomed();
  state.noteSent(g, 0, "c4-d5");
  assert.equal(g.pending, true);
  const again = { type: "action", seat: 0, version: 4, action: "c4-d5" };
  assert.deepEqual(state.toResend(g), again);
  // The connection dropped before the answer; the welcome shows the same position.
  const welcome = {
    type: "welcome",
    game: meta(),
    you: [0],
    version: 4,
    state: { phase: "place", assam: { square: "d4", facing: "N" }, seats: [{}, {}] },
    legal: { 0: ["c3-c4", "c4-d5", "d5-e5"] },
  };
  state.applyWelcome(g, welcome, 2000);
  assert.deepEqual(state.toResend(g), again, "still at its version: sent again");
  // It was stored before the drop: the welcome is past its version, and it is dropped.
  state.applyWelcome(g, { ...welcome, version: 5, legal: { 1: ["L", "S", "R"] } }, 3000);
  assert.equal(g.unanswered, null);
  assert.equal(state.toResend(g), null);
  // The seat may no longer send it (a stand-in played, the game was resigned...).
  const h = welcomed();
  state.noteSent(h, 0, "c4-d5");
  state.applyWelcome(h, { ...welcome, legal: {} }, 2000);
  assert.equal(h.unanswered, null);
  // An update answers it (or another move came first): never sent again.
  const u = welcomed();
  state.noteSent(u, 0, "c4-d5");
  state.applyUpdate(u, { version: 5, legal: {} }, u.view, 2000);
  assert.equal(u.unanswered, null);
  assert.equal(state.toResend(u), null);
});

test("an action refused with server_error is sent again, a few times, with growing pauses", () => {
  const g = welcomed();
  state.noteSent(g, 0, "c4-d5");
  for (let tries = 1; tries <= state.RESENDS; tries++) {
    assert.equal(state.applyRefusal(g, { code: "server_error" }, "gone"), true);
    assert.equal(g.pending, true, "still waiting for it");
    assert.equal(g.unanswered?.tries, tries);
  }
  assert.deepEqual([1, 2, 3].map(state.resendDelay), [500, 1000, 2000]);
  assert.equal(state.applyRefusal(g, { code: "server_error" }, "gone"), false, "then the player is told");
  assert.equal(g.pending, false);
  assert.equal(g.unanswered, null);
  // Any other refusal drops it: the server said why it will not take it.
  state.noteSent(g, 0, "c4-d5");
  assert.equal(state.applyRefusal(g, { code: "stale_version" }, "gone"), false);
  assert.equal(g.unanswered, null);
  // Nothing unanswered: a server_error (of another message) is only shown.
  assert.equal(state.applyRefusal(g, { code: "server_error" }, "gone"), false);
});

test("a hotseat hands the screen over when another of its seats is to act", () => {
  const g = welcomed({ you: [0, 1], legal: { 0: ["roll"] } });
  assert.equal(state.settleSeat(g), 0);
  assert.equal(g.handover, null);
  g.legal = { 1: ["L", "S", "R"] };
  assert.equal(state.settleSeat(g), 1);
  assert.equal(g.handover, 1);
  assert.equal(g.lastSeat, 0, "still the last seat that acted until the handover is done");
});

test("what the page waits for (data-input)", () => {
  const g = welcomed();
  g.conn = "open";
  assert.equal(state.inputState(g, 0), "place");
  g.pending = true;
  assert.equal(state.inputState(g, 0), "wait");
  g.pending = false;
  g.handover = 0;
  assert.equal(state.inputState(g, 0), "handover");
  g.view = { ...g.view, phase: "over" };
  assert.equal(state.inputState(g, null), "over");
  g.queue.push({});
  assert.equal(state.inputState(g, null), "wait", "the end waits for the animations");
});

test("the rule options come from the game's meta, not its rules token", () => {
  const g = welcomed();
  assert.equal(state.orientLast(g), false);
  g.meta = { ...g.meta, rules: "standard", options: { orient_last: true } };
  assert.equal(state.orientLast(g), true);
});

test("the orientation previews: facing after a quarter turn, the server's options", () => {
  const g = welcomed({ preview: [{ orient: "L", expected_tithe: 1.5 }] });
  assert.equal(state.previewFacing(g, "L"), "W");
  assert.equal(state.previewFacing(g, "R"), "E");
  assert.equal(state.previewFacing(g, "S"), "N");
  assert.equal(state.previewFacing(g, null), null);
  assert.equal(state.previewOf(g, "L").expected_tithe, 1.5);
  assert.equal(state.previewOf(g, "R"), null);
});

test("the clock: nothing runs without a seat or a time left", () => {
  const g = state.newState("normal");
  assert.equal(state.clockLeft(g, 0), null);
  state.setClock(g, { mode: "relaxed", seat: null, remaining: 100 }, 0);
  assert.equal(state.clockLeft(g, 0), null);
  state.setClock(g, { mode: "relaxed", seat: 1, remaining: 100 }, 1000);
  assert.equal(state.clockLeft(g, 3500), 97.5);
  state.setClock(g, null, 5000);
  assert.equal(g.clockAt, 1000, "no clock in a message keeps the one running");
});
