/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	uapi/refnic.yaml */
/* YNL-GEN kernel header */

#ifndef _LINUX_REFNIC_GEN_H
#define _LINUX_REFNIC_GEN_H

#include <net/netlink.h>
#include <net/genetlink.h>

#include <linux/refnic.h>

/* Common nested types */
extern const struct nla_policy refnic_bus_nl_policy[REFNIC_A_BUS_PAD + 1];
extern const struct nla_policy refnic_link_nl_policy[REFNIC_A_LINK_PAD + 1];

int refnic_nl_stats_get_dump_start(struct netlink_callback *cb);
int refnic_nl_fault_get_dump_start(struct netlink_callback *cb);

int refnic_nl_dev_get_doit(struct sk_buff *skb, struct genl_info *info);
int refnic_nl_dev_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int refnic_nl_dev_new_doit(struct sk_buff *skb, struct genl_info *info);
int refnic_nl_dev_del_doit(struct sk_buff *skb, struct genl_info *info);
int refnic_nl_link_set_doit(struct sk_buff *skb, struct genl_info *info);
int refnic_nl_stats_get_doit(struct sk_buff *skb, struct genl_info *info);
int refnic_nl_stats_get_dumpit(struct sk_buff *skb,
			       struct netlink_callback *cb);
int refnic_nl_fault_set_doit(struct sk_buff *skb, struct genl_info *info);
int refnic_nl_fault_get_dumpit(struct sk_buff *skb,
			       struct netlink_callback *cb);
int refnic_nl_bus_set_doit(struct sk_buff *skb, struct genl_info *info);

enum {
	REFNIC_NLGRP_MONITOR,
};

extern struct genl_family refnic_nl_family;

#endif /* _LINUX_REFNIC_GEN_H */
