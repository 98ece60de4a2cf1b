/* SPDX-License-Identifier: GPL-2.0 */
/* Copyright (c) 2026 The refnic authors
 *
 * Kernel-bypass queues (/dev/refnic, uapi/linux/refnic_bypass.h): what the
 * rest of the driver needs to know about them.
 */

#ifndef _REFNIC_BYPASS_H_
#define _REFNIC_BYPASS_H_

#include <linux/types.h>

struct device;
struct netlink_ext_ack;
struct refnic_bp_dmamem;
struct refnic_bypass;
struct refnic_priv;
struct refnic_rx_progress;
struct refnic_rxq;

int refnic_bypass_init(void);
void refnic_bypass_exit(void);

/* NAPI poll of a queue pair bound to a bypass session. */
int refnic_bypass_poll(struct refnic_bypass *bp, int budget);

/* Gives every bound queue pair of a port back to the stack (RTNL): the
 * port is going down or being rebuilt. The sessions see EPOLLERR.
 */
void refnic_bypass_detach_all(struct refnic_priv *priv);
void refnic_bypass_detach_queue(struct refnic_priv *priv, unsigned int q);
void refnic_bypass_port_failed(struct refnic_priv *priv);

/* A bound queue's RX ring as the service task samples it (instance lock). */
void refnic_bypass_rx_progress(const struct refnic_bypass *bp,
			       struct refnic_rx_progress *p);

/* The stack's RX queue a session holds parked, or NULL (instance lock). */
const struct refnic_rxq *refnic_bypass_parked_rxq(struct refnic_priv *priv,
						  unsigned int q);

/* -EBUSY, with a message, if a bypass session holds a queue of the port:
 * ring and channel changes wait until it is closed.
 */
int refnic_bypass_busy(struct refnic_priv *priv,
		       struct netlink_ext_ack *extack);

/* Frees a session's device memory a failed port left in the card's
 * quarantine (struct refnic_quarantine), once the card is unplugged.
 */
void refnic_bypass_kept_free(struct refnic_bp_dmamem *kept,
			     struct device *dev);

#endif /* _REFNIC_BYPASS_H_ */
