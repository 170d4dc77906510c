# SPDX-License-Identifier: GPL-2.0
"""ftd: post-processor for function_graph trace dumps."""

VERSION = "1.0"
