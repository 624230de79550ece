/* Scorpion: the little JavaScript HTML cannot do by itself.
 *
 * Click-to-move, drag and drop, keyboard play and shortcuts, the running clock and the share
 * link's copy button. Every action is still the server-rendered <form> of the page: this file
 * only fills in which card and which column, then submits that form (htmx swaps the answer in;
 * without htmx the browser posts it and follows the 303 like any form).
 * It never knows more than the page shows: columns and positions, never a hidden card.
 */
(() => {
  "use strict";

  let sel = null;          // {col, idx} of the picked-up card; {pile, idx} for a reserve or cell card
  let focusAfter = null;   // column to focus after the next swap (keyboard drops)
  let landing = null;      // {col, from} cards to animate after the next swap
  let drag = null;         // drag state
  let suppressClick = false;
  let newPending = 0;      // time of the first "N" press

  const $ = (s, r = document) => r.querySelector(s);
  const $$ = (s, r = document) => Array.from(r.querySelectorAll(s));
  const board = () => $("#board");
  const colEl = (c) => $("#col-" + c);
  const ncols = () => +((board() && board().dataset.ncols) || 7);
  const cellEl = (k) => $("#cell-" + k);

  function say(text) {
    const m = $("#message");
    if (m) m.textContent = text;
  }

  function cardName(a) {
    const s = a.querySelector(".sr");
    return s ? s.textContent : "card";
  }

  // ---------------------------------------------------------------- selection
  function clearSel() {
    $$(".card.sel").forEach((e) => e.classList.remove("sel"));
    $$(".col.src, .col.kb-target, .pile.src").forEach((e) => e.classList.remove("src", "kb-target"));
    const b = board();
    if (b) b.classList.remove("picking");
    sel = null;
  }

  function select(a) {
    clearSel();
    if (a.dataset.pile) {
      sel = { pile: a.dataset.pile, idx: +a.dataset.idx };
      a.classList.add("sel");
      a.parentElement.classList.add("src");
      board().classList.add("picking");
      say("Picked up the " + cardName(a).split(",")[0] + ": now choose the column it goes to.");
      return;
    }
    const col = +a.dataset.col, idx = +a.dataset.idx;
    sel = { col, idx };
    a.classList.add("sel");
    colEl(col).classList.add("src");
    board().classList.add("picking");
    const n = colEl(col).querySelectorAll(".card").length - idx;
    say("Picked up the " + cardName(a) + (n > 2 ? " with the " + (n - 1) + " cards on it" : n === 2 ? " with the card on it" : "") +
        ": now choose the column it goes to.");
  }

  // Fill in the picked-up card (column card, or reserve/cell card) and the target, then submit.
  function submitMove(name, value) {
    const b = board();
    if (sel.pile) {
      b.elements.from_column.value = sel.idx;
      b.elements.from_index.value = 0;
    } else {
      b.elements.from_column.value = sel.col;
      b.elements.from_index.value = sel.idx;
    }
    if (b.elements.from_pile) b.elements.from_pile.value = sel.pile || "column";
    $$("input[data-to]", b).forEach((e) => e.remove());
    const t = document.createElement("input");
    t.type = "hidden"; t.name = name; t.dataset.to = "1"; t.value = value;
    b.appendChild(t);
    b.requestSubmit();
  }

  function drop(col) {
    const b = board();
    if (!sel || !b) return;
    if (!sel.pile && col === sel.col) { clearSel(); say("Put back."); return; }
    landing = { col, from: colEl(col).querySelectorAll(".card").length };
    submitMove("to_column", col);
  }

  function dropCell(k) {
    const b = board();
    if (!sel || !b) return;
    if (sel.pile === "cell" && sel.idx === k) { clearSel(); say("Put back."); return; }
    submitMove("to_cell", k);
  }

  // ---------------------------------------------------------------- clicks
  document.addEventListener("click", (ev) => {
    if (suppressClick) { suppressClick = false; ev.preventDefault(); ev.stopPropagation(); return; }
    const b = board();
    if (!b || !b.contains(ev.target)) {
      const copy = ev.target.closest && ev.target.closest("button.copy");
      if (copy) copyLink(copy);
      return;
    }
    const card = ev.target.closest("a.card");
    const col = ev.target.closest(".col");
    const cell = ev.target.closest(".cell-slot");
    if (cell) {
      ev.preventDefault();
      if (sel) dropCell(+cell.dataset.idx);
      else say("Choose a face-up card first: a column's exposed card may go into an empty cell.");
      return;
    }
    if (card && card.dataset.pile) {
      ev.preventDefault();
      if (sel && sel.pile === card.dataset.pile && sel.idx === +card.dataset.idx) { clearSel(); say("Put back."); return; }
      select(card);
      return;
    }
    if (card) {
      ev.preventDefault();
      const c = +card.dataset.col, i = +card.dataset.idx;
      if (sel && (sel.pile || c !== sel.col)) { drop(c); return; }
      if (sel && c === sel.col && i === sel.idx) { clearSel(); say("Put back."); return; }
      select(card);
      return;
    }
    if (col && (ev.target.closest(".slot, .drop") || sel)) {
      ev.preventDefault();
      if (sel) drop(+col.dataset.col);
      else say("Choose a face-up card first, then the column it goes to.");
    }
  });

  // ---------------------------------------------------------------- drag and drop
  document.addEventListener("pointerdown", (ev) => {
    const card = ev.target.closest && ev.target.closest("#board a.card");
    if (!card || ev.button !== 0) return;
    drag = { card, x: ev.clientX, y: ev.clientY, on: false, ghost: null, over: null, dx: 0, dy: 0 };
  });

  document.addEventListener("pointermove", (ev) => {
    if (!drag) return;
    if (!drag.on) {
      if (Math.hypot(ev.clientX - drag.x, ev.clientY - drag.y) < 6) return;
      startDrag(ev);
    }
    ev.preventDefault();
    drag.ghost.style.transform = `translate(${ev.clientX - drag.dx}px, ${ev.clientY - drag.dy}px)`;
    const over = columnAt(ev.clientX, ev.clientY);
    if (over !== drag.over) {
      if (drag.over) drag.over.classList.remove("drag-over");
      if (over && over !== drag.card.closest(".col, .pile")) over.classList.add("drag-over");
      drag.over = over;
    }
  }, { passive: false });

  function startDrag(ev) {
    const a = drag.card;
    drag.on = true;
    select(a);
    const r = a.getBoundingClientRect();
    drag.dx = ev.clientX - r.left; drag.dy = ev.clientY - r.top;
    const g = document.createElement("div");
    g.className = "ghost";
    g.setAttribute("aria-hidden", "true");
    g.style.width = r.width + "px";
    const col = a.parentElement;
    const fan = getComputedStyle(a.nextElementSibling || a).marginTop;
    let el = a, first = true;
    while (el) {
      if (el.classList.contains("card")) {
        const c = el.cloneNode(true);
        c.removeAttribute("id"); c.removeAttribute("href");
        c.classList.remove("sel", "hint-src");
        if (!first) c.style.marginTop = fan;
        first = false;
        g.appendChild(c);
      }
      el = el.nextElementSibling;
    }
    g.style.setProperty("--n", col.style.getPropertyValue("--n"));
    document.body.appendChild(g);
    drag.ghost = g;
    a.classList.add("dragging");
    try { a.setPointerCapture(ev.pointerId); } catch (e) { /* not every pointer can be captured */ }
  }

  function columnAt(x, y) {
    const ghost = drag && drag.ghost;
    if (ghost) ghost.style.display = "none";
    const el = document.elementFromPoint(x, y);
    if (ghost) ghost.style.display = "";
    const pile = el && el.closest && el.closest("#board .pile.cell");
    if (pile) return pile;
    let col = el && el.closest && el.closest("#board .col");
    if (!col) {
      // Below a short column still counts as that column.
      col = $$("#board .col").find((c) => { const r = c.getBoundingClientRect(); return x >= r.left && x <= r.right && y >= r.top; }) || null;
    }
    return col;
  }

  function endDrag(ev, cancel) {
    if (!drag) return;
    const d = drag;
    drag = null;
    if (!d.on) return;
    suppressClick = true;
    setTimeout(() => { suppressClick = false; }, 0);
    d.ghost.remove();
    d.card.classList.remove("dragging");
    if (d.over) d.over.classList.remove("drag-over");
    const target = cancel || !ev ? null : columnAt(ev.clientX, ev.clientY);
    if (target && target.dataset.pile === "cell") dropCell(+target.dataset.idx);
    else if (target && target.dataset.col !== undefined && (sel.pile || +target.dataset.col !== sel.col)) drop(+target.dataset.col);
    else { clearSel(); say("Put back."); }
  }
  document.addEventListener("pointerup", (ev) => endDrag(ev, false));
  document.addEventListener("pointercancel", (ev) => endDrag(ev, true));

  // ---------------------------------------------------------------- keyboard
  function focusables(c) {
    const col = colEl(c);
    if (!col) return [];
    return $$("a.card, .slot", col);
  }

  function focusColumn(c, which) {
    const list = focusables(c);
    if (!list.length) return;
    const el = which === "first" ? list[0] : list[list.length - 1];
    el.focus();
    $$(".col.kb-target").forEach((e) => e.classList.remove("kb-target"));
    if (sel && c !== sel.col) colEl(c).classList.add("kb-target");
  }

  function clickIfEnabled(id) {
    const b = document.getElementById(id);
    if (b && !b.disabled) { b.click(); return true; }
    return false;
  }

  document.addEventListener("keydown", (ev) => {
    const t = ev.target;
    if (t.closest && t.closest("input, textarea, select, [contenteditable]")) return;
    if (!$("#game")) return;
    const inBoard = board() && board().contains(t);
    const key = ev.key;

    if (inBoard && (key === "ArrowLeft" || key === "ArrowRight") && t.closest(".pile")) {
      // Along the reserves and cells, then on to the first column.
      ev.preventDefault();
      const stops = $$("#piles a.card, #piles .cell-slot");
      const j = stops.indexOf(t) + (key === "ArrowLeft" ? -1 : 1);
      if (j >= 0 && j < stops.length) stops[j].focus();
      else focusColumn(j < 0 ? ncols() - 1 : 0, "last");
      return;
    }
    if (inBoard && (key === "ArrowLeft" || key === "ArrowRight" || key === "ArrowUp" || key === "ArrowDown")) {
      const here = t.closest(".col");
      if (!here) return;
      ev.preventDefault();
      const c = +here.dataset.col;
      if (key === "ArrowLeft" || key === "ArrowRight") {
        const step = key === "ArrowLeft" ? -1 : 1;
        const stops = $$("#piles a.card, #piles .cell-slot");
        if (stops.length && ((c === 0 && step < 0) || (c === ncols() - 1 && step > 0))) {
          stops[step < 0 ? stops.length - 1 : 0].focus();
          return;
        }
        const N = ncols();
        let n = c;
        for (let k = 0; k < N; k++) {
          n = (n + step + N) % N;
          if (focusables(n).length) break;
        }
        focusColumn(n, "last");
      } else {
        const list = focusables(c);
        const i = list.indexOf(t.closest("a.card, .slot"));
        const j = Math.max(0, Math.min(list.length - 1, i + (key === "ArrowUp" ? -1 : 1)));
        list[j].focus();
      }
      return;
    }
    if (inBoard && (key === "Enter" || key === " ") && t.matches(".cell-slot")) {
      ev.preventDefault();
      t.click();
      return;
    }
    if (inBoard && key === " " && t.matches("a.card")) {
      ev.preventDefault();
      t.click();
      return;
    }
    if (inBoard && key === "Enter" && t.matches("a.card")) {
      // Links activate on Enter natively; remember the column for focus after a drop.
      if (sel && t.dataset.col !== undefined && (sel.pile || +t.dataset.col !== sel.col)) focusAfter = +t.dataset.col;
      return;
    }
    if (inBoard && (key === "Enter" || key === " ") && t.matches(".slot")) {
      if (sel) focusAfter = +t.closest(".col").dataset.col;
      return;
    }
    if (key === "Escape" && drag && drag.on) { endDrag(null, true); return; }
    if (key === "Escape" && sel) { clearSel(); say("Put back."); return; }

    if (ev.altKey || ev.metaKey) return;
    const k = key.toLowerCase();
    if (ev.ctrlKey) {
      if (k === "z") { if (clickIfEnabled("undo-btn")) ev.preventDefault(); }
      return;
    }
    if (k === "z") clickIfEnabled("undo-btn");
    else if (k === "y") clickIfEnabled("redo-btn");
    else if (k === "h") clickIfEnabled("hint-btn");
    else if (k === "d") clickIfEnabled("deal-btn");
    else if (k === "n") {
      const g = $("#game-head");
      const playing = g && g.dataset.status === "playing" && +($("#moves") || {}).textContent > 0;
      if (playing && Date.now() - newPending > 4000) {
        newPending = Date.now();
        say("Press N again to leave this game and start a new one.");
        return;
      }
      clickIfEnabled("new-btn");
    }
  });

  // ---------------------------------------------------------------- after each swap
  document.addEventListener("htmx:after:swap", (ev) => {
    // A live race update (server-sent events, outside the game) must not drop a picked card.
    if (ev.target && ev.target.closest && ev.target.closest("#race")) return;
    clearSel();
    const b = board();
    if (b) { const t = b.querySelector("input[data-to]"); if (t) t.remove(); }
    if (landing) {
      const col = colEl(landing.col);
      if (col) $$(".card", col).slice(landing.from).forEach((e) => e.classList.add("landed"));
      landing = null;
    }
    if (focusAfter !== null) {
      const c = focusAfter; focusAfter = null;
      focusColumn(c, "last");
    }
    startClock();
    showCopy();
  });

  // A new action makes the last hint's highlights stale (the answer re-draws only what changed).
  document.addEventListener("htmx:before:request", () => {
    $$(".hint-src, .hint-dst").forEach((e) => e.classList.remove("hint-src", "hint-dst"));
  });

  document.addEventListener("htmx:error", (ev) => {
    const ctx = ev.detail && ev.detail.ctx;
    if (ctx && ctx.response && ctx.response.raw) return; // an HTTP answer: already swapped in
    say("The server could not be reached: nothing was changed. Try again.");
    landing = null;
  });

  // ---------------------------------------------------------------- clock and share link
  let clockTimer = null;
  function fmt(s) {
    const h = Math.floor(s / 3600), m = Math.floor(s / 60) % 60, x = s % 60;
    return (h ? h + ":" + String(m).padStart(2, "0") : m) + ":" + String(x).padStart(2, "0");
  }
  function startClock() {
    const c = $("#clock");
    if (clockTimer) { clearInterval(clockTimer); clockTimer = null; }
    if (!c || c.dataset.running !== "true") return;
    const base = +c.dataset.elapsed, t0 = Date.now();
    clockTimer = setInterval(() => {
      const el = $("#clock");
      if (!el) return;
      el.textContent = fmt(base + Math.floor((Date.now() - t0) / 1000));
    }, 1000);
  }

  function showCopy() {
    $$("button.copy[hidden]").forEach((b) => { if (navigator.clipboard) b.hidden = false; });
  }
  function copyLink(btn) {
    const url = btn.dataset.copy;
    navigator.clipboard.writeText(url).then(
      () => { say("Share link copied: " + url); },
      () => { say("Copy this link to share the deal: " + url); }
    );
  }

  function init() {
    // A card chosen through the page address (?select=, the no-JavaScript way) stays chosen.
    const s = $("#board a.card.sel");
    if (s) sel = s.dataset.pile ? { pile: s.dataset.pile, idx: +s.dataset.idx } : { col: +s.dataset.col, idx: +s.dataset.idx };
    startClock();
    showCopy();
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
