# SPDX-License-Identifier: GPL-2.0
"""The boot path as merged stacks in boot order: folded output and the
boot flame chart of `ftd boot`.

Every nanosecond of the boot path goes to the stack of the innermost
call running then ("(not traced)" where no record covers it).  Where
a boot hold blames a thread, the boot thread's stack down to the wait
function is followed by a pseudo-frame "THREAD comm-pid" and the
blamed thread's own stacks of that time, as the FreeBSD boot profiler
does.  Identical stacks are merged; they keep the order in which they
were first seen (boot order), not the alphabetical one of flame
graphs: a tree whose children are kept in the order they appeared.
"""

from __future__ import annotations

import bisect
from typing import Dict, Iterator, List, NamedTuple, Sequence, TextIO, Tuple
from xml.sax.saxutils import escape

from .boot import BootView, is_console, is_delay
from .bootholds import Blame, Hold
from .model import Node
from .svg import ROW, SCRIPT, Highlighter, frame, head
from .tasks import pid_of
from .timeline import Timeline, Tracks

NOT_TRACED = "(not traced)"
COLORS = [("delay", "#3a78d8", "delay loops and sleeps"),
          ("console", "#2fa84f", "printk and console output"),
          ("thread", "#8a56cc", "THREAD: the thread a hold is blamed on"),
          ("gap", "#b0b0b0", "not traced")]
COLOR = {k: c for k, c, _ in COLORS}



class Blamed(NamedTuple):
    """A span of a hold blamed on a thread."""

    start: int
    end: int
    hold: Hold
    blame: Blame


def boot_stacks(view: BootView, tl: Timeline, holds: Sequence[Hold]
                ) -> Iterator[Tuple[int, int, List[str]]]:
    """(start, end, stack) of the boot path in time order, holds
    spliced in."""
    tracks = Tracks(tl)
    blames = sorted((Blamed(a, e, h, b) for h in holds for b in h.blames
                     for a, e in b.spans), key=lambda x: x.start)
    bstart = [x.start for x in blames]
    for key, lo, hi in view.pieces:
        lo, hi = max(lo, view.start), min(hi, view.end)
        if lo >= hi:
            continue
        for s, e, stack in tracks.lane_segments(key, lo, hi):
            if not stack:
                stack = [NOT_TRACED]
            i = max(bisect.bisect_right(bstart, s) - 1, 0)
            t = s
            while t < e:
                while i < len(blames) and blames[i].end <= t:
                    i += 1
                if i >= len(blames) or blames[i].start >= e:
                    yield t, e, stack
                    break
                a, b, h, bl = blames[i]
                if a > t:
                    yield t, a, stack
                    t = a
                    continue
                if h.pid != _pid(key):
                    yield t, min(b, e), stack
                    t = min(b, e)
                    continue
                u = min(b, e)
                for s2, e2, st2 in tracks.segments(bl.pid, t, u):
                    yield s2, e2, h.stack + bl.prefix + st2
                t = u


def _pid(key: str) -> int:
    return pid_of(key)


def merge(items: Iterator[Tuple[int, int, List[str]]]) -> Node:
    """The stacks as a call tree, children in the order first seen:
    a node's local time is the time its stack was the innermost, its
    count the slices of time it was, its total its time with its
    callees.  analysis.folded(first_seen=True) writes it in boot
    order."""
    root = Node("")
    for s, e, stack in items:
        n = root
        n.total += e - s
        for name in stack:
            c = n.kids.get(name)
            if c is None:
                c = n.kids[name] = Node(name)
            c.total += e - s
            n = c
        n.local += e - s
        n.count += 1
    return root


def kind_of(name: str) -> str:
    if name.startswith("THREAD "):
        return "thread"
    if name == NOT_TRACED:
        return "gap"
    if is_delay(name):
        return "delay"
    if is_console(name):
        return "console"
    return ""


class _Colors(Highlighter):
    def __init__(self) -> None:
        super().__init__([])
        self.forced: Dict[str, str] = {}

    def color(self, name: str) -> Tuple[str, bool]:
        c = self.forced.get(name)
        if c is not None:
            return c, True
        return super().color(name)


def flame_chart(out: TextIO, root: Node, title: str, width: int = 1600,
                min_px: float = 0.1) -> None:
    """Merged boot stacks, widths by time, in boot order, root at the
    top; delays, console output, blamed threads and untraced time
    coloured apart, with a legend."""
    total = max(root.total, 1)
    frames: List[Tuple[str, float, float, int, str, Node]] = []
    todo: List[Tuple[Node, str, float, int, str]] = []
    x = 0.0
    for k, c in root.kids.items():
        todo.append((c, k, x, 0, ""))
        x += c.total / total
    maxd = 0
    while todo:
        n, name, x0, d, inherited = todo.pop()
        w = n.total / total
        if w * width < min_px:
            continue
        kind = kind_of(name) or inherited
        frames.append((name, x0, x0 + w, d, kind, n))
        maxd = max(maxd, d)
        cx = x0
        for k, c in n.kids.items():
            todo.append((c, k, cx, d + 1,
                         kind if kind in ("delay", "console") else ""))
            cx += c.total / total
    pad = 10
    top = 64
    height = top + (maxd + 1) * ROW + 40
    sub = "%.3f ms of boot, stacks merged in the order first seen" % (
        total / 1e6)
    head(out, width, height, title, sub, pad)
    lx = pad
    for _, col, label in COLORS:
        out.write('<rect x="%d" y="42" width="12" height="12" fill="%s"/>'
                  '<text class="legend" x="%d" y="52">%s</text>\n' % (
                      lx, col, lx + 16, escape(label)))
        lx += 16 + int(len(label) * 6.6) + 18
    hl = _Colors()
    for name, s, e, d, kind, n in frames:
        if kind:
            hl.forced[name] = COLOR[kind]
        else:
            hl.forced.pop(name, None)
        tip = "%s: %.3f ms, %.3f ms here (%.2f%%)" % (
            name, n.total / 1e6, n.local / 1e6, 100.0 * (e - s))
        frame(out, name, tip, s, e, top + d * ROW, "0", d, width, pad, hl)
    out.write("<script><![CDATA[%s]]></script>\n</svg>\n" % SCRIPT)
