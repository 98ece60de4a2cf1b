#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Proves that genl/fuzz.sh can fail: a lost answer, and 8 pairs left up
# (page pools holding pages, slab in use), must each fail their check.
# See fuzz.sh --self-test.
exec "$(dirname "$0")/fuzz.sh" --self-test
