// SPDX-License-Identifier: GPL-2.0
/* Copyright (c) 2026 The refnic authors
 *
 * Receive side scaling: the Toeplitz hash, as the Microsoft RSS
 * specification defines it (and as ethtool -x shows it), over the fields
 * RSS_FIELDS selects for the frame's flow type: by default the IP
 * addresses and, for TCP and UDP that is not fragmented, the ports. Fields
 * are hashed in wire order: source address, destination address, source
 * port, destination port.
 */

#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/unaligned.h>

#include "model.h"

u32 refnic_toeplitz(const u8 *key, const u8 *data, unsigned int len)
{
	u32 window = (u32)key[0] << 24 | (u32)key[1] << 16 |
		     (u32)key[2] << 8 | key[3];
	u32 hash = 0;
	unsigned int i;
	int bit;

	/* The key slides left one bit per input bit; every set input bit
	 * XORs in the 32 key bits under the window.
	 */
	for (i = 0; i < len; i++) {
		for (bit = 7; bit >= 0; bit--) {
			if (data[i] & BIT(bit))
				hash ^= window;
			window <<= 1;
			if (key[i + 4] & BIT(bit))
				window |= 1;
		}
	}
	return hash;
}

/* RSS_FIELDS after reset, and the bits each register has. */
static const u32 refnic_rss_fields_reset[REFNIC_RSS_NUM_FT] = {
	[REFNIC_RSS_FT_TCP4] = REFNIC_RSS_IP_FIELDS | REFNIC_RSS_L4_FIELDS,
	[REFNIC_RSS_FT_UDP4] = REFNIC_RSS_IP_FIELDS | REFNIC_RSS_L4_FIELDS,
	[REFNIC_RSS_FT_IP4] = REFNIC_RSS_IP_FIELDS,
	[REFNIC_RSS_FT_TCP6] = REFNIC_RSS_IP_FIELDS | REFNIC_RSS_L4_FIELDS,
	[REFNIC_RSS_FT_UDP6] = REFNIC_RSS_IP_FIELDS | REFNIC_RSS_L4_FIELDS,
	[REFNIC_RSS_FT_IP6] = REFNIC_RSS_IP_FIELDS,
};

/**
 * refnic_rss_reset - key, table and hash fields to their reset values
 * @port: the port
 */
void refnic_rss_reset(struct refnic_model_port *port)
{
	unsigned int c, i;

	for (i = 0; i < ARRAY_SIZE(port->rss_key); i++)
		WRITE_ONCE(port->rss_key[i], 0);
	for (i = 0; i < ARRAY_SIZE(port->rss_table); i++)
		WRITE_ONCE(port->rss_table[i], 0);
	for (c = 0; c < REFNIC_NUM_RSS_CTX; c++)
		for (i = 0; i < ARRAY_SIZE(port->rss_ctx_table[c]); i++)
			WRITE_ONCE(port->rss_ctx_table[c][i], 0);
	for (i = 0; i < REFNIC_RSS_NUM_FT; i++)
		WRITE_ONCE(port->rss_fields[i], refnic_rss_fields_reset[i]);
}

/**
 * refnic_rss_fields_write - an MMIO write of RSS_FIELDS(@t)
 * @port: the port
 * @t: flow type, REFNIC_RSS_FT_*
 * @val: the value written; reserved bits are dropped
 */
void refnic_rss_fields_write(struct refnic_model_port *port, unsigned int t,
			     u32 val)
{
	/* Every field the flow type's reset value has, and SYM_XOR. */
	u32 mask = refnic_rss_fields_reset[t] | REFNIC_RSS_SYM_XOR;

	WRITE_ONCE(port->rss_fields[t], val & mask);
}

/* Puts the fields @a and @b, @n bytes each, into @out as @fields selects
 * them (@a with @sel_a, @b with @sel_b); returns the bytes put.
 */
static unsigned int refnic_rss_pair(u8 *out, const u8 *a, const u8 *b,
				    unsigned int n, u32 fields, u32 sel_a,
				    u32 sel_b)
{
	unsigned int i, len = 0;

	if ((fields & (sel_a | sel_b)) == (sel_a | sel_b) &&
	    (fields & REFNIC_RSS_SYM_XOR)) {
		for (i = 0; i < n; i++)
			out[i] = a[i] ^ b[i];
		memcpy(out + n, out, n);
		return 2 * n;
	}
	if (fields & sel_a) {
		memcpy(out, a, n);
		len = n;
	}
	if (fields & sel_b) {
		memcpy(out + len, b, n);
		len += n;
	}
	return len;
}

/**
 * refnic_rss_hash - hash a received frame as the port's RSS registers say
 * @port: the receiving port
 * @p: the frame's headers
 * @pkt: what refnic_parse() found in them; must be IPv4 or IPv6
 * @flags: gets REFNIC_RXC_RSS_VALID when a field was hashed, and
 *	REFNIC_RXC_HASH_L4 too when both addresses and both ports were
 *
 * Return: the hash, 0 when the frame's flow type selects no field.
 */
u32 refnic_rss_hash(const struct refnic_model_port *port, const u8 *p,
		    const struct refnic_pkt *pkt, u32 *flags)
{
	u8 input[2 * sizeof(struct in6_addr) + 4];
	u8 key[REFNIC_RSS_KEY_SIZE];
	const u8 *saddr, *l4;
	unsigned int alen, len, i, t;
	u32 fields;

	if (pkt->l3_proto == ETH_P_IP) {
		alen = sizeof(__be32);
		saddr = p + pkt->l3_off + offsetof(struct iphdr, saddr);
		t = REFNIC_RSS_FT_TCP4;
	} else {
		alen = sizeof(struct in6_addr);
		saddr = p + pkt->l3_off + offsetof(struct ipv6hdr, saddr);
		t = REFNIC_RSS_FT_TCP6;
	}
	/* TCP, UDP and other follow each other for either IP version. */
	if (pkt->l4_proto == IPPROTO_UDP)
		t += REFNIC_RSS_FT_UDP4 - REFNIC_RSS_FT_TCP4;
	else if (pkt->l4_proto != IPPROTO_TCP)
		t += REFNIC_RSS_FT_IP4 - REFNIC_RSS_FT_TCP4;
	fields = READ_ONCE(port->rss_fields[t]);

	/* The destination address follows the source in both headers. */
	len = refnic_rss_pair(input, saddr, saddr + alen, alen, fields,
			      REFNIC_RSS_IP_SRC, REFNIC_RSS_IP_DST);
	/* TCP and UDP headers both start with the two ports; the other flow
	 * types have no L4 bits.
	 */
	l4 = p + pkt->l4_off;
	if (pkt->l4_proto)
		len += refnic_rss_pair(input + len, l4, l4 + 2, 2, fields,
				       REFNIC_RSS_L4_SRC, REFNIC_RSS_L4_DST);
	if (!len)
		return 0;

	*flags |= REFNIC_RXC_RSS_VALID;
	if ((fields & (REFNIC_RSS_IP_FIELDS | REFNIC_RSS_L4_FIELDS)) ==
	    (REFNIC_RSS_IP_FIELDS | REFNIC_RSS_L4_FIELDS))
		*flags |= REFNIC_RXC_HASH_L4;

	for (i = 0; i < ARRAY_SIZE(port->rss_key); i++)
		put_unaligned_le32(READ_ONCE(port->rss_key[i]), key + 4 * i);
	return refnic_toeplitz(key, input, len);
}

/**
 * refnic_rss_lookup - the queue an indirection table gives a hash
 * @port: the port
 * @ctx: RSS context: 0 for RSS_TABLE, else an RSS_CTX_TABLE
 * @hash: the frame's hash (0 if it was not hashed)
 *
 * Return: the table's entry, not checked against RSS_QUEUES.
 */
u32 refnic_rss_lookup(const struct refnic_model_port *port, unsigned int ctx,
		      u32 hash)
{
	unsigned int entry = hash % REFNIC_RSS_TABLE_SIZE;
	const u32 *table = ctx ? port->rss_ctx_table[ctx] : port->rss_table;

	return (READ_ONCE(table[entry / 4]) >> (8 * (entry % 4))) & 0xff;
}

/* Block 0 of the context tables is reserved: context 0 is RSS_TABLE. */
u32 refnic_rss_ctx_read(struct refnic_model_port *port, u32 reg)
{
	u32 off = reg - REFNIC_REG_RSS_CTX_BASE;
	unsigned int c = off / REFNIC_REG_RSS_CTX_STRIDE;

	if (!c)
		return 0;
	return READ_ONCE(port->rss_ctx_table[c][off % REFNIC_REG_RSS_CTX_STRIDE / 4]);
}

void refnic_rss_ctx_write(struct refnic_model_port *port, u32 reg, u32 val)
{
	u32 off = reg - REFNIC_REG_RSS_CTX_BASE;
	unsigned int c = off / REFNIC_REG_RSS_CTX_STRIDE;

	if (c)
		WRITE_ONCE(port->rss_ctx_table[c][off % REFNIC_REG_RSS_CTX_STRIDE / 4],
			   val);
}
