/* SPDX-License-Identifier: GPL-2.0 */
/* Copyright (c) 2026 The refnic authors
 *
 * The "refnic" link kind. Its IFLA_INFO_DATA attributes are ABI, defined
 * once in uapi/linux/if_refnic.h (kbuild adds uapi/ to the include path;
 * DKMS ships uapi/ with kmod/).
 */

#ifndef _REFNIC_RTNL_H_
#define _REFNIC_RTNL_H_

#include <linux/if_refnic.h>

struct net;
struct net_device;
struct netlink_ext_ack;
struct refnic_qcfg;

int refnic_rtnl_init(void);
void refnic_rtnl_exit(void);
bool refnic_is_port(const struct net_device *dev);
struct net_device *refnic_pair_new(struct net *net, const char *name,
				   struct net *peer_net, const char *peer_name,
				   const struct refnic_qcfg *req,
				   struct netlink_ext_ack *extack);

#endif /* _REFNIC_RTNL_H_ */
