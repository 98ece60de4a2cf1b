// SPDX-License-Identifier: GPL-2.0
/* Copyright (c) 2026 The refnic authors
 *
 * Counters: the snapshot the control plane reads, and debugfs for
 * diagnostics and test equipment, one directory per port:
 * /sys/kernel/debug/refnic/card<N>/port<P>/ (the port's platform device is
 * refnic.<2N + P>, the netdev's parent: /sys/class/net/<dev>/device)
 *
 *   counters       the model's counters (read); the control plane's
 *                  wedge-txq fault is counted per queue there too:
 *                  txq<Q>.wedges, .wedge_stalls (engine runs that found
 *                  the engine wedged) and .late_writes (held DONE
 *                  write-backs done when a wedge ended); stall-rxq as
 *                  rxq<Q>.stalls and .stall_drops (frames a stalled queue
 *                  lost), lose-irq as vec<V>.lost. rxq<Q>.arrived is
 *                  CNT_RX_FRAMES: every frame that reached the queue
 *   link           the wire's configuration and state, and the size of its
 *                  delay line (read)
 *   fault_tx_hang  fault injection, like a jumper on a test board (read,
 *                  write). Writing "Q" hangs TX queue Q of the port the way
 *                  a wedged DMA engine does: from the next frame boundary
 *                  on, doorbells are accepted but no descriptor is consumed,
 *                  no DONE written and no interrupt raised, until the
 *                  driver resets the queue by clearing TXQ_CTRL.ENABLE (or
 *                  the port by CTRL.RESET); the queue then reads STOPPED as
 *                  usual and runs normally once enabled again. A hang armed
 *                  on a disabled queue begins when it is enabled. "none"
 *                  ends every hang of the port without a reset, and the
 *                  engine serves what was rung meanwhile. Reading lists
 *                  the hung queues ("none" if none). Counted per queue in
 *                  counters: txq<Q>.hang_injected, .hang_stalls (engine
 *                  runs that found the queue hung: the fault took effect)
 *                  and .hang_cleared. The driver never reads this file; it
 *                  sees a hang only as TX completions that stop coming.
 *   gro_contexts   hardware GRO contexts per RX queue, 1 to 1024 (the
 *   gro_buffer     default), and bytes of GRO packet buffer per RX queue,
 *                  about 64 KiB to 512 KiB (the default), as a smaller part
 *                  would have: tests of eviction lower them (read, write).
 *                  A queue takes them when it is next enabled (or given a
 *                  new table, as RX_CTRL.HW_GRO set does).
 *   wire_fast      whether the port's TX engines take the wire fast path
 *                  (tx.c), N (the default) or Y (read, write): test
 *                  equipment, to compare what the driver sees either way.
 *
 * Counters are plain u64s with one writer each (the queue's engine work,
 * the RX queue's lock, the vector's lock) or atomics where many CPUs write;
 * a snapshot may see a counter a few events apart from another.
 */

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "model.h"

void refnic_model_stats_get(struct refnic_model_port *port,
			    struct refnic_model_stats *stats)
{
	struct refnic_model_port_stats *ps = &stats->port;
	struct refnic_mmio_stats *m;
	unsigned long flags;
	unsigned int q, v;
	int cpu;

	memset(stats, 0, sizeof(*stats));
	for (q = 0; q < REFNIC_MAX_QUEUES; q++) {
		stats->txq[q] = port->txq[q].stats;
		stats->rxq[q] = port->rxq[q].stats;
	}
	for (v = 0; v < REFNIC_NUM_VECTORS; v++) {
		raw_spin_lock_irqsave(&port->vec[v].lock, flags);
		stats->vec[v] = port->vec[v].stats;
		raw_spin_unlock_irqrestore(&port->vec[v].lock, flags);
	}

	/* A queue's registers are counted with its TX side; the doorbells
	 * with the side they ring.
	 */
	for_each_possible_cpu(cpu) {
		m = per_cpu_ptr(port->mmio, cpu);
		ps->mmio_reads += READ_ONCE(m->reads);
		ps->mmio_writes += READ_ONCE(m->writes);
		ps->mmio_bad += READ_ONCE(m->bad);
		for (q = 0; q < REFNIC_MAX_QUEUES; q++) {
			stats->txq[q].mmio_reads += READ_ONCE(m->q_reads[q]);
			stats->txq[q].mmio_writes += READ_ONCE(m->q_writes[q]);
			stats->txq[q].doorbells += READ_ONCE(m->tx_doorbells[q]);
			stats->rxq[q].doorbells += READ_ONCE(m->rx_doorbells[q]);
			stats->rxq[q].cq_doorbells +=
				READ_ONCE(m->cq_doorbells[q]);
		}
	}

	ps->resets = atomic64_read(&port->cnt.resets);
	ps->rx_drop_mac_off = atomic64_read(&port->cnt.rx_drop_mac_off);
	ps->rx_drop_oversize = atomic64_read(&port->cnt.rx_drop_oversize);
	ps->rx_drop_runt = atomic64_read(&port->cnt.rx_drop_runt);
	ps->rx_drop_filtered = atomic64_read(&port->cnt.rx_drop_filtered);
	ps->rx_drop_bad_queue = atomic64_read(&port->cnt.rx_drop_bad_queue);
	ps->rx_steered = atomic64_read(&port->cnt.rx_steered);
	ps->rx_drop_steer = atomic64_read(&port->cnt.rx_drop_steer);
	for (q = 0; q < REFNIC_NUM_FLOW_RULES; q++)
		stats->flow_hits[q] = atomic64_read(&port->steer.hits[q]);
	ps->link_drop_loss = atomic64_read(&port->cnt.link_drop_loss);
	ps->link_drop_overflow = atomic64_read(&port->cnt.link_drop_overflow);
	ps->link_delayed = atomic64_read(&port->cnt.link_delayed);
}

static void refnic_seq_u64(struct seq_file *m, const char *prefix,
			   const char *name, u64 val)
{
	seq_printf(m, "%s%s %llu\n", prefix, name, val);
}

static void refnic_show_txq(struct seq_file *m, unsigned int q,
			    const struct refnic_model_txq_stats *s)
{
	char p[16];

	if (!s->mmio_reads && !s->mmio_writes && !s->frames &&
	    !s->hang_injected)
		return;
	snprintf(p, sizeof(p), "txq%u.", q);
	refnic_seq_u64(m, p, "mmio_reads", s->mmio_reads);
	refnic_seq_u64(m, p, "mmio_writes", s->mmio_writes);
	refnic_seq_u64(m, p, "doorbells", s->doorbells);
	refnic_seq_u64(m, p, "desc_fetched", s->desc_fetched);
	refnic_seq_u64(m, p, "desc_written", s->desc_written);
	refnic_seq_u64(m, p, "frames", s->frames);
	refnic_seq_u64(m, p, "segments", s->segments);
	refnic_seq_u64(m, p, "csum_elided", s->csum_elided);
	refnic_seq_u64(m, p, "cut_through", s->cut_through);
	refnic_seq_u64(m, p, "dma_read_bytes", s->dma_read_bytes);
	refnic_seq_u64(m, p, "dma_write_bytes", s->dma_write_bytes);
	refnic_seq_u64(m, p, "drop_link_down", s->drop_link_down);
	refnic_seq_u64(m, p, "drop_mac_off", s->drop_mac_off);
	refnic_seq_u64(m, p, "errors", s->errors);
	refnic_seq_u64(m, p, "bad_desc", s->bad_desc);
	refnic_seq_u64(m, p, "throttled", s->throttled);
	refnic_seq_u64(m, p, "runs", s->runs);
	refnic_seq_u64(m, p, "busy_ns", s->busy_ns);
	refnic_seq_u64(m, p, "hang_injected", s->hang_injected);
	refnic_seq_u64(m, p, "hang_stalls", s->hang_stalls);
	refnic_seq_u64(m, p, "hang_cleared", s->hang_cleared);
	refnic_seq_u64(m, p, "wedges", s->wedges);
	refnic_seq_u64(m, p, "wedge_stalls", s->wedge_stalls);
	refnic_seq_u64(m, p, "late_writes", s->late_writes);
}

static void refnic_show_rxq(struct seq_file *m, unsigned int q,
			    const struct refnic_model_rxq_stats *s)
{
	char p[16];

	if (!s->doorbells && !s->frames && !s->arrived && !s->drop_disabled)
		return;
	snprintf(p, sizeof(p), "rxq%u.", q);
	refnic_seq_u64(m, p, "doorbells", s->doorbells);
	refnic_seq_u64(m, p, "cq_doorbells", s->cq_doorbells);
	refnic_seq_u64(m, p, "desc_fetched", s->desc_fetched);
	refnic_seq_u64(m, p, "cmpl_written", s->cmpl_written);
	refnic_seq_u64(m, p, "frames", s->frames);
	refnic_seq_u64(m, p, "dma_read_bytes", s->dma_read_bytes);
	refnic_seq_u64(m, p, "dma_write_bytes", s->dma_write_bytes);
	refnic_seq_u64(m, p, "hdr_split", s->hdr_split);
	refnic_seq_u64(m, p, "hdr_not_split", s->hdr_not_split);
	refnic_seq_u64(m, p, "gro_runs", s->gro_runs);
	refnic_seq_u64(m, p, "gro_segs", s->gro_segs);
	refnic_seq_u64(m, p, "gro_timeouts", s->gro_timeouts);
	refnic_seq_u64(m, p, "gro_evicted", s->gro_evicted);
	refnic_seq_u64(m, p, "gro_dropped", s->gro_dropped);
	refnic_seq_u64(m, p, "csum_ok", s->csum_ok);
	refnic_seq_u64(m, p, "csum_bad", s->csum_bad);
	refnic_seq_u64(m, p, "drop_nobuf", s->drop_nobuf);
	refnic_seq_u64(m, p, "drop_cq_full", s->drop_cq_full);
	refnic_seq_u64(m, p, "drop_disabled", s->drop_disabled);
	refnic_seq_u64(m, p, "bad_desc", s->bad_desc);
	refnic_seq_u64(m, p, "arrived", s->arrived);
	refnic_seq_u64(m, p, "stalls", s->stalls);
	refnic_seq_u64(m, p, "stall_drops", s->stall_drops);
}

static int refnic_counters_show(struct seq_file *m, void *unused)
{
	struct refnic_model_port *port = m->private;
	struct refnic_model_stats *s;
	struct refnic_model_vec_stats *vs;
	unsigned int i;

	s = kvmalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	refnic_model_stats_get(port, s);

	refnic_seq_u64(m, "", "mmio_reads", s->port.mmio_reads);
	refnic_seq_u64(m, "", "mmio_writes", s->port.mmio_writes);
	refnic_seq_u64(m, "", "mmio_bad", s->port.mmio_bad);
	refnic_seq_u64(m, "", "resets", s->port.resets);
	refnic_seq_u64(m, "", "rx_drop_mac_off", s->port.rx_drop_mac_off);
	refnic_seq_u64(m, "", "rx_drop_oversize", s->port.rx_drop_oversize);
	refnic_seq_u64(m, "", "rx_drop_runt", s->port.rx_drop_runt);
	refnic_seq_u64(m, "", "rx_drop_filtered", s->port.rx_drop_filtered);
	refnic_seq_u64(m, "", "rx_drop_bad_queue", s->port.rx_drop_bad_queue);
	refnic_seq_u64(m, "", "rx_steered", s->port.rx_steered);
	refnic_seq_u64(m, "", "rx_drop_steer", s->port.rx_drop_steer);
	refnic_seq_u64(m, "", "link_drop_loss", s->port.link_drop_loss);
	refnic_seq_u64(m, "", "link_drop_overflow",
		       s->port.link_drop_overflow);
	refnic_seq_u64(m, "", "link_delayed", s->port.link_delayed);
	for (i = 0; i < REFNIC_MAX_QUEUES; i++)
		refnic_show_txq(m, i, &s->txq[i]);
	for (i = 0; i < REFNIC_MAX_QUEUES; i++)
		refnic_show_rxq(m, i, &s->rxq[i]);
	for (i = 0; i < REFNIC_NUM_FLOW_RULES; i++)
		if (s->flow_hits[i])
			seq_printf(m, "flow%u.hits %llu\n", i, s->flow_hits[i]);
	for (i = 0; i < REFNIC_NUM_VECTORS; i++) {
		vs = &s->vec[i];
		if (!vs->raised && !vs->suppressed && !vs->moderated &&
		    !vs->lost)
			continue;
		seq_printf(m, "vec%u.raised %llu\nvec%u.suppressed %llu\nvec%u.moderated %llu\nvec%u.lost %llu\n",
			   i, vs->raised, i, vs->suppressed, i, vs->moderated,
			   i, vs->lost);
	}
	kvfree(s);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(refnic_counters);

static int refnic_link_show(struct seq_file *m, void *unused)
{
	struct refnic_model_port *port = m->private;
	struct refnic_model_link_cfg cfg;

	refnic_model_link_get(port, &cfg);
	seq_printf(m, "carrier %u\nlink_up %u\nrate_bps %llu\nlatency_us %u\nloss_ppm %u\n",
		   cfg.carrier, refnic_link_up(port), cfg.rate_bps,
		   cfg.latency_us, cfg.loss_ppm);
	/* What the delay line takes for them (link.c). */
	seq_printf(m, "delay_line_bytes %u\n", READ_ONCE(port->link.line_size));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(refnic_link);

static int refnic_fault_tx_hang_show(struct seq_file *m, void *unused)
{
	struct refnic_model_port *port = m->private;
	bool any = false;
	unsigned int q;

	for (q = 0; q < REFNIC_MAX_QUEUES; q++) {
		if (!READ_ONCE(port->txq[q].hang))
			continue;
		seq_printf(m, "%s%u", any ? " " : "", q);
		any = true;
	}
	seq_puts(m, any ? "\n" : "none\n");
	return 0;
}

static int refnic_fault_tx_hang_open(struct inode *inode, struct file *file)
{
	return single_open(file, refnic_fault_tx_hang_show, inode->i_private);
}

static ssize_t refnic_fault_tx_hang_write(struct file *file,
					  const char __user *ubuf, size_t len,
					  loff_t *ppos)
{
	struct seq_file *m = file->private_data;
	struct refnic_model_port *port = m->private;
	char buf[16] = {};
	unsigned int q;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;

	if (sysfs_streq(buf, "none")) {
		for (q = 0; q < REFNIC_MAX_QUEUES; q++)
			refnic_txq_fault_clear(&port->txq[q]);
	} else if (!kstrtouint(buf, 0, &q) && q < REFNIC_MAX_QUEUES) {
		refnic_txq_fault_hang(&port->txq[q]);
	} else {
		return -EINVAL;
	}
	return len;
}

static const struct file_operations refnic_fault_tx_hang_fops = {
	.owner = THIS_MODULE,
	.open = refnic_fault_tx_hang_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.write = refnic_fault_tx_hang_write,
	.release = single_release,
};

static int refnic_gro_contexts_get(void *data, u64 *val)
{
	struct refnic_model_port *port = data;

	*val = READ_ONCE(port->gro_contexts);
	return 0;
}

static int refnic_gro_contexts_set(void *data, u64 val)
{
	return refnic_rx_gro_set_contexts(data, val);
}
DEFINE_DEBUGFS_ATTRIBUTE(refnic_gro_contexts_fops, refnic_gro_contexts_get,
			 refnic_gro_contexts_set, "%llu\n");

static int refnic_gro_buffer_get(void *data, u64 *val)
{
	struct refnic_model_port *port = data;

	*val = READ_ONCE(port->gro_buffer);
	return 0;
}

static int refnic_gro_buffer_set(void *data, u64 val)
{
	return refnic_rx_gro_set_buffer(data, val);
}
DEFINE_DEBUGFS_ATTRIBUTE(refnic_gro_buffer_fops, refnic_gro_buffer_get,
			 refnic_gro_buffer_set, "%llu\n");

/* debugfs is diagnostics: failures are ignored, as debugfs intends. */
void refnic_debugfs_card_add(struct refnic_model_card *card)
{
	struct refnic_model_port *port;
	char name[16];
	unsigned int i;

	if (IS_ERR_OR_NULL(refnic_debugfs_root))
		return;
	snprintf(name, sizeof(name), "card%u", card->id);
	card->debugfs = debugfs_create_dir(name, refnic_debugfs_root);
	for (i = 0; i < ARRAY_SIZE(card->port); i++) {
		port = card->port[i];
		snprintf(name, sizeof(name), "port%u", i);
		port->debugfs = debugfs_create_dir(name, card->debugfs);
		debugfs_create_file("counters", 0400, port->debugfs, port,
				    &refnic_counters_fops);
		debugfs_create_file("link", 0400, port->debugfs, port,
				    &refnic_link_fops);
		debugfs_create_file("fault_tx_hang", 0600, port->debugfs, port,
				    &refnic_fault_tx_hang_fops);
		debugfs_create_file_unsafe("gro_contexts", 0600, port->debugfs,
					   port, &refnic_gro_contexts_fops);
		debugfs_create_file_unsafe("gro_buffer", 0600, port->debugfs,
					   port, &refnic_gro_buffer_fops);
		debugfs_create_bool("wire_fast", 0600, port->debugfs,
				    &port->wire_fast);
	}
}

void refnic_debugfs_card_remove(struct refnic_model_card *card)
{
	debugfs_remove_recursive(card->debugfs);
	card->debugfs = NULL;
}
