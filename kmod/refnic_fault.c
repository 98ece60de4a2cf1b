// SPDX-License-Identifier: GPL-2.0
/* Copyright (c) 2026 The refnic authors
 *
 * Driver-side fault injection, armed by the refnic netlink family: faults
 * of the host rather than of the card, such as the RX refill's page
 * allocations failing as if memory ran out (struct refnic_priv.fail_alloc).
 * Faults of the card itself live in the device model.
 */

#include <linux/atomic.h>
#include <linux/random.h>

#include "refnic.h"

/**
 * refnic_fault_strike() - decide whether an armed fault strikes
 * @fault: the fault
 *
 * Any context. A count is consumed atomically.
 *
 * Return: true when the fault takes effect on this event (counted).
 */
bool refnic_fault_strike(struct refnic_drv_fault *fault)
{
	u32 rate = READ_ONCE(fault->rate_ppm);

	if (rate) {
		if (get_random_u32_below(REFNIC_FAULT_PPM) >= rate)
			return false;
	} else if (atomic_dec_if_positive(&fault->count) < 0) {
		return false;
	}
	atomic64_inc(&fault->injected);
	return true;
}

/**
 * refnic_fault_arm() - arm or clear a fault
 * @fault: the fault
 * @rate_ppm: strike on this many events per million (at most
 *	REFNIC_FAULT_PPM), until cleared
 * @count: with @rate_ppm 0, strike on the next @count events (at most
 *	INT_MAX)
 *
 * Both 0 clears it; the injected count is kept. The caller validated the
 * values.
 */
void refnic_fault_arm(struct refnic_drv_fault *fault, u32 rate_ppm, u32 count)
{
	/* Disarmed while it changes: an event in between sees no fault
	 * rather than half of the new one.
	 */
	WRITE_ONCE(fault->rate_ppm, 0);
	atomic_set(&fault->count, count);
	WRITE_ONCE(fault->rate_ppm, rate_ppm);
}
