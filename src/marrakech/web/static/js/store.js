// What this browser remembers: the games it created or joined and their seat tokens
// (localStorage), so the lobby lists "your games" and a link can be reopened later.

const KEY = "marrakech.games";
const MAX = 60;

/**
 * A game this browser remembers: the seat tokens held here and the seats they open, the
 * invitations handed out, when it was added and last opened.
 * @typedef {{id: string, tokens: string[], seats: number[], invites: Record<string, string>,
 *   players: number | null, added: string, seen?: string}} StoredGame
 */

/** @returns {StoredGame[]} */
function load() {
  try {
    const list = JSON.parse(localStorage.getItem(KEY) || "[]");
    return Array.isArray(list) ? list.filter((g) => g && typeof g.id === "string") : [];
  } catch (_) {
    return [];
  }
}

/** @param {StoredGame[]} list */
function save(list) {
  try {
    localStorage.setItem(KEY, JSON.stringify(list.slice(0, MAX)));
  } catch (_) {
    // Storage full or disabled: the game still works, the lobby just forgets it.
  }
}

export function myGames() {
  return load();
}

/** @param {string} id */
export function getGame(id) {
  return load().find((g) => g.id === id) || null;
}

/**
 * Add or update a game: `tokens` are seat tokens held here (a hotseat holds several),
 * `seats` the seat numbers they open, `invites` maps seat number to an invitation link.
 * @param {string} id
 * @param {{tokens?: string[], seats?: number[], invites?: Record<string, string>,
 *   players?: number | null}} [held]
 */
export function remember(id, { tokens = [], seats = [], invites = {}, players = null } = {}) {
  const list = load();
  let entry = list.find((g) => g.id === id);
  if (!entry) {
    entry = { id, tokens: [], seats: [], invites: {}, players, added: new Date().toISOString() };
    list.unshift(entry);
  }
  entry.tokens = [...new Set([...(entry.tokens || []), ...tokens])];
  entry.seats = [...new Set([...(entry.seats || []), ...seats])].sort();
  entry.invites = { ...(entry.invites || {}), ...invites };
  if (players) entry.players = players;
  entry.seen = new Date().toISOString();
  // Most recently seen first.
  list.sort((a, b) => String(b.seen || b.added).localeCompare(String(a.seen || a.added)));
  save(list);
  return entry;
}

/** @param {string} id */
export function forget(id) {
  save(load().filter((g) => g.id !== id));
}

/** The link that opens a game with the given tokens (hotseat when several). @param {string} id @param {(string | null)[]} tokens */
export function gameLink(id, tokens) {
  const list = tokens.filter(Boolean);
  return list.length ? `/g/${id}#t=${list.join(",")}` : `/g/${id}`;
}

/** The link of a rematch (the server's "rematch" message) with this page's new tokens. @param {{game_id: string, seats: {token: string}[]} | null} rematch */
export function rematchLink(rematch) {
  return rematch ? gameLink(rematch.game_id, rematch.seats.map((x) => x.token)) : null;
}
