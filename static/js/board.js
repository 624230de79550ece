/* Scorpion: the little JavaScript HTML cannot do by itself.
 *
 * One-tap and click-to-move, drag and drop, keyboard play and shortcuts, fitting long columns
 * to the screen, the motion of the cards (FLIP with the Web Animations API), one hint at a
 * time, the confirmation before giving up a game, the running clock and the share link's copy
 * button. Every action is still the server-rendered <form> of the page: this file only fills
 * in which card and which column, then submits that form (htmx swaps the answer in; without
 * htmx the browser posts it and follows the 303 like any form).
 * It never knows more than the page shows: face-up cards, columns and positions, and the
 * legal destinations the server lists for face-up cards; never a hidden card.
 */
(() => {
  "use strict";

  let sel = null;          // {col, idx} of the picked-up card; {pile, idx} for a reserve or cell card
  let focusAfter = null;   // column to focus after the next swap (keyboard drops)
  let drag = null;         // drag state
  let suppressClick = false;
  let snap = null;         // card positions before a swap (for the motion)
  let hintIdx = 0;         // which of the listed hints is shown
  let hintVersion = null;  // the game version the listed hints belong to

  const $ = (s, r = document) => r.querySelector(s);
  const $$ = (s, r = document) => Array.from(r.querySelectorAll(s));
  const board = () => $("#board");
  const colEl = (c) => $("#col-" + c);
  const ncols = () => +((board() && board().dataset.ncols) || 7);
  // A destination: a column number, or "fK" for the free cell K (the family).
  const destEl = (t) => (String(t)[0] === "f" ? $("#cell-" + String(t).slice(1)) : colEl(t));
  const pileKey = (a) => (a.dataset.pile === "reserve" ? "r" : "f") + a.dataset.idx;
  // A column card's place is in its link ("?select=3-5": column 3, index 5); its code is its
  // picture's (<use href="#c-7H">); a face-down card has neither (its picture is "#back").
  const place = (a) => { const m = /^\?select=(\d+)-(\d+)$/.exec(a.getAttribute("href") || ""); return m ? { col: +m[1], idx: +m[2] } : { col: -1, idx: -1 }; };
  const cardAt = (c, i) => $('#col-' + c + ' a.card[href="?select=' + c + "-" + i + '"]');
  const codeOf = (e) => { const u = e.querySelector("use"), h = u && u.getAttribute("href"); return h && h.startsWith("#c-") ? h.slice(3) : null; };
  const still = () => window.matchMedia("(prefers-reduced-motion: reduce)").matches;
  const DUR = 220;
  const EASE = "cubic-bezier(.2, .7, .3, 1)";

  // The page's words for this script, in the page's language (app/web/js_text.py): an
  // English text with {name} values, looked up, else said as it is.
  let texts = null;
  function tr(text, values) {
    if (texts === null) {
      const el = $("#js-text");
      try { texts = JSON.parse((el && el.dataset.texts) || "{}"); } catch (e) { texts = {}; }
    }
    let out = texts[text] || text;
    Object.keys(values || {}).forEach((k) => { out = out.split("{" + k + "}").join(values[k]); });
    return out;
  }

  // The message line (an aria-live region): painted for the eye and read out (issue 41).
  // ``short``: one line for the eye while ``text``, in full words, is read out (a line that
  // wraps would float over the top cards the player is about to tap).
  function say(text, short) {
    const m = $("#message");
    if (!m) return;
    m.textContent = "";
    if (!text) return;
    const s = document.createElement("span");
    s.className = "say";
    if (short) {
      const eye = document.createElement("span"), ear = document.createElement("span");
      eye.setAttribute("aria-hidden", "true"); eye.textContent = short;
      ear.className = "sr"; ear.textContent = text;
      s.append(eye, ear);
    } else s.textContent = text;
    m.appendChild(s);
  }

  // A card's short label, "10♥" (as the hints write it).
  const SUITS = { S: "\u2660\ufe0e", H: "\u2665\ufe0e", D: "\u2666\ufe0e", C: "\u2663\ufe0e" };
  function shortName(a) {
    const code = codeOf(a) || "";
    return (code[0] === "T" ? "10" : code[0] || "") + (SUITS[code[1]] || "");
  }

  function cardName(a) {
    return a.getAttribute("aria-label") || tr("card");
  }

  function version() {
    const g = $("#game-head");
    return g ? g.dataset.version : null;
  }

  // ---------------------------------------------------------------- legal destinations
  // Destinations of a column card (c, i) or of a pile card (key "r0", "f1"): column numbers,
  // and "fK" for an empty free cell.
  function targetsOf(c, i) {
    const f = $("#board-fields");
    const list = f ? (f.dataset.targets || "").split(" ") : [];
    const key = (i === undefined ? c : c + "." + i) + ":";
    const item = list.find((x) => x.startsWith(key));
    return item ? item.slice(key.length).split(",").map((t) => (t[0] === "f" ? t : +t)) : [];
  }

  function oneTap() {
    try { return localStorage.getItem("scorpion.onetap") !== "off"; } catch (e) { return true; }
  }

  // ---------------------------------------------------------------- selection
  function clearMarks() {
    $$(".hint-src, .hint-dst, .hint-pair, .hint-target").forEach((e) => {
      e.classList.remove("hint-src", "hint-dst", "hint-pair", "hint-target");
      delete e.dataset.hintTo;
    });
  }

  function clearSel() {
    $$(".card.sel").forEach((e) => e.classList.remove("sel"));
    $$(".col.src, .col.kb-target, .col.tap-target, .pile.src, .pile.tap-target, .pile.kb-target").forEach((e) => e.classList.remove("src", "kb-target", "tap-target"));
    const b = board();
    if (b) b.classList.remove("picking");
    sel = null;
  }

  // Free cells on the board (Scorpion Head and its kin): a prompt names them.
  const cells = () => !!$("#piles .cell-slot, #piles [data-pile=cell]");

  function select(a) {
    clearSel();
    clearMarks();
    if (a.dataset.pile) {
      sel = { pile: a.dataset.pile, idx: +a.dataset.idx };
      a.classList.add("sel");
      a.parentElement.classList.add("src");
      board().classList.add("picking");
      targetsOf(pileKey(a)).forEach((t) => { const e = destEl(t); if (e) e.classList.add("tap-target"); });
      say(cells() ? tr("Picked up the {card}: now choose the column or free cell it goes to.", { card: cardName(a).split(/[,，]/)[0] })
          : tr("Picked up the {card}: now choose the column it goes to.", { card: cardName(a).split(/[,，]/)[0] }),
          tr("{card} picked up", { card: shortName(a) }));
      return;
    }
    const { col, idx } = place(a);
    sel = { col, idx };
    a.classList.add("sel");
    colEl(col).classList.add("src");
    board().classList.add("picking");
    targetsOf(col, idx).forEach((t) => { const e = destEl(t); if (e) e.classList.add("tap-target"); });
    const n = colEl(col).querySelectorAll(".card").length - idx;
    const rest = n > 2 ? tr(" with the {n} cards on it", { n: n - 1 }) : n === 2 ? tr(" with the card on it") : "";
    say(cells() && n === 1 ? tr("Picked up the {card}: now choose the column or free cell it goes to.", { card: cardName(a).split(/[,，]/)[0] })
          : tr("Picked up the {card}{rest}: now choose the column it goes to.", { card: cardName(a).split(/[,，]/)[0], rest }),
        n > 1 ? tr("{card} and {n} more picked up", { card: shortName(a), n: n - 1 })
          : tr("{card} picked up", { card: shortName(a) }));
  }

  // from: a column number, or {pile, idx} for a reserve or cell card; to: a column number,
  // or "fK" for the free cell K.
  function submitMove(from, idx, to) {
    const b = board();
    if (!b) return;
    const pile = typeof from === "object" ? from.pile : "column";
    // The board's fields carry the picked card only when the page was drawn with one.
    const field = (name, value) => {
      let e = b.elements.namedItem(name);
      if (!e) {
        e = document.createElement("input");
        e.type = "hidden"; e.name = name;
        ($("#board-fields") || b).appendChild(e);
      }
      e.value = value;
    };
    field("from_column", typeof from === "object" ? from.idx : from);
    field("from_index", typeof from === "object" ? 0 : idx);
    field("from_pile", pile);
    $$("input[data-to]", b).forEach((e) => e.remove());
    const t = document.createElement("input");
    const cell = String(to)[0] === "f";
    t.type = "hidden"; t.name = cell ? "to_cell" : "to_column"; t.dataset.to = "1";
    t.value = cell ? String(to).slice(1) : to;
    b.appendChild(t);
    b.requestSubmit();
  }

  function drop(col) {
    if (!sel || !board()) return;
    if (!sel.pile && col === sel.col) { clearSel(); say(tr("Put back.")); return; }
    if (sel.pile) submitMove(sel, 0, col);
    else submitMove(sel.col, sel.idx, col);
  }

  function dropCell(k) {
    if (!sel || !board()) return;
    if (sel.pile === "cell" && sel.idx === k) { clearSel(); say(tr("Put back.")); return; }
    if (sel.pile) submitMove(sel, 0, "f" + k);
    else submitMove(sel.col, sel.idx, "f" + k);
  }

  // A card with nowhere to go is not picked up (issue 41): it shakes and the line says why.
  function nowhere(a) {
    clearSel(); clearMarks();
    const name = cardName(a).split(/[,，]/)[0];
    say(cells() ? tr("The {card} cannot move now: no column or free cell takes it.", { card: name })
      : tr("The {card} cannot move now: no column takes it.", { card: name }),
        tr("{card}: nowhere to go", { card: shortName(a) }));
    if (!still()) {
      a.animate([{ transform: "translateX(0)" }, { transform: "translateX(-5px)" }, { transform: "translateX(5px)" },
        { transform: "translateX(-3px)" }, { transform: "translateX(0)" }], { duration: 280, easing: "ease-in-out" });
    }
  }

  // A second card clicked while one is held (and cannot go there): that card is chosen now.
  function chooseInstead(a) {
    clearSel();
    const ts = a.dataset.pile ? targetsOf(pileKey(a)) : targetsOf(place(a).col, place(a).idx);
    if (ts.length) select(a); else nowhere(a);
  }

  // A tap on a card: play it at once when it has exactly one place to go, shake it when it
  // has none, otherwise pick it up and light up where it may go.
  function tapCard(a) {
    if (a.dataset.pile) {
      const from = { pile: a.dataset.pile, idx: +a.dataset.idx };
      if (!targetsOf(pileKey(a)).length) { nowhere(a); return; }
      if (a.classList.contains("hint-pair") && a.dataset.hintTo !== undefined) {
        const to = a.dataset.hintTo;
        clearMarks();
        submitMove(from, 0, to[0] === "f" ? to : +to);
        return;
      }
      const ts = oneTap() ? targetsOf(pileKey(a)) : [];
      if (ts.length === 1) { clearSel(); clearMarks(); submitMove(from, 0, ts[0]); return; }
      select(a);
      return;
    }
    const { col: c, idx: i } = place(a);
    if (a.classList.contains("hint-pair") && a.dataset.hintTo !== undefined) {
      // The hint shown: one tap plays it.
      const to = a.dataset.hintTo;
      clearMarks();
      submitMove(c, i, to[0] === "f" ? to : +to);
      return;
    }
    if (!targetsOf(c, i).length) { nowhere(a); return; }
    if (oneTap()) {
      const ts = targetsOf(c, i);
      if (ts.length === 1) {
        clearSel(); clearMarks();
        submitMove(c, i, ts[0]);
        return;
      }
    }
    select(a);
  }

  // ---------------------------------------------------------------- clicks
  document.addEventListener("click", (ev) => {
    if (suppressClick) { suppressClick = false; ev.preventDefault(); ev.stopPropagation(); return; }
    const proxy = ev.target.closest && ev.target.closest("button[data-click]");
    if (proxy) { const b = document.getElementById(proxy.dataset.click); if (b && !b.disabled) b.click(); return; }
    // A long answer floats over the top of the board: a tap on it puts it away (its words
    // were read out already), uncovering the cards under it. A list of hints stays.
    const said = ev.target.closest && ev.target.closest("#message > .notice, #message > .error, #message > .say");
    if (said) { said.remove(); return; }
    const b = board();
    if (!b || !b.contains(ev.target)) {
      const copy = ev.target.closest && ev.target.closest("button.copy");
      if (copy) copyLink(copy);
      const more = $("#more");
      if (more && more.open && !more.contains(ev.target)) more.open = false;
      return;
    }
    const card = ev.target.closest("a.card");
    const col = ev.target.closest(".col");
    const cell = ev.target.closest(".cell-slot");
    if (cell) {
      ev.preventDefault();
      if (sel) dropCell(+cell.dataset.idx);
      else say(tr("Choose a face-up card first: a column's exposed card may go into an empty cell."), tr("Choose a card first"));
      return;
    }
    if (card && card.dataset.pile) {
      ev.preventDefault();
      if (sel && sel.pile === card.dataset.pile && sel.idx === +card.dataset.idx) { clearSel(); say(tr("Put back.")); return; }
      if (sel) { chooseInstead(card); return; }
      tapCard(card);
      return;
    }
    if (card) {
      ev.preventDefault();
      const { col: c, idx: i } = place(card);
      // Holding a card, a card of a column that takes it drops it there; any other card is
      // the one the player means now (issue 41: no illegal drop by a second click).
      if (sel && (sel.pile || c !== sel.col) && legalDest(colEl(c))) { drop(c); return; }
      if (sel && c === sel.col && i === sel.idx) { clearSel(); say(tr("Put back.")); return; }
      if (sel) { chooseInstead(card); return; }
      tapCard(card);
      return;
    }
    if (col && (ev.target.closest(".slot, .drop") || sel)) {
      ev.preventDefault();
      if (sel) drop(+col.dataset.col);
      else say(tr("Choose a face-up card first, then the column it goes to."), tr("Choose a card first"));
    }
  });

  document.addEventListener("change", (ev) => {
    if (ev.target && ev.target.id === "onetap-pref") {
      try { localStorage.setItem("scorpion.onetap", ev.target.checked ? "on" : "off"); } catch (e) { /* private mode */ }
    }
  });

  // ---------------------------------------------------------------- drag and drop
  // A card is a link: the browser's own link dragging never starts (the pointer events do it).
  document.addEventListener("dragstart", (ev) => {
    if (ev.target && ev.target.closest && ev.target.closest("a.card")) ev.preventDefault();
  });
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
      // Only a legal destination lights up under the dragged card (issue 41).
      if (over && over !== drag.card.closest(".col, .pile") && legalDest(over)) over.classList.add("drag-over");
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
    let el = a, first = true;
    const fan = a.nextElementSibling ? getComputedStyle(a.nextElementSibling).marginTop : "0px";
    while (el) {
      if (el.classList.contains("card")) {
        const c = el.cloneNode(true);
        c.removeAttribute("id"); c.removeAttribute("href");
        c.classList.remove("sel", "hint-src", "hint-pair");
        if (!first) c.style.marginTop = fan;
        first = false;
        g.appendChild(c);
      }
      el = el.nextElementSibling;
    }
    document.body.appendChild(g);
    drag.ghost = g;
    a.classList.add("dragging");
    try { a.setPointerCapture(ev.pointerId); } catch (e) { /* not every pointer can be captured */ }
  }

  // Whether the column or free cell ``el`` takes the picked-up card now.
  function legalDest(el) {
    if (!sel) return false;
    const ts = sel.pile ? targetsOf((sel.pile === "reserve" ? "r" : "f") + sel.idx) : targetsOf(sel.col, sel.idx);
    const key = el.dataset.pile === "cell" ? "f" + el.dataset.idx : el.dataset.col !== undefined ? +el.dataset.col : null;
    return key !== null && ts.includes(key);
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
    // The group lands from where the finger left it.
    const gr = d.ghost.getBoundingClientRect();
    d.ghost.remove();
    d.card.classList.remove("dragging");
    if (d.over) d.over.classList.remove("drag-over");
    const target = cancel || !ev ? null : columnAt(ev.clientX, ev.clientY);
    if (target && sel && target.dataset.pile === "cell") {
      dragFrom = { code: codeOf(d.card), left: gr.left, top: gr.top };
      dropCell(+target.dataset.idx);
    } else if (target && sel && target.dataset.col !== undefined && (sel.pile || +target.dataset.col !== sel.col)) {
      dragFrom = { code: codeOf(d.card), left: gr.left, top: gr.top };
      drop(+target.dataset.col);
    } else { clearSel(); say(tr("Put back.")); }
  }
  let dragFrom = null;
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
    if (t.closest && t.closest("input, textarea, select, [contenteditable], dialog")) return;
    if (!$("#game")) return;
    const inBoard = board() && board().contains(t);
    const key = ev.key;

    if (inBoard && (key === "ArrowLeft" || key === "ArrowRight") && t.closest(".pile")) {
      // Along the reserves and cells, then on to the columns.
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
    if (inBoard && (key === " " || key === "Enter") && t.matches(".cell-slot")) {
      ev.preventDefault();
      if (sel) dropCell(+t.dataset.idx);
      return;
    }
    if (inBoard && (key === " " || key === "Enter") && t.matches("a.card[data-pile]")) {
      ev.preventDefault();
      if (sel && sel.pile === t.dataset.pile && sel.idx === +t.dataset.idx) { clearSel(); say(tr("Put back.")); }
      else select(t);
      return;
    }
    if (inBoard && (key === " " || key === "Enter") && t.matches("a.card")) {
      // The keyboard always picks up and drops (no one-tap): the player chooses the column.
      ev.preventDefault();
      const { col: c, idx: i } = place(t);
      if (sel && (sel.pile || c !== sel.col)) { focusAfter = c; drop(c); }
      else if (sel && c === sel.col && i === sel.idx) { clearSel(); say(tr("Put back.")); }
      else select(t);
      return;
    }
    if (inBoard && (key === "Enter" || key === " ") && t.matches(".slot")) {
      if (sel) focusAfter = +t.closest(".col").dataset.col;
      return;
    }
    if (key === "Escape" && drag && drag.on) { endDrag(null, true); return; }
    if (key === "Escape" && sel) { clearSel(); say(tr("Put back.")); return; }
    if (key === "Escape" && $("#more") && $("#more").open) { $("#more").open = false; $("#more-btn").focus(); return; }

    if (ev.altKey || ev.metaKey) return;
    const k = key.toLowerCase();
    if (ev.ctrlKey) {
      if (k === "z") { if (clickIfEnabled("undo-btn")) ev.preventDefault(); }
      return;
    }
    if (k === "z") clickIfEnabled("undo-btn");
    else if (k === "y") clickIfEnabled("redo-btn");
    else if (k === "h") { if (!nextHint()) clickIfEnabled("hint-btn"); }
    else if (k === "d") clickIfEnabled("deal-btn");
    else if (k === "n") clickIfEnabled("new-btn"); // asks first, like the button
  });

  // ---------------------------------------------------------------- hints: one at a time
  function hintItems() { return $$("#message .hint-item[data-move]"); }

  // The moves listed, then the deal if it is useful too: one suggestion at a time.
  let hintDeal = false;
  function showHint(k) {
    const items = hintItems();
    if (!items.length) return;
    clearMarks();
    const n = items.length + (hintDeal ? 1 : 0);
    hintIdx = ((k % n) + n) % n;
    items.forEach((e, j) => { e.hidden = j !== hintIdx; });
    const deal = $("#deal-btn");
    if (hintIdx === items.length) { if (deal) deal.classList.add("hint-src"); return; }
    // "c.i.t": column to column; a reserve or cell card "r0.0.t" / "f1.0.t"; into a cell "c.i.fK".
    const [c, i, t] = items[hintIdx].dataset.move.split(".");
    const a = c[0] === "r" ? $("#reserve-card-" + c.slice(1)) : c[0] === "f" ? $("#cell-card-" + c.slice(1)) : cardAt(c, i);
    if (a) { a.classList.add("hint-pair"); a.dataset.hintTo = t; }
    const dst = destEl(t[0] === "f" ? t : +t);
    if (dst) dst.classList.add("hint-target");
  }
  function hintsArrived() {
    hintVersion = version();
    hintDeal = !!$("#deal-btn.hint-src");
    showHint(0);
  }

  function nextHint() {
    if (!hintItems().length || hintVersion !== version()) return false;
    showHint(hintIdx + 1);
    return true;
  }

  // ---------------------------------------------------------------- confirm before giving up
  let confirmDlg = null;
  function ask(text, yes, onYes) {
    if (!confirmDlg) {
      confirmDlg = document.createElement("dialog");
      confirmDlg.className = "confirm-dlg";
      confirmDlg.id = "confirm-dlg";
      confirmDlg.setAttribute("aria-labelledby", "confirm-text");
      confirmDlg.innerHTML = '<p id="confirm-text"></p><div class="win-actions">' +
        '<button type="button" class="primary" id="confirm-no"></button>' +
        '<button type="button" class="danger" id="confirm-yes"></button></div>';
      document.body.appendChild(confirmDlg);
      $("#confirm-no", confirmDlg).addEventListener("click", () => confirmDlg.close());
    }
    $("#confirm-no", confirmDlg).textContent = tr("Keep playing");
    $("#confirm-text", confirmDlg).textContent = text;
    const y = $("#confirm-yes", confirmDlg);
    y.textContent = yes;
    y.onclick = () => { confirmDlg.close(); onYes(); };
    confirmDlg.showModal();
    $("#confirm-no", confirmDlg).focus();
  }

  document.addEventListener("submit", (ev) => {
    const f = ev.target;
    if (!f.matches || !f.matches("form[data-confirm]")) return;
    if (f.dataset.confirmed === "1") { delete f.dataset.confirmed; return; }
    const head = $("#game-head");
    // A form naming its variant in a field (a particular deal) asks only if that variant has a
    // game in progress: data-in-progress-of and data-daily-of list the variants.
    const v = f.dataset.inProgressOf !== undefined && f.elements.variant ? f.elements.variant.value : null;
    const among = (list) => v !== null && (list || "").split(" ").includes(v);
    // A dealt layout nobody touched (data-started="false") is not a game yet: nothing to
    // give up, no question (issue 41).
    const playing = head ? head.dataset.status === "playing" && head.dataset.started !== "false"
      : v !== null ? among(f.dataset.inProgressOf) : f.dataset.inProgress === "1";
    if (!playing) return;
    // A new game beside a daily deal or a challenge gives nothing up: races keep their own slot.
    if (head && f.dataset.confirm === "new" && $("#game") && $("#game").dataset.race === "1") return;
    ev.preventDefault();
    ev.stopImmediatePropagation();
    const daily = ($("#game") && $("#game").dataset.daily === "1") || f.dataset.daily === "1" || among(f.dataset.dailyOf);
    const what = daily ? tr("today's daily deal") : tr("the game");
    const restart = f.dataset.confirm === "restart";
    // In a race (a daily deal, a challenge) a restart goes on with the same attempt: the game
    // is not given up (app/services/race.py, entry_of_restart).
    if (restart && $("#game") && $("#game").dataset.race === "1") {
      ask(tr("Restart this deal from the opening layout? Your attempt in the race goes on: the moves you made and the clock carry over."),
          tr("Restart"), () => { f.dataset.confirmed = "1"; f.requestSubmit(); });
      return;
    }
    const question = restart ? tr("Restart this deal from the opening layout?") : tr("Start a new game?");
    ask(tr("This gives up {what}: it counts as a loss. {question}", { what, question }),
        restart ? tr("Give up and restart") : tr("Give up and start a new game"),
        () => { f.dataset.confirmed = "1"; f.requestSubmit(); });
  }, true);

  // ---------------------------------------------------------------- fitting long columns
  // --avail: the room from the tableau's top to the bottom of the screen. When even the
  // tightest fan (30% of a card's width shows its rank and suit) is too tall for a column,
  // the tableau narrows (smaller cards) until every column's open card is on the screen.
  function layout() {
    const b = board();
    if (!b) return;
    const g = $("#game");
    const firstCol = $(".col", b);
    const top = (firstCol || b).getBoundingClientRect().top + window.scrollY;
    const avail = Math.max(200, window.innerHeight - top - 8);
    g.style.setProperty("--avail", avail + "px");
    // The tightest fan shows a covered card's rank: 30% of its width, 34% with larger cards
    // (their rank is larger: static/css/app.css).
    const minFan = document.documentElement.classList.contains("large-cards") ? 0.34 : 0.30;
    let need = 1.4;
    $$(".col", b).forEach((c) => {
      const n = c.querySelectorAll(".card").length;
      if (!n) return;
      const d = c.querySelectorAll(".card.down").length;
      need = Math.max(need, 1.4 + 0.14 * d + minFan * Math.max(0, n - 1 - d) + 0.06);
    });
    const gap = parseFloat(getComputedStyle(b).columnGap) || 0;
    const n = ncols();
    const fit = n * (avail / need) + (n - 1) * gap;
    b.style.setProperty("--fit-w", Math.floor(fit) + "px");
  }
  window.addEventListener("resize", layout);

  // ---------------------------------------------------------------- motion (FLIP)
  // Before a swap: where every card is. After it: each card keyed by its code (a face-down
  // card by its place) travels from where it was; a newly turned card flips; dealt cards come
  // from the stock; a completed run travels to the foundation row. Only transform and
  // opacity move, nothing waits for the motion, and nothing moves under reduced motion.
  const ratio = (a, b) => (a > 0 && b > 0 ? a / b : 1);
  function rectOf(e) { const r = e.getBoundingClientRect(); return { left: r.left, top: r.top, width: r.width, height: r.height }; }

  function takeSnap() {
    const b = board();
    if (!b) return null;
    const s = { cards: new Map(), downs: new Map(), stock: null, slots: [], done: 0, stockN: 0 };
    // The element itself: a card that leaves the board (a completed run) flies as it was.
    $$("a.card", b).forEach((e) => { const code = codeOf(e); if (code) s.cards.set(code, { r: rectOf(e), el: e }); });
    $$(".card.down", b).forEach((e) => {
      const c = e.closest(".col").dataset.col;
      s.downs.set(c + ":" + Array.prototype.indexOf.call(e.parentElement.querySelectorAll(".card"), e), rectOf(e));
    });
    const st = $("#deal-btn .pile");
    if (st) s.stock = rectOf(st);
    s.slots = $$(".foundation .fslot").map(rectOf);
    s.done = $$(".foundation .fslot.done").length;
    s.stockN = +(($("#deal-btn .n") || {}).textContent || 0);
    if (dragFrom && s.cards.has(dragFrom.code)) {
      const o = s.cards.get(dragFrom.code);
      const dx = dragFrom.left - o.r.left, dy = dragFrom.top - o.r.top;
      // The dragged group starts from the ghost.
      s.dragShift = { code: dragFrom.code, dx, dy };
    }
    dragFrom = null;
    return s;
  }

  function fly(clone, from, to, delay) {
    const f = document.createElement("div");
    f.className = "fly " + (clone.classList[1] || "");
    f.setAttribute("aria-hidden", "true");
    f.style.cssText = `left:${from.left}px;top:${from.top}px;width:${from.width}px;height:${from.height}px`;
    const pic = clone.querySelector("svg");
    if (pic) f.appendChild(clone.isConnected ? pic.cloneNode(true) : pic);
    document.body.appendChild(f);
    const sx = ratio(to.width, from.width);
    const a = f.animate([
      { transform: "translate(0, 0) scale(1)", opacity: 1 },
      { transform: `translate(${to.left - from.left}px, ${to.top - from.top}px) scale(${sx})`, opacity: .9 },
    ], { duration: DUR + 60, delay, easing: EASE, fill: "both" });
    a.onfinish = a.oncancel = () => f.remove();
  }

  function play(s) {
    const b = board();
    if (!s || !b || still()) return;
    const seen = new Set();
    const stockNow = +(($("#deal-btn .n") || {}).textContent || 0);
    const dealt = stockNow < s.stockN;
    let moved = 0;
    // Read every position first, then start the animations (no layout between the two).
    const cards = $$(".card", b).map((e) => [e, e.getBoundingClientRect()]);
    cards.forEach(([e, now]) => {
      const code = codeOf(e);
      const holder = e.closest(".col, .pile");
      if (!holder) return;
      const col = holder.dataset.col !== undefined ? holder.dataset.col : holder.id;
      const idx = Array.prototype.indexOf.call(e.parentElement.querySelectorAll(".card"), e);
      if (!now.width) return;
      let old = null;
      if (code) { seen.add(code); const o = s.cards.get(code); if (o) old = o.r; }
      else old = s.downs.get(col + ":" + idx) || null;
      if (old) {
        let dx = old.left - now.left, dy = old.top - now.top;
        if (code && s.dragShift) {
          // A dragged group: every card of it starts where the ghost was let go.
          const o = s.cards.get(code);
          const lead = s.cards.get(s.dragShift.code);
          if (o && lead && o.r.left === lead.r.left && o.r.top >= lead.r.top) { dx += s.dragShift.dx; dy += s.dragShift.dy; }
        }
        if (Math.abs(dx) + Math.abs(dy) < 1) return;
        moved++;
        e.animate([
          { transform: `translate(${dx}px, ${dy}px)`, zIndex: 5 },
          { transform: "translate(0, 0)", zIndex: 5 },
        ], { duration: DUR, easing: EASE });
      } else if (code && s.downs.has(col + ":" + idx)) {
        // Turned up where a face-down card lay: it flips.
        e.animate([{ transform: "perspective(600px) rotateY(90deg)" }, { transform: "none" }], { duration: DUR, easing: "ease-out" });
      } else if (code && dealt && s.stock) {
        const delay = 40 * +col;
        e.animate([
          { transform: `translate(${s.stock.left - now.left}px, ${s.stock.top - now.top}px) scale(${ratio(s.stock.width, now.width)})`, zIndex: 5 },
          { transform: "none", zIndex: 5 },
        ], { duration: DUR + 40, delay, easing: EASE, fill: "backwards" });
      } else if (code) {
        // Back from the foundation row (undo of a completed run) or the stock (undo of a deal).
        const from = s.slots[s.done - 1] || s.stock;
        if (from) {
          e.animate([
            { transform: `translate(${from.left - now.left}px, ${from.top - now.top}px)`, opacity: .3, zIndex: 5 },
            { transform: "none", opacity: 1, zIndex: 5 },
          ], { duration: DUR, easing: EASE });
        }
      }
    });
    // Cards that left the tableau: a completed run to its slot, or dealt cards back to stock.
    const doneNow = $$(".foundation .fslot.done").length;
    const gone = [...s.cards.entries()].filter(([code]) => !seen.has(code));
    if (gone.length) {
      const slots = s.slots;
      const to = doneNow > s.done ? slots[doneNow - 1] : s.stock;
      if (to) gone.forEach(([, o], k) => fly(o.el, o.r, to, k * 12));
    }
    return moved;
  }

  // A fresh game (a new one or a restart): the cards fly out from the stock.
  function dealIn() {
    const st = $("#deal-btn .pile") || $("#deal-btn");
    const fresh = version() === "1" && $("#game-head").dataset.status === "playing";
    if (!fresh || !st || still() || !board()) return;
    const from = st.getBoundingClientRect();
    $$("#board .card").forEach((e) => {
      const holder = e.closest(".col");
      const col = holder ? +holder.dataset.col : 0;
      const now = e.getBoundingClientRect();
      if (!now.width) return;
      e.animate([
        { transform: `translate(${from.left - now.left}px, ${from.top - now.top}px) scale(${ratio(from.width, now.width)})` },
        { transform: "none" },
      ], { duration: DUR + 60, delay: col * 25, easing: EASE, fill: "backwards" });
    });
  }

  // ---------------------------------------------------------------- after each swap
  // A changed column of an answer may leave out its deepest cards, which stay as they are
  // (data-keep="20": its first 20 cards; app/web/board_html.py, kept_prefix): the page's own
  // copies of them go back in front of the cards sent before the column is swapped in. A
  // page that does not hold them (it never should) is loaded again whole.
  function keepCards(tasks) {
    for (const task of tasks || []) {
      const frag = task.fragment, old = task.target;
      const col = frag && frag.firstElementChild;
      if (!col || !col.matches || !col.matches(".col[data-keep]")) continue;
      const n = +col.dataset.keep;
      const mine = old ? Array.from(old.children).filter((e) => e.classList.contains("card")).slice(0, n) : [];
      if (mine.length !== n || !(n > 0)) { location.reload(); return false; }
      col.prepend(...mine.map((e) => {
        const c = e.cloneNode(true);
        c.classList.remove("sel", "hint-src", "hint-pair", "dragging", "landed");
        return c;
      }));
      col.removeAttribute("data-keep");
    }
    return true;
  }

  document.addEventListener("htmx:before:swap", (ev) => {
    const t = ev.target;
    if (t && t.closest && t.closest("#race")) return;
    if (!keepCards(ev.detail && ev.detail.tasks)) { ev.preventDefault(); return; }
    if (!snap) snap = takeSnap();
  });

  let pending = false;
  // A live race update (or the first standings of a stream that reconnected) also refreshes
  // the other tables of the page that follow the race (the challenge page's side-by-side table
  // and leaderboard, the daily page's leaderboard): each at most once per its
  // data-live-refresh milliseconds (default 500; a daily crowd's page asks less often).
  const liveTimers = new WeakMap();
  function raceUpdated() {
    if (!window.htmx) return;
    $$("[data-live-refresh]").forEach((e) => {
      if (liveTimers.get(e)) return;
      liveTimers.set(e, setTimeout(() => {
        liveTimers.delete(e);
        if (e.isConnected) window.htmx.trigger(e, "race-update");
      }, +e.dataset.liveRefresh || 500));
    });
  }

  document.addEventListener("htmx:sse:after:message", raceUpdated);

  // An answer re-sends the toolbar only when what it offers changed: every form of the game
  // takes the current version from the board's fields (always sent).
  function syncVersions() {
    const v = $("#board-fields input[name=version]");
    if (v) $$("#game form input[name=version]").forEach((i) => { i.value = v.value; });
  }

  document.addEventListener("htmx:after:swap", (ev) => {
    // A live race update (server-sent events, outside the game) must not drop a picked card.
    if (ev.target && ev.target.closest && ev.target.closest("#race")) return;
    if (ev.target && ev.target.closest && ev.target.closest("[data-live-refresh]")) return;
    if (pending) return;
    pending = true;
    // All the parts of one answer are in: fit, then move (before the next paint).
    queueMicrotask(() => {
      pending = false;
      syncVersions();
      clearSel();
      const b = board();
      if (b) { const t = b.querySelector("input[data-to]"); if (t) t.remove(); }
      layout();
      const s = snap; snap = null;
      play(s);
      if (hintItems().length) hintsArrived();
      if (focusAfter !== null) {
        const c = focusAfter; focusAfter = null;
        focusColumn(c, "last");
      }
      startClock();
      showCopy();
      const pref = $("#onetap-pref");
      if (pref) pref.checked = oneTap();
    });
  });

  // A new action makes the last hint's highlights stale (the answer re-draws only what changed).
  document.addEventListener("htmx:before:request", (ev) => {
    const t = ev.target;
    if (t && t.closest && t.closest("#race")) return;
    clearMarks();
    const more = $("#more");
    if (more && more.contains(t)) more.open = false;
  });

  document.addEventListener("htmx:error", (ev) => {
    const ctx = ev.detail && ev.detail.ctx;
    // A live table's refresh that failed (the page is being left, the network dropped) says
    // nothing: the next race update or reconnection refreshes it again.
    if (ev.target && ev.target.closest && ev.target.closest("[data-live-refresh]")) return;
    snap = null;
    if (ctx && ctx.response && ctx.response.raw) return; // an HTTP answer: already swapped in
    say(tr("The server could not be reached: nothing was changed. Try again."));
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
      () => { say(tr("Share link copied: {url}", { url })); },
      () => { say(tr("Copy this link to share the deal: {url}", { url })); }
    );
  }

  // A page reached through a form (a restart, a new game, the daily deal) says what that
  // did on its message line; a live region's first content is not read out, so it is put
  // back a moment later to be announced as well as seen.
  function announce() {
    const m = $("#message"), n = m && m.querySelector(".notice");
    if (!n) return;
    n.remove();
    setTimeout(() => { if (!m.firstElementChild) m.appendChild(n); }, 150);
  }

  function init() {
    // A card chosen through the page address (?select=, the no-JavaScript way) stays chosen.
    const s = $("#board a.card.sel");
    if (s) sel = s.dataset.pile ? { pile: s.dataset.pile, idx: +s.dataset.idx } : place(s);
    const pref = $("#onetap-pref");
    if (pref) pref.checked = oneTap();
    layout();
    if (hintItems().length) hintsArrived();
    announce();
    dealIn();
    startClock();
    showCopy();
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
