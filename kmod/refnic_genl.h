/* SPDX-License-Identifier: GPL-2.0 */
/* Copyright (c) 2026 The refnic authors
 *
 * The refnic generic netlink family (uapi/refnic.yaml), implemented in
 * mgmt/refnic_genl.c: what the rest of the module calls.
 */

#ifndef _REFNIC_GENL_H_
#define _REFNIC_GENL_H_

struct net_device;

int refnic_genl_init(void);
void refnic_genl_exit(void);

/* Announce a port to the family's monitor group in its namespace (RTNL). */
void refnic_nl_notify_dev_add(struct net_device *dev);
void refnic_nl_notify_dev_del(struct net_device *dev);

#endif /* _REFNIC_GENL_H_ */
