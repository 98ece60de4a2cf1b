// SPDX-License-Identifier: GPL-2.0
/* Copyright (c) 2026 The refnic authors
 *
 * The refnic bus: plugging cards in and pulling them out.
 *
 * Each port gets a platform device ("refnic.<2 * card + port>", 64-bit DMA
 * mask) that no driver binds: it is the struct device the driver maps DMA
 * with and parents its netdev on, so every ring and buffer goes through the
 * real DMA API. The device is reference counted by the driver core, and
 * the driver may hold it past the card's removal (a failed port's memory,
 * kept until the pair is deleted), so it must not lead back to the model:
 * the model sets no drvdata or platform data, and its release function is
 * the platform core's. page_pool holds no reference on it: the driver
 * destroys its pools first, and page_pool_destroy() unmaps the pages still
 * in flight (refnic_bus.h).
 *
 * Memory. A card is plugged in for a request (rtnetlink newlink, the refnic
 * family's dev-new), and everything the model allocates for it is charged
 * to the memory cgroup of the requester (__GFP_ACCOUNT): the card and its
 * ports now, in the request, and what the device allocates later on in its
 * own contexts (hardware GRO tables, from a work item) through
 * refnic_card_vzalloc(), which charges the same cgroup. The TX engines'
 * frame buffers are allocated with the card rather than by each engine on
 * its first run: the engines run on a reclaim workqueue, whose work must
 * not wait for memory, and the request is where running out can be
 * reported. The large allocations fail with -ENOMEM at the cgroup's limit
 * instead of invoking the OOM killer.
 */

#include <linux/dma-mapping.h>
#include <linux/idr.h>
#include <linux/kmemleak.h>
#include <linux/memcontrol.h>
#include <linux/platform_device.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "model.h"

struct workqueue_struct *refnic_engine_wq;
static DEFINE_IDA(refnic_card_ida);

/* Port devices kept for good (refnic_bus_port_keep_dev()). */
static atomic_t refnic_kept_devs = ATOMIC_INIT(0);

/**
 * refnic_card_vzalloc() - zeroed memory the device keeps for a card
 * @card: the card
 * @size: bytes
 *
 * Charged to the memory cgroup of whoever plugged the card in, whatever
 * the context (a work item of the device's, say), and failing rather than
 * waking the OOM killer or warning when that cgroup is at its limit: every
 * caller copes with NULL. Free with kvfree().
 *
 * Return: the memory, or NULL.
 */
void *refnic_card_vzalloc(struct refnic_model_card *card, size_t size)
{
	struct mem_cgroup *old = set_active_memcg(card->memcg);
	void *p;

	p = __vmalloc(size, GFP_KERNEL_ACCOUNT | __GFP_ZERO |
		      __GFP_RETRY_MAYFAIL | __GFP_NOWARN);
	set_active_memcg(old);
	return p;
}

static void refnic_port_free(struct refnic_model_port *port)
{
	kvfree(port->tx_bufs);
	free_percpu(port->mmio);
	kvfree(port);
}

static void refnic_port_destroy(struct refnic_model_port *port)
{
	refnic_irq_fini(port);
	platform_device_unregister(port->pdev);
	refnic_port_free(port);
}

static struct refnic_model_port *
refnic_port_create(struct refnic_model_card *card, unsigned int index)
{
	struct platform_device_info info = {
		.name = REFNIC_MODEL_DEV_NAME,
		.id = card->id * 2 + index,
		.dma_mask = DMA_BIT_MASK(64),
	};
	struct refnic_model_port *port;
	unsigned int q;
	int err;

	port = refnic_card_vzalloc(card, sizeof(*port));
	if (!port)
		return ERR_PTR(-ENOMEM);
	port->card = card;
	snprintf(port->name, sizeof(port->name), "refnic-card%u-port%u",
		 card->id, index);
	port->bus.hw = port;
	port->bus.index = index;
	port->bus.card_id = card->id;

	err = -ENOMEM;
	port->mmio = alloc_percpu_gfp(struct refnic_mmio_stats,
				      GFP_KERNEL_ACCOUNT);
	if (!port->mmio)
		goto err_free_port;
	port->gro_contexts = REFNIC_GRO_CONTEXTS;
	port->gro_buffer = REFNIC_GRO_BUFFER;
	port->wire_fast = false;	/* measured no gain: docs/datapath.md */
	/* The TX engines' frame buffers: with the card, not by each engine
	 * on its first run (see above); one allocation for the port.
	 */
	port->tx_bufs = refnic_card_vzalloc(card, REFNIC_MAX_QUEUES *
					    REFNIC_TX_BUF_STRIDE);
	if (!port->tx_bufs)
		goto err_free_port;
	refnic_queues_init(port);
	for (q = 0; q < REFNIC_MAX_QUEUES; q++)
		port->txq[q].buf = port->tx_bufs + q * REFNIC_TX_BUF_STRIDE;
	refnic_link_init(port);
	refnic_steer_init(port);

	port->pdev = platform_device_register_full(&info);
	if (IS_ERR(port->pdev)) {
		err = PTR_ERR(port->pdev);
		goto err_free_port;
	}
	port->dev = &port->pdev->dev;
	port->bus.dev = port->dev;

	err = refnic_dma_check(port->dev);
	if (err)
		goto err_unregister;
	err = refnic_irq_init(port);
	if (err)
		goto err_unregister;
	return port;

err_unregister:
	platform_device_unregister(port->pdev);
err_free_port:
	refnic_port_free(port);
	return ERR_PTR(err);
}

/**
 * refnic_bus_card_add - plug a card in
 * @bcard: filled with the card's ports
 *
 * Return: 0 with both ports reset, or a negative errno (-EOPNOTSUPP when
 * DMA does not go straight to memory: see dma.c).
 */
int refnic_bus_card_add(struct refnic_bus_card *bcard)
{
	struct refnic_model_card *card;
	struct refnic_model_port *port;
	unsigned int i;
	int err;

	card = kzalloc(sizeof(*card), GFP_KERNEL_ACCOUNT);
	if (!card)
		return -ENOMEM;
	mutex_init(&card->link_lock);
	refnic_pcie_init(card);
	/* The caller's, or the one it charges to (active memcg). */
	card->memcg = get_mem_cgroup_from_mm(NULL);
	err = ida_alloc(&refnic_card_ida, GFP_KERNEL);
	if (err < 0)
		goto err_free_card;
	card->id = err;

	for (i = 0; i < ARRAY_SIZE(card->port); i++) {
		port = refnic_port_create(card, i);
		if (IS_ERR(port)) {
			err = PTR_ERR(port);
			goto err_destroy_ports;
		}
		card->port[i] = port;
	}
	card->port[0]->peer = card->port[1];
	card->port[1]->peer = card->port[0];

	for (i = 0; i < ARRAY_SIZE(card->port); i++) {
		port = card->port[i];
		refnic_port_reset(port);
		/* Nothing ran yet: the reset is done. */
		port->reset_pending = false;
		bcard->port[i] = &port->bus;
	}
	refnic_debugfs_card_add(card);
	return 0;

err_destroy_ports:
	while (i--)
		refnic_port_destroy(card->port[i]);
	ida_free(&refnic_card_ida, card->id);
err_free_card:
	mem_cgroup_put(card->memcg);
	mutex_destroy(&card->link_lock);
	kfree(card);
	return err;
}

/**
 * refnic_bus_card_remove - pull a card out
 * @bcard: the card, as refnic_bus_card_add() filled it
 *
 * The driver has disabled every queue and freed every IRQ; the card is
 * reset all the same before the engines are stopped, so that a driver bug
 * costs frames, not memory. An engine wedged inside a queue (wedge-txq)
 * does its held DMA write when it is stopped here: the driver must keep
 * the memory such a queue used until this returns.
 */
void refnic_bus_card_remove(struct refnic_bus_card *bcard)
{
	struct refnic_model_card *card = refnic_port_of(bcard->port[0])->card;
	unsigned int i, q;

	/* First the test equipment: a fault_tx_hang write may kick an
	 * engine, which must stay stopped below. Removal waits for running
	 * handlers.
	 */
	refnic_debugfs_card_remove(card);
	/* Each port's engine writes into the other port's RX rings: stop
	 * both before tearing down either.
	 */
	for (i = 0; i < ARRAY_SIZE(card->port); i++)
		refnic_port_reset(card->port[i]);
	for (i = 0; i < ARRAY_SIZE(card->port); i++)
		for (q = 0; q < REFNIC_MAX_QUEUES; q++)
			refnic_tx_stop(&card->port[i]->txq[q]);
	for (i = 0; i < ARRAY_SIZE(card->port); i++)
		refnic_link_stop(card->port[i]);
	/* Nothing delivers any more: the GRO tables go. */
	for (i = 0; i < ARRAY_SIZE(card->port); i++)
		for (q = 0; q < REFNIC_MAX_QUEUES; q++)
			refnic_rx_gro_stop(&card->port[i]->rxq[q]);

	for (i = 0; i < ARRAY_SIZE(card->port); i++) {
		refnic_port_destroy(card->port[i]);
		bcard->port[i] = NULL;
	}
	ida_free(&refnic_card_ida, card->id);
	mem_cgroup_put(card->memcg);
	mutex_destroy(&card->link_lock);
	kfree(card);
}

/**
 * refnic_bus_port_keep_dev() - keep a port's device for good
 * @port: the port
 *
 * A reference the driver core never gets back: the struct device (not the
 * card, nor its sysfs entry, which go when the card is removed) stays for
 * whatever mapping still names it. It is a platform device whose release
 * is the platform core's, so nothing leads back to the model or to the
 * module. kmemleak is told it is meant to stay. What is kept is not
 * charged to anyone, so it is bounded: REFNIC_BUS_KEPT_DEVS_MAX devices,
 * a few hundred bytes each, for as long as the machine runs.
 *
 * Return: 0, or -ENOSPC when that many are kept already.
 */
int refnic_bus_port_keep_dev(const struct refnic_bus_port *port)
{
	struct platform_device *pdev;

	if (!atomic_add_unless(&refnic_kept_devs, 1, REFNIC_BUS_KEPT_DEVS_MAX))
		return -ENOSPC;
	pdev = to_platform_device(get_device(port->dev));
	/* platform_device_register_full() allocated it as the first member
	 * of its struct platform_object: that is the object kmemleak knows.
	 */
	kmemleak_not_leak(pdev);
	return 0;
}

int refnic_bus_init(void)
{
	/* Per-CPU workers, so that a doorbell can send its queue's engine to
	 * another CPU than the driver's (refnic_tx_kick()). HIGHPRI: the
	 * engine is the hardware, its latency the link's. CPU_INTENSIVE: it
	 * copies frames and must not hold up other work on its CPU. Memory
	 * reclaim may depend on transmitting (swap over the network).
	 */
	refnic_engine_wq = alloc_workqueue("refnic_engine",
					   WQ_PERCPU | WQ_HIGHPRI |
					   WQ_CPU_INTENSIVE | WQ_MEM_RECLAIM, 0);
	if (!refnic_engine_wq)
		return -ENOMEM;
	return 0;
}

void refnic_bus_exit(void)
{
	destroy_workqueue(refnic_engine_wq);
	refnic_engine_wq = NULL;
	ida_destroy(&refnic_card_ida);
}
