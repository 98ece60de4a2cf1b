/* SPDX-License-Identifier: GPL-2.0 */
/* Copyright (c) 2026 The refnic authors
 *
 * Kernel calls the driver and the device model both use that a 6.12
 * kernel may lack. Each stands in only when Kbuild found no such name in
 * the kernel's headers (REFNIC_HAVE_*), so that a 6.12.y which gains one
 * by a stable backport (as WQ_PERCPU came to 6.12.1xx) keeps building.
 */

#ifndef _REFNIC_KCOMPAT_H_
#define _REFNIC_KCOMPAT_H_

#include <linux/hrtimer.h>
#include <linux/workqueue.h>

#ifndef REFNIC_KERNEL_7
#error "REFNIC_KERNEL_7 comes from kmod/Kbuild: build refnic with it"
#endif

#ifndef REFNIC_HAVE_HRTIMER_SETUP
static inline void
hrtimer_setup(struct hrtimer *timer,
	      enum hrtimer_restart (*function)(struct hrtimer *),
	      clockid_t clock_id, enum hrtimer_mode mode)
{
	hrtimer_init(timer, clock_id, mode);
	timer->function = function;
}
#endif

/* Before WQ_PERCPU, a workqueue without WQ_UNBOUND was per-CPU. */
#ifndef REFNIC_HAVE_WQ_PERCPU
#define WQ_PERCPU	0
#endif

#endif /* _REFNIC_KCOMPAT_H_ */
