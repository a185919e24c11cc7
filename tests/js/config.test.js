// What GET /api/config says, as the page reads it (static/js/config.js): words in the
// page's language, and a game's rules described from its rule_set and options.
import { test, beforeEach, afterEach } from "node:test";
import assert from "node:assert/strict";

import { config, setConfig, localized, rulesLabel, levelsFor } from "../../src/marrakech/web/static/js/config.js";
import { setLang } from "../../src/marrakech/web/static/js/i18n.js";

/** The shape of the server's answer (marrakech.web.protocol.server.PageConfig). */
function answer() {
  const words = (en, fr) => ({ label: { en: `${en} label`, fr: `${fr} label` }, help: { en: `${en} help`, fr: `${fr} help` }, short: { en, fr } });
  return {
    levels: ["easy", "learned", "medium", "hard", "expert"],
    level_players: { easy: [2, 3, 4], learned: [2, 4], medium: [2, 3, 4], hard: [2, 3, 4], expert: [2, 3, 4] },
    default_level: "medium",
    rim: [],
    clocks: { relaxed: 180, blitz: 30 },
    players: [2, 3, 4],
    rule_sets: [
      { name: "standard", ...words("standard (rulebook)", "standard (livret de règles)") },
      { name: "bga", ...words("bga", "bga") },
    ],
    rule_options: [{ name: "orient_last", word: "orient-last", rule: "R32", default: false, ...words("Assam turned last", "Assam tourné en fin de tour") }],
    palette: { R: { base: "#D55E00", dark: "#8F3F00", light: "#F08A4B", ink: "#ffffff" } },
  };
}

beforeEach(() => setConfig(answer()));
afterEach(() => setLang("en", { remember: false }));

test("the answer is kept under the page's names", () => {
  assert.equal(config.defaultLevel, "medium");
  assert.deepEqual(config.players, [2, 3, 4]);
  assert.equal(config.ruleOptions[0].word, "orient-last");
  assert.equal(config.palette.R.dark, "#8F3F00");
});

test("words in the page's language, else in English", () => {
  assert.equal(localized({ en: "yes", fr: "oui" }), "yes");
  setLang("fr", { remember: false });
  assert.equal(localized({ en: "yes", fr: "oui" }), "oui");
  assert.equal(localized({ en: "yes" }), "yes");
  assert.equal(localized(undefined), "");
});

test("a game's rules: the rule set's short words, then each option on", () => {
  assert.equal(rulesLabel({ rule_set: "standard", options: { orient_last: false } }), "standard (rulebook)");
  assert.equal(rulesLabel({ rule_set: "bga", options: { orient_last: true } }), "bga, Assam turned last");
  assert.equal(rulesLabel({ rule_set: "standard", options: { orient_last: true } }, "fr"), "standard (livret de règles), Assam tourné en fin de tour");
  assert.equal(rulesLabel({ rules: "carpets=12", rule_set: "custom", options: {} }), "carpets=12", "a custom set shows its token");
});

test("a new yes/no option of the core's is described with no page code", () => {
  const more = answer();
  more.rule_options.push({ name: "big_dice", word: "big-dice", rule: "R99", default: false, label: { en: "Big dice" }, help: { en: "" }, short: { en: "big dice" } });
  setConfig(more);
  assert.equal(rulesLabel({ rule_set: "standard", options: { orient_last: true, big_dice: true } }), "standard (rulebook), Assam turned last, big dice");
  setLang("fr", { remember: false });
  assert.equal(rulesLabel({ rule_set: "standard", options: { big_dice: true } }), "standard (livret de règles), big dice");
});

test("a level is offered at the player counts it plays: learned at 2 and 4, not 3", () => {
  assert.deepEqual(levelsFor(2), ["easy", "learned", "medium", "hard", "expert"]);
  assert.deepEqual(levelsFor(3), ["easy", "medium", "hard", "expert"]);
  assert.deepEqual(levelsFor(4), config.levels);
  const older = answer();
  delete older.level_players; // a server that does not say: every level everywhere
  setConfig(older);
  assert.deepEqual(levelsFor(3), older.levels);
});
