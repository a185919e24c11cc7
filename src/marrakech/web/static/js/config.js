// What the server says once per page load (GET /api/config, docs/web-protocol.md): the
// bot levels, weakest first, and the level a new bot seat starts at. The page types
// none of it; app.js loads it before any page is shown.

import { api } from "./api.js";

export const config = { levels: [], defaultLevel: null };

export async function loadConfig() {
  const answer = await api.config();
  config.levels = answer.levels;
  config.defaultLevel = answer.default_level;
}
