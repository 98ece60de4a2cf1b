/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's kselftest harness for refnic's C selftests, its per-case
 * timeouts (30 s, or a TEST_F_TIMEOUT's) scaled like the VM harness scales
 * each test's: selftests/harness/run.sh --timeout-scale N, which make
 * check-debug sets for the slow debug kernels, reaches the guest as
 * REFNIC_TIMEOUT_SCALE. End a test file with REFNIC_HARNESS_MAIN.
 */
#ifndef REFNIC_HARNESS_H
#define REFNIC_HARNESS_H

#include <stdlib.h>

#include "kselftest_harness.h"

/* Every case is registered (by constructors) before main() runs. */
static inline void refnic_scale_timeouts(void)
{
	const char *env = getenv("REFNIC_TIMEOUT_SCALE");
	int scale = env ? atoi(env) : 1;
	struct __fixture_metadata *f;
	struct __test_metadata *t;

	if (scale <= 1)
		return;
	for (f = __fixture_list; f; f = f->next)
		for (t = f->tests; t; t = t->next)
			t->timeout *= scale;
}

#define REFNIC_HARNESS_MAIN \
	int main(int argc, char **argv) \
	{ \
		refnic_scale_timeouts(); \
		return test_harness_run(argc, argv); \
	}

#endif
