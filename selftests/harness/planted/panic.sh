#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Crashes the kernel: the VM dies, the harness must fail this test with the
# console tail and run the remaining tests in a fresh VM.
echo c > /proc/sysrq-trigger
sleep 30
