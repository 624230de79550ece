// Registers the service worker (/sw.js: the static files cached, an offline page; app/web/pwa.py).
"use strict";
if ("serviceWorker" in navigator && window.isSecureContext) {
  window.addEventListener("load", () => {
    navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => {});
  });
}
