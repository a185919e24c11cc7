// The service worker (served as /sw.js, so its scope is the whole site): the site
// installs to a phone's home screen as an app, shows a page of its own when there is no
// network, and shows the turn notifications (`registration.showNotification`, the only
// way on Android, where the page's `new Notification` throws). It keeps two files, the
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

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const wanted = new URL((event.notification.data && event.notification.data.url) || "/", self.location.origin);
  event.waitUntil(
    self.clients.matchAll({ type: "window", includeUncontrolled: true }).then((windows) => {
      const open = windows.find((client) => new URL(client.url).pathname === wanted.pathname);
      if (open) return open.focus();
      return self.clients.openWindow(wanted.href);
    }),
  );
});
