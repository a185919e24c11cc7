// The game's chat (static/js/game/chat.js): lines taken in by id, a history replacing
// them, hidden lines dropped, muted seats and reported lines not shown.
import { test } from "node:test";
import assert from "node:assert/strict";

import { addLines, dropLines, shown } from "../../src/marrakech/web/static/js/game/chat.js";

const line = (id, seat, text = "hi") => ({ id, seat, channel: "players", kind: "text", text, at: "" });
const newChat = () => ({ lines: [], muted: new Set(), reported: new Set(), open: true, unread: 0, status: "" });

test("lines come in once each, in order; a history replaces them", () => {
  const chat = newChat();
  assert.deepEqual(addLines(chat, { lines: [line(2, 0), line(1, 1)] }).map((x) => x.id), [2, 1]);
  assert.deepEqual(addLines(chat, { lines: [line(2, 0), line(3, 1)] }).map((x) => x.id), [3]);
  assert.deepEqual(chat.lines.map((x) => x.id), [1, 2, 3]);
  assert.deepEqual(addLines(chat, { lines: [line(3, 1)], history: true }), []);
  assert.deepEqual(chat.lines.map((x) => x.id), [3]);
  dropLines(chat, [3]);
  assert.deepEqual(chat.lines, []);
});

test("a muted seat's lines and reported lines are not shown; spectators' are", () => {
  const chat = newChat();
  chat.muted.add(1);
  chat.reported.add(7);
  assert.equal(shown(chat, line(1, 1)), false);
  assert.equal(shown(chat, line(2, 0)), true);
  assert.equal(shown(chat, line(7, 0)), false);
  assert.equal(shown(chat, line(8, null)), true);
});
