// The lobby's small helpers: the name this browser remembers, what went wrong, and the
// lines that describe a listed game.

import { t, plural, lang, levelName, clockLabel, playerName } from "../i18n.js";

const NAME_KEY = "marrakech.name";

export function savedName() {
  try {
    return localStorage.getItem(NAME_KEY) || "";
  } catch (_) {
    return "";
  }
}

/** @param {string} name */
export function saveName(name) {
  try {
    if (name) localStorage.setItem(NAME_KEY, name);
  } catch (_) {
    // Not remembered then; the form still works.
  }
}

/**
 * A game as the lobby's lists get it from the server (`GET /api/games`).
 * @typedef {{game_id: string, status: string, seats: Record<string, any>[], rule_set?: string,
 *   options?: Record<string, boolean>} & Record<string, any>} GameSummary
 */

/** What went wrong with a request: the server unreachable, or its refusal and why. @param {any} error */
export function failure(error) {
  // A refusal the page has its own words for (a rated game's seats...).
  const key = `lobby.error.${error.code}`;
  const known = error.code ? t(key) : key;
  if (known !== key) return known;
  return error.status ? t("lobby.refused", { message: error.message }) : t("lobby.error", { message: error.message });
}

/** "5 minutes ago" in the page's language. @param {number} seconds */
export function ago(seconds) {
  const format = new Intl.RelativeTimeFormat(lang(), { numeric: "auto" });
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return format.format(-s, "second");
  if (s < 3600) return format.format(-Math.floor(s / 60), "minute");
  if (s < 86400) return format.format(-Math.floor(s / 3600), "hour");
  return format.format(-Math.floor(s / 86400), "day");
}

/** Who sits in a listed game: host, seats taken and open, bots and their levels. @param {GameSummary} summary */
export function whoLine(summary) {
  const parts = [];
  if (summary.host) parts.push(t("lobby.host", { name: playerName(summary.host) }));
  if (typeof summary.taken === "number") {
    parts.push(plural("lobby.seats", summary.taken, { taken: summary.taken, n: summary.players }));
  }
  const open = (summary.open_seats || []).length;
  if (open) parts.push(plural("lobby.seats.open", open));
  const bots = (summary.seats || []).filter((x) => x.kind === "bot").map((x) => levelName(x.level));
  for (const seat of summary.seats || []) if (seat.external) bots.push(t("seat.external.short"));
  parts.push(bots.length ? t("lobby.bots", { levels: bots.join(", ") }) : t("lobby.no_bots"));
  return parts.join(" · ");
}

/** How far a listed game is: status, player turn, clock, age. @param {GameSummary} summary */
export function progressLine(summary) {
  const parts = [t(`lobby.status.${summary.status}`)];
  if (summary.rated) parts.push(t("lobby.rated.badge"));
  const turn = typeof summary.turn === "number" ? summary.turn : null;
  if (turn !== null && summary.status !== "waiting") parts.push(t("lobby.turn", { n: turn }));
  if (summary.clock && summary.clock.mode && summary.clock.mode !== "none") {
    parts.push(clockLabel(summary.clock.mode, summary.clock.seconds));
  }
  if (typeof summary.hints === "boolean") parts.push(t(summary.hints ? "lobby.hints.on" : "lobby.hints.off"));
  if (typeof summary.age === "number") parts.push(ago(summary.age));
  else if (summary.created) parts.push(t("lobby.created.at", { when: new Date(summary.created).toLocaleString(lang()) }));
  return parts.join(" · ");
}

/** The colours of each seat (R4–R7): one colour each, two each at two players. @param {number} players @param {number} seat */
export function seatColours(players, seat) {
  const letters = "RBYP";
  return players === 2 ? [letters[seat], letters[seat + 2]] : [letters[seat]];
}
