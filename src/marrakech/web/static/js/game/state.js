// The game page's model and how each server message changes it: pure data, no DOM, no
// rule (the server says what is legal and what changed, docs/web-protocol.md). The
// unit tests (tests/js/) run these in Node.

/**
 * What the server sends, read as it comes (docs/web-protocol.md): a message, a position,
 * a turn's summary.
 * @typedef {Record<string, any>} Message
 * @typedef {import("../board.js").StateView} StateView
 * @typedef {Record<string, any>} TurnSummary
 */

/**
 * @typedef {object} GameState  What the page knows of its game (window.marrakechGame).
 * @property {any} meta  The game's GameMeta (seats, status, clock, rule_set, options).
 * @property {number[]} you  The seats this page holds.
 * @property {number} version  Actions so far in the view shown.
 * @property {StateView} view  The state view; null until the welcome, before which
 *   nothing is drawn (the drawing reads it as set, each entry point checks it).
 * @property {Record<string, string[]>} legal  By seat, the tokens it may send now.
 * @property {string[]} log
 * @property {Message[]} queue  Messages waiting while an update animates.
 * @property {boolean} busy  Messages are being applied (an update animates).
 * @property {boolean} pending  An action was sent and not answered.
 * @property {Unanswered|null} unanswered  The last action sent, until an update answers
 *   it: sent again after a reconnection or a `server_error` while the game is still at
 *   its version (the server's version check makes that safe: never applied twice).
 * @property {string|null} orientPreview  The facing previewed (L, S, R).
 * @property {string|null} placeFirst  The first square picked of a carpet.
 * @property {{token: string, a: string, b: string}|null} placeChoice  The carpet previewed.
 * @property {number|null} lastSeat  The seat that last acted here (hotseat handovers).
 * @property {number|null} handover  The seat the screen is being handed to.
 * @property {boolean} endShown
 * @property {HTMLDialogElement|null} endDialog
 * @property {string} speed
 * @property {string} conn  connecting, open, down or fatal.
 * @property {string|null} fatal  Why nothing more can be shown.
 * @property {boolean} botsBusy
 * @property {Record<string, any>[]|null} preview  The server's orient preview while a seat orients.
 * @property {any} hint  The hint for this position (the server's "hint" message).
 * @property {number|null} hintAsked  The version a hint was asked for.
 * @property {import("../animate.js").GameEvent[]} lastTurn  The turn drawn on the board: events seen live...
 * @property {any} lastSummary  ...else the last turn's summary.
 * @property {TurnSummary[]} since  The turns since this page's seats last played (TurnSummary).
 * @property {any} clock
 * @property {number} clockAt  When the clock arrived (performance.now()).
 * @property {any} rematch
 * @property {any} analysis
 * @property {boolean} wasMine  The page could act when it last settled.
 * @property {number} welcomes
 * @property {{turns: number, chimes: number, notices: number}} signals
 */

/**
 * @typedef {object} Unanswered  An action sent and not answered yet.
 * @property {number} seat
 * @property {number} version  The position's version it was sent for.
 * @property {string} action  Its token.
 * @property {number} tries  The `server_error`s it got (each followed by a resend).
 * @property {number} sends  The times it was sent again (after a reconnection or an error).
 */

/** How many times an action refused with `server_error` (nothing changed) is sent again. */
export const RESENDS = 5;

/** The pause before sending an action again after its `tries`-th `server_error` (ms): 0.5 s, then doubling. @param {number} tries */
export function resendDelay(tries) {
  return 500 * 2 ** Math.max(0, tries - 1);
}

/** @param {string} speed  The animation speed chosen. @returns {GameState} */
export function newState(speed) {
  return {
    meta: null,
    you: [],
    version: 0,
    view: /** @type {any} */ (null),
    legal: {},
    log: [],
    queue: [],
    busy: false,
    pending: false,
    unanswered: null,
    orientPreview: null,
    placeFirst: null,
    placeChoice: null,
    lastSeat: null,
    handover: null,
    endShown: false,
    endDialog: null,
    speed,
    conn: "connecting",
    fatal: null,
    botsBusy: false,
    preview: null,
    hint: null,
    hintAsked: null,
    lastTurn: [],
    lastSummary: null,
    since: [],
    clock: null,
    clockAt: 0,
    rematch: null,
    analysis: null,
    wasMine: false,
    welcomes: 0,
    signals: { turns: 0, chimes: 0, notices: 0 },
  };
}

/**
 * Merge what changed in the state view (an update's `changes`) into the view the page
 * has: objects, and arrays by index, get what changed; anything else is replaced. Pure
 * data, no rule: the server says what changed (docs/web-protocol.md).
 * @param {any} target
 * @param {any} changes
 * @returns {any}
 */
export function applyChanges(target, changes) {
  if (changes === null || typeof changes !== "object" || Array.isArray(changes)) return changes;
  if (target === null || typeof target !== "object") return changes;
  const merged = Array.isArray(target) ? target.slice() : { ...target };
  for (const [key, value] of Object.entries(changes)) merged[key] = applyChanges(merged[key], value);
  return merged;
}

/** The seat tokens of a link's fragment: `#t=TOKEN[,TOKEN…]`. @param {string} hash */
export function tokensFromHash(hash) {
  const m = /(?:^#|&)t=([^&]*)/.exec(hash || "");
  if (!m) return [];
  return decodeURIComponent(m[1])
    .split(",")
    .map((x) => x.trim())
    .filter(Boolean);
}

/** The seat of this page's that may act now, or null. @param {GameState} g */
export function activeSeat(g) {
  if (g.meta && g.meta.status === "waiting") return null;
  for (const seat of g.you) {
    const list = g.legal[String(seat)];
    if (list && list.length) return seat;
  }
  return null;
}

/** A seat's GameMeta entry (kind, name, presence, host, stand_in…), or null. @param {GameState} g @param {number} seat */
export function seatInfo(g, seat) {
  return g.meta && g.meta.seats ? g.meta.seats[seat] || null : null;
}

/** The carpets the active seat may place, as their two squares. @param {GameState} g */
export function placements(g) {
  const seat = activeSeat(g);
  if (seat === null) return [];
  return g.legal[String(seat)]
    .filter((tok) => tok.includes("-"))
    .map((tok) => {
      const [a, b] = tok.split("-");
      return { token: tok, a, b };
    });
}

/** The squares a carpet may cover with `square`. @param {GameState} g @param {string} square */
export function partnersOf(g, square) {
  return placements(g)
    .filter((p) => p.a === square || p.b === square)
    .map((p) => (p.a === square ? p.b : p.a));
}

/** The placement covering squares x and y (either order), or null. @param {GameState} g @param {string} x @param {string} y */
export function findPlacement(g, x, y) {
  return placements(g).find((p) => (p.a === x && p.b === y) || (p.a === y && p.b === x)) || null;
}

/** Whether the players may ask for hints in this game. @param {GameState} g */
export function hintsAllowed(g) {
  return Boolean(g.meta && g.meta.hints);
}

/** The advice for the position shown (null: none asked, or it was for another). @param {GameState} g */
export function currentHint(g) {
  return g.hint && g.hint.version === g.version ? g.hint : null;
}

/** The advised action for the position shown, or null. @param {GameState} g */
export function advised(g) {
  const hint = currentHint(g);
  return hint ? hint.options[0].action : null;
}

/** Assam is turned after the placement, for the next player (the orient_last option, R32). @param {GameState} g */
export function orientLast(g) {
  return Boolean(g.meta && g.meta.options && g.meta.options.orient_last);
}

/** The server's preview of an orientation (L, S, R), or null. @param {GameState} g @param {string} tok */
export function previewOf(g, tok) {
  return (g.preview || []).find((o) => o.orient === tok) || null;
}

/** @type {Record<string, number>} */
const TURN = { L: 3, S: 0, R: 1 }; // quarter turns clockwise, for the preview arrow only
const FACINGS = "NESW";

/** The facing Assam would have after the choice `tok` (for the preview arrow). @param {GameState} g @param {string | null} tok */
export function previewFacing(g, tok) {
  if (!tok || !g.view) return null;
  const i = FACINGS.indexOf(g.view.assam.facing);
  return FACINGS[(i + TURN[tok]) % 4];
}

/** A new position: the choice being made and the advice of the last one are gone. @param {GameState} g */
export function resetChoice(g) {
  g.hint = null;
  g.hintAsked = null;
  g.orientPreview = null;
  g.placeFirst = null;
  g.placeChoice = null;
}

/** The turn clock as the server sent it, received at `now` (ms). @param {GameState} g @param {any} clock @param {number} now */
export function setClock(g, clock, now) {
  if (!clock) return;
  g.clock = clock;
  g.clockAt = now;
}

/** The seconds left on the running clock at `now` (null when no seat's time runs). @param {GameState} g @param {number} now */
export function clockLeft(g, now) {
  const clock = g.clock;
  if (!clock || clock.mode === "none" || clock.seat === null || clock.seat === undefined) return null;
  if (clock.remaining === null || clock.remaining === undefined) return null;
  return clock.remaining - (now - g.clockAt) / 1000;
}

/** An action sent for `seat` at the version shown: the page waits for its answer. @param {GameState} g @param {number} seat @param {string} action */
export function noteSent(g, seat, action) {
  g.pending = true;
  g.lastSeat = seat;
  g.unanswered = { seat, version: g.version, action, tries: 0, sends: 0 };
}

/**
 * The unanswered action to send again, or null: only while the game is at its version
 * and the seat may still send it (else the game moved on: it was applied, or another
 * move came first, and it is dropped).
 * @param {GameState} g
 */
export function toResend(g) {
  const u = g.unanswered;
  if (!u || u.version !== g.version || !(g.legal[String(u.seat)] || []).includes(u.action)) return null;
  return { type: "action", seat: u.seat, version: u.version, action: u.action };
}

/** A `welcome`: the whole game again (after every (re)connection). @param {GameState} g @param {Message} msg @param {number} now */
export function applyWelcome(g, msg, now) {
  g.botsBusy = false; // the server says so again after the welcome if they still are
  g.meta = msg.game;
  g.you = msg.you || [];
  g.version = msg.version;
  g.view = msg.state;
  g.legal = msg.legal || {};
  g.log = msg.log || [];
  g.preview = msg.preview || null;
  g.lastTurn = [];
  g.lastSummary = msg.last_move || null;
  g.since = msg.since || [];
  g.analysis = msg.analysis || null;
  g.pending = false;
  if (!toResend(g)) g.unanswered = null; // else the page sends it again (the connection dropped before its answer)
  g.welcomes += 1;
  setClock(g, g.meta.clock, now);
  resetChoice(g);
  if (g.lastSeat === null) g.lastSeat = activeSeat(g);
}

/** An `update` that does not follow the version shown: only a new welcome can help. @param {GameState} g @param {Message} msg */
export function updateGap(g, msg) {
  const events = msg.events || [];
  return Boolean(msg.changes) && msg.version - events.length !== g.version;
}

/** The view an `update` leads to. @param {GameState} g @param {Message} msg */
export function updatedView(g, msg) {
  return msg.changes ? applyChanges(g.view, msg.changes) : msg.state;
}

/** An `update` once its events are shown: the new position, its legal actions, the log. @param {GameState} g @param {Message} msg @param {StateView} next @param {number} now */
export function applyUpdate(g, msg, next, now) {
  g.version = msg.version;
  g.view = next;
  g.legal = msg.legal || {};
  // Someone else's move: the next time this page may act is a new turn to signal,
  // even if the updates between come faster than the page settles.
  if (activeSeat(g) === null) g.wasMine = false;
  g.preview = msg.preview || null;
  if (msg.clock) setClock(g, msg.clock, now);
  noteTurn(g, msg.last_move);
  g.pending = false;
  g.unanswered = null; // answered, or another move came first: either way it is stale
  resetChoice(g);
  g.log = [...g.log, ...(msg.log || [])];
}

/** A finished turn: this page's own clears "since your last turn", another's joins it. @param {GameState} g @param {TurnSummary} turn */
export function noteTurn(g, turn) {
  if (!turn || (g.lastSummary && g.lastSummary.end === turn.end)) return;
  g.lastSummary = turn;
  if (!g.you.length) return;
  if (g.you.includes(turn.seat)) g.since = [];
  else if (!g.since.some((x) => x.end === turn.end)) g.since = [...g.since, turn];
}

/** A `hint` for the position shown (true), or for one that is gone (false). @param {GameState} g @param {Message} msg */
export function applyHint(g, msg) {
  if (!g.view || msg.version !== g.version) return false;
  g.hint = msg;
  g.hintAsked = null;
  return true;
}

/**
 * An `error`: what was sent is no longer waited for; but an action refused with
 * `server_error` (the server could not store it: nothing changed) is still waited for,
 * to be sent again after resendDelay, up to RESENDS times. Returns whether to resend.
 * @param {GameState} g @param {Message} msg @param {string} notFound
 */
export function applyRefusal(g, msg, notFound) {
  g.hintAsked = null;
  if (msg.code === "not_found") g.fatal = notFound;
  const u = g.unanswered;
  if (msg.code === "server_error" && u && u.tries < RESENDS && toResend(g)) {
    u.tries += 1;
    return true; // still pending: the page waits for the resend's answer
  }
  g.pending = false;
  g.unanswered = null;
  return false;
}

/** After the messages settle: a hotseat hands the screen over when another seat of the
 * @param {GameState} g
 * page's is to act. Returns the seat that may act (or null). */
export function settleSeat(g) {
  const seat = activeSeat(g);
  if (seat !== null && g.you.length > 1 && g.lastSeat !== null && seat !== g.lastSeat && g.handover === null) {
    g.handover = seat;
  }
  if (seat !== null && g.handover === null) g.lastSeat = seat;
  return seat;
}

/** What the page waits for now (tests and assistive tools read it as data-input). @param {GameState} g @param {number | null} seat */
export function inputState(g, seat) {
  const animating = g.busy || g.queue.length > 0;
  if (g.view.phase === "over" && !animating) return "over";
  if (seat === null || animating || g.pending || g.conn !== "open") return "wait";
  if (g.handover !== null) return "handover";
  return g.view.phase;
}
