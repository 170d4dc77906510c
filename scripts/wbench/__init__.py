# SPDX-License-Identifier: GPL-2.0
"""The QEMU ARM workbench: build, boot, test and benchmark the series."""
