/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/* Copyright (c) 2026 The refnic authors
 *
 * rtnetlink attributes of the "refnic" link kind (IFLA_INFO_DATA), used by
 * `ip link add NAME type refnic [queues N] [rx-ring N] [tx-ring N]
 * [peer name NAME ...]`.
 */

#ifndef _UAPI_LINUX_IF_REFNIC_H
#define _UAPI_LINUX_IF_REFNIC_H

enum {
	IFLA_REFNIC_UNSPEC,
	/* nested: struct ifinfomsg, then IFLA_* attributes of the peer
	 * (name, netns, address, ...), as VETH_INFO_PEER
	 */
	IFLA_REFNIC_PEER,
	IFLA_REFNIC_QUEUES,		/* u32: queue pairs at creation */
	IFLA_REFNIC_RX_RING_SIZE,	/* u32: RX descriptors per queue */
	IFLA_REFNIC_TX_RING_SIZE,	/* u32: TX descriptors per queue */
	__IFLA_REFNIC_MAX
};

#define IFLA_REFNIC_MAX (__IFLA_REFNIC_MAX - 1)

#endif /* _UAPI_LINUX_IF_REFNIC_H */
