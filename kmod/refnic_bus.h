/* SPDX-License-Identifier: GPL-2.0 */
/* Copyright (c) 2026 The refnic authors
 *
 * The refnic "bus": how the driver finds and reaches refnic hardware, the
 * role the PCI core plays for a PCI NIC. A refnic card has two ports wired
 * to each other (like a veth pair, but with hardware in between). Plugging a
 * card in (refnic_bus_card_add) gives the driver, for each port, a struct
 * device to do DMA with and to parent its netdev on, a register window (BAR
 * 0) reached only through refnic_bus_rd32/wr32, and one Linux interrupt per
 * vector. Everything else goes through registers and DMA memory as
 * described in refnic_hw.h. The device model implements this header; the
 * driver includes no other model header.
 *
 * Lifetime: the struct device is reference counted (the card holds one
 * until refnic_bus_card_remove(), a registered netdev one on its parent),
 * but nothing the driver hands it to takes a reference of its own:
 * page_pool does not. So the driver frees every DMA mapping, coherent
 * allocation and page_pool of a port before the card is removed, or holds
 * a reference itself for what outlives that (a failed port's quarantine).
 * Pages the stack still holds when their pool is destroyed are unmapped by
 * page_pool_destroy() itself, on kernels with upstream commit ee62ce7a1d90
 * (Linux 6.15, 6.12.34; refnic_compat.h refuses others): when they come
 * back the device is not touched. The device's release function is the
 * platform core's, not refnic's, so a reference the driver core drops late
 * does not call into an unloaded module.
 *
 * A dmabuf bound for devmem is the exception: the core maps it against the
 * device, takes no reference, and unmaps it when the binding ends, which
 * may be after the card is gone and the module unloaded, and which the
 * driver never learns of. refnic_bus_port_keep_dev() keeps the device for
 * good once it is lent that way (refnic_lend_dma_dev()).
 */

#ifndef _REFNIC_BUS_H_
#define _REFNIC_BUS_H_

#include <linux/types.h>

#include "refnic_hw.h"

struct device;
struct refnic_model_port;

/**
 * struct refnic_bus_port - one port of a refnic card, as the driver sees it
 * @dev: device for the DMA API (64-bit mask) and the netdev's parent
 * @hw: the port's hardware; opaque, reached only through refnic_bus_rd32()
 *	and refnic_bus_wr32()
 * @irq: Linux IRQ number of each interrupt vector (request_irq() them)
 * @index: 0 or 1: which port of the card
 * @card_id: unique number of the card, for naming
 */
struct refnic_bus_port {
	struct device *dev;
	struct refnic_model_port *hw;
	unsigned int irq[REFNIC_NUM_VECTORS];
	unsigned int index;
	unsigned int card_id;
};

/**
 * struct refnic_bus_card - a two-port card
 * @port: the ports; frames sent on one are received on the other
 */
struct refnic_bus_card {
	struct refnic_bus_port *port[2];
};

/* MMIO. A read or write of an offset outside the BAR, or unaligned, reads
 * all ones / is ignored and counted, as a bus error would be.
 */
u32 refnic_bus_rd32(const struct refnic_bus_port *port, u32 reg);
void refnic_bus_wr32(const struct refnic_bus_port *port, u32 reg, u32 val);

/* Plug a card in / pull it out. refnic_bus_card_add() returns with both
 * ports reset (all queues disabled, all vectors masked). The driver must
 * have disabled every queue and freed every IRQ before removing the card.
 * A queue that never read STOPPED may be written until
 * refnic_bus_card_remove() returns: its memory must outlive the call.
 */
int refnic_bus_card_add(struct refnic_bus_card *card);
void refnic_bus_card_remove(struct refnic_bus_card *card);

/* Keep @port's device (not its card) until the machine goes down: for
 * mappings whose end the driver cannot see. Each call keeps a reference;
 * at most REFNIC_BUS_KEPT_DEVS_MAX are kept (-ENOSPC after that).
 */
#define REFNIC_BUS_KEPT_DEVS_MAX	1024
int refnic_bus_port_keep_dev(const struct refnic_bus_port *port);

/* Module-wide setup of the bus (device class, IDs), before any card. */
int refnic_bus_init(void);
void refnic_bus_exit(void);

#endif /* _REFNIC_BUS_H_ */
