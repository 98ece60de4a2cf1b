// SPDX-License-Identifier: GPL-2.0
/* Copyright (c) 2026 The refnic authors
 *
 * The model's header parser: Ethernet (up to two VLAN tags), IPv4 or IPv6
 * (with the usual extension headers), TCP or UDP. One parser serves TSO/USO
 * (where are the headers to rewrite), RSS (what to hash), checksum
 * verification and header split (how long the headers are, or why they
 * cannot be split), so that all of them agree on what a frame is.
 */

#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <net/ip.h>
#include <net/ipv6.h>

#include "model.h"

/* Extension headers walked before giving up on finding L4. */
#define REFNIC_MAX_IPV6_EXT	8

static void refnic_parse_l4(const u8 *p, u32 avail, struct refnic_pkt *pkt,
			    u8 proto)
{
	u32 off = pkt->l4_off;
	u32 hlen;

	if (pkt->frag) {
		pkt->split = REFNIC_SPLIT_NO_L4;
		return;
	}
	switch (proto) {
	case IPPROTO_TCP:
		if (off + sizeof(struct tcphdr) > avail)
			goto no_l4;
		hlen = ((const struct tcphdr *)(p + off))->doff * 4;
		if (hlen < sizeof(struct tcphdr) || off + hlen > avail)
			goto no_l4;
		break;
	case IPPROTO_UDP:
		hlen = sizeof(struct udphdr);
		if (off + hlen > avail)
			goto no_l4;
		break;
	default:
		goto no_l4;
	}
	if (off + hlen > U16_MAX)
		goto no_l4;
	pkt->l4_proto = proto;
	pkt->hdr_len = off + hlen;
	pkt->split = REFNIC_SPLIT_DONE;
	return;
no_l4:
	pkt->split = REFNIC_SPLIT_NO_L4;
}

static void refnic_parse_ipv4(const u8 *p, u32 avail, u32 len,
			      struct refnic_pkt *pkt)
{
	const struct iphdr *iph = (const void *)(p + pkt->l3_off);
	u32 ihl, tot;

	if (pkt->l3_off + sizeof(*iph) > avail || iph->version != 4)
		return;
	ihl = iph->ihl * 4;
	tot = ntohs(iph->tot_len);
	if (ihl < sizeof(*iph) || pkt->l3_off + ihl > avail || tot < ihl)
		return;
	pkt->l3_proto = ETH_P_IP;
	pkt->l4_off = pkt->l3_off + ihl;
	pkt->frag = (iph->frag_off & htons(IP_MF | IP_OFFSET)) != 0;
	pkt->ip_proto = iph->protocol;
	if (pkt->l3_off + tot <= len)
		pkt->l4_len = tot - ihl;
	refnic_parse_l4(p, avail, pkt, iph->protocol);
}

static void refnic_parse_ipv6(const u8 *p, u32 avail, u32 len,
			      struct refnic_pkt *pkt)
{
	const struct ipv6hdr *ip6 = (const void *)(p + pkt->l3_off);
	u32 off = pkt->l3_off + sizeof(*ip6);
	u32 end, hlen;
	unsigned int i;
	u8 nexthdr;

	if (off > avail || ip6->version != 6)
		return;
	pkt->l3_proto = ETH_P_IPV6;
	end = off + ntohs(ip6->payload_len);
	nexthdr = ip6->nexthdr;
	for (i = 0; i < REFNIC_MAX_IPV6_EXT; i++) {
		switch (nexthdr) {
		case NEXTHDR_HOP:
		case NEXTHDR_ROUTING:
		case NEXTHDR_DEST:
			if (off + 2 > avail)
				goto no_l4;
			hlen = (p[off + 1] + 1) * 8;
			break;
		case NEXTHDR_AUTH:
			if (off + 2 > avail)
				goto no_l4;
			hlen = (p[off + 1] + 2) * 4;
			break;
		case NEXTHDR_FRAGMENT:
			hlen = sizeof(struct frag_hdr);
			pkt->frag = true;
			break;
		default:
			goto l4;
		}
		if (off + hlen > avail)
			goto no_l4;
		nexthdr = p[off];
		off += hlen;
	}
no_l4:
	pkt->split = REFNIC_SPLIT_NO_L4;
	return;
l4:
	pkt->l4_off = off;
	pkt->ip_proto = nexthdr;
	if (end <= len && end >= off)
		pkt->l4_len = end - off;
	refnic_parse_l4(p, avail, pkt, nexthdr);
}

/**
 * refnic_parse - find a frame's L3 and L4 headers
 * @p: the frame
 * @avail: bytes readable at @p (the headers must lie within them)
 * @len: the frame's length on the wire (the IP lengths must fit in it)
 * @pkt: what was found
 *
 * Return: the length of the L2..L4 headers, 0 when the frame is not TCP or
 * UDP over IP (@pkt->split says why).
 */
u16 refnic_parse(const u8 *p, u32 avail, u32 len, struct refnic_pkt *pkt)
{
	u32 off = ETH_HLEN;
	__be16 proto;

	memset(pkt, 0, sizeof(*pkt));
	pkt->split = REFNIC_SPLIT_NO_L3;
	if (avail < ETH_HLEN)
		return 0;
	proto = ((const struct ethhdr *)p)->h_proto;
	if (eth_type_vlan(proto)) {
		if (off + VLAN_HLEN > avail)
			return 0;
		proto = ((const struct vlan_hdr *)(p + off))->h_vlan_encapsulated_proto;
		off += VLAN_HLEN;
	}
	if (eth_type_vlan(proto)) {
		if (off + VLAN_HLEN > avail)
			return 0;
		proto = ((const struct vlan_hdr *)(p + off))->h_vlan_encapsulated_proto;
		off += VLAN_HLEN;
	}
	pkt->l3_off = off;
	if (proto == htons(ETH_P_IP))
		refnic_parse_ipv4(p, avail, len, pkt);
	else if (proto == htons(ETH_P_IPV6))
		refnic_parse_ipv6(p, avail, len, pkt);
	return pkt->hdr_len;
}

/**
 * refnic_parse_inner - find the inner headers of an IP-in-IP frame
 * @p: the frame
 * @avail: bytes readable at @p
 * @outer: refnic_parse() of the frame
 * @inner: what was found: the inner IP header as L3 (its offset counted
 *	from @p), TCP or UDP in it as L4
 *
 * Only hardware GRO looks into tunnels (RSS, checksum verification and
 * header split take the outer headers as they always did).
 *
 * Return: the length of the L2..inner L4 headers, 0 when @outer is not
 * IPv4 or IPv6 carried whole in IPv4 or IPv6 with TCP or UDP inside.
 */
u16 refnic_parse_inner(const u8 *p, u32 avail, const struct refnic_pkt *outer,
		       struct refnic_pkt *inner)
{
	/* The inner datagram must end where the outer one does. */
	u32 end = outer->l4_off + outer->l4_len;

	memset(inner, 0, sizeof(*inner));
	inner->split = REFNIC_SPLIT_NO_L4;
	if (!outer->l3_proto || outer->frag || !outer->l4_len ||
	    outer->split != REFNIC_SPLIT_NO_L4)
		return 0;
	inner->l3_off = outer->l4_off;
	if (outer->ip_proto == IPPROTO_IPIP)
		refnic_parse_ipv4(p, avail, end, inner);
	else if (outer->ip_proto == IPPROTO_IPV6)
		refnic_parse_ipv6(p, avail, end, inner);
	if (inner->l4_len && inner->l4_off + inner->l4_len != end)
		inner->l4_len = 0;
	return inner->hdr_len;
}
