# SPDX-License-Identifier: GPL-2.0
"""The line reader of function_graph text output.

The column layout (abstime, CPU, task, latency flags, duration) is taken
from the header when there is one and otherwise guessed from the first
lines (layout.py).  A regular expression built for that exact layout
then splits every line; the function text is classified with a few
string tests.

Function lines go to the pairing core (pairing.py), which matches
entries and returns into calls and gives each, once, to the collector
(collect.py) that keeps what the command needs.
"""

from __future__ import annotations

import re
from typing import (Callable, Dict, Iterable, List, NamedTuple, Optional,
                    Pattern, Sequence, Tuple)

from .collect import Collector, Filters
from .inputs import TraceInput, TruncatedInput
from .layout import (DUR_FIELD_RE, LOST_RE, SWITCH_RE, TC_LAYOUT,
                     TRACER_RE, detect_layout, from_tracecmd, is_tracecmd,
                     layout_from_header, layout_regex)
from .model import FtdError, FuncStats, Layout, Node, TraceInfo
from .tasks import is_idle, is_unknown, task_key, task_name, unknown_key
from .pairing import Call, Pairing, TaskState
from .timeline import Timeline

__all__ = ["Filters", "Walker", "parse_file"]

def ts_ns(ts: str) -> int:
    """'25.890734' -> nanoseconds."""
    sec, _, frac = ts.strip().partition(".")
    return int(sec) * 1000000000 + int((frac + "000000000")[:9])


def stamp_ns(ts: str) -> int:
    """A time stamp field in ns, -1 when it is empty or not a number
    (the split path does not check that field).  Through a float: exact
    to the nanosecond for time stamps below 10^6 s."""
    try:
        return int(float(ts) * 1e9 + 0.5) if ts else -1
    except ValueError:
        return -1


def dur_ns(dur: str) -> int:
    return int(float(dur) * 1000 + 0.5)


# A comment sink gets every timestamped comment line (trace events and
# trace_printk inside the graph): (track key, cpu, ts_ns, text), and
# every "#" header line as ("", "", -1, text).
CommentSink = Callable[[str, str, int, str], None]
CallSink = Callable[[Call], None]

# Shapes of function text (Walker._shape()).
ENTER, LEAF, RET, NAMED_RET, COMMENT, OPEN_COMMENT, OTHER = range(7)

class Fields(NamedTuple):
    """The fields of a function line, from the slow path of the reader
    (the split path keeps them in locals)."""

    st: TaskState           # its task's state
    cpu: str
    dur: int                # ns, -1: none
    depth: int
    kind: int               # its shape: ENTER, LEAF, RET, ...
    name: Optional[str]
    ts: str                 # the time stamp field


# What the field readers return for a line that is not a function line.
NOT_FUNCTION = Fields(TaskState("", False), "", -1, 0, OTHER, "", "")

P_RE = re.compile(r"#P:(\d+)")


class Walker:
    """Reads one trace line by line and hands its function lines to the
    pairing core.

    The reader finds the column layout, splits each line into its
    fields, keeps track of the current task of each CPU (for traces
    without a task column), and handles every line that is not a
    function line: headers, context switches, irq arrows, LOST markers,
    comments and malformed lines."""

    def __init__(self, filters: Optional[Filters] = None,
                 timeline: Optional[Timeline] = None,
                 need_time: str = "", flat: bool = False) -> None:
        self.filters = filters or Filters()
        self.need_time = need_time
        self.info = TraceInfo()
        self.collect = Collector(self.filters, flat, timeline)
        self.core = Pairing(self.info, self.collect)
        self.core.pool_keys = self._pooled
        self.oncpu = False          # on-CPU time kept (see want_oncpu())
        self.multi_cpu = False      # lines of several CPUs, no CPU column
        self.renamed: Dict[str, str] = {}
        self.curtask: Dict[str, str] = {}
        self.layout: Optional[Layout] = None
        self.fast: Optional[Pattern[str]] = None
        self.in_comment = False
        self.lineno = 0
        self.max_malformed_kept = 5
        self._keep_cache: Dict[str, bool] = {}
        self.cpuset: set[str] = set()
        # raw task field -> (task state, cpu); raw duration field -> ns
        self._stmap: Dict[str, Tuple[TaskState, str]] = {}
        self._dmap: Dict[str, int] = {}
        # raw function field -> (shape, depth, name); text -> (shape,
        # name) on lines parsed with the regex.  See _batch().
        self._tshapes: Dict[str, Tuple[int, int, Optional[str]]] = {}
        self._bshapes: Dict[str, Tuple[int, Optional[str]]] = {}
        self.layout_changed = False
        self.comment_sink: Optional[CommentSink] = None
        self.cpu_ts: Dict[str, int] = {}   # CPU -> its last time stamp
        self.switch_cpus: set[str] = set()
        self.tracecmd: Optional[bool] = None    # trace-cmd report input
        self.sink_starts = True

    def want_oncpu(self) -> None:
        """Keep every call's on-CPU time (ONCPU of the nodes): its
        duration less the time its task was switched out meanwhile, from
        the context-switch blocks and the time stamps (the split path
        notes each line's stamp).  Without time stamps it is not kept:
        self.oncpu is then False after the run."""
        self.oncpu = self.core.oncpu = True

    def want_calls(self, fn: CallSink, starts: bool = True,
                   names: Optional[Callable[[str], bool]] = None) -> None:
        """Give every counted call to fn (with names, at least those of
        the functions it accepts); without starts, fn does not read
        their starts (a leaf then need not wait for the next line of
        its task, see pairing.py)."""
        self.collect.call_sink = fn
        self.collect.sink_names = names
        self.sink_starts = starts

    def _pooled(self, key: str) -> bool:
        """Whether the lines of this task key may come from several
        CPUs that the trace does not tell apart."""
        lay = self.layout
        if lay is None or lay.cpu or not self.multi_cpu:
            return False
        return is_unknown(key) or is_idle(key)

    def _several_cpus(self) -> None:
        """The trace turns out to hold lines of several CPUs without a
        CPU column: the ambiguous tasks are paired by time."""
        if self.multi_cpu or self.layout is None or self.layout.cpu:
            return
        self.multi_cpu = self.info.mixed_cpus = True
        if not self.layout.proc:
            self.curtask[""] = "?"
        for st in self.core.tasks.values():
            if self._pooled(st.key):
                self.core.to_pool(st)

    @property
    def tasks(self) -> Dict[str, TaskState]:
        return self.core.tasks

    def roots(self) -> Dict[str, Node]:
        return self.collect.roots

    def func_stats(self) -> Dict[str, FuncStats]:
        return self.collect.func_stats()

    # ---- layout ------------------------------------------------------
    def _set_layout(self, lay: Layout) -> None:
        if lay != self.layout:
            self.layout_changed = True
            self._stmap.clear()
            self._dmap.clear()
        self.layout = lay
        self.info.layout = lay
        self.fast = layout_regex(lay)
        if not lay.abstime:
            self.oncpu = self.core.oncpu = False
        if self.need_time and not lay.abstime:
            raise FtdError(
                "%s: %s needs absolute timestamps, and this trace has "
                "none: turn them on with `echo 1 > /sys/kernel/tracing/"
                "options/funcgraph-abstime` and capture the trace again"
                % (self.info.name, self.need_time))
        if self.filters.t_start is not None or \
                self.filters.t_end is not None:
            if not lay.abstime:
                raise FtdError(
                    "%s: a time window needs absolute timestamps: "
                    "`echo 1 > /sys/kernel/tracing/options/"
                    "funcgraph-abstime`" % self.info.name)

    # ---- main loop ---------------------------------------------------
    def _wants(self) -> None:
        """Whether the calls' starts are needed to the end (a leaf then
        waits for the next line of its task, see pairing.py)."""
        f = self.filters
        c = self.collect
        self.core.want_start = (
            c.timeline is not None or c.every is not None or
            c.call_sink is not None and self.sink_starts or self.oncpu or
            f.t_start is not None or f.t_end is not None)
        if self.core.emit == self.collect:
            self.core.emit = self.collect.consumer(self.oncpu)
            if not self.oncpu:
                self.core.emit_leaf = self.collect.leaf_consumer()

    def run(self, inp: TraceInput) -> TraceInfo:
        self._wants()
        self.info.name = inp.name
        try:
            for batch in inp.batches():
                batch = self._tracecmd(batch)
                if self.fast is None:
                    self._prime(batch)
                self._batch(batch)
        except TruncatedInput as err:
            self.info.truncated = str(err)
        self.finish()
        return self.info

    def feed_lines(self, lines: Iterable[str]) -> TraceInfo:
        """Parse text lines (for tests and library use)."""
        self._wants()
        batch = self._tracecmd(list(lines))
        if self.fast is None:
            self._prime(batch)
        self._batch(batch)
        self.finish()
        return self.info

    def _tracecmd(self, batch: List[str]) -> List[str]:
        """`trace-cmd report` output (found in the first lines) is read
        as the trace file's layout with the same columns, line for
        line."""
        if self.tracecmd is None:
            self.tracecmd = any(is_tracecmd(ln) for ln in batch[:400])
            if self.tracecmd:
                self.info.tracer = "function_graph (trace-cmd report)"
                self._set_layout(TC_LAYOUT)
        if not self.tracecmd:
            return batch
        return [from_tracecmd(ln) for ln in batch]

    def _prime(self, batch: Sequence[str]) -> None:
        """The layout, from the header of the first batch, or else from
        its first lines; and whether lines of several CPUs may mix."""
        self._note_cpus(batch)
        lay: Optional[Layout] = None
        for line in batch[:400]:
            if line.startswith("#"):
                if self.comment_sink is not None:
                    # header lines before the layout is set (they come
                    # again, harmlessly, through _special())
                    self.comment_sink("", "", -1, line.rstrip("\r\n"))
                m = TRACER_RE.match(line)
                if m:
                    self.info.tracer = m.group(1)
                lay = layout_from_header(line)
                if lay is not None:
                    break
            elif line.strip():
                break
        if lay is None:
            lay = detect_layout(batch[:2000])
        if lay is not None:
            self._set_layout(lay)
            if len(self.switch_cpus) > 1:
                self._several_cpus()

    def _note_cpus(self, batch: Sequence[str]) -> None:
        """The CPUs of the first batch's context switches and LOST
        markers, and of a "#P:" header: lines of several CPUs may mix
        without a CPU column."""
        for line in batch:
            if line.startswith("#"):
                m0 = P_RE.search(line)
                if m0 and int(m0.group(1)) > 1:
                    self.switch_cpus.update(("0", "1"))
            elif "=>" in line:
                ms = SWITCH_RE.match(line)
                if ms:
                    self.switch_cpus.add(ms.group(1))
            elif line.startswith("CPU:"):
                ml = LOST_RE.match(line)
                if ml:
                    self.switch_cpus.add(ml.group(1))

    def _batch(self, batch: List[str]) -> None:
        """Read a batch of lines: until a layout is found, line by line;
        then through _read(), which stops at a line that changes the
        layout, and starts again on the rest of the batch."""
        if self.fast is None:
            for i, line in enumerate(batch):
                self.lineno += 1
                self._line(line)
                if self.fast is not None:
                    self._batch(batch[i + 1:])
                    return
            return
        self.layout_changed = False
        lay = self.layout
        assert lay is not None
        if self.filters.line_filter() or not lay.duration:
            self._batch_general(batch)
            return
        if self.oncpu and lay.abstime and self.info.first_ts is None:
            self._note_batch_ts(batch)
        if batch and not batch[-1].endswith("\n"):
            batch[-1] += "\n"
        done = self._read(batch)
        if self.layout_changed:
            self._batch(batch[done:])
        else:
            self._note_batch_ts(batch)

    def _read(self, batch: List[str]) -> int:
        """The hot loop: the fields of each line, its task's state, its
        stamp, and the four common shapes of function text handed to
        the pairing core; how many lines were read (all, unless one
        changed the layout).

        When the layout has a task column, lines are split at '|': the
        field holding CPU and task maps straight to the task's state,
        the duration field straight to nanoseconds and the function
        field straight to its shape, depth and name, through three
        dictionaries.  Each maps a raw field to what that field alone
        determines, so a hit is as good as a regex match.  Any other
        line goes to _fields(): a new duration or task field, a line
        that is not a function line, or a layout without a task
        column (read by the layout's regex)."""
        lay = self.layout
        assert lay is not None
        core = self.core
        seen = core.seen
        # the core's method for each shape (ENTER, LEAF, RET, NAMED_RET)
        handlers = (core.enter, core.leaf, core.ret, core.ret)
        oncpu = self.oncpu and lay.abstime
        cpu_ts = self.cpu_ts
        function = self._function
        fields = self._fields
        text_shape = self._text_shape
        stmap_get = self._stmap.get
        dmap_get = self._dmap.get
        tshapes_get = self._tshapes.get
        for cache in (self._dmap, self._tshapes, self._bshapes):
            if len(cache) > 200000:
                cache.clear()
        splitok = lay.proc
        nf = 3 + lay.abstime + lay.reltime + lay.lat
        ki = lay.abstime + lay.reltime
        di = nf - 2
        ti = nf - 1         # not -1: CPython 3.11 is quicker with it
        abst = lay.abstime
        n0 = n = self.lineno
        tsn = -1
        for line in batch:
            n += 1
            parts = line.split("|") if splitok else None
            if parts is not None and len(parts) == nf and \
                    (sc := stmap_get(parts[ki])) is not None and \
                    (d := dmap_get(parts[di])) is not None:
                st, cpu = sc
                kind, depth, name = tshapes_get(parts[ti]) or \
                    text_shape(parts[ti])
                ts = parts[0]
            else:
                r = fields(line, parts, n)
                if r is NOT_FUNCTION:
                    if self.layout_changed:
                        break
                    continue
                st, cpu, d, depth, kind, name, ts = r
            st.lines += 1
            if abst:
                try:
                    # stamp_ns(ts), inline: once a line
                    tsn = int(float(ts) * 1e9 + 0.5)
                except ValueError:
                    tsn = -1
                if oncpu and tsn >= 0:
                    # on-CPU time: the task's switch-outs end here
                    cpu_ts[cpu] = tsn
                    if st.out_since >= 0:
                        seen(st, tsn)
                    else:
                        st.last_ts = tsn
            if kind <= NAMED_RET:
                handlers[kind](st, depth, name, d, tsn, cpu, n)
            else:
                self.lineno = n
                st.lines -= 1
                function(line)
        self.lineno = n
        return n - n0

    def _fields(self, line: str, parts: Optional[List[str]],
                n: int) -> Fields:
        """The fields of a line that the split path of _read() cannot
        map through its dictionaries (parts: the line split at '|', None
        when the layout has no task column): NOT_FUNCTION for a line
        that is not a function line (handled here)."""
        self.lineno = n
        if parts is None:
            return self._regex_fields(line)
        if len(parts) == 1:
            # no '|' at all: blank, switch or lost-events line
            self._line(line)
            return NOT_FUNCTION
        lay = self.layout
        assert lay is not None
        ki = lay.abstime + lay.reltime
        di = len(parts) - 2
        if len(parts) == 3 + lay.abstime + lay.reltime + lay.lat:
            sc = self._stmap.get(parts[ki])
            d = self._dmap.get(parts[di])
            if d is None and sc is not None:
                # a new duration: the field alone says it
                md = DUR_FIELD_RE.match(parts[di])
                if md is None:
                    # not a duration (an irq arrow): the regex would not
                    # match the line either
                    self._line(line)
                    return NOT_FUNCTION
                g = md.group(1)
                d = self._dmap[parts[di]] = dur_ns(g) if g else -1
            if sc is not None and d is not None:
                kind, depth, name = self._tshapes.get(parts[-1]) or \
                    self._text_shape(parts[-1])
                return Fields(sc[0], sc[1], d, depth, kind, name, parts[0])
            return self._learn(line, parts, ki, di)
        return self._learn(line, None, 0, 0)

    def _regex_fields(self, line: str) -> Fields:
        """The fields of a line of a layout without a task column, by
        the layout's regex."""
        assert self.fast is not None
        m = self.fast.match(line)
        if m is None:
            self._line(line)
            return NOT_FUNCTION
        ts, cpu, task, dur, ind, body = m.groups()
        key = task_key(task, cpu, self.curtask)
        st = self.core.tasks.get(key) or self.core.task(key)
        self.cpuset.add(cpu)
        depth = len(ind) >> 1
        if depth > self.info.max_depth:
            self.info.max_depth = depth
        sh = self._bshapes.get(body)
        if sh is None:
            sh = self._bshapes[body] = self._shape(body)
        return Fields(st, cpu, dur_ns(dur) if dur else -1, depth, sh[0],
                      sh[1], ts)

    def _shape(self, body: str) -> Tuple[int, Optional[str]]:
        """The shape of a function text, and the name in it: ENTER
        "func() {", LEAF "func();" (or "func(); /* = retval */"), RET
        "}" (no name), NAMED_RET "} /* func */" (or "} /* func = retval
        */"; a return value notes that the trace has them), COMMENT
        "/* ... */", OPEN_COMMENT "/* ..." (goes on in the next lines),
        OTHER for the rest.  The one classification of both paths."""
        c = body[-1:]
        if c == "{":
            if body[-4:] == "() {":
                return ENTER, body[:-4]
        elif c == ";":
            if body[-3:] == "();":
                return LEAF, body[:-3]
        elif c == "}":
            if body == "}":
                return RET, None
        elif c == "/" and body[-3:] == " */":
            if body[:5] == "} /* ":
                name = body[5:-3]
                if " = " in name:
                    name = name.partition(" = ")[0]
                    self.info.retval = True
                return NAMED_RET, name
            if body[:2] == "/*":
                return COMMENT, ""
            i = body.find("(); /* = ")
            if i > 0:
                self.info.retval = True
                return LEAF, body[:i]
        if body[:2] == "/*":
            return OPEN_COMMENT, ""
        return OTHER, ""

    def _text_shape(self, text: str) -> Tuple[int, int, Optional[str]]:
        """The shape, depth and name of the function field of a split
        line (the last field: the two spaces after the '|', the text
        and the newline), kept for the next line with the same field.
        The deepest depth is noted here: a line whose field was kept
        is no deeper."""
        body = text.strip()
        depth = (len(text) - len(body) - 3) >> 1
        if depth > self.info.max_depth:
            self.info.max_depth = depth
        kind, name = self._shape(body)
        sh = self._tshapes[text] = (kind, depth, name)
        return sh

    def _note_batch_ts(self, batch: List[str]) -> None:
        """The first and last time stamps, from the first and last
        timed lines of a batch."""
        if self.layout is None or not self.layout.abstime or \
                self.fast is None:
            return
        if self.info.first_ts is None:
            for line in batch[:200]:
                m = self.fast.match(line)
                if m is not None and m.group(1):
                    self._note_ts(m.group(1))
                    break
        for line in reversed(batch[-200:]):
            m = self.fast.match(line)
            if m is not None and m.group(1):
                self._note_ts(m.group(1))
                return

    def _learn(self, line: str, parts: Optional[List[str]], ki: int,
               di: int) -> Fields:
        """Parse a line with the regex; remember its task and duration
        fields for the split path.  Returns the task, CPU, duration,
        depth, shape, name and time stamp of a function line;
        NOT_FUNCTION for other lines (handled here)."""
        assert self.fast is not None
        m = self.fast.match(line)
        if m is None:
            self._line(line)
            return NOT_FUNCTION
        ts, cpu, task, dur, ind, body = m.groups()
        st = self.core.task(task_key(task, cpu, self.curtask))
        if cpu:
            self.cpuset.add(cpu)
        depth = len(ind) >> 1
        if depth > self.info.max_depth:
            self.info.max_depth = depth
        d = dur_ns(dur) if dur else -1
        if parts is not None and parts[-1].strip() == body and \
                body and (len(parts[-1]) - len(body) - 3) >> 1 == depth:
            self._stmap[parts[ki]] = (st, cpu)
            self._dmap[parts[di]] = d
        kind, name = self._shape(body)
        return Fields(st, cpu, d, depth, kind, name, ts or "")

    def _batch_general(self, batch: List[str]) -> None:
        """All lines through the regex and the general code (line
        filters, no duration column)."""
        n0 = self.lineno
        for i, line in enumerate(batch):
            self.lineno = n0 + i + 1
            self._function(line)
            if self.layout_changed:
                self.layout_changed = False
                self._batch(batch[i + 1:])
                return

    def _function(self, line: str) -> None:
        """One line through the regex and the general code."""
        assert self.fast is not None
        m = self.fast.match(line)
        if m is None:
            self._line(line)
            return
        ts, cpu, task, dur, ind, body = m.groups()
        key = task_key(task, cpu, self.curtask)
        st = self.core.task(key)
        st.lines += 1
        if cpu:
            self.cpuset.add(cpu)
        if ts:
            self._note_ts(ts)
            if self.oncpu:
                t = stamp_ns(ts)
                self.cpu_ts[cpu] = t
                self.core.seen(st, t)
        depth = len(ind) >> 1
        if depth > self.info.max_depth:
            self.info.max_depth = depth
        self._event(st, key, cpu, ts or "", depth, body,
                    dur_ns(dur) if dur else -1, line)

    def _note_ts(self, ts: str) -> None:
        t = ts_ns(ts)
        info = self.info
        if info.first_ts is None:
            info.first_ts = self.core.first_ts = t
        if info.last_ts is None or t > info.last_ts:
            info.last_ts = t

    # ---- general path ------------------------------------------------
    def _event(self, st: TaskState, key: str, cpu: str, ts: str,
               depth: int, body: str, d: int, line: str) -> None:
        """Handle one function line in full generality."""
        info = self.info
        core = self.core
        if body.endswith("\r"):
            body = body[:-1]
        if self.filters.line_filter():
            if not self._keep(key, cpu):
                st.lines -= 1
                return
        self.in_comment = False
        n = self.lineno
        kind, name = self._shape(body)
        if kind <= NAMED_RET:
            handler = (core.enter, core.leaf, core.ret, core.ret)[kind]
            handler(st, depth, name, d, stamp_ns(ts), cpu, n)
        elif kind == COMMENT:
            info.comments += 1
            if self.comment_sink is not None and ts:
                self.comment_sink(key, cpu, ts_ns(ts), body)
        elif kind == OPEN_COMMENT:
            info.comments += 1
            self.in_comment = True
        elif not self._special(line.rstrip("\r\n")):
            self._malformed(line)

    def _keep(self, key: str, cpu: str) -> bool:
        f = self.filters
        if f.cpus is not None:
            try:
                if int(cpu) not in f.cpus:
                    return False
            except ValueError:
                return False
        if f.pids is not None or f.tasks is not None:
            k = self._keep_cache.get(key)
            if k is None:
                task = task_name(key)
                k = f.keep_task(task)
                self._keep_cache[key] = k
            return k
        return True

    # ---- other lines -------------------------------------------------
    def _line(self, line: str) -> None:
        s = line.rstrip("\r\n")
        if not s.strip():
            return
        if self._special(s):
            return
        if self.fast is None:
            lay = detect_layout([s])
            if lay is not None:
                self._set_layout(lay)
        if self.fast is not None:
            m3 = self.fast.match(s)
            if m3 is not None and m3.group(6):
                ind, body = m3.group(5), m3.group(6)
                if not (len(ind) % 2) and (
                        body.endswith("*/") or body.endswith("{") or
                        body.endswith(";") or body == "}"):
                    self.in_comment = False
                    self._function(s)
                    return
        if self.in_comment:
            if s.endswith("*/"):
                self.in_comment = False
            return
        self._malformed(line)

    def _special(self, s: str) -> bool:
        """Headers, irq arrows, context switches, lost events."""
        info = self.info
        if not s:
            return False
        if s[0] == "#":
            self._header(s)
            return True
        if "==========" in s:
            if "==========>" in s:
                info.irq_entries += 1
            else:
                info.irq_exits += 1
            return True
        if s.startswith(" -----") and not s.strip("- "):
            return True
        if "=>" in s:
            m = SWITCH_RE.match(s)
            if m:
                self._switch(*m.groups())
                return True
        m2 = LOST_RE.match(s)
        if m2:
            info.lost_events += 1
            info.lost_records += int(m2.group(2))
            lay = self.layout
            self.core.lost(m2.group(1) if lay is None or lay.cpu else "")
            return True
        if s.startswith(" (Overruns:"):
            return True
        return False

    def _header(self, s: str) -> None:
        """A "#" line: the tracer, the column header, the options."""
        m = TRACER_RE.match(s)
        if m:
            self.info.tracer = m.group(1)
        if self.comment_sink is not None:
            # header lines too, with no time (-1)
            self.comment_sink("", "", -1, s)
        lay = layout_from_header(s)
        if lay is not None:
            self._set_layout(lay)
        elif s.startswith("# ") and "options" in s:
            self.info.header_options.append(s[2:].strip())

    def _switch(self, cpu: str, prev: str, nxt: str) -> None:
        self.info.switches += 1
        lay = self.layout
        if cpu not in self.switch_cpus:
            self.switch_cpus.add(cpu)
            if len(self.switch_cpus) > 1:
                self._several_cpus()
        c = cpu if lay is None or lay.cpu else ""
        self.core.switched_out(task_key(prev, c, self.curtask))
        if self.oncpu:
            self.core.switched(task_key(prev, c, self.curtask),
                               task_key(nxt, c, self.curtask),
                               self.cpu_ts.get(c, -1))
        if lay is not None and lay.proc:
            return
        if lay is not None and not lay.cpu:
            if self.multi_cpu:
                return          # lines cannot be given to a task
            cpu = ""
        pk = task_key(prev, cpu, self.curtask)
        nk = task_key(nxt, cpu, self.curtask)
        unknown = unknown_key(cpu)
        tasks = self.core.tasks
        if self.curtask.get(cpu) is None and unknown in tasks:
            # what ran before the CPU's first switch was its prev task
            st = tasks.pop(unknown)
            self.renamed[unknown] = pk
            if pk not in tasks:
                st.key = pk
                tasks[pk] = st
            else:
                tasks[pk].lines += st.lines
                self.core.cut(st)
        self.curtask[cpu] = nk

    def _malformed(self, line: str) -> None:
        info = self.info
        info.malformed += 1
        if len(info.malformed_lines) < self.max_malformed_kept:
            info.malformed_lines.append(self.lineno)
            info.malformed_samples.append(line.rstrip("\r\n")[:120])

    # ---- end ---------------------------------------------------------
    def finish(self) -> None:
        info = self.info
        self.core.finish()
        self.collect.finish()
        self.collect.rename(self.renamed)
        for cpu in self.cpuset:
            if cpu:
                info.cpus[int(cpu)] = 1
        info.lines = self.lineno
        if info.entries:
            info.exits_only = False
        elif not info.returns:
            info.exits_only = False


def parse_file(path: str, filters: Optional[Filters] = None,
               timeline: Optional[Timeline] = None, need_time: str = "",
               progress: bool = False, flat: bool = False,
               hooks: Optional[Callable[[Walker], None]] = None) -> Walker:
    """Parse one trace file (or '-' for stdin) and return the walker;
    hooks, when given, can set the walker's other sinks first."""
    w = Walker(filters, timeline, need_time, flat)
    if hooks is not None:
        hooks(w)
    inp = TraceInput(path, progress)
    try:
        w.run(inp)
    finally:
        inp.close()
    return w
