// SPDX-License-Identifier: GPL-2.0
/* Copyright (c) 2026 The refnic authors
 *
 * Flow steering: a table of REFNIC_NUM_FLOW_RULES rules matched against
 * every received TCP and UDP frame before RSS, first match wins (the
 * datasheet, refnic_hw.h, has the programming model).
 *
 * The registers of a rule's fields are plain words the driver writes at
 * will. The engine never reads them: a FLOW_CTRL write latches them into
 * the rule the engine matches, under a seqlock, so a frame sees a rule
 * whole or not at all. The engine delivers frames from several CPUs at
 * once (every TX queue of the peer port, and the peer's delay line), in
 * process context; MMIO may come from any context. Readers never block the
 * writer and retry when a latch overlapped their walk of the table; a
 * frame pays one READ_ONCE for steering while no rule is valid.
 */

#include <linux/bitfield.h>
#include <linux/bitmap.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/unaligned.h>

#include "model.h"

/* A received frame's fields, in the rule registers' layout. */
struct refnic_steer_key {
	u32 type;
	u32 words;
	u32 ports;
	u32 src[REFNIC_FLOW_IP_WORDS];
	u32 dst[REFNIC_FLOW_IP_WORDS];
};

void refnic_steer_init(struct refnic_model_port *port)
{
	seqlock_init(&port->steer.lock);
}

/**
 * refnic_steer_reset - CTRL.RESET: no rule, every register and hit at 0
 * @port: the port
 */
void refnic_steer_reset(struct refnic_model_port *port)
{
	struct refnic_steer *st = &port->steer;
	unsigned long flags;
	unsigned int i;

	write_seqlock_irqsave(&st->lock, flags);
	bitmap_zero(st->valid, REFNIC_NUM_FLOW_RULES);
	WRITE_ONCE(st->nvalid, 0);
	memset(st->rule, 0, sizeof(st->rule));
	write_sequnlock_irqrestore(&st->lock, flags);

	for (i = 0; i < REFNIC_NUM_FLOW_RULES; i++) {
		memset(&st->regs[i], 0, sizeof(st->regs[i]));
		atomic64_set(&st->hits[i], 0);
	}
}

/* The register at @off of a rule's block, or NULL for FLOW_CTRL, FLOW_HITS
 * and offsets that name no register.
 */
static u32 *refnic_steer_field(struct refnic_flow_rule *r, u32 off)
{
	unsigned int i = (off & 0xf) / 4;

	switch (off) {
	case REFNIC_REG_FLOW_TYPE(0) - REFNIC_REG_FLOW_BASE:
		return &r->type;
	case REFNIC_REG_FLOW_ACTION(0) - REFNIC_REG_FLOW_BASE:
		return &r->action;
	case REFNIC_REG_FLOW_PORTS(0) - REFNIC_REG_FLOW_BASE:
		return &r->ports;
	case REFNIC_REG_FLOW_PORTS_MASK(0) - REFNIC_REG_FLOW_BASE:
		return &r->ports_mask;
	}
	switch (off & ~0xfu) {
	case REFNIC_REG_FLOW_SRC_IP(0, 0) - REFNIC_REG_FLOW_BASE:
		return &r->src[i];
	case REFNIC_REG_FLOW_SRC_MASK(0, 0) - REFNIC_REG_FLOW_BASE:
		return &r->src_mask[i];
	case REFNIC_REG_FLOW_DST_IP(0, 0) - REFNIC_REG_FLOW_BASE:
		return &r->dst[i];
	case REFNIC_REG_FLOW_DST_MASK(0, 0) - REFNIC_REG_FLOW_BASE:
		return &r->dst_mask[i];
	}
	return NULL;
}

/**
 * refnic_steer_reg_read - read a register of the flow steering table
 * @port: the port
 * @reg: its offset in the BAR, in [REFNIC_REG_FLOW_BASE, REFNIC_REG_FLOW_END)
 *
 * Return: the register's value; 0 for an offset that names none.
 */
u32 refnic_steer_reg_read(struct refnic_model_port *port, u32 reg)
{
	struct refnic_steer *st = &port->steer;
	unsigned int n = (reg - REFNIC_REG_FLOW_BASE) / REFNIC_REG_FLOW_STRIDE;
	u32 off = (reg - REFNIC_REG_FLOW_BASE) % REFNIC_REG_FLOW_STRIDE;
	u32 *field;

	switch (off) {
	case REFNIC_REG_FLOW_CTRL(0) - REFNIC_REG_FLOW_BASE:
		return test_bit(n, st->valid) ? REFNIC_FLOW_CTRL_VALID : 0;
	case REFNIC_REG_FLOW_HITS(0) - REFNIC_REG_FLOW_BASE:
		return atomic64_read(&st->hits[n]);
	}
	field = refnic_steer_field(&st->regs[n], off);
	return field ? READ_ONCE(*field) : 0;
}

/* FLOW_CTRL: latch rule @n from its registers, or remove it. */
static void refnic_steer_ctrl(struct refnic_steer *st, unsigned int n,
			      u32 val)
{
	const struct refnic_flow_rule *regs = &st->regs[n];
	struct refnic_flow_rule *r = &st->rule[n];
	unsigned long flags;
	unsigned int i;

	write_seqlock_irqsave(&st->lock, flags);
	if (val & REFNIC_FLOW_CTRL_VALID) {
		r->type = READ_ONCE(regs->type);
		r->action = READ_ONCE(regs->action);
		r->ports = READ_ONCE(regs->ports);
		r->ports_mask = READ_ONCE(regs->ports_mask);
		for (i = 0; i < REFNIC_FLOW_IP_WORDS; i++) {
			r->src[i] = READ_ONCE(regs->src[i]);
			r->src_mask[i] = READ_ONCE(regs->src_mask[i]);
			r->dst[i] = READ_ONCE(regs->dst[i]);
			r->dst_mask[i] = READ_ONCE(regs->dst_mask[i]);
		}
		__set_bit(n, st->valid);
	} else {
		__clear_bit(n, st->valid);
	}
	WRITE_ONCE(st->nvalid, bitmap_weight(st->valid, REFNIC_NUM_FLOW_RULES));
	atomic64_set(&st->hits[n], 0);
	write_sequnlock_irqrestore(&st->lock, flags);
}

/**
 * refnic_steer_reg_write - write a register of the flow steering table
 * @port: the port
 * @reg: its offset in the BAR, in [REFNIC_REG_FLOW_BASE, REFNIC_REG_FLOW_END)
 * @val: the value
 */
void refnic_steer_reg_write(struct refnic_model_port *port, u32 reg, u32 val)
{
	struct refnic_steer *st = &port->steer;
	unsigned int n = (reg - REFNIC_REG_FLOW_BASE) / REFNIC_REG_FLOW_STRIDE;
	u32 off = (reg - REFNIC_REG_FLOW_BASE) % REFNIC_REG_FLOW_STRIDE;
	u32 *field;

	if (off == REFNIC_REG_FLOW_CTRL(0) - REFNIC_REG_FLOW_BASE) {
		refnic_steer_ctrl(st, n, val);
		return;
	}
	field = refnic_steer_field(&st->regs[n], off);
	if (field)
		WRITE_ONCE(*field, val);
}

/* The frame's fields, if a rule could match it: TCP or UDP, not a
 * fragment (refnic_parse() leaves l4_proto 0 for those).
 */
static bool refnic_steer_key(const u8 *p, const struct refnic_pkt *pkt,
			     struct refnic_steer_key *key)
{
	const u8 *l3 = p + pkt->l3_off;
	const u8 *src, *dst;
	unsigned int i;
	bool tcp;

	if (pkt->l4_proto == IPPROTO_TCP)
		tcp = true;
	else if (pkt->l4_proto == IPPROTO_UDP)
		tcp = false;
	else
		return false;

	if (pkt->l3_proto == ETH_P_IP) {
		key->type = tcp ? REFNIC_FLOW_TYPE_TCP4 : REFNIC_FLOW_TYPE_UDP4;
		key->words = 1;
		src = l3 + offsetof(struct iphdr, saddr);
		dst = l3 + offsetof(struct iphdr, daddr);
	} else if (pkt->l3_proto == ETH_P_IPV6) {
		key->type = tcp ? REFNIC_FLOW_TYPE_TCP6 : REFNIC_FLOW_TYPE_UDP6;
		key->words = REFNIC_FLOW_IP_WORDS;
		src = l3 + offsetof(struct ipv6hdr, saddr);
		dst = l3 + offsetof(struct ipv6hdr, daddr);
	} else {
		return false;
	}
	for (i = 0; i < key->words; i++) {
		key->src[i] = get_unaligned_le32(src + 4 * i);
		key->dst[i] = get_unaligned_le32(dst + 4 * i);
	}
	/* TCP and UDP headers both start with the two ports. */
	key->ports = FIELD_PREP(REFNIC_FLOW_SRC_PORT,
				get_unaligned_be16(p + pkt->l4_off)) |
		     FIELD_PREP(REFNIC_FLOW_DST_PORT,
				get_unaligned_be16(p + pkt->l4_off + 2));
	return true;
}

static bool refnic_steer_match(const struct refnic_flow_rule *r,
			       const struct refnic_steer_key *key)
{
	unsigned int i;

	if (r->type != key->type || (r->ports ^ key->ports) & r->ports_mask)
		return false;
	for (i = 0; i < key->words; i++)
		if ((r->src[i] ^ key->src[i]) & r->src_mask[i] ||
		    (r->dst[i] ^ key->dst[i]) & r->dst_mask[i])
			return false;
	return true;
}

/**
 * refnic_steer_classify - match a received frame against the rules
 * @port: the receiving port
 * @p: the frame's headers
 * @pkt: what refnic_parse() found in them
 * @q: set to the rule's queue when it returns REFNIC_STEER_QUEUE, to its
 *	queue offset when it returns REFNIC_STEER_RSS
 * @ctx: set to the rule's RSS context when it returns REFNIC_STEER_RSS
 *
 * Counts the frame: in the matching rule's FLOW_HITS, and in
 * CNT_RX_STEERED, CNT_RX_STEER_DROP or (a queue at or above RSS_QUEUES)
 * CNT_RX_BAD_QUEUE.
 *
 * Return: what the first matching rule says, REFNIC_STEER_NONE if none.
 */
enum refnic_steer_verdict refnic_steer_classify(struct refnic_model_port *port,
						const u8 *p,
						const struct refnic_pkt *pkt,
						u32 *q, unsigned int *ctx)
{
	struct refnic_steer *st = &port->steer;
	struct refnic_steer_key key;
	unsigned int seq, i;
	u32 action = 0;
	int hit;

	if (likely(!READ_ONCE(st->nvalid)))
		return REFNIC_STEER_NONE;
	if (!refnic_steer_key(p, pkt, &key))
		return REFNIC_STEER_NONE;

	do {
		seq = read_seqbegin(&st->lock);
		hit = -1;
		for_each_set_bit(i, st->valid, REFNIC_NUM_FLOW_RULES) {
			if (refnic_steer_match(&st->rule[i], &key)) {
				hit = i;
				action = st->rule[i].action;
				break;
			}
		}
	} while (read_seqretry(&st->lock, seq));

	if (hit < 0)
		return REFNIC_STEER_NONE;
	atomic64_inc(&st->hits[hit]);
	if (action & REFNIC_FLOW_ACTION_DROP) {
		atomic64_inc(&port->cnt.rx_drop_steer);
		return REFNIC_STEER_DROP;
	}
	*q = FIELD_GET(REFNIC_FLOW_ACTION_QUEUE, action);
	if (action & REFNIC_FLOW_ACTION_RSS) {
		*ctx = FIELD_GET(REFNIC_FLOW_ACTION_CTX, action);
		if (*ctx >= REFNIC_NUM_RSS_CTX) {
			atomic64_inc(&port->cnt.rx_drop_bad_queue);
			return REFNIC_STEER_DROP;
		}
		/* The queue is known, and the frame counted (steered or
		 * bad queue), once it is hashed.
		 */
		return REFNIC_STEER_RSS;
	}
	if (*q >= READ_ONCE(port->rss_queues) || *q >= REFNIC_MAX_QUEUES) {
		atomic64_inc(&port->cnt.rx_drop_bad_queue);
		return REFNIC_STEER_DROP;
	}
	atomic64_inc(&port->cnt.rx_steered);
	return REFNIC_STEER_QUEUE;
}
