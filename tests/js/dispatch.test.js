// The dispatch table of the game page (static/js/game/dispatch.js): one handler for each
// message the server sends (docs/web-protocol.md).
import { test } from "node:test";
import assert from "node:assert/strict";

import { HANDLERS, CHAT } from "../../src/marrakech/web/static/js/game/dispatch.js";
import { newState } from "../../src/marrakech/web/static/js/game/state.js";

test("every message type of the server's has a handler", () => {
  const types = ["welcome", "update", "game", "bots", "rematch", "hint", "analysis", "error"];
  assert.deepEqual(Object.keys(HANDLERS).sort(), [...types].sort());
  // The chat's are shown at once, never queued behind a move's animation.
  assert.deepEqual(Object.keys(CHAT).sort(), ["chat", "chat_hidden"]);
});

test("before the first welcome, bots, analyses and stale hints change only the model", () => {
  const ctx = { g: newState("normal"), root: null, ui: null, socket: null, gameId: "g", tokens: [] };
  HANDLERS.bots(ctx, { type: "bots", busy: true });
  assert.equal(ctx.g.botsBusy, true);
  HANDLERS.analysis(ctx, { type: "analysis", analysis: { swings: [] } });
  assert.deepEqual(ctx.g.analysis, { swings: [] });
  HANDLERS.hint(ctx, { type: "hint", version: 0, options: [{ action: "L", chance: 0.5 }] });
  assert.equal(ctx.g.hint, null, "no position shown: the hint is for none");
});
