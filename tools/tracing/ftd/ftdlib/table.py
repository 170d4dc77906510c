# SPDX-License-Identifier: GPL-2.0
"""One writer for every table: text (aligned columns), CSV and JSON.

A table is a list of Columns and a list of rows of any type; each
column says how to show a row's cell as text and what value it has in
CSV and JSON."""

from __future__ import annotations

import csv
import json
from typing import Any, Callable, Dict, List, Optional, Sequence, TextIO


def us(ns: float) -> float:
    """ns as microseconds with three decimals (JSON values)."""
    return round(ns / 1000.0, 3)


class Column:
    """head: the text header; field: the CSV/JSON name (None: text
    only); text: the cell as text; value: the CSV/JSON value (default:
    the text); csv: the cell in CSV (default: the value, floats with
    three decimals); left: left-aligned (else right); width: the most
    characters a text cell may take (longer ones widen the row)."""

    __slots__ = ("head", "field", "text", "value", "csv", "left", "width")

    def __init__(self, head: str, field: Optional[str],
                 text: Callable[[Any], str],
                 value: Optional[Callable[[Any], Any]] = None,
                 csv: Optional[Callable[[Any], str]] = None,
                 left: bool = False, width: int = 0) -> None:
        self.head = head
        self.field = field
        self.text = text
        self.value = value or text
        self.csv = csv
        self.left = left
        self.width = width

    def csv_cell(self, row: Any) -> str:
        if self.csv is not None:
            return self.csv(row)
        v = self.value(row)
        return "%.3f" % v if isinstance(v, float) else str(v)


def text_col(head: str, field: Optional[str], get: Callable[[Any], str],
             width: int = 0) -> Column:
    """A left-aligned text column."""
    return Column(head, field, get, left=True, width=width)


def int_col(head: str, field: str, get: Callable[[Any], int],
            signed: bool = False) -> Column:
    fmt = "%+d" if signed else "%d"
    return Column(head, field, lambda r: fmt % get(r), get,
                  lambda r: "%d" % get(r))


UNITS = ((1e9, " s"), (1e6, "ms"), (1e3, "us"))


def human(ns: float, signed: bool = False) -> str:
    """A duration as text tables show it, the way uftrace and perf do:
    three decimals of the largest unit (s, ms, us) that keeps at least
    one integer digit after rounding, the unit two characters wide so
    that the units and the decimal points line up in a right-aligned
    column."""
    a = abs(ns)
    for scale, unit in UNITS:
        if a >= scale * 0.9999995 or scale == 1e3:
            return ("%+.3f %s" if signed else "%.3f %s") % (ns / scale,
                                                             unit)
    raise AssertionError("unreachable")


def human_inline(ns: float) -> str:
    """human() inside a sentence: one space before the unit."""
    return " ".join(human(ns).split())


def dur_col(head: str, field: str, get: Callable[[Any], float],
            signed: bool = False) -> Column:
    """Nanoseconds with units in text (human()), as microseconds with
    three decimals in CSV and JSON."""
    return Column(head, field, lambda r: human(get(r), signed),
                  lambda r: us(get(r)), lambda r: "%.3f" % (get(r) / 1000.0))


def us_col(head: str, field: str, get: Callable[[Any], float],
           signed: bool = False) -> Column:
    """Nanoseconds shown as microseconds with three decimals."""
    fmt = "%+.3f" if signed else "%.3f"
    return Column(head, field, lambda r: fmt % (get(r) / 1000.0),
                  lambda r: us(get(r)), lambda r: "%.3f" % (get(r) / 1000.0))


def write_table(out: TextIO, columns: Sequence[Column], rows: Sequence[Any],
                fmt: str, footer: Optional[Any] = None,
                rule: bool = True) -> None:
    """Write rows as text, csv or json.  The footer row (text only) is
    set off by a rule; rule=False leaves out the rule under the
    header."""
    if fmt == "csv":
        cols = [c for c in columns if c.field]
        w = csv.writer(out, lineterminator="\n")
        w.writerow([c.field for c in cols])
        for r in rows:
            w.writerow([c.csv_cell(r) for c in cols])
        return
    if fmt == "json":
        cols = [c for c in columns if c.field]
        data: List[Dict[str, Any]] = [
            {str(c.field): c.value(r) for c in cols} for r in rows]
        out.write(json.dumps(data, indent=1) + "\n")
        return
    cells = [[c.text(r) for c in columns] for r in rows]
    foot = [c.text(footer) for c in columns] if footer is not None else None
    widths = []
    for i, c in enumerate(columns):
        width = max([len(c.head)] + [len(x[i]) for x in cells] +
                    ([len(foot[i])] if foot else []))
        if c.width:
            width = min(width, max(c.width, len(c.head)))
        widths.append(width)

    def line(vals: Sequence[str]) -> str:
        parts = []
        for i, (c, v) in enumerate(zip(columns, vals)):
            sep = "" if i == 0 else ("  " if c.field is None else " ")
            parts.append(sep + ("%-*s" if c.left else "%*s") % (
                widths[i], v))
        return "".join(parts).rstrip()

    head = line([c.head for c in columns])
    out.write(head + "\n")
    if rule:
        out.write("-" * len(head) + "\n")
    for x in cells:
        out.write(line(x) + "\n")
    if foot is not None:
        out.write("-" * len(head) + "\n")
        out.write(line(foot) + "\n")
