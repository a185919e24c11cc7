// Numbers and sentences of the game page (static/js/game/format.js).
import { test, afterEach } from "node:test";
import assert from "node:assert/strict";

import { clockText, formatNumber, formatPercent, hintText, turnText } from "../../src/marrakech/web/static/js/game/format.js";
import { setLang, durationText, clockLabel } from "../../src/marrakech/web/static/js/i18n.js";

afterEach(() => setLang("en", { remember: false }));

test("clockText counts down whole seconds, rounded up", () => {
  assert.equal(clockText(125), "2:05");
  assert.equal(clockText(59.2), "1:00");
  assert.equal(clockText(0.1), "0:01");
  assert.equal(clockText(-3), "0:00");
  assert.equal(clockText(600), "10:00");
});

test("turn-based clocks: hours and days, their two largest units, in the page's language", () => {
  assert.equal(clockText(3600), "1 h");
  assert.equal(clockText(2 * 86400 + 3 * 3600 + 59), "2 d 3 h");
  assert.equal(durationText(5 * 3600 + 12 * 60 + 30), "5 h 12 min");
  assert.equal(durationText(86400 + 40), "1 d", "no zero hours");
  assert.equal(durationText(40), "40 s");
  assert.equal(clockLabel("turn_1d", 86400), "Turn-based: 1 d per move");
  assert.equal(clockLabel("blitz", 30), "Blitz: 30 s per turn");
  setLang("fr", { remember: false });
  assert.equal(durationText(3 * 86400), "3 j");
  assert.equal(clockLabel("turn_12h", 43200), "Tour par tour : 12 h par coup");
});

test("numbers and percentages in the page's language", () => {
  assert.equal(formatNumber(2.46), "2.5");
  assert.equal(formatNumber(2.46, 2), "2.46");
  assert.equal(formatPercent(0.543), "54%");
  assert.equal(formatPercent(0.5436, 1), "54.4%");
  setLang("fr", { remember: false });
  assert.equal(formatNumber(2.46), "2,5");
  assert.match(formatPercent(0.543), /^54\s%$/u);
  assert.equal(formatNumber(1.5, 1, "en"), "1.5", "a language may be given");
});

test("a hint says the advised choice, and the other facings' chances", () => {
  const orient = { options: [{ action: "L", chance: 0.543 }, { action: "S", chance: 0.5 }, { action: "R", chance: 0.47 }] };
  const text = hintText(orient);
  assert.match(text, /54\.3%/);
  assert.match(text, /50%/);
  assert.match(text, /47%/);
  const place = hintText({ options: [{ action: "c6-c7", chance: 0.61 }, { action: "c5-c6", chance: 0.6 }] });
  assert.match(place, /c6-c7/);
  assert.match(place, /61%/);
  assert.doesNotMatch(place, /60%/, "a placement's alternatives are not listed");
});

test("a turn of another's, for 'since your last turn'", () => {
  const name = (seat) => ["Red", "Blue"][seat];
  const turn = { seat: 1, roll: 3, path: ["d5", "d6", "d7"], tithe: { paid: 2, payee: 0 }, placed: ["d7", "e7"] };
  assert.equal(turnText(turn, [0], name), "rolled 3 to d7, paid you 2, carpet on d7–e7");
  assert.match(turnText(turn, [], name), /Red/, "a spectator reads who was paid");
  assert.equal(turnText({ seat: 1, path: [] }, [0], name), "passed");
  assert.equal(turnText({ seat: 1, path: [], resigned: [1] }, [0], name), "Blue resigned");
});
