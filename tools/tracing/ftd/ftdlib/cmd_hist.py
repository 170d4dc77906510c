# SPDX-License-Identifier: GPL-2.0
"""ftd hist: the distribution of a function's call durations, as a
histogram with power-of-two buckets and percentiles."""

from __future__ import annotations

import argparse
import array
import json
from typing import Dict, List, NamedTuple, Optional, TextIO

from .analysis import matcher
from .command import SubParsers, add_common, load, new_parser
from .model import FtdError
from .pairing import Call
from .parse import Walker
from .table import Column, human, text_col, us_col, write_table

PERCENTILES = (50.0, 90.0, 99.0, 99.9)
BAR = 40


def add_parser(sub: SubParsers) -> None:
    p = new_parser(sub, "hist", "histogram of the durations of FUNC's "
                   "calls, with percentiles")
    add_common(p)
    p.add_argument("function", metavar="FUNC",
                   help="the function, or a shell glob (one histogram "
                   "per function it matches)")
    p.add_argument("-f", "--format", choices=("text", "csv", "json"),
                   default="text", help="output format (default text); "
                   "csv has one row per function and bucket")


def percentile(ds: "array.array[int]", p: float) -> int:
    """The nearest-rank percentile of sorted durations."""
    k = max(1, -(-len(ds) * p // 100))     # ceil
    return ds[int(min(k, len(ds))) - 1]


class Bucket(NamedTuple):
    """How many calls took from low up to (not including) high."""

    low: int        # ns
    high: int       # ns
    calls: int


class BucketRow(NamedTuple):
    """A row of the CSV: a function's bucket."""

    function: str
    low: int        # ns
    high: int       # ns
    calls: int


def buckets(ds: "array.array[int]") -> List[Bucket]:
    """Below 1 us, then [1, 2), [2, 4), ... microseconds, up to the
    bucket of the longest call."""
    out: List[Bucket] = []
    lo, hi, i = 0, 1000, 0
    while i < len(ds):
        n = 0
        while i < len(ds) and ds[i] < hi:
            n += 1
            i += 1
        out.append(Bucket(lo, hi, n))
        lo, hi = hi, hi * 2
    return out


def summary(name: str, ds: "array.array[int]") -> Dict[str, object]:
    d: Dict[str, object] = {
        "function": name, "count": len(ds),
        "min_us": round(ds[0] / 1000.0, 3)}
    for p in PERCENTILES:
        d["p%s_us" % ("%g" % p).replace(".", "")] = round(
            percentile(ds, p) / 1000.0, 3)
    d["max_us"] = round(ds[-1] / 1000.0, 3)
    return d


def bucket_columns() -> List[Column]:
    return [
        text_col("Function", "function", lambda r: r.function),
        us_col("From(us)", "from_us", lambda r: r.low),
        us_col("To(us)", "to_us", lambda r: r.high),
        Column("Count", "count", lambda r: str(r.calls), lambda r: r.calls),
    ]


def run(a: argparse.Namespace, out: TextIO) -> Walker:
    match = matcher([a.function])
    durs: Dict[str, "array.array[int]"] = {}

    def sink(c: Call) -> None:
        name = c.name
        if name is not None and match(name):
            ds: Optional["array.array[int]"] = durs.get(name)
            if ds is None:
                ds = durs[name] = array.array("q")
            ds.append(c.dur)

    w = load(a.trace, a, flat=True,
             hooks=lambda w: w.want_calls(sink, starts=False,
                                         names=match))
    if not durs:
        raise FtdError("%s: function %r not found in the trace" % (
            w.info.name, a.function))
    hists = []
    for name in sorted(durs):
        ds = array.array("q", sorted(durs[name]))
        hists.append((name, ds, buckets(ds)))
    if a.format == "json":
        doc = []
        for name, ds, bs in hists:
            d = summary(name, ds)
            d["buckets"] = [{"from_us": b.low / 1000.0,
                             "to_us": b.high / 1000.0, "count": b.calls}
                            for b in bs]
            doc.append(d)
        out.write(json.dumps(doc, indent=1) + "\n")
        return w
    if a.format == "csv":
        write_table(out, bucket_columns(),
                    [BucketRow(name, *b) for name, ds, bs in hists
                     for b in bs], "csv")
        return w
    for k, (name, ds, bs) in enumerate(hists):
        if k:
            out.write("\n")
        out.write("%s: %d calls, min %s, %s, max %s\n" % (
            name, len(ds), human(ds[0]), ", ".join(
                "p%g %s" % (p, human(percentile(ds, p)))
                for p in PERCENTILES), human(ds[-1])))
        write_buckets(out, bs, len(ds))
    return w


def write_buckets(out: TextIO, bs: List[Bucket], calls: int) -> None:
    """The text bucket table: the bounds with units (human()), each
    column as wide as its widest cell, the count, its share and a bar."""
    los = [human(b.low) for b in bs[1:]]
    his = [human(b.high) for b in bs]
    wlo = max([len(x) for x in los], default=0)
    whi = max(len(x) for x in his)
    labels = ["%*s" % (wlo + 3 + whi, "< " + his[0])] + [
        "%*s - %*s" % (wlo, lo, whi, hi) for lo, hi in zip(los, his[1:])]
    wn = max(len("%d" % b.calls) for b in bs)
    most = max(b.calls for b in bs)
    for label, b in zip(labels, bs):
        n = b.calls
        out.write("  %s %*d %5.1f%% |%-*s|\n" % (
            label, wn, n, 100.0 * n / calls, BAR,
            "#" * (n * BAR // most if n else 0)))
