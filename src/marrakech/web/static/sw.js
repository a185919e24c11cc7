// The service worker (served as /sw.js, so its scope is the whole site): the site
// installs to a phone's home screen as an app, shows a page of its own when there is no
// network, and shows the turn notifications (`registration.showNotification`, the only
// way on Android, where the page's `new Notification` throws) and the server's Web Push
// notifications (a `push` event), and a tap on one opens its game. It keeps two files, the
// offline page and its logo, and caches nothing else: the page's files and the API
// always come from the network, as without it.
// The server writes its files' version in VERSION, so an upgraded server installs a
// new worker, which drops the old one's cache.

const VERSION = "__VERSION__";
const CACHE = `marrakech-offline-${VERSION}`;
const OFFLINE = "/offline";
const KEPT = [OFFLINE, "/static/img/icon-192.png"];

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      .then((cache) => cache.addAll(KEPT))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((names) =>
        Promise.all(names.filter((name) => name.startsWith("marrakech-offline-") && name !== CACHE).map((name) => caches.delete(name))),
      )
      .then(() => self.clients.claim()),
  );
});

self.addEventListener("fetch", (event) => {
  // A page being opened falls back to the offline page, and the files that page shows
  // (its logo) to their kept copies; everything else (the page's files, the API, the
  // WebSocket) is the network's, untouched.
  const request = event.request;
  if (request.mode === "navigate") {
    event.respondWith(fetch(request).catch(() => caches.match(OFFLINE)));
    return;
  }
  const url = new URL(request.url);
  if (request.method === "GET" && url.origin === self.location.origin && KEPT.includes(url.pathname)) {
    event.respondWith(fetch(request).catch(() => caches.match(url.pathname)));
  }
});

// A push from the server (docs/web-protocol.md, "Push notifications"): its JSON says
// what to show; its tag collapses the notifications of one game (the newer replaces the
// older). A page of the site in front gets it as a message instead (the player is
// here: browsers then ask for no notification); otherwise one is always shown.
self.addEventListener("push", (event) => {
  let message;
  try {
    message = (event.data && event.data.json()) || {};
  } catch {
    message = {};
  }
  const text = (value, fallback) => (typeof value === "string" && value ? value.slice(0, 300) : fallback);
  // Only a path of this site is opened by a tap (never another site's address).
  const url = typeof message.url === "string" && /^\/(?!\/)/.test(message.url) ? message.url : "/";
  const shown = { title: text(message.title, "Marrakech"), body: text(message.body, ""), tag: text(message.tag, "marrakech"), url, kind: text(message.kind, "") };
  event.waitUntil(
    self.clients.matchAll({ type: "window" }).then((windows) => {
      const here = windows.filter((client) => client.visibilityState === "visible");
      if (here.length) {
        for (const client of here) client.postMessage({ type: "push", ...shown });
        return undefined;
      }
      const lang = text(message.lang, "");
      const challenge = shown.kind === "challenge" && shown.tag.startsWith("challenge:") ? shown.tag.slice(10) : "";
      return self.registration.showNotification(shown.title, {
        body: shown.body,
        tag: shown.tag,
        lang,
        icon: "/static/img/icon-192.png",
        data: challenge ? { url, kind: shown.kind, challenge } : { url, kind: shown.kind },
        // A challenge is answered from its notification too (issue 37).
        actions: challenge ? challengeActions(lang) : [],
      });
    }),
  );
});

// Where a tap on a notification goes: the page of its game (focused if already open),
// else a new window; where the browser opens none, a window of the site goes there.
async function openFromNotification(notification) {
  const wanted = new URL((notification.data && notification.data.url) || "/", self.location.origin);
  const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
  const open = windows.find((client) => new URL(client.url).pathname === wanted.pathname);
  if (open) return open.focus();
  const opened = await self.clients.openWindow(wanted.href).catch(() => null);
  if (opened || !windows.length) return opened;
  return windows[0].navigate(wanted.href);
}
self.openFromNotification = openFromNotification;

// A challenge's notification's buttons, in the push's language.
const ANSWERS = { en: { accept: "Accept", decline: "Decline" }, fr: { accept: "Accepter", decline: "Refuser" } };
function challengeActions(lang) {
  const words = ANSWERS[lang] || ANSWERS.en;
  return [
    { action: "accept", title: words.accept },
    { action: "decline", title: words.decline },
  ];
}

// A challenge answered from its notification: accepted, the player's seat in the new
// game opens; declined, nothing opens; refused (answered already, expired, signed out),
// the site opens, where the page says what became of it.
async function answerFromNotification(notification, action) {
  const data = notification.data || {};
  if (!data.challenge || (action !== "accept" && action !== "decline")) return openFromNotification(notification);
  const path = `/api/challenges/${encodeURIComponent(data.challenge)}/${action}`;
  const reply = await fetch(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}", credentials: "same-origin" }).catch(() => null);
  let url = "/";
  if (reply && reply.ok) {
    const answer = await reply.json().catch(() => null);
    if (action === "decline") return undefined;
    const link = answer && answer.challenge && answer.challenge.link;
    if (typeof link === "string" && /^\/(?!\/)/.test(link)) url = link;
  }
  return openFromNotification({ data: { url } });
}
self.answerFromNotification = answerFromNotification;

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  event.waitUntil(event.action ? answerFromNotification(event.notification, event.action) : openFromNotification(event.notification));
});
