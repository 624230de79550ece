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
//   outline stay the site's), rounds the figures' coordinates to one decimal.
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

// Numbers of a path or points list at one decimal, never merging two numbers into one.
function roundNumbers(text) {
  return text.replace(/-?\d*\.\d+(?:e-?\d+)?/g, (m, offset, whole) => {
    let v = (Math.round(parseFloat(m) * 10) / 10).toString();
    if (v === '-0') v = '0';
    if (v.startsWith('0.')) v = v.slice(1);
    else if (v.startsWith('-0.')) v = '-' + v.slice(2);
    const next = whole[offset + m.length];
    return !v.includes('.') && next === '.' ? v + ' ' : v;
  });
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
    if (figure && (k === 'd' || k === 'points') && !/[aA]/.test(v)) v = roundNumbers(v);  // an arc's packed flags ("0 011.5") stay
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
