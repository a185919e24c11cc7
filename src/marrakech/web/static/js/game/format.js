// Numbers and sentences of the game page: pure, in the page's language (unit tested).

import { t, lang, durationText } from "../i18n.js";

/** "2.5" or "2,5": a number with at most `digits` decimals. @param {number} x */
export function formatNumber(x, digits = 1, language = lang()) {
  return new Intl.NumberFormat(language, { maximumFractionDigits: digits }).format(x);
}

/** "54%" or "54 %": a probability as a percentage. @param {number} p */
export function formatPercent(p, digits = 0, language = lang()) {
  return new Intl.NumberFormat(language, { style: "percent", maximumFractionDigits: digits }).format(p);
}

/** "2:05" for 125 seconds (a countdown: whole seconds, rounded up); "3 h 20 min" past an hour (turn-based clocks). @param {number} seconds */
export function clockText(seconds) {
  const whole = Math.max(0, Math.ceil(seconds));
  if (whole >= 3600) return durationText(whole);
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}`;
}

/**
 * "Hint: turn left — 54% to win (straight 50%, right 47%)" or "Hint: c6-c7 — 61% to win".
 * @param {{options: {action: string, chance: number}[]}} hint  The server's hint message.
 */
export function hintText(hint) {
  const [best, ...rest] = hint.options;
  const placing = best.action.includes("-");
  // A tenth of a percent: the orientations' chances are often close.
  const line = t("game.hint.line", { choice: placing ? best.action : t(`game.hint.${best.action}`), p: formatPercent(best.chance, 1) });
  if (placing || !rest.length) return line;
  const others = rest.map((o) => `${t(`game.hint.short.${o.action}`)} ${formatPercent(o.chance, 1)}`).join(", ");
  return t("game.hint.others", { line, others });
}

/**
 * What a turn of another's did, for "since your last turn": "rolled 3 to c4, paid you 2".
 * @param {any} turn  A TurnSummary.
 * @param {number[]} you  The page's seats.
 * @param {(seat: number) => string} name  A seat's name.
 */
export function turnText(turn, you, name) {
  const parts = [];
  if (turn.roll) parts.push(t("since.roll", { n: turn.roll, square: turn.path[turn.path.length - 1] || "" }));
  if (turn.tithe && turn.tithe.paid > 0) {
    parts.push(
      you.includes(turn.tithe.payee)
        ? t("since.paid_you", { n: turn.tithe.paid })
        : t("since.paid", { n: turn.tithe.paid, seat: name(turn.tithe.payee) }),
    );
  }
  if (turn.placed) parts.push(t("since.placed", { a: turn.placed[0], b: turn.placed[1] }));
  for (const seat of turn.eliminated || []) parts.push(t("since.out", { seat: name(seat) }));
  for (const seat of turn.resigned || []) parts.push(t("since.resigned", { seat: name(seat) }));
  return parts.join(", ") || t("since.nothing");
}

/** A chat line's words: its text, or its reaction in this reader's language.
 * @param {{kind: string, text: string}} line */
export function words(line) {
  if (line.kind !== "reaction") return line.text;
  const key = `chat.reaction.${line.text}`;
  return t(key) === key ? line.text : t(key);
}
