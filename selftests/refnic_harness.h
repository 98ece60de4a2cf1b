/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's kselftest harness for refnic's C selftests, with its fixed
 * 30 s per case out of the way: selftests/harness/run.sh times each test out
 * at its TESTS entry, scaled for slow (debug) kernels, and shows the console
 * when it does; on a debug kernel the 30 s would fire first (50 module load
 * cycles take longer there). TEST() reads the default where it is used.
 */
#ifndef REFNIC_HARNESS_H
#define REFNIC_HARNESS_H

#include "kselftest_harness.h"

#undef TEST_TIMEOUT_DEFAULT
#define TEST_TIMEOUT_DEFAULT 3600

#endif
