#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A test that skips with kselftest's exit code: reported as skipped, with
# its reason.
echo "1..0 # SKIP planted skip reason"
exit 4
