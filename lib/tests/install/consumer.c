// SPDX-License-Identifier: GPL-2.0-only
/*
 * A C program on the installed headers, built with pkg-config: the C ring
 * interface (refnic/bypass.h) over plain memory, the uAPI headers
 * (linux/refnic.h, linux/if_refnic.h, linux/refnic_bypass.h under
 * include/refnic/uapi), and refnic/version.h against the installed library
 * (refnic_version(), the one thing here that needs -lrefnic).
 */
#include <refnic/bypass.h>
#include <refnic/version.h>

#include <linux/if_refnic.h>
#include <linux/refnic.h>

#include <stdio.h>
#include <string.h>

int main(void)
{
	static union {
		struct refnic_bypass_ring_hdr hdr;
		unsigned char bytes[REFNIC_BYPASS_RING_DESC_OFF + 64 * sizeof(__u64)];
	} mapping;
	struct refnic_ring_prod fill;
	__u32 idx = 0;

	if (refnic_ring_prod__init(&fill, &mapping, 64) != 0 ||
	    refnic_ring_prod__reserve(&fill, 64, &idx) != 64)
		return 1;
	*refnic_ring_prod__fill_addr(&fill, idx + 63) = 4096;
	refnic_ring_prod__submit(&fill, 64);
	if (mapping.hdr.producer != 64 || refnic_ring_prod__reserve(&fill, 1, &idx) != 0)
		return 1;
	printf("refnic C consumer: librefnic %s (headers %s), family %s version %d, %d queues at most\n",
	       refnic_version_string(), REFNIC_VERSION_STRING, REFNIC_FAMILY_NAME,
	       REFNIC_FAMILY_VERSION, REFNIC_QUEUES_MAX);
	return refnic_version() == REFNIC_VERSION &&
	       strcmp(refnic_version_string(), REFNIC_VERSION_STRING) == 0 &&
	       IFLA_REFNIC_MAX > 0 ? 0 : 1;
}
