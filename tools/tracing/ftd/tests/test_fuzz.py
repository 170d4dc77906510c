# SPDX-License-Identifier: GPL-2.0
"""Mutated lines and random bytes: ftd must end cleanly, count what it
could not read, and never print a traceback."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import DATA_DIR, run_ftd
from ftdlib.parse import Walker

LINES = (DATA_DIR / "s3_head.txt").read_text().splitlines(True)
LINES_LAT = (DATA_DIR / "s4_lat_head.txt").read_text().splitlines(True)


def mutate(rnd: random.Random, line: str) -> str:
    op = rnd.randrange(6)
    i = rnd.randrange(len(line) + 1)
    if op == 0:
        return line[:i] + line[i + rnd.randrange(1, 20):]
    if op == 1:
        return line[:i] + rnd.choice("{}();|/* =>-#!+$@0123456789\t\r") + \
            line[i:]
    if op == 2:
        return line[:i]
    if op == 3:
        return line.replace(" ", "", 1)
    if op == 4:
        return "".join(chr(rnd.randrange(1, 0x3000)) for _ in range(i))
    return line * 2


@settings(max_examples=80, deadline=None)
@given(rnd=st.randoms(use_true_random=False), lat=st.booleans())
def test_mutated_lines(rnd: random.Random, lat: bool) -> None:
    src = LINES_LAT if lat else LINES
    lines = [x.replace("\r", "") for x in src[:300]]
    clean = Walker().feed_lines(list(lines))
    assert clean.malformed == 0
    # function lines only (the header sets the layout), one line each
    body = [j for j, x in enumerate(lines) if not x.startswith("#")]
    hit = set()
    for _ in range(rnd.randint(1, 30)):
        j = rnd.choice(body)
        text = mutate(rnd, lines[j]).replace("\n", "").replace("\r", "")
        lines[j] = text + "\n"
        hit.add(j + 1)
    w = Walker()
    info = w.feed_lines(lines)
    # what it could not read is a mutated line, named by its number
    assert info.malformed <= len(hit)
    assert set(info.malformed_lines) <= hit
    assert len(info.malformed_lines) == min(info.malformed, 5)


@settings(max_examples=60, deadline=None)
@given(data=st.binary(max_size=4000))
def test_random_text(data: bytes) -> None:
    lines = data.decode("latin-1").splitlines(True)
    w = Walker()
    info = w.feed_lines(lines)
    # every line read, none counted twice as malformed
    assert w.lineno == len(lines)
    assert info.malformed <= len(lines)
    assert len(info.malformed_lines) == min(info.malformed, 5)
    assert all(1 <= n <= len(lines) for n in info.malformed_lines)


def test_cli_on_garbage(tmp_path) -> None:  # type: ignore[no-untyped-def]
    rnd = random.Random(7)
    lines = list(LINES)
    for j in rnd.sample(range(len(lines)), 40):
        lines[j] = mutate(rnd, lines[j]).rstrip("\n") + "\n"
    p = tmp_path / "m.txt"
    p.write_text("".join(lines))
    for cmd in ("report", "folded", "chrome", "speedscope", "info",
                "flamegraph", "flamechart", "tree"):
        r = run_ftd(cmd, str(p), "-o", str(tmp_path / "out"))
        assert b"malformed" in r.stderr
    # the count, the first line numbers, and the first line itself
    first = "".join(lines).splitlines()[47]
    r = run_ftd("report", "--strict", str(p), code=3)
    assert r.stderr.decode().splitlines() == [
        "ftd: %s: 20 malformed lines skipped (lines 48, 49, 51, 61, 97, "
        "...)" % p,
        "ftd: %s:48: %s" % (p, first),
        "ftd: %s: malformed input (--strict)" % p]
    q = tmp_path / "rand.bin"
    q.write_bytes(bytes(rnd.randrange(256) for _ in range(20000)))
    run_ftd("report", str(q), code=1)
    t = tmp_path / "rand.txt"
    t.write_text("".join(chr(rnd.randrange(32, 127)) if rnd.random() > 0.05
                         else "\n" for _ in range(20000)))
    # random text: either nothing usable (exit 1) or a few lines that
    # happen to parse; both end cleanly and report the junk
    r = run_ftd("report", str(t), code=-1)
    assert r.returncode in (0, 1)
    assert b"malformed" in r.stderr or b"no function" in r.stderr
