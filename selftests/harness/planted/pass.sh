#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A test that passes: the harness must report it as passed.
echo "TAP version 13"
echo "1..1"
echo "ok 1 planted pass"
