// What the server says once per page load (GET /api/config, docs/web-protocol.md): the
// bot levels, weakest first, and the player counts each plays, the level a new bot seat
// starts at, the board's rim (R2)
// for board.js, each clock's seconds per turn, the player counts, the named rule sets
// and the yes/no rule options with their words in every language, and the carpets'
// colours, the chat's longest message and its quick reactions, and whether the server
// sends email reminders. The page types none of it; app.js loads it before any page shows.

import { api } from "./api.js";
import { lang } from "./i18n.js";

/** @typedef {{en: string} & Record<string, string>} Words  A text by language. */
/** @typedef {{label: Words, help: Words, short: Words}} RuleWords */
/** @typedef {RuleWords & {name: string}} RuleSetInfo */
/** @typedef {RuleWords & {name: string, word: string, rule: string, default: boolean}} RuleOptionInfo */
/** @typedef {{base: string, dark: string, light: string, ink: string}} Shades */

/**
 * @type {{levels: string[], levelPlayers: Record<string, number[]>, defaultLevel: string|null,
 *   rim: {loop?: boolean, squares: string[], edges: string[]}[], clocks: Record<string, number>,
 *   players: number[], ruleSets: RuleSetInfo[], ruleOptions: RuleOptionInfo[], palette: Record<string, Shades>,
 *   chatMax: number, reactions: string[], reminders: boolean, push: boolean}}
 */
export const config = {
  levels: [],
  levelPlayers: {},
  defaultLevel: null,
  rim: [],
  clocks: {},
  players: [],
  ruleSets: [],
  ruleOptions: [],
  palette: {},
  chatMax: 200,
  reactions: [],
  reminders: false,
  push: false,
};

/** Keep what GET /api/config answered (also what the unit tests give). */
/** @param {any} answer  the JSON of GET /api/config */
export function setConfig(answer) {
  config.levels = answer.levels;
  config.levelPlayers = answer.level_players || {};
  config.defaultLevel = answer.default_level;
  config.rim = answer.rim;
  config.clocks = answer.clocks || {};
  config.players = answer.players || [];
  config.ruleSets = answer.rule_sets || [];
  config.ruleOptions = answer.rule_options || [];
  config.palette = answer.palette || {};
  config.chatMax = answer.chat_max || 200;
  config.reactions = answer.reactions || [];
  config.reminders = Boolean(answer.reminders);
  config.push = Boolean(answer.push);
}

export async function loadConfig() {
  setConfig(await api.config());
}

/**
 * The bot levels, weakest first, that play games of `players` (the learned level plays
 * the shipped policies' 2 and 4 only); a level the server gave no counts for plays all.
 * @param {number} players
 */
export function levelsFor(players) {
  return config.levels.filter((level) => !config.levelPlayers[level] || config.levelPlayers[level].includes(players));
}

/**
 * A text of the server's in the page's language, else in English.
 * @param {Words|undefined} words
 * @param {string} [language]
 */
export function localized(words, language = lang()) {
  if (!words) return "";
  return words[language] ?? words.en ?? "";
}

/**
 * A game's rules as people read them, from its `rule_set` and `options` (GameMeta,
 * GameSummary): the rule set's short words, then each option that is on. A rule set the
 * server did not name (`custom`) shows its token as stored.
 * @param {{rules?: string, rule_set?: string, options?: Record<string, boolean>}} game
 * @param {string} [language]
 */
export function rulesLabel(game, language = lang()) {
  const named = config.ruleSets.find((r) => r.name === game.rule_set);
  if (!named) return String(game.rules || game.rule_set || "");
  const options = game.options || {};
  const parts = [localized(named.short, language)];
  for (const option of config.ruleOptions) if (options[option.name]) parts.push(localized(option.short, language));
  return parts.join(", ");
}
