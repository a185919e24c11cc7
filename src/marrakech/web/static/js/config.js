// What the server says once per page load (GET /api/config, docs/web-protocol.md): the
// bot levels, weakest first, the level a new bot seat starts at, the board's rim (R2)
// for board.js, and each clock's seconds per turn. The page types none of it; app.js
// loads it before any page shows.

import { api } from "./api.js";

export const config = { levels: [], defaultLevel: null, rim: [], clocks: {} };

export async function loadConfig() {
  const answer = await api.config();
  config.levels = answer.levels;
  config.defaultLevel = answer.default_level;
  config.rim = answer.rim;
  config.clocks = answer.clocks || {};
}
