// The page's words (static/js/i18n.js): placeholders, fallbacks, plural rules.
import { test, afterEach } from "node:test";
import assert from "node:assert/strict";

import { t, plural, setLang, lang, missingKeys, clockLabel, levelName, seatColoursName, onLangChange, pickLang, browserLang } from "../../src/marrakech/web/static/js/i18n.js";

afterEach(() => setLang("en", { remember: false }));

test("every key exists in both languages", () => {
  assert.deepEqual(missingKeys(), []);
});

test("t fills placeholders and says the key it does not know", () => {
  assert.equal(t("lobby.players.n", { n: 3 }), "3 players");
  assert.equal(t("lobby.players.n"), "{n} players", "a missing value stays visible");
  assert.equal(t("no.such.key"), "no.such.key");
});

test("plural rules: English says one for 1 only, French for 0 and 1", () => {
  assert.equal(plural("game.waiting", 1), "Waiting for players: 1 open seat.");
  assert.equal(plural("game.waiting", 0), "Waiting for players: 0 open seats.");
  assert.equal(plural("game.waiting", 2), "Waiting for players: 2 open seats.");
  setLang("fr", { remember: false });
  assert.equal(lang(), "fr");
  assert.equal(plural("game.waiting", 0), t("game.waiting.one", { n: 0 }));
  assert.equal(plural("game.waiting", 1), t("game.waiting.one", { n: 1 }));
  assert.equal(plural("game.waiting", 2), t("game.waiting.other", { n: 2 }));
  assert.notEqual(t("game.waiting.one", { n: 1 }), t("game.waiting.other", { n: 1 }));
});

test("switching the language tells the listeners, once", () => {
  const heard = [];
  const off = onLangChange((next) => heard.push(next));
  setLang("fr", { remember: false });
  setLang("fr", { remember: false });
  setLang("de", { remember: false });
  off();
  setLang("en", { remember: false });
  assert.deepEqual(heard, ["fr"]);
});

test("clock modes, bot levels and seat colours in words", () => {
  assert.equal(clockLabel("blitz", 30), "Blitz: 30 s per turn");
  assert.equal(clockLabel("relaxed", 180), "Relaxed clock: 3 min per turn");
  assert.equal(clockLabel("relaxed", 90), "Relaxed clock: 1:30 per turn");
  assert.equal(levelName("hard"), "hard");
  assert.equal(levelName("learned"), "learned (neural network)");
  assert.equal(levelName("grandmaster"), "grandmaster", "a level new to the page keeps its name");
  assert.equal(seatColoursName(["R", "Y"]), "Red-Yellow");
});

test("the page's language: the player's choice, else the browser's, else the game's", () => {
  // A guest with a French browser opening an English host's link reads French.
  assert.equal(pickLang({ stored: null, languages: ["fr-FR", "en"], game: "en" }), "fr");
  // ... unless they chose otherwise on this browser (the EN / FR buttons).
  assert.equal(pickLang({ stored: "en", languages: ["fr-FR"], game: "fr" }), "en");
  // The first language the page speaks, in the browser's order.
  assert.equal(pickLang({ stored: null, languages: ["de-DE", "fr-CA", "en"], game: "en" }), "fr");
  // A browser in neither language follows the game (the host's), else English.
  assert.equal(pickLang({ stored: null, languages: ["de-DE"], game: "fr" }), "fr");
  assert.equal(pickLang({ stored: null, languages: ["de-DE"], game: null }), "en");
  assert.equal(pickLang({ stored: "xx", languages: [], game: "de" }), "en");
  assert.equal(browserLang(["EN-gb"]), "en");
  assert.equal(browserLang([]), null);
});

test("counts go through the plural rules; sentences end with a full stop", async () => {
  const { whoLine } = await import("../../src/marrakech/web/static/js/lobby/lines.js");
  assert.equal(plural("preview.expected", 1, { n: "1" }), "≈ 1 dirham");
  assert.equal(plural("preview.expected", 2.5, { n: "2.5" }), "≈ 2.5 dirhams");
  assert.equal(plural("game.place.count", 1), "1 legal placement");
  assert.match(t("game.place.choice", { i: 1, n: 4, a: "c3", b: "c4" }), /c4\.$/);
  setLang("fr", { remember: false });
  assert.match(whoLine({ taken: 1, players: 3, seats: [] }), /^1 siège occupé sur 3/);
  assert.match(whoLine({ taken: 2, players: 3, seats: [] }), /^2 sièges occupés sur 3/);
  assert.equal(plural("preview.expected", 0.5, { n: "0,5" }), "≈ 0,5 dirham");
  assert.match(t("game.place.choice", { i: 1, n: 4, a: "c3", b: "c4" }), /c4\.$/);
});
