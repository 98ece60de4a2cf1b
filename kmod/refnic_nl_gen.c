// SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause)
/* Do not edit directly, auto-generated from: */
/*	uapi/refnic.yaml */
/* YNL-GEN kernel source */

#include <net/netlink.h>
#include <net/genetlink.h>

#include "refnic_nl_gen.h"

#include <linux/refnic.h>

/* Integer value ranges */
static const struct netlink_range_validation refnic_a_link_latency_range = {
	.max	= REFNIC_LATENCY_MAX,
};

static const struct netlink_range_validation refnic_a_link_loss_range = {
	.max	= REFNIC_PPM_MAX,
};

static const struct netlink_range_validation refnic_a_bus_read_ns_range = {
	.max	= REFNIC_BUS_NS_MAX,
};

static const struct netlink_range_validation refnic_a_bus_remote_ns_range = {
	.max	= REFNIC_BUS_NS_MAX,
};

static const struct netlink_range_validation refnic_a_fault_rate_range = {
	.max	= REFNIC_PPM_MAX,
};

/* Common nested types */
const struct nla_policy refnic_bus_nl_policy[REFNIC_A_BUS_PAD + 1] = {
	[REFNIC_A_BUS_READ_NS] = NLA_POLICY_FULL_RANGE(NLA_U32, &refnic_a_bus_read_ns_range),
	[REFNIC_A_BUS_GEN] = NLA_POLICY_MAX(NLA_U32, 5),
	[REFNIC_A_BUS_LANES] = NLA_POLICY_RANGE(NLA_U32, 1, 16),
	[REFNIC_A_BUS_NODE] = { .type = NLA_S32, },
	[REFNIC_A_BUS_REMOTE_NS] = NLA_POLICY_FULL_RANGE(NLA_U32, &refnic_a_bus_remote_ns_range),
	[REFNIC_A_BUS_READS] = { .type = NLA_U64, },
	[REFNIC_A_BUS_REMOTE_READS] = { .type = NLA_U64, },
	[REFNIC_A_BUS_READ_CHARGED_NS] = { .type = NLA_U64, },
	[REFNIC_A_BUS_WRITES] = { .type = NLA_U64, },
	[REFNIC_A_BUS_DMA_TLPS] = { .type = NLA_U64, },
	[REFNIC_A_BUS_DMA_BYTES] = { .type = NLA_U64, },
	[REFNIC_A_BUS_DMA_REMOTE_TLPS] = { .type = NLA_U64, },
	[REFNIC_A_BUS_DMA_CHARGED_NS] = { .type = NLA_U64, },
	[REFNIC_A_BUS_DMA_THROTTLED] = { .type = NLA_U64, },
	[REFNIC_A_BUS_READ_WAITED_NS] = { .type = NLA_U64, },
};

const struct nla_policy refnic_link_nl_policy[REFNIC_A_LINK_PAD + 1] = {
	[REFNIC_A_LINK_CARRIER] = NLA_POLICY_MAX(NLA_U8, 1),
	[REFNIC_A_LINK_RATE] = { .type = NLA_U64, },
	[REFNIC_A_LINK_LATENCY] = NLA_POLICY_FULL_RANGE(NLA_U32, &refnic_a_link_latency_range),
	[REFNIC_A_LINK_LOSS] = NLA_POLICY_FULL_RANGE(NLA_U32, &refnic_a_link_loss_range),
};

/* REFNIC_CMD_DEV_GET - do */
static const struct nla_policy refnic_dev_get_nl_policy[REFNIC_A_DEV_IFINDEX + 1] = {
	[REFNIC_A_DEV_IFINDEX] = NLA_POLICY_MIN(NLA_U32, 1),
};

/* REFNIC_CMD_DEV_NEW - do */
static const struct nla_policy refnic_dev_new_nl_policy[REFNIC_A_DEV_TX_RING_SIZE + 1] = {
	[REFNIC_A_DEV_IFNAME] = { .type = NLA_NUL_STRING, .len = 15, },
	[REFNIC_A_DEV_PEER_IFNAME] = { .type = NLA_NUL_STRING, .len = 15, },
	[REFNIC_A_DEV_NETNS_FD] = { .type = NLA_U32, },
	[REFNIC_A_DEV_PEER_NETNS_FD] = { .type = NLA_U32, },
	[REFNIC_A_DEV_QUEUES] = NLA_POLICY_RANGE(NLA_U32, 1, REFNIC_QUEUES_MAX),
	[REFNIC_A_DEV_RX_RING_SIZE] = NLA_POLICY_RANGE(NLA_U32, REFNIC_RING_MIN, REFNIC_RING_MAX),
	[REFNIC_A_DEV_TX_RING_SIZE] = NLA_POLICY_RANGE(NLA_U32, REFNIC_RING_MIN, REFNIC_RING_MAX),
};

/* REFNIC_CMD_DEV_DEL - do */
static const struct nla_policy refnic_dev_del_nl_policy[REFNIC_A_DEV_IFINDEX + 1] = {
	[REFNIC_A_DEV_IFINDEX] = NLA_POLICY_MIN(NLA_U32, 1),
};

/* REFNIC_CMD_LINK_SET - do */
static const struct nla_policy refnic_link_set_nl_policy[REFNIC_A_DEV_LINK + 1] = {
	[REFNIC_A_DEV_IFINDEX] = NLA_POLICY_MIN(NLA_U32, 1),
	[REFNIC_A_DEV_LINK] = NLA_POLICY_NESTED(refnic_link_nl_policy),
};

/* REFNIC_CMD_STATS_GET - do */
static const struct nla_policy refnic_stats_get_nl_policy[REFNIC_A_STATS_IFINDEX + 1] = {
	[REFNIC_A_STATS_IFINDEX] = NLA_POLICY_MIN(NLA_U32, 1),
};

/* REFNIC_CMD_FAULT_SET - do */
static const struct nla_policy refnic_fault_set_nl_policy[REFNIC_A_FAULT_COUNT + 1] = {
	[REFNIC_A_FAULT_IFINDEX] = NLA_POLICY_MIN(NLA_U32, 1),
	[REFNIC_A_FAULT_TYPE] = NLA_POLICY_MAX(NLA_U32, 7),
	[REFNIC_A_FAULT_QUEUE] = NLA_POLICY_MAX(NLA_U32, 15),
	[REFNIC_A_FAULT_RATE] = NLA_POLICY_FULL_RANGE(NLA_U32, &refnic_a_fault_rate_range),
	[REFNIC_A_FAULT_COUNT] = { .type = NLA_U32, },
};

/* REFNIC_CMD_FAULT_GET - dump */
static const struct nla_policy refnic_fault_get_nl_policy[REFNIC_A_FAULT_IFINDEX + 1] = {
	[REFNIC_A_FAULT_IFINDEX] = NLA_POLICY_MIN(NLA_U32, 1),
};

/* REFNIC_CMD_BUS_SET - do */
static const struct nla_policy refnic_bus_set_nl_policy[REFNIC_A_DEV_BUS + 1] = {
	[REFNIC_A_DEV_IFINDEX] = NLA_POLICY_MIN(NLA_U32, 1),
	[REFNIC_A_DEV_BUS] = NLA_POLICY_NESTED(refnic_bus_nl_policy),
};

/* Ops table for refnic */
static const struct genl_split_ops refnic_nl_ops[] = {
	{
		.cmd		= REFNIC_CMD_DEV_GET,
		.doit		= refnic_nl_dev_get_doit,
		.policy		= refnic_dev_get_nl_policy,
		.maxattr	= REFNIC_A_DEV_IFINDEX,
		.flags		= GENL_CMD_CAP_DO,
	},
	{
		.cmd	= REFNIC_CMD_DEV_GET,
		.dumpit	= refnic_nl_dev_get_dumpit,
		.flags	= GENL_CMD_CAP_DUMP,
	},
	{
		.cmd		= REFNIC_CMD_DEV_NEW,
		.doit		= refnic_nl_dev_new_doit,
		.policy		= refnic_dev_new_nl_policy,
		.maxattr	= REFNIC_A_DEV_TX_RING_SIZE,
		.flags		= GENL_CMD_CAP_DO,
	},
	{
		.cmd		= REFNIC_CMD_DEV_DEL,
		.doit		= refnic_nl_dev_del_doit,
		.policy		= refnic_dev_del_nl_policy,
		.maxattr	= REFNIC_A_DEV_IFINDEX,
		.flags		= GENL_CMD_CAP_DO,
	},
	{
		.cmd		= REFNIC_CMD_LINK_SET,
		.doit		= refnic_nl_link_set_doit,
		.policy		= refnic_link_set_nl_policy,
		.maxattr	= REFNIC_A_DEV_LINK,
		.flags		= GENL_CMD_CAP_DO,
	},
	{
		.cmd		= REFNIC_CMD_STATS_GET,
		.doit		= refnic_nl_stats_get_doit,
		.policy		= refnic_stats_get_nl_policy,
		.maxattr	= REFNIC_A_STATS_IFINDEX,
		.flags		= GENL_CMD_CAP_DO,
	},
	{
		.cmd	= REFNIC_CMD_STATS_GET,
		.start	= refnic_nl_stats_get_dump_start,
		.dumpit	= refnic_nl_stats_get_dumpit,
		.flags	= GENL_CMD_CAP_DUMP,
	},
	{
		.cmd		= REFNIC_CMD_FAULT_SET,
		.doit		= refnic_nl_fault_set_doit,
		.policy		= refnic_fault_set_nl_policy,
		.maxattr	= REFNIC_A_FAULT_COUNT,
		.flags		= GENL_CMD_CAP_DO,
	},
	{
		.cmd		= REFNIC_CMD_FAULT_GET,
		.start		= refnic_nl_fault_get_dump_start,
		.dumpit		= refnic_nl_fault_get_dumpit,
		.policy		= refnic_fault_get_nl_policy,
		.maxattr	= REFNIC_A_FAULT_IFINDEX,
		.flags		= GENL_CMD_CAP_DUMP,
	},
	{
		.cmd		= REFNIC_CMD_BUS_SET,
		.doit		= refnic_nl_bus_set_doit,
		.policy		= refnic_bus_set_nl_policy,
		.maxattr	= REFNIC_A_DEV_BUS,
		.flags		= GENL_CMD_CAP_DO,
	},
};

static const struct genl_multicast_group refnic_nl_mcgrps[] = {
	[REFNIC_NLGRP_MONITOR] = { "monitor", },
};

struct genl_family refnic_nl_family __ro_after_init = {
	.name		= REFNIC_FAMILY_NAME,
	.version	= REFNIC_FAMILY_VERSION,
	.netnsok	= true,
	.parallel_ops	= true,
	.module		= THIS_MODULE,
	.split_ops	= refnic_nl_ops,
	.n_split_ops	= ARRAY_SIZE(refnic_nl_ops),
	.mcgrps		= refnic_nl_mcgrps,
	.n_mcgrps	= ARRAY_SIZE(refnic_nl_mcgrps),
};
