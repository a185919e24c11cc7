// JSON over HTTP to the server (docs/web-protocol.md). Errors become ApiError with the
// server's code and message.

export class ApiError extends Error {
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
  createGame: (spec) => request("POST", "/api/games", spec),
  games: (ids) =>
    ids.length ? request("GET", `/api/games?ids=${ids.map(encodeURIComponent).join(",")}`) : [],
  openGames: () => request("GET", "/api/games/open"),
  // The device's seat tokens go in the body, never in an address.
  myGames: (seats) => request("POST", "/api/my-games", { seats }),
  join: (id, seat, name = "") =>
    request("POST", `/api/games/${encodeURIComponent(id)}/join`, { seat, name }),
  replay: (id, lang) =>
    request("GET", `/api/games/${encodeURIComponent(id)}/replay?lang=${lang}`),
  replayRecord: (recordText, lang) => request("POST", `/api/replay?lang=${lang}`, recordText),
  analysis: (id) => request("GET", `/api/games/${encodeURIComponent(id)}/analysis`),
  lessons: (lang) => request("GET", `/api/lessons?lang=${lang}`),
  lessonAnswer: (id, move, lang) =>
    request("POST", `/api/lessons/${encodeURIComponent(id)}/answer?lang=${lang}`, { move }),
  recordUrl: (id) => `/api/games/${encodeURIComponent(id)}/record`,
  // Accounts (optional): the session is an HttpOnly cookie the page never reads.
  account: () => request("GET", "/api/account"),
  signUp: (name, password) => request("POST", "/api/account/signup", { name, password }),
  signIn: (name, password) => request("POST", "/api/account/signin", { name, password }),
  signOut: () => request("POST", "/api/account/signout", {}),
  signOutEverywhere: () => request("POST", "/api/account/signout-everywhere", {}),
  setPassword: (password, current) =>
    request("POST", "/api/account/password", current ? { password, current_password: current } : { password }),
  passkeyOptions: (kind, body = {}) => request("POST", `/api/account/passkey/${kind}/options`, body),
  passkeyAnswer: (kind, challengeId, credential) =>
    request("POST", `/api/account/passkey/${kind}`, { challenge_id: challengeId, credential }),
  removePasskey: (id) => request("POST", "/api/account/passkey/remove", { credential_id: id }),
  deleteAccount: (name) => request("POST", "/api/account/delete", { name }),
  claim: (seats) => request("POST", "/api/account/claim", { seats }),
  exportUrl: "/api/account/export",
  // Ratings (docs/web.md, "Ratings").
  leaderboard: (players) => request("GET", `/api/leaderboard?players=${players}`),
  profile: (name) => request("GET", `/api/players/${encodeURIComponent(name)}`),
  // Email reminders (when the server sends them: config.reminders).
  accountMail: () => request("GET", "/api/mail/account"),
  setAccountMail: (address, lang) => request("POST", "/api/mail/account", { address, lang }),
  removeAccountMail: () => request("POST", "/api/mail/account/remove", {}),
  seatMail: (game, token) => request("POST", "/api/mail/seat", { game, token }),
  setSeatMail: (game, token, address, lang) =>
    request("POST", "/api/mail/seat", { game, token, address, lang }),
  removeSeatMail: (game, token) => request("POST", "/api/mail/seat/remove", { game, token }),
  muteSeat: (game, token, muted) => request("POST", "/api/mail/seat/mute", { game, token, muted }),
};
