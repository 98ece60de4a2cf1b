#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Never finishes, and leaves a background child holding its output open:
# the harness must time it out and go on.
sleep 100000 &
sleep 100000
