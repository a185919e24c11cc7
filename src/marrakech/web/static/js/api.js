// JSON over HTTP to the server (docs/web-protocol.md). Errors become ApiError with the
// server's code and message.

export class ApiError extends Error {
  /** @param {number} status  0 when the server was not reached @param {string} code @param {string} message */
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** What went wrong, in words: an Error's message, or the thing thrown. @param {unknown} error */
export function errorText(error) {
  return error instanceof Error && error.message ? error.message : String(error);
}

/**
 * The server's JSON answer (docs/web-protocol.md), or an ApiError.
 * @param {string} method
 * @param {string} path
 * @param {unknown} [body]  JSON, or a string sent as it is
 * @returns {Promise<any>}
 */
async function request(method, path, body) {
  let response;
  try {
    response = await fetch(path, {
      method,
      headers: body === undefined ? {} : { "Content-Type": "application/json" },
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    });
  } catch (error) {
    throw new ApiError(0, "network", errorText(error));
  }
  let data;
  const text = await response.text();
  try {
    data = text ? JSON.parse(text) : null;
  } catch (_) {
    data = null;
  }
  if (!response.ok) {
    const code = (data && data.error) || `http_${response.status}`;
    const message = (data && data.message) || text || response.statusText;
    throw new ApiError(response.status, code, message);
  }
  return data;
}

export const api = {
  config: () => request("GET", "/api/config"),
  createGame: (/** @type {object} */ spec) => request("POST", "/api/games", spec),
  games: (/** @type {string[]} */ ids) =>
    ids.length ? request("GET", `/api/games?ids=${ids.map(encodeURIComponent).join(",")}`) : [],
  openGames: () => request("GET", "/api/games/open"),
  watchlist: () => request("GET", "/api/watchlist"),
  // The device's seat tokens go in the body, never in an address.
  myGames: (/** @type {object[]} */ seats) => request("POST", "/api/my-games", { seats }),
  join: (/** @type {string} */ id, /** @type {number} */ seat, /** @type {string} */ name = "") =>
    request("POST", `/api/games/${encodeURIComponent(id)}/join`, { seat, name }),
  replay: (/** @type {string} */ id, /** @type {string} */ lang) =>
    request("GET", `/api/games/${encodeURIComponent(id)}/replay?lang=${lang}`),
  replayRecord: (/** @type {string} */ recordText, /** @type {string} */ lang) => request("POST", `/api/replay?lang=${lang}`, recordText),
  analysis: (/** @type {string} */ id) => request("GET", `/api/games/${encodeURIComponent(id)}/analysis`),
  lessons: (/** @type {string} */ lang) => request("GET", `/api/lessons?lang=${lang}`),
  lessonAnswer: (/** @type {string} */ id, /** @type {string} */ move, /** @type {string} */ lang) =>
    request("POST", `/api/lessons/${encodeURIComponent(id)}/answer?lang=${lang}`, { move }),
  recordUrl: (/** @type {string} */ id) => `/api/games/${encodeURIComponent(id)}/record`,
  // Accounts (optional): the session is an HttpOnly cookie the page never reads.
  account: () => request("GET", "/api/account"),
  signUp: (/** @type {string} */ name, /** @type {string} */ password) => request("POST", "/api/account/signup", { name, password }),
  signIn: (/** @type {string} */ name, /** @type {string} */ password) => request("POST", "/api/account/signin", { name, password }),
  signOut: () => request("POST", "/api/account/signout", {}),
  signOutEverywhere: () => request("POST", "/api/account/signout-everywhere", {}),
  setPassword: (/** @type {string} */ password, /** @type {string | null} */ current) =>
    request("POST", "/api/account/password", current ? { password, current_password: current } : { password }),
  passkeyOptions: (/** @type {string} */ kind, /** @type {object} */ body = {}) => request("POST", `/api/account/passkey/${kind}/options`, body),
  passkeyAnswer: (/** @type {string} */ kind, /** @type {string} */ challengeId, /** @type {object} */ credential) =>
    request("POST", `/api/account/passkey/${kind}`, { challenge_id: challengeId, credential }),
  removePasskey: (/** @type {string} */ id) => request("POST", "/api/account/passkey/remove", { credential_id: id }),
  deleteAccount: (/** @type {string} */ name) => request("POST", "/api/account/delete", { name }),
  claim: (/** @type {object[]} */ seats) => request("POST", "/api/account/claim", { seats }),
  exportUrl: "/api/account/export",
  // Ratings (docs/web.md, "Ratings").
  leaderboard: (/** @type {number} */ players) => request("GET", `/api/leaderboard?players=${players}`),
  profile: (/** @type {string} */ name) => request("GET", `/api/players/${encodeURIComponent(name)}`),
  // Tournaments (docs/web.md, "Tournaments").
  tournaments: () => request("GET", "/api/tournaments"),
  createTournament: (/** @type {object} */ spec) => request("POST", "/api/tournaments", spec),
  tournament: (/** @type {string} */ id) => request("GET", `/api/tournaments/${encodeURIComponent(id)}`),
  joinTournament: (/** @type {string} */ id) => request("POST", `/api/tournaments/${encodeURIComponent(id)}/join`, {}),
  withdrawTournament: (/** @type {string} */ id) => request("POST", `/api/tournaments/${encodeURIComponent(id)}/withdraw`, {}),
  tournamentResults: (/** @type {string} */ name) => request("GET", `/api/tournaments/player/${encodeURIComponent(name)}`),
  // Email reminders (when the server sends them: config.reminders).
  accountMail: () => request("GET", "/api/mail/account"),
  setAccountMail: (/** @type {string} */ address, /** @type {string} */ lang) => request("POST", "/api/mail/account", { address, lang }),
  removeAccountMail: () => request("POST", "/api/mail/account/remove", {}),
  seatMail: (/** @type {string} */ game, /** @type {string} */ token) => request("POST", "/api/mail/seat", { game, token }),
  setSeatMail: (/** @type {string} */ game, /** @type {string} */ token, /** @type {string} */ address, /** @type {string} */ lang) =>
    request("POST", "/api/mail/seat", { game, token, address, lang }),
  removeSeatMail: (/** @type {string} */ game, /** @type {string} */ token) => request("POST", "/api/mail/seat/remove", { game, token }),
  // Web Push (when the server sends it: config.push; docs/web-protocol.md).
  pushInfo: () => request("GET", "/api/push"),
  pushDevice: (/** @type {object} */ subscription, /** @type {string[]} */ kinds, /** @type {string} */ lang) =>
    request("POST", "/api/push/device", { ...subscription, kinds, lang }),
  pushState: (/** @type {string} */ endpoint) => request("POST", "/api/push/device/state", { endpoint }),
  pushRemove: (/** @type {string} */ endpoint) => request("POST", "/api/push/device/remove", { endpoint }),
  // Friends and challenges (docs/web-protocol.md, "Friends and challenges").
  challenges: () => request("GET", "/api/challenges"),
  challenge: (/** @type {string} */ to, /** @type {object} */ game) => request("POST", "/api/challenges", { to, game }),
  answerChallenge: (/** @type {string} */ id, /** @type {string} */ answer) =>
    request("POST", `/api/challenges/${encodeURIComponent(id)}/${answer}`, {}),
  friends: () => request("GET", "/api/friends"),
  changeFriend: (/** @type {string} */ change, /** @type {string} */ name) => request("POST", `/api/friends/${change}`, { name }),
  muteSeat: (/** @type {string} */ game, /** @type {string} */ token, /** @type {boolean} */ muted) => request("POST", "/api/mail/seat/mute", { game, token, muted }),
};
