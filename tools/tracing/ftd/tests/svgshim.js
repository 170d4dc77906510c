// SPDX-License-Identifier: GPL-2.0
// A minimal stand-in for the browser DOM, enough to run the inline
// script of ftd's SVG files under node and check zoom, search and reset.
'use strict';
const fs = require('fs');
const data = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const script = fs.readFileSync(process.argv[3], 'utf8');

function el(attrs) {
  const e = { attrs: Object.assign({}, attrs), style: {}, handlers: {},
    textContent: '', kids: {} };
  e.getAttribute = (k) => (k in e.attrs ? String(e.attrs[k]) : null);
  e.setAttribute = (k, v) => { e.attrs[k] = v; };
  e.addEventListener = (t, f) => { e.handlers[t] = f; };
  e.querySelector = (sel) => e.kids[sel];
  return e;
}
const frames = data.frames.map((f) => {
  const g = el(f.g);
  g.kids.rect = el(f.rect);
  g.kids.text = el(f.text);
  g.kids.title = el({});
  g.kids.title.textContent = f.title;
  return g;
});
// the boot view's grey bands of untraced time, when there are any
const bands = (data.bands || []).map((b) => el(b));
const byId = { bg: el({}), reset: el({}), search: el({}), status: el({}) };
const svg = el(data.svg);
const docHandlers = {};
global.document = {
  documentElement: svg,
  querySelectorAll: (sel) => (sel === 'g.f' ? frames :
    sel === 'rect.gap' ? bands : []),
  getElementById: (id) => byId[id],
  addEventListener: (t, f) => { docHandlers[t] = f; },
};
let answer = '';
global.prompt = () => answer;
global.alert = () => {};
eval(script);

const W = +data.svg['data-w'], PAD = +data.svg['data-pad'];
const out = {};
// zoom into the frame given on the command line
const target = frames[+process.argv[4]];
target.handlers.click({ stopPropagation() {} });
out.zoom_x = +target.kids.rect.getAttribute('x');
out.zoom_w = +target.kids.rect.getAttribute('width');
out.hidden = frames.filter((g) => g.style.display === 'none').length;
out.status = byId.status.textContent;
// bands: those outside the zoomed span hidden, the others inside it
const shown = bands.filter((b) => b.style.display !== 'none');
out.bands_hidden = bands.length - shown.length;
out.bands_inside = shown.every((b) => +b.getAttribute('x') >= PAD - 0.01 &&
  +b.getAttribute('x') + +b.getAttribute('width') <= PAD + W + 0.51);
// search
answer = '^' + target.getAttribute('data-n') + '$';
docHandlers.keydown({ key: '/', preventDefault() {} });
out.matched = frames.filter((g) => g.kids.rect.getAttribute('fill') ===
  '#e040e0').length;
out.search_status = byId.status.textContent;
// reset
docHandlers.keydown({ key: 'Escape' });
out.hidden_after_reset = frames.filter((g) => g.style.display === 'none')
  .length;
out.bands_hidden_after_reset = bands.filter((b) => b.style.display ===
  'none').length;
out.first_x = +frames[0].kids.rect.getAttribute('x');
out.W = W; out.PAD = PAD;
console.log(JSON.stringify(out));
