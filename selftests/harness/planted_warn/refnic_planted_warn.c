// SPDX-License-Identifier: GPL-2.0
/* Copyright (c) 2026 The refnic authors
 *
 * A module that does nothing but WARN once when loaded, or with oops=1
 * oops (a NULL write) instead. The harness's own self-test loads it to prove
 * that a kernel warning during a test fails that test, and that an oops
 * ends the test at once. Never loaded outside that test.
 */

#include <linux/bug.h>
#include <linux/init.h>
#include <linux/module.h>

static bool oops;
module_param(oops, bool, 0);
MODULE_PARM_DESC(oops, "oops instead of warning");

static int __init refnic_planted_warn_init(void)
{
	if (oops)
		*(int *)READ_ONCE(oops) = 1;	/* at address 1: an oops */
	WARN(1, "refnic harness self-test: planted warning\n");
	return 0;
}

static void __exit refnic_planted_warn_exit(void)
{
}

module_init(refnic_planted_warn_init);
module_exit(refnic_planted_warn_exit);

MODULE_DESCRIPTION("refnic test harness self-test: a planted WARN");
MODULE_LICENSE("GPL");
