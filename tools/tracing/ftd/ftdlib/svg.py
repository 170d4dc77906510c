# SPDX-License-Identifier: GPL-2.0
"""Self-contained interactive SVG: flame graph and flame chart.

Each frame is a <g class="f"> holding a <title>, a <rect> and a <text>.
The frame's position is also kept in data-s / data-e (start and end as
fractions of the full width) so that the inline script can zoom.
Click a frame to zoom to it, click the background or press Escape to
reset, press Ctrl-F or "/" (or click "Search") to highlight names that
match a regular expression.
"""

from __future__ import annotations

import fnmatch
import zlib
from typing import Dict, List, Optional, Sequence, TextIO, Tuple
from xml.sax.saxutils import escape, quoteattr

from .model import Node
from .tasks import is_idle
from .timeline import BEFORE, OPEN, Timeline

DEFAULT_HIGHLIGHT = ["udelay", "mdelay", "ndelay", "__delay", "__udelay",
                     "__const_udelay", "msleep*", "usleep_range*",
                     "printk", "_printk", "vprintk*", "printk_*"]

ROW = 16
FONT = 11
CHAR_W = 6.6

SCRIPT = r"""
(function () {
var svg = document.documentElement, W = +svg.getAttribute('data-w');
var PAD = +svg.getAttribute('data-pad');
var frames = Array.prototype.slice.call(document.querySelectorAll('g.f'));
var statusEl = document.getElementById('status');
var zoomed = null;
var bands = Array.prototype.slice.call(document.querySelectorAll('rect.gap'));
function fit(g, x, w) {
  var r = g.querySelector('rect'), t = g.querySelector('text');
  r.setAttribute('x', x.toFixed(2)); r.setAttribute('width', w.toFixed(2));
  t.setAttribute('x', (x + 3).toFixed(2));
  var name = g.getAttribute('data-n'), n = Math.floor((w - 6) / 6.6);
  t.textContent = n < 3 ? '' : (name.length <= n ? name :
    name.substring(0, n - 2) + '..');
}
function show(s0, e0, lane, lvl) {
  var span = e0 - s0;
  frames.forEach(function (g) {
    var s = +g.getAttribute('data-s'), e = +g.getAttribute('data-e');
    var same = lane === null || g.getAttribute('data-lane') === lane;
    var outside = e <= s0 || s >= e0 || !same;
    var lv = +g.getAttribute('data-l');
    if (lane !== null && same && lv < lvl && s <= s0 && e >= e0)
      outside = false;
    if (outside) { g.style.display = 'none'; return; }
    g.style.display = '';
    var x = PAD + (Math.max(s, s0) - s0) / span * W;
    var w = (Math.min(e, e0) - Math.max(s, s0)) / span * W;
    fit(g, x, w);
  });
  bands.forEach(function (b) {
    var s = +b.getAttribute('data-s'), e = +b.getAttribute('data-e');
    if (e <= s0 || s >= e0) { b.style.display = 'none'; return; }
    b.style.display = '';
    var x = PAD + (Math.max(s, s0) - s0) / span * W;
    var w = (Math.min(e, e0) - Math.max(s, s0)) / span * W;
    b.setAttribute('x', x.toFixed(2));
    b.setAttribute('width', Math.max(w, 0.5).toFixed(2));
  });
}
function reset() { zoomed = null; show(0, 1, null, 0);
  statusEl.textContent = 'Click a frame to zoom, / to search'; }
frames.forEach(function (g) {
  g.addEventListener('click', function (ev) {
    ev.stopPropagation();
    zoomed = g;
    show(+g.getAttribute('data-s'), +g.getAttribute('data-e'),
         g.getAttribute('data-lane'), +g.getAttribute('data-l'));
    statusEl.textContent = 'Zoomed: ' + g.getAttribute('data-n') +
      ' (click background or Esc to reset)';
  });
  g.addEventListener('mouseover', function () {
    statusEl.textContent = g.querySelector('title').textContent; });
});
document.getElementById('bg').addEventListener('click', reset);
document.getElementById('reset').addEventListener('click', reset);
function search() {
  var term = prompt('Search (regular expression)', '');
  if (term === null) return;
  var re; try { re = new RegExp(term); } catch (e) { alert(e); return; }
  var hit = 0, tot = 0;
  frames.forEach(function (g) {
    var r = g.querySelector('rect');
    var base = g.getAttribute('data-c');
    if (term !== '' && re.test(g.getAttribute('data-n'))) {
      r.setAttribute('fill', '#e040e0'); hit++;
    } else r.setAttribute('fill', base);
    tot++;
  });
  statusEl.textContent = term === '' ? '' : 'Matched ' + hit + ' of ' +
    tot + ' frames for /' + term + '/';
}
document.getElementById('search').addEventListener('click', search);
document.addEventListener('keydown', function (ev) {
  if (ev.key === 'Escape') reset();
  else if (ev.key === '/' || ((ev.ctrlKey || ev.metaKey) && ev.key === 'f')) {
    ev.preventDefault(); search(); }
});
})();
"""


class Highlighter:
    """Colours: chosen functions stand out (delays blue, printk green,
    others purple); the rest get warm colours from a hash of the name."""

    def __init__(self, patterns: Optional[Sequence[str]],
                 green: Sequence[str] = ()) -> None:
        self.patterns = list(DEFAULT_HIGHLIGHT if patterns is None
                             else patterns)
        # also highlighted, always green (console output)
        self.green = list(green)
        self.cache: Dict[str, Tuple[str, bool]] = {}

    def color(self, name: str) -> Tuple[str, bool]:
        c = self.cache.get(name)
        if c is not None:
            return c
        hit = any(fnmatch.fnmatchcase(name, p) for p in self.patterns)
        if any(fnmatch.fnmatchcase(name, p) for p in self.green):
            c = ("#2fa84f", True)
        elif hit:
            low = name.lower()
            if "delay" in low or "sleep" in low:
                c = ("#3a78d8", True)
            elif "printk" in low:
                c = ("#2fa84f", True)
            else:
                c = ("#9a4fd0", True)
        else:
            h = zlib.crc32(name.encode("utf-8", "replace"))
            r = 205 + (h & 0x3f) % 50
            g = 80 + ((h >> 8) & 0xff) % 150
            b = 40 + ((h >> 16) & 0xff) % 50
            c = ("#%02x%02x%02x" % (r, g, b), False)
        self.cache[name] = c
        return c


def head(out: TextIO, width: int, height: int, title: str,
          subtitle: str, pad: int) -> None:
    out.write('<?xml version="1.0" standalone="no"?>\n')
    out.write('<svg version="1.1" xmlns="http://www.w3.org/2000/svg" '
              'width="%d" height="%d" viewBox="0 0 %d %d" data-w="%d" '
              'data-pad="%d">\n' % (width + 2 * pad, height, width + 2 * pad,
                                    height, width, pad))
    out.write('<style>text{font-family:monospace;font-size:%dpx;'
              'fill:#000}g.f:hover rect{stroke:#000;stroke-width:0.5}'
              'g.f{cursor:pointer}.ui{cursor:pointer;fill:#333}'
              '</style>\n' % FONT)
    out.write('<rect id="bg" x="0" y="0" width="100%" height="100%" '
              'fill="#f8f8f4"/>\n')
    out.write('<text x="%d" y="20" style="font-size:15px">%s</text>\n' % (
        pad, escape(title)))
    out.write('<text x="%d" y="36">%s</text>\n' % (pad, escape(subtitle)))
    out.write('<text id="reset" class="ui" x="%d" y="20">[Reset zoom]'
              '</text>\n' % (width + pad - 200))
    out.write('<text id="search" class="ui" x="%d" y="20">[Search]</text>\n'
              % (width + pad - 80))
    out.write('<text id="status" x="%d" y="%d"> </text>\n' % (
        pad, height - 6))


def frame(out: TextIO, name: str, tip: str, s: float, e: float,
           y: float, lane: str, level: int, width: int, pad: int,
           hl: Highlighter) -> None:
    color, _ = hl.color(name)
    x = pad + s * width
    w = (e - s) * width
    n = int((w - 6) / CHAR_W)
    label = "" if n < 3 else (name if len(name) <= n else
                              name[:n - 2] + "..")
    out.write('<g class="f" data-n=%s data-s="%.9f" data-e="%.9f" '
              'data-l="%d" data-lane=%s data-c="%s"><title>%s</title>'
              '<rect x="%.2f" y="%.1f" width="%.2f" height="%d" '
              'fill="%s" rx="1"/><text x="%.2f" y="%.1f">%s</text></g>\n'
              % (quoteattr(name), s, e, level, quoteattr(lane), color,
                 escape(tip), x, y, w, ROW - 1, color, x + 3,
                 y + ROW - 4, escape(label)))


def flamegraph(out: TextIO, top: Node, title: str, subtitle: str,
               highlight: Optional[Sequence[str]], width: int = 1200,
               min_px: float = 0.1, unit: str = "time") -> None:
    """Merged stacks, widths by inclusive time (or calls), root at the
    bottom.  top is a merged tree whose children are the roots."""
    hl = Highlighter(highlight)
    def value(n: Node) -> int:
        if unit == "time":
            return int(n.total)
        if unit == "oncpu":
            return int(n.oncpu)
        return _calls(n)
    total = sum(value(n)
                for n in top.kids.values())
    if total <= 0:
        total = 1
    # collect frames: (name, start, end, depth, node)
    frames: List[Tuple[str, float, float, int, Node]] = []
    todo: List[Tuple[Node, float, int]] = []
    x = 0.0
    for n in sorted(top.kids.values(), key=lambda n: n.name):
        todo.append((n, x, 0))
        x += value(n) / total
    maxd = 0
    while todo:
        n, x0, d = todo.pop()
        v = value(n) / total
        if v * width < min_px:
            continue
        frames.append((n.name, x0, x0 + v, d, n))
        maxd = max(maxd, d)
        cx = x0
        for c in sorted(n.kids.values(), key=lambda c: c.name):
            cv = value(c) / total
            todo.append((c, cx, d + 1))
            cx += cv
    pad = 10
    height = (maxd + 1) * ROW + 70
    head(out, width, height, title, subtitle, pad)
    base = height - 30
    for name, s, e, d, n in frames:
        if unit == "time":
            tip = "%s: %.3f us total, %.3f us local, %d calls (%.2f%%)" % (
                name, n.total / 1000.0, n.local / 1000.0, n.count,
                100.0 * (e - s))
        elif unit == "oncpu":
            tip = "%s: %.3f us on CPU of %.3f us total, %d calls " \
                "(%.2f%%)" % (name, n.oncpu / 1000.0, n.total / 1000.0,
                              n.count, 100.0 * (e - s))
        else:
            tip = "%s: %d calls below and here, %d calls (%.2f%%)" % (
                name, _calls(n), n.count, 100.0 * (e - s))
        frame(out, name, tip, s, e, base - (d + 1) * ROW, "0", d,
               width, pad, hl)
    out.write("<script><![CDATA[%s]]></script>\n</svg>\n" % SCRIPT)


def _calls(n: Node) -> int:
    tot = 0
    todo = [n]
    while todo:
        m = todo.pop()
        tot += m.count
        todo.extend(m.kids.values())
    return tot


def flamechart(out: TextIO, tl: Timeline, title: str,
               highlight: Optional[Sequence[str]], width: int = 1200,
               min_px: float = 0.05, max_lanes: int = 64,
               marks: Sequence[Tuple[int, int, str]] = (),
               green: Sequence[str] = (), legend: str = "",
               keep: Sequence[str] = (),
               off: Optional[Dict[str, Tuple[List[int], List[int]]]] = None,
               consume: bool = False) -> None:
    """Time on the x axis, calls in order, one lane per track (task or
    CPU), callers above callees.  marks are (start, end, label) spans
    drawn as grey bands behind all lanes (the boot view's untraced
    time); green names more functions to highlight in green; legend
    goes after the subtitle; the tracks in keep are drawn first,
    however quiet, then the others, busiest first.  off gives, per
    track, when its task was switched out (start and end lists): those
    spans are shaded in its lane and the tracks are ranked by their
    time on the CPU (the window less those spans), idle tasks last;
    else (and for a track without switches) by their time in calls.  A track whose calls
    cannot all be drawn nested has more lanes ("task (2)").  With
    consume, each track's calls are dropped from tl once laid out: only
    those wide enough to draw are kept."""
    hl = Highlighter(highlight, green)
    t0, t1 = tl.start, tl.end
    span = max(t1 - t0, 1)
    ranked = []
    for track in list(tl.tracks):
        # only the calls wide enough to draw are kept
        lanes_of = [recs.wider(width, span, min_px)
                    for recs in tl.lanes(track)]
        if consume:
            del tl.tracks[track]
        lanes_of = [recs for recs in lanes_of if recs]
        if not lanes_of:
            continue
        if off is not None and track in off:
            # time on the CPU: the window less the switched-out spans
            busy = span - sum(min(b, t1) - max(a, t0) for a, b in
                              zip(*off[track]) if b > t0 and a < t1)
        else:
            busy = sum(r.end - r.start for recs in lanes_of
                       for r in recs if r.level == 0)
        ranked.append((busy, track, lanes_of))
    # with the switch spans, the idle tasks go after the workload
    ranked.sort(key=lambda t: (t[1] not in keep,
                               off is not None and is_idle(t[1]),
                               -t[0], t[1]))
    dropped = len(ranked) - max_lanes
    ranked = ranked[:max_lanes]
    pad = 10
    y = 50
    layout = []
    nlanes = 0
    for busy, track, lanes_of in ranked:
        for k, recs in enumerate(lanes_of):
            depth = max(r.level for r in recs) + 1
            label = track if k == 0 else "%s (%d)" % (track, k + 1)
            layout.append((track, label, recs, y))
            y += 18 + depth * ROW + 8
            nlanes += 1
    height = y + 30
    sub = "%.6f s .. %.6f s (%.3f ms), %d lanes" % (
        t0 / 1e9, t1 / 1e9, span / 1e6, nlanes)
    if dropped > 0:
        sub += " (%d quieter tasks left out)" % dropped
    if legend:
        sub += "; " + legend
    head(out, width, height, title, sub, pad)
    for ms, me, label in marks:
        x0 = pad + max(0.0, (ms - t0) / span) * width
        x1 = pad + min(1.0, (me - t0) / span) * width
        out.write('<rect class="gap" data-s="%.9f" data-e="%.9f" '
                  'x="%.2f" y="44" width="%.2f" height="%d" '
                  'fill="#b0b0b0" fill-opacity="0.35">'
                  '<title>%s</title></rect>\n' % (
                      (ms - t0) / span, (me - t0) / span,
                      x0, max(x1 - x0, 0.5), height - 74,
                      escape("%s: %.3f ms at %.6f s" % (
                          label, (me - ms) / 1e6, ms / 1e9))))
    names = tl.name_list
    for track, label, recs, ly in layout:
        out.write('<text x="%d" y="%d" style="font-weight:bold">%s</text>\n'
                  % (pad, ly + 12, escape(label)))
        spans = off.get(track) if off is not None else None
        # switched out from here to the end of the trace, if it was
        gone = -1
        if spans:
            off_starts, off_ends = spans
            if off_ends[-1] >= t1:
                gone = off_starts[-1]
        for st, en, lvl, fid, flags, dur in recs.rows():
            name = names[fid]
            if flags & OPEN:
                tip = "%s: unfinished (no return in the trace), at " \
                    "%.6f s" % (name, st / 1e9)
                if 0 <= gone < en:
                    tip += "; its task was switched out from %.6f s to " \
                        "the end of the trace" % (gone / 1e9)
            else:
                tip = "%s: %.3f us, at %.6f s" % (name, dur / 1000.0,
                                                  st / 1e9)
            if flags & BEFORE:
                tip += " (began before the trace)"
            frame(out, name, tip, (st - t0) / span, (en - t0) / span,
                  ly + 18 + lvl * ROW, track, lvl, width, pad, hl)
        if spans:
            # over the calls, so that a call the task slept in shows it;
            # the calls under it still take the pointer
            lh = 2 + (max(r.level for r in recs) + 1) * ROW
            for a, b in zip(*spans):
                if b <= t0 or a >= t1:
                    continue
                s0, e0 = (max(a, t0) - t0) / span, (min(b, t1) - t0) / span
                out.write('<rect class="gap" data-s="%.9f" data-e="%.9f" '
                          'x="%.2f" y="%d" width="%.2f" height="%d" '
                          'fill="#606060" fill-opacity="0.3" '
                          'style="pointer-events:none"><title>%s'
                          '</title></rect>\n' % (
                              s0, e0, pad + s0 * width, ly + 16,
                              max((e0 - s0) * width, 0.5), lh,
                              escape("switched out: %.3f ms at %.6f s" % (
                                  (b - a) / 1e6, a / 1e9))))
    out.write("<script><![CDATA[%s]]></script>\n</svg>\n" % SCRIPT)
