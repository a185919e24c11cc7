// The replay page's words and icons (static/js/replay/view.js).
import { test, afterEach } from "node:test";
import assert from "node:assert/strict";

import { positionText, ICONS } from "../../src/marrakech/web/static/js/replay/view.js";
import { setLang } from "../../src/marrakech/web/static/js/i18n.js";

afterEach(() => setLang("en", { remember: false }));

test("the replay counts turns as the lobby does, moves in brackets", () => {
  const turns = [1, 1, 1, 1, 2, 2, 2, 3];
  assert.equal(positionText(turns, 5, 7), "Turn 2 of 3 (move 5 of 7)");
  setLang("fr", { remember: false });
  assert.equal(positionText(turns, 7, 7), "Tour 3 sur 3 (coup 7 sur 7)");
  // A record from a server that sent no turns: moves only.
  assert.equal(positionText([], 2, 7), "Coup 2 sur 7");
});

test("every media icon is drawn differently; Next is not Play", () => {
  const drawings = Object.values(ICONS);
  assert.equal(new Set(drawings).size, drawings.length);
  assert.notEqual(ICONS.next.split(" M").length, ICONS.play.split(" M").length);
});
