// SPDX-License-Identifier: GPL-2.0
/* Copyright (c) 2026 The refnic authors
 *
 * Who may plug refnic cards in and bind bypass queues, how many cards
 * there may be, and whether ports offer devmem TX.
 *
 * A card is cheap to ask for and dear to have: two netdevs of 16 queue
 * pairs, two platform devices, 34 Linux interrupts (17 vectors a port, each
 * with its descriptor, per-CPU counters and sysfs and procfs entries), the
 * device model's memory and, once its ports are up, their rings and
 * page_pool buffers; a bypass session has the device write a process's
 * pinned pages. So by default, as for loading the module, plugging a card
 * in (`ip link add ... type refnic`, the refnic family's dev-new) and
 * binding a bypass queue take CAP_NET_ADMIN in the initial user namespace.
 * CAP_NET_ADMIN over the network namespaces involved, which the core and
 * refnic check as well, is not enough on its own: any user has it in a
 * user namespace of their own (`unshare -Urn`).
 *
 * allow_userns=1 accepts CAP_NET_ADMIN in any user namespace, for machines
 * whose users may have cards of their own; max_cards bounds what cards can
 * cost either way.
 *
 * Refusals are logged, rate limited, and carry an extack message when the
 * request has one.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/module.h>
#include <linux/netlink.h>
#include <linux/ratelimit.h>
#include <linux/sched.h>

#include "refnic_policy.h"

/* 0644: only root in the initial user namespace may write module
 * parameters (sysfs checks the file's owner and mode there), and changing
 * either at run time affects only the requests made afterwards: existing
 * cards and sessions stay. Reloading the module to change them would
 * delete every card.
 */
static bool refnic_allow_userns;
module_param_named(allow_userns, refnic_allow_userns, bool, 0644);
MODULE_PARM_DESC(allow_userns,
		 "Let CAP_NET_ADMIN in any user namespace plug cards in and bind bypass queues (default N: only CAP_NET_ADMIN in the initial user namespace). Applies to requests made afterwards");

/* 64 cards are 2176 Linux interrupts, as many as a large server's NICs
 * have, and more pairs than any test here uses at a time (a handful).
 */
static unsigned int refnic_max_cards = 64;
module_param_named(max_cards, refnic_max_cards, uint, 0644);
MODULE_PARM_DESC(max_cards,
		 "Most cards (pairs) plugged in at a time, default 64 (each costs 34 Linux interrupts); 0 refuses every new card. Lowering it refuses new cards only");

/* devmem TX (7.x) lets any user who can open a socket in the port's netns
 * bind a dmabuf for sending (the core's bind-tx needs no capability). A TX
 * binding the process keeps past the pair's deletion is a use-after-free
 * in 7.3's core: on unregister the core forgets RX bindings' netdev but not
 * a TX binding's, and netdev_nl_sock_priv_destroy() later locks the freed
 * netdev. So ports offer netmem TX only when root asks for it.
 */
static bool refnic_devmem_tx;
module_param_named(devmem_tx, refnic_devmem_tx, bool, 0644);
MODULE_PARM_DESC(devmem_tx,
		 "Offer devmem TX (netmem TX, Linux 7.x) on ports plugged in afterwards (default N: a TX binding kept past its pair's deletion is a use-after-free in the 7.3 core)");

/* Cards plugged in or being plugged in. */
static atomic_t refnic_cards = ATOMIC_INIT(0);

/* For all refusals together: a user retrying in a loop must not flood the
 * log.
 */
static DEFINE_RATELIMIT_STATE(refnic_refusal_rs, DEFAULT_RATELIMIT_INTERVAL,
			      DEFAULT_RATELIMIT_BURST);

/* "<what> refused for <comm>[<pid>] (uid <uid>): <why>" */
static __printf(2, 3) void refnic_log_refusal(const char *what,
					      const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	if (!__ratelimit(&refnic_refusal_rs))
		return;
	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	pr_notice("%s refused for %s[%d] (uid %u): %pV\n", what, current->comm,
		  task_pid_nr(current),
		  from_kuid_munged(&init_user_ns, current_uid()), &vaf);
	va_end(args);
}

/**
 * refnic_admin_check() - may the caller plug a card in or bind a queue?
 * @skb: the netlink request asking, or NULL when current asks otherwise
 * @what: what it asks, for the log ("dev-new", ...)
 * @extack: for the reason, or NULL
 *
 * CAP_NET_ADMIN in the initial user namespace (for a netlink request, of
 * the socket's opener and of the sender), unless allow_userns is set. The
 * caller checks CAP_NET_ADMIN over the network namespaces involved.
 *
 * Return: 0, or -EPERM, logged (rate limited) and with an extack message.
 */
int refnic_admin_check(const struct sk_buff *skb, const char *what,
		       struct netlink_ext_ack *extack)
{
	if (READ_ONCE(refnic_allow_userns))
		return 0;
	if (skb ? netlink_capable(skb, CAP_NET_ADMIN) : capable(CAP_NET_ADMIN))
		return 0;

	NL_SET_ERR_MSG_MOD(extack,
			   "needs CAP_NET_ADMIN in the initial user namespace (module parameter allow_userns)");
	refnic_log_refusal(what,
			   "no CAP_NET_ADMIN in the initial user namespace, and module parameter allow_userns is off");
	return -EPERM;
}

/**
 * refnic_card_reserve() - count a card about to be plugged in
 * @what: what asks for it, for the log
 * @extack: for the reason, or NULL
 *
 * Every successful call is paired with refnic_card_unreserve(), once the
 * card is unplugged or could not be plugged in.
 *
 * Return: 0, or -ENOSPC when max_cards cards are plugged in already
 * (logged, rate limited, and with an extack message naming the parameter).
 */
int refnic_card_reserve(const char *what, struct netlink_ext_ack *extack)
{
	unsigned int max = READ_ONCE(refnic_max_cards);
	int n = atomic_read(&refnic_cards);

	do {
		if ((unsigned int)n >= max) {
			NL_SET_ERR_MSG_FMT_MOD(extack,
					       "card limit reached: %d cards (module parameter max_cards)",
					       n);
			refnic_log_refusal(what,
					   "%d cards plugged in, the most module parameter max_cards=%u allows",
					   n, max);
			return -ENOSPC;
		}
	} while (!atomic_try_cmpxchg(&refnic_cards, &n, n + 1));
	return 0;
}

/**
 * refnic_devmem_tx_enabled() - may ports plugged in now offer devmem TX?
 *
 * Return: the devmem_tx module parameter.
 */
bool refnic_devmem_tx_enabled(void)
{
	return READ_ONCE(refnic_devmem_tx);
}

/**
 * refnic_card_unreserve() - a card counted by refnic_card_reserve() is gone
 */
void refnic_card_unreserve(void)
{
	atomic_dec(&refnic_cards);
}
