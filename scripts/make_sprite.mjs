// Build static/cards/courts.svg, the illustrated court cards (J, Q, K of each suit), ONCE,
// from Adrian Kennard's CC0 card designs as the npm package @letele/playing-cards carries them
// (issue 41 item 7). The package is not a dependency of the site: fetch it, run this, commit
// the result.
//
//   cd /tmp && npm pack @letele/playing-cards && tar xzf letele-playing-cards-*.tgz
//   node scripts/make_sprite.mjs /tmp/package/dist/index.esm.js > static/cards/courts.svg
//
// The package is a bundle of React components (one per card); this renders each court with a
// stand-in React.createElement that writes SVG text, then:
// - keeps the court's drawing (figure, frame, corner rank and suit) as one <symbol id="JH">
//   (viewBox -120 -168 240 336: the site's 60x84 card, four times), its inner ids prefixed;
// - paints the corner rank and suit with the four-colour deck's custom property
//   (fill: var(--suit-hearts), ...; the figure's own red/blue/yellow stay the design's);
// - drops the corner indices (the site draws its own rank and suit there) and the white card
//   frame (the page draws its own, so the themes and the card
//   outline stay the site's), rounds the figures' path coordinates to one decimal.
import fs from 'node:fs';

const SUITS = { S: 'spades', H: 'hearts', D: 'diamonds', C: 'clubs' };
const CAMEL = new Set(['viewBox', 'preserveAspectRatio', 'patternUnits', 'patternTransform',
  'gradientTransform', 'gradientUnits', 'clipPathUnits']);
const attrName = k => ({ className: 'class', xmlnsXlink: 'xmlns:xlink', xlinkHref: 'href' }[k]
  ?? (CAMEL.has(k) ? k : k.replace(/[A-Z]/g, c => '-' + c.toLowerCase())));

const source = fs.readFileSync(process.argv[2], 'utf8')
  .replace(/^import .*$/mg, '')
  .replace(/^export \{([^}]*)\};?/m, (_, names) => 'return {' + names.split(',')
    .map(p => { const [a, b] = p.trim().split(/\s+as\s+/); return `${JSON.stringify(b)}: ${a}`; })
    .join(',') + '};');

// A tree, not text: the conversion edits elements before writing them.
const React = { createElement: (tag, props, ...kids) => ({ tag, props: props ?? {}, kids: kids.flat().filter(k => k != null) }) };
const cards = new Function('React', '_extends', source)(React, Object.assign);

// A path's numbers at one decimal (the figures are drawn 1300 units wide on a card of at most
// a few hundred pixels: a tenth of a unit is far below a pixel). A small parser, not a regex:
// an arc's flags may be packed against the next number ("a5 5 0 011.5 2").
const ARGS = { m: 2, l: 2, h: 1, v: 1, c: 6, s: 4, q: 4, t: 2, a: 7, z: 0 };
const NUMBER = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?/;

function decimal(v) {
  let t = (Math.round(v * 10) / 10).toString();
  if (t === '-0') t = '0';
  return t.replace(/^(-?)0\./, '$1.');
}

function roundPath(d) {
  const parts = [];
  let i = 0, cmd = '', k = 0;
  while (i < d.length) {
    if (/[\s,]/.test(d[i])) { i++; continue; }
    if (/[A-Za-z]/.test(d[i])) { cmd = d[i++]; parts.push({ cmd }); k = 0; continue; }
    const lower = cmd.toLowerCase();
    if (lower === 'a' && (k % 7 === 3 || k % 7 === 4)) parts.push({ flag: d[i++] });
    else {
      const m = NUMBER.exec(d.slice(i));
      if (!m || !(lower in ARGS)) throw new Error(`unreadable path at ${i}: ${d.slice(i, i + 20)}`);
      i += m[0].length;
      parts.push({ num: decimal(parseFloat(m[0])) });
    }
    k++;
  }
  let out = '', last = null;
  for (const p of parts) {
    if (p.cmd) { out += p.cmd; last = p; continue; }
    const t = p.flag ?? p.num;
    const joins = last === null || last.cmd || t.startsWith('-') ||
      (t.startsWith('.') && last.num !== undefined && last.num.includes('.'));
    out += (joins ? '' : ' ') + t;
    last = p;
  }
  return out;
}

function write(node, prefix, suit, inFigure, inPip) {
  if (typeof node === 'string') return node.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  const { tag, props, kids } = node;
  const attrs = {};
  for (const [k, v] of Object.entries(props)) {
    if (v == null || k.startsWith('aria') || k === 'title' || k === 'titleId') continue;
    attrs[attrName(k)] = String(v);
  }
  if (tag === 'title') return '';
  // The corner indices: the site draws its own rank and suit there (as on every card, and
  // larger with "Larger cards"); the big suit beside the figure stays.
  const href = attrs.href ?? '';
  if (tag === 'symbol' && /_svg__h$/.test(attrs.id ?? '')) return '';
  if (tag === 'use' && (/_svg__h$/.test(href) || (/_svg__a$/.test(href) && parseFloat(attrs.x) < -100))) return '';
  // The card's white frame: the site draws its own (theme, outline, selection).
  if (tag === 'rect' && attrs.fill === '#fff' && attrs.stroke === '#000' && attrs.width === '239') return '';
  const figure = inFigure || (tag === 'symbol' && attrs.viewBox === '0 0 1300 2000');
  const pip = inPip || (tag === 'symbol' && /_svg__a$/.test(attrs.id ?? ''));  // the suit
  for (const k of Object.keys(attrs)) {
    let v = attrs[k];
    v = v.replace(/^#([A-Z])-([0-9A-Z]+)_svg__/, `#${prefix}`).replace(/url\(#([A-Z])-([0-9A-Z]+)_svg__/g, `url(#${prefix}`);
    if (k === 'id') v = v.replace(/^([A-Z])-([0-9A-Z]+)_svg__/, prefix);
    if (figure && k === 'd') v = roundPath(v);
    attrs[k] = v;
  }
  let style = '';
  if (!figure && tag !== 'svg') {
    // The corner's rank and suit: the suit's colour of the deck setting.
    if (pip && tag === 'path' && attrs.fill === undefined) attrs.fill = '#000';  // the default
    for (const k of ['fill', 'stroke']) {
      if (attrs[k] === 'red' || attrs[k] === '#000') {
        style += `${k}:var(--suit-${SUITS[suit]},${attrs[k]});`;
        delete attrs[k];
      }
    }
  }
  if (style) attrs.style = style;
  const text = Object.entries(attrs).map(([k, v]) => ` ${k}="${v.replace(/"/g, '&quot;')}"`).join('');
  const inner = kids.map(k => write(k, prefix, suit, figure, pip)).join('');
  return inner ? `<${tag}${text}>${inner}</${tag}>` : `<${tag}${text}/>`;
}

const out = ['<svg xmlns="http://www.w3.org/2000/svg">',
  '<!-- Court cards by Adrian Kennard (https://www.me.uk/cards/), CC0 1.0, via the npm package',
  '@letele/playing-cards 0.1.0 (CC0-1.0); made by scripts/make_sprite.mjs. One symbol per court: #JH ... #KC. -->'];
for (const suit of 'SHDC') {
  for (const rank of 'JQK') {
    const name = suit + rank.toLowerCase();
    const svg = cards[name]({});
    const prefix = `${rank}${suit}-`;
    const body = svg.kids.map(k => write(k, prefix, suit, false, false)).join('');
    out.push(`<symbol id="${rank}${suit}" viewBox="${svg.props.viewBox}">${body}</symbol>`);
  }
}
out.push('</svg>');
process.stdout.write(out.join('\n') + '\n');
