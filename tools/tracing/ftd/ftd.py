#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""ftd: function trace dump post-processor (see ftdlib/cli.py)."""

import os
import sys

_here = os.path.dirname(os.path.realpath(__file__))
for _dir in (_here, os.path.join(_here, "..", "lib", "ftd")):
    if os.path.isdir(os.path.join(_dir, "ftdlib")):
        sys.path.insert(0, _dir)
        break

from ftdlib.cli import run  # noqa: E402

if __name__ == "__main__":
    run()
