/* SPDX-License-Identifier: GPL-2.0 */
/* Copyright (c) 2026 The refnic authors
 *
 * Who may plug refnic cards in and bind bypass queues, and how many cards
 * there may be, and whether ports offer devmem TX (refnic_policy.c; module
 * parameters allow_userns, max_cards and devmem_tx).
 */

#ifndef _REFNIC_POLICY_H_
#define _REFNIC_POLICY_H_

struct netlink_ext_ack;
struct sk_buff;

int refnic_admin_check(const struct sk_buff *skb, const char *what,
		       struct netlink_ext_ack *extack);
int refnic_card_reserve(const char *what, struct netlink_ext_ack *extack);
void refnic_card_unreserve(void);
bool refnic_devmem_tx_enabled(void);

#endif /* _REFNIC_POLICY_H_ */
