// The replay page: /r/{id} for a stored game, /r/upload for a record chosen in the lobby.
// The server computes every position and event from the record; the page steps through.
// Its modules: replay/view.js (layout, drawing, turning points: the view), replay/player.js
// (stepping, playing, keys: the controller, R.ctrl, which the view's buttons call).

import { t, lang, onLangChange } from "./i18n.js";
import { api, ApiError, errorText } from "./api.js";
import { build, render } from "./replay/view.js";
import { onKey, newPlayer } from "./replay/player.js";

export const UPLOAD_KEY = "marrakech.upload";

/**
 * @typedef {object} Replay  One mounted replay: what its modules share.
 * @property {HTMLElement} root
 * @property {string} gameId
 * @property {boolean} upload  A record from the lobby, not a stored game.
 * @property {{data: any, meta: any, pos: number, target: number|null, queued: number|null,
 *   playing: boolean, timer: any, busy: boolean, error: string|null, analysis: any}} r
 * @property {Record<string, any>} ui  The board, panels, die, log, slider and buttons.
 * @property {import("./replay/player.js").Player} ctrl  What the view asks of the replay.
 */

/** A game meta built from a record's seat labels ("Ann", "human", "bot:easy"). @param {Record<string, any>} record */
export function metaFromRecord(record) {
  return {
    players: record.players,
    rules: record.rules,
    seats: (record.seats || []).map((/** @type {string | null} */ label, /** @type {number} */ seat) => {
      const text = String(label || "");
      if (text.startsWith("bot:")) return { seat, kind: "bot", level: text.slice(4), name: "" };
      if (text === "human" || text === "open" || text === "") return { seat, kind: "human", name: "" };
      return { seat, kind: "human", name: text };
    }),
  };
}

/** The replay and the analysis from the server (or the uploaded record), then draw. @param {Replay} R */
async function load(R) {
  const { r, upload, gameId } = R;
  r.error = null;
  try {
    if (upload) {
      const text = sessionStorage.getItem(UPLOAD_KEY);
      if (!text) throw new Error(t("replay.upload.none"));
      r.data = await api.replayRecord(text, lang());
    } else {
      r.data = await api.replay(gameId, lang());
    }
    r.meta = metaFromRecord(r.data.record);
    r.pos = Math.min(r.pos, r.data.states.length - 1);
    if (!upload) {
      // The analysis of a finished game (luck, chances, turning points), when ready.
      try {
        const answer = await api.analysis(gameId);
        r.analysis = answer && answer.status === "ready" ? answer.analysis : null;
      } catch (_) {
        r.analysis = null; // an older server, or not over: the replay works without it
      }
    }
  } catch (error) {
    r.data = null;
    r.error = error instanceof ApiError && error.status === 404 ? t("game.not_found") : t("replay.error", { message: errorText(error) });
  }
  build(R);
  render(R);
}

/** Show the replay of `gameId` (or of the uploaded record) in `root`; returns what unmounts it. @param {HTMLElement} root @param {string} gameId */
export function mountReplay(root, gameId) {
  /** @type {Replay} */
  const R = {
    root,
    gameId,
    upload: gameId === "upload",
    r: { data: null, meta: null, pos: 0, target: null, queued: null, playing: false, timer: null, busy: false, error: null, analysis: null },
    ui: {},
    ctrl: /** @type {any} */ (null), // set just below, before the view reads it
  };
  R.ctrl = newPlayer(R);
  build(R);
  R.ui.posLabel.textContent = t("game.loading");
  const keys = (/** @type {KeyboardEvent} */ e) => onKey(R, e);
  document.addEventListener("keydown", keys);
  const off = onLangChange(() => load(R));
  load(R);
  return () => {
    clearTimeout(R.r.timer);
    document.removeEventListener("keydown", keys);
    off();
  };
}
