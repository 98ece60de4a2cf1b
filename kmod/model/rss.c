// SPDX-License-Identifier: GPL-2.0
/* Copyright (c) 2026 The refnic authors
 *
 * Receive side scaling: the Toeplitz hash over the IP addresses and, for
 * TCP and UDP that is not fragmented, the ports, as the Microsoft RSS
 * specification defines it (and as ethtool -x shows it). Fields are hashed
 * in wire order: source address, destination address, source port,
 * destination port.
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

/**
 * refnic_rss_hash - hash a received frame with the port's RSS key
 * @port: the receiving port
 * @p: the frame's headers
 * @pkt: what refnic_parse() found in them; must be IPv4 or IPv6
 * @l4: set when the ports were hashed too
 *
 * Return: the hash.
 */
u32 refnic_rss_hash(const struct refnic_model_port *port, const u8 *p,
		    const struct refnic_pkt *pkt, bool *l4)
{
	u8 key[REFNIC_RSS_KEY_SIZE];
	u8 input[2 * sizeof(struct in6_addr) + 4];
	unsigned int len, i;

	for (i = 0; i < ARRAY_SIZE(port->rss_key); i++)
		put_unaligned_le32(READ_ONCE(port->rss_key[i]), key + 4 * i);

	if (pkt->l3_proto == ETH_P_IP) {
		len = 2 * sizeof(__be32);
		memcpy(input, p + pkt->l3_off + offsetof(struct iphdr, saddr),
		       len);
	} else {
		len = 2 * sizeof(struct in6_addr);
		memcpy(input, p + pkt->l3_off + offsetof(struct ipv6hdr, saddr),
		       len);
	}
	/* TCP and UDP headers both start with the two ports. */
	*l4 = pkt->l4_proto;
	if (*l4) {
		memcpy(input + len, p + pkt->l4_off, 4);
		len += 4;
	}
	return refnic_toeplitz(key, input, len);
}
