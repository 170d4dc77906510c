#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Cut a function_graph trace (abstime, CPU, task columns) down to test
data size: the lines up to LAST, of the tasks named, to a depth.

  trim_trace.py TRACE LAST MAXDEPTH TASK=DEPTH... > out.txt

Lines deeper than a task's depth are left out; the braces still balance
because an entry and its return sit at the same depth.  Comment lines
(trace events) of a kept task are always kept.  Used for
data/boot_t1000.txt.xz (see test_boot.py)."""

import sys


def main() -> None:
    path, last = sys.argv[1], int(sys.argv[2])
    depth = {k: int(v) for k, v in (a.split("=") for a in sys.argv[3:])}
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if n > last:
                break
            if line.startswith("#"):
                sys.stdout.write(line)
                continue
            parts = line.split("|")
            if len(parts) < 4:
                continue
            task = parts[1].split(")", 1)[-1].strip()
            if task not in depth:
                continue
            text = parts[-1]
            body = text.lstrip(" ")
            d = (len(text) - len(body) - 2) // 2
            if body.startswith("/*") or d <= depth[task]:
                sys.stdout.write(line)


if __name__ == "__main__":
    main()
