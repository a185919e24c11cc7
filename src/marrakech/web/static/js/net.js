// The game's WebSocket: hello on every (re)connection, reconnect with backoff, keepalive.
//
// The server answers each hello with a full `welcome`, so after any drop the page simply
// replaces what it shows; nothing is replayed from the browser side.

const PING_EVERY_MS = 20000;
const SILENCE_LIMIT_MS = 50000;
/** Codes after which reconnecting cannot help. */
const FATAL = new Set(["not_found", "banned"]);
/** The server closes with this code when the game does not exist. */
const CLOSE_NOT_FOUND = 4404;
/** ...and with this one when the operator banned the page's address. */
const CLOSE_BANNED = 4403;

export class GameSocket {
  /**
   * @param {string} gameId
   * @param {{tokens: string[], lang: string, onMessage: (msg: object) => void,
   *          onStatus: (status: "connecting"|"open"|"down"|"fatal", detail?: object) => void}} opts
   */
  constructor(gameId, opts) {
    this.gameId = gameId;
    this.tokens = opts.tokens;
    this.lang = opts.lang;
    this.onMessage = opts.onMessage;
    this.onStatus = opts.onStatus;
    /** @type {WebSocket | null} */
    this.ws = null;
    this.attempt = 0;
    this.stopped = false;
    /** @type {number | undefined} */
    this.timer = undefined;
    /** @type {number | undefined} */
    this.pinger = undefined;
    this.lastHeard = Date.now();
    this.wake = () => {
      if (!this.stopped && (!this.ws || this.ws.readyState > 1)) this.reconnectNow();
      else if (!this.stopped && Date.now() - this.lastHeard > SILENCE_LIMIT_MS) this.ws?.close();
    };
    window.addEventListener("online", this.wake);
    document.addEventListener("visibilitychange", this.wake);
  }

  url() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    return `${scheme}://${location.host}/ws/${encodeURIComponent(this.gameId)}`;
  }

  connect() {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.onStatus("connecting");
    let ws;
    try {
      ws = new WebSocket(this.url());
    } catch (_) {
      this.scheduleReconnect();
      return;
    }
    this.ws = ws;
    ws.onopen = () => {
      this.lastHeard = Date.now();
      ws.send(JSON.stringify({ type: "hello", tokens: this.tokens, lang: this.lang }));
      clearInterval(this.pinger);
      this.pinger = setInterval(() => {
        if (Date.now() - this.lastHeard > SILENCE_LIMIT_MS) {
          ws.close(); // a laptop that slept: the socket is dead without knowing it
          return;
        }
        this.send({ type: "ping" });
      }, PING_EVERY_MS);
    };
    ws.onmessage = (e) => {
      this.lastHeard = Date.now();
      let msg;
      try {
        msg = JSON.parse(e.data);
      } catch (_) {
        return;
      }
      if (msg.type === "pong") return;
      if (msg.type === "welcome") {
        this.attempt = 0;
        this.onStatus("open");
      }
      if (msg.type === "error" && FATAL.has(msg.code)) {
        this.stopped = true;
        this.onStatus("fatal", msg);
      }
      this.onMessage(msg);
    };
    ws.onclose = (e) => {
      clearInterval(this.pinger);
      if (this.ws !== ws) return;
      this.ws = null;
      if (e.code === CLOSE_BANNED && !this.stopped) {
        this.stopped = true;
        this.onStatus("fatal", { code: "banned", message: e.reason });
        return;
      }
      if (e.code === CLOSE_NOT_FOUND && !this.stopped) {
        this.stopped = true;
        this.onStatus("fatal", { code: "not_found", message: e.reason });
        return;
      }
      if (!this.stopped) {
        this.onStatus("down");
        this.scheduleReconnect();
      }
    };
    ws.onerror = () => {
      // onclose follows and schedules the reconnection.
    };
  }

  scheduleReconnect() {
    clearTimeout(this.timer);
    const delay = Math.min(10000, 400 * 2 ** this.attempt) * (0.75 + Math.random() * 0.5);
    this.attempt += 1;
    this.timer = setTimeout(() => this.connect(), delay);
  }

  reconnectNow() {
    this.attempt = 0;
    const old = this.ws;
    this.ws = null;
    if (old) {
      old.onclose = null;
      old.close();
    }
    this.connect();
  }

  /** Send a message now; false when the socket is not open (the caller may retry). @param {object} msg */
  send(msg) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify(msg));
    return true;
  }

  /** A new language: reconnect so the welcome brings the whole log in that language. @param {string} lang */
  setLang(lang) {
    if (lang === this.lang) return;
    this.lang = lang;
    this.reconnectNow();
  }

  close() {
    this.stopped = true;
    clearTimeout(this.timer);
    clearInterval(this.pinger);
    window.removeEventListener("online", this.wake);
    document.removeEventListener("visibilitychange", this.wake);
    if (this.ws) {
      this.ws.onclose = null;
      this.ws.close();
      this.ws = null;
    }
  }
}
