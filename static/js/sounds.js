/* Scorpion solitaire: the deck's sounds (issue 41), made in the browser with the Web Audio API
   (no audio files). Silent unless the player switched "Sounds" on in the deck settings (the
   class "sounds" on <html>). After each answer of the game (an htmx swap) it compares the board
   with the one before: a game won, a run completed, cards dealt from the stock, or a move.
   The AudioContext is made at the first sound only: an answer follows a click, so the browser
   lets it play. */
(function () {
  "use strict";
  const on = () => document.documentElement.classList.contains("sounds");
  let ctx = null;
  function audio() {
    if (!ctx) {
      const AC = window.AudioContext || window.webkitAudioContext;
      if (!AC) return null;
      ctx = new AC();
    }
    if (ctx.state === "suspended") ctx.resume();
    return ctx;
  }
  // One short note: a wave at freq (Hz) from start (s from now), length (s), peak gain.
  function tone(a, freq, start, length, gain, type) {
    const o = a.createOscillator(), g = a.createGain();
    const t = a.currentTime + start;
    o.type = type || "sine";
    o.frequency.setValueAtTime(freq, t);
    g.gain.setValueAtTime(0.0001, t);
    g.gain.exponentialRampToValueAtTime(gain, t + 0.01);
    g.gain.exponentialRampToValueAtTime(0.0001, t + length);
    o.connect(g).connect(a.destination);
    o.start(t);
    o.stop(t + length + 0.02);
  }
  // A soft card "snap": a short burst of filtered noise.
  function snap(a, start, gain) {
    const n = Math.floor(a.sampleRate * 0.05), buf = a.createBuffer(1, n, a.sampleRate);
    const d = buf.getChannelData(0);
    for (let i = 0; i < n; i++) d[i] = (Math.random() * 2 - 1) * Math.pow(1 - i / n, 3);
    const src = a.createBufferSource(), f = a.createBiquadFilter(), g = a.createGain();
    src.buffer = buf; f.type = "bandpass"; f.frequency.value = 2400; g.gain.value = gain;
    src.connect(f).connect(g).connect(a.destination);
    src.start(a.currentTime + start);
  }
  const SOUNDS = {
    move: (a) => snap(a, 0, 0.5),
    deal: (a) => { for (let k = 0; k < 5; k++) snap(a, k * 0.05, 0.35); },
    run: (a) => [523.25, 659.25, 783.99].forEach((f, k) => tone(a, f, k * 0.08, 0.25, 0.12, "triangle")),
    win: (a) => [523.25, 659.25, 783.99, 1046.5].forEach((f, k) => tone(a, f, k * 0.12, 0.5, 0.14, "triangle")),
  };
  function sound(name) {
    if (!on()) return;
    const a = audio();
    if (a) SOUNDS[name](a);
  }
  window.scorpionSound = sound;

  // What an answer changed: the board before the swap against the board after it.
  const $ = (s) => document.querySelector(s);
  function state() {
    const head = $("#game-head"), board = $("#board");
    if (!head || !board) return null;
    return {
      status: head.dataset.status,
      version: head.dataset.version,
      done: document.querySelectorAll(".foundation .fslot.done").length,
      stock: +(($("#deal-btn .n") || {}).textContent || 0),
    };
  }
  let before = null, queued = false;
  document.addEventListener("htmx:before:swap", () => { if (!before) before = state(); });
  document.addEventListener("htmx:after:swap", () => {
    if (queued) return;
    queued = true;
    queueMicrotask(() => {
      queued = false;
      const was = before, now = state();
      before = null;
      if (!was || !now || was.version === now.version) return;
      if (now.status === "won" && was.status !== "won") sound("win");
      else if (now.done > was.done) sound("run");
      else if (now.stock < was.stock) sound("deal");
      else sound("move");
    });
  });
})();
