// Scorpion's service worker (served as /sw.js by app/web/pwa.py, which writes CACHE,
// CACHE_PREFIX, OFFLINE and PRECACHE above this line).
//
// - install: every static file of this release (content-hashed URLs) and the offline page
//   go into this release's cache;
// - activate: the caches of earlier releases are deleted;
// - fetch: a precached file comes from the cache; a page navigation goes to the network,
//   and the offline page answers when the network fails. Nothing else is touched: the game
//   pages, their actions and the JSON API carry a player's state and are never cached.
"use strict";

const PRECACHED = new Set(PRECACHE);

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches.open(CACHE)
      .then((cache) => cache.addAll(PRECACHE.map((url) => new Request(url, { cache: "reload" }))))
      .then(() => self.skipWaiting())
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches.keys()
      .then((names) => Promise.all(
        names.filter((name) => name.startsWith(CACHE_PREFIX) && name !== CACHE)
          .map((name) => caches.delete(name))
      ))
      .then(() => self.clients.claim())
  );
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (PRECACHED.has(url.pathname) && url.pathname !== OFFLINE && !url.search) {
    event.respondWith(
      caches.open(CACHE)
        .then((cache) => cache.match(url.pathname, { ignoreVary: true }))
        .then((found) => found || fetch(request))
    );
    return;
  }
  if (request.mode === "navigate") {
    event.respondWith(
      fetch(request).catch(() =>
        caches.open(CACHE)
          .then((cache) => cache.match(OFFLINE, { ignoreVary: true }))
          .then((page) => page || Response.error())
      )
    );
  }
  // Anything else: not answered here, so the browser asks the network as usual.
});
