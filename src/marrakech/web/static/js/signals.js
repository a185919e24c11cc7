// Telling players it is their turn while they look elsewhere: the tab's title and icon
// change, an optional chime (off until the player turns it on), and a browser
// notification if the player allowed them. The choices are remembered in localStorage.
// Notifications go through the service worker (/sw.js) when it is registered: Android
// has no `new Notification`, only `registration.showNotification`.

const SOUND_KEY = "marrakech.sound";
const NOTIFY_KEY = "marrakech.notify";
const ICON = "/static/img/favicon.svg";
const TURN_ICON = "/static/img/favicon-turn.svg";
/** Android shows a notification's icon only from a bitmap. */
const APP_ICON = "/static/img/icon-192.png";

/** @type {AudioContext | null} */
let audio = null;
/** @type {ServiceWorkerRegistration|null} */
let worker = null;

/** Register the service worker (the app install, the offline page, notifications). */
export function registerWorker() {
  if (!("serviceWorker" in navigator)) return Promise.resolve(null);
  return navigator.serviceWorker
    .register("/sw.js")
    .then(() => navigator.serviceWorker.ready)
    .then((registration) => (worker = registration))
    .catch(() => null); // not a secure context, or storage disabled: the page works without
}

/** @param {string} key */
function stored(key) {
  try {
    return localStorage.getItem(key);
  } catch (_) {
    return null;
  }
}

/** @param {string} key @param {string} value */
function store(key, value) {
  try {
    localStorage.setItem(key, value);
  } catch (_) {
    // Storage disabled: the choice lasts as long as the page.
  }
}

export function soundOn() {
  return stored(SOUND_KEY) === "on";
}

/** Turn the chime on or off; call it from a click so the browser lets audio start. @param {boolean} on */
export function setSound(on) {
  store(SOUND_KEY, on ? "on" : "off");
  if (on) audioContext();
}

function audioContext() {
  const Context = window.AudioContext || /** @type {any} */ (window)["webkitAudioContext"];
  if (!Context) return null;
  if (!audio) audio = new Context();
  // Browsers start audio suspended until the page had a click or a tap.
  if (audio.state === "suspended") audio.resume().catch(() => {});
  return audio;
}

/** Two soft notes (WebAudio, nothing to download). True when they could be played. */
export function chime() {
  const ctx = audioContext();
  if (!ctx) return false;
  const start = ctx.currentTime + 0.02;
  [659.25, 880].forEach((frequency, i) => {
    const osc = ctx.createOscillator();
    const gain = ctx.createGain();
    osc.type = "sine";
    osc.frequency.value = frequency;
    const at = start + i * 0.16;
    gain.gain.setValueAtTime(0.0001, at);
    gain.gain.exponentialRampToValueAtTime(0.18, at + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, at + 0.35);
    osc.connect(gain).connect(ctx.destination);
    osc.start(at);
    osc.stop(at + 0.4);
  });
  return true;
}

export function notifySupported() {
  return "Notification" in window;
}

/** "granted" and wanted, "off" (granted, turned off here), "default" or "denied". */
export function notifyState() {
  if (!notifySupported()) return "denied";
  const permission = Notification.permission;
  if (permission !== "granted") return permission;
  return stored(NOTIFY_KEY) === "off" ? "off" : "granted";
}

/** Ask for permission (only ever from a click: browsers refuse it otherwise). */
export async function askNotify() {
  if (!notifySupported()) return "denied";
  if (Notification.permission !== "granted") await Notification.requestPermission();
  store(NOTIFY_KEY, Notification.permission === "granted" ? "on" : "off");
  return notifyState();
}

/** @param {boolean} on */
export function setNotify(on) {
  store(NOTIFY_KEY, on ? "on" : "off");
}

/** Show a notification when the page is hidden and the player wants them: through the
 * @param {string} title
 * @param {string} body
 * service worker when there is one (a click on it brings this game's page back). */
export function notify(title, body) {
  if (notifyState() !== "granted" || !document.hidden) return false;
  if (worker) {
    const data = { url: location.pathname };
    worker.showNotification(title, { body, tag: "marrakech-turn", icon: APP_ICON, data }).catch(() => {});
    return true;
  }
  try {
    const note = new Notification(title, { body, tag: "marrakech-turn", icon: TURN_ICON });
    note.onclick = () => {
      window.focus();
      note.close();
    };
    return true;
  } catch (_) {
    return false;
  }
}

/** The tab's title and icon say whether it is this player's turn. @param {boolean} yourTurn @param {string} title */
export function markTab(yourTurn, title) {
  document.title = title;
  const link = /** @type {HTMLLinkElement|null} */ (document.querySelector("link[rel=icon]"));
  if (!link) return;
  const base = (link.getAttribute("href") || "").replace(/favicon(-turn)?\.svg$/, "");
  const wanted = yourTurn ? TURN_ICON : ICON;
  link.setAttribute("href", base + wanted.split("/").pop());
  link.dataset.turn = yourTurn ? "1" : "0";
}
