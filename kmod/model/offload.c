// SPDX-License-Identifier: GPL-2.0
/* Copyright (c) 2026 The refnic authors
 *
 * TX offloads and L4 checksums.
 *
 * Checksum insertion follows CHECKSUM_PARTIAL: the driver leaves the
 * pseudo-header sum in the checksum field, as the stack does, and the
 * device sums from csum_start to the end of the frame and stores the folded
 * result at csum_start + csum_offset.
 *
 * TSO and USO cut a frame into segments of mss payload bytes, each with a
 * copy of the hdr_len bytes of headers, rewritten: IPv4 total length, ID
 * (incrementing) and header checksum, IPv6 payload length, TCP sequence
 * number and flags (FIN and PSH on the last segment only, CWR on the first
 * only), UDP length, and the L4 checksum, computed from scratch over the
 * pseudo-header so that whatever the driver left in the field does not
 * matter.
 */

#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <linux/unaligned.h>
#include <net/checksum.h>
#include <net/ip6_checksum.h>

#include "model.h"

/* Sum @len bytes of @f from @off, its payload at @payload; the padding
 * adds nothing.
 */
static __wsum refnic_frame_csum(const struct refnic_frame *f,
				const u8 *payload, u32 off, u32 len)
{
	__wsum sum = 0;
	u32 done = 0;
	u32 n;

	if (off < f->head_len) {
		n = min(len, f->head_len - off);
		sum = csum_partial(f->head + off, n, 0);
		done = n;
		off += n;
		len -= n;
	}
	off -= f->head_len;
	if (len && off < f->data_len) {
		n = min(len, f->data_len - off);
		sum = csum_block_add(sum, csum_partial(payload + off, n, 0),
				     done);
	}
	return sum;
}

/* Fold @sum, an L4 segment's sum, with its pseudo-header. */
static __sum16 refnic_l4_magic(const u8 *hdrs, const struct refnic_pkt *pkt,
			       u32 l4_len, __wsum sum)
{
	const struct ipv6hdr *ip6;
	const struct iphdr *iph;

	if (pkt->l3_proto == ETH_P_IP) {
		iph = (const void *)(hdrs + pkt->l3_off);
		return csum_tcpudp_magic(get_unaligned(&iph->saddr),
					 get_unaligned(&iph->daddr), l4_len,
					 pkt->l4_proto, sum);
	}
	ip6 = (const void *)(hdrs + pkt->l3_off);
	return csum_ipv6_magic(&ip6->saddr, &ip6->daddr, l4_len, pkt->l4_proto,
			       sum);
}

/**
 * refnic_frame_l4_csum - verify a received frame's TCP or UDP checksum
 * @f: the frame; its headers are in @f->head
 * @pkt: refnic_parse() of them, with l4_len known
 *
 * Return: 0 when the checksum is right.
 */
__sum16 refnic_frame_l4_csum(const struct refnic_frame *f,
			     const struct refnic_pkt *pkt)
{
	const u8 *payload = refnic_frame_fetch(f);
	__wsum sum = refnic_frame_csum(f, payload, pkt->l4_off, pkt->l4_len);

	return refnic_l4_magic(f->head, pkt, pkt->l4_len, sum);
}

/**
 * refnic_tx_csum - insert a CHECKSUM_PARTIAL checksum
 * @frame: the frame
 * @len: its length
 * @start: csum_start
 * @offset: csum_offset
 *
 * Return: 0, or -EINVAL when the field lies outside the frame.
 */
int refnic_tx_csum(u8 *frame, u32 len, u32 start, u32 offset)
{
	__sum16 sum;

	if ((u64)start + offset + sizeof(sum) > len)
		return -EINVAL;
	sum = csum_fold(csum_partial(frame + start, len - start, 0));
	put_unaligned(sum ?: CSUM_MANGLED_0, (__sum16 *)(frame + start + offset));
	return 0;
}

/* Bytes a TSO/USO frame puts on the wire: headers once per segment. */
u32 refnic_gso_wire_bytes(u32 len, u32 hdr_len, u32 mss)
{
	u32 payload;

	if (!mss || hdr_len >= len)
		return len;
	payload = len - hdr_len;
	return payload + DIV_ROUND_UP(payload, mss) * hdr_len;
}

/**
 * refnic_gso_init - check a TSO/USO request and prepare to segment
 * @gso: segmentation state
 * @frame: the frame, read whole, or only its headers (@desc's hdr_len
 *	bytes) when @sg is given
 * @len: its length
 * @sg: its buffers when it is cut through (payloads read from there), or
 *	NULL
 * @hdr: scratch for a segment's headers (REFNIC_MODEL_MAX_HDR bytes)
 * @desc: the frame's first descriptor (flags, mss, hdr_len)
 *
 * Return: 0, or -EINVAL when the request does not describe the frame.
 */
int refnic_gso_init(struct refnic_gso *gso, u8 *frame, u32 len,
		    const struct refnic_tx_sg *sg, u8 *hdr,
		    const struct refnic_tx_desc *desc)
{
	u16 flags = le16_to_cpu(desc->flags);
	u32 hdr_len = le16_to_cpu(desc->hdr_len);
	u16 l3_proto = flags & REFNIC_TXD_IPV6 ? ETH_P_IPV6 : ETH_P_IP;
	struct refnic_pkt *pkt = &gso->pkt;
	u8 proto;

	if ((flags & REFNIC_TXD_TSO) && (flags & REFNIC_TXD_USO))
		return -EINVAL;
	proto = flags & REFNIC_TXD_TSO ? IPPROTO_TCP : IPPROTO_UDP;
	gso->mss = le16_to_cpu(desc->mss);
	if (!gso->mss || !hdr_len || hdr_len > REFNIC_MODEL_MAX_HDR ||
	    hdr_len >= len || len - hdr_len > REFNIC_MAX_TSO_SIZE)
		return -EINVAL;
	if (refnic_parse(frame, sg ? hdr_len : len, len, pkt) != hdr_len ||
	    pkt->l4_proto != proto ||
	    pkt->l3_proto != l3_proto)
		return -EINVAL;

	gso->frame = frame;
	gso->sg = sg;
	gso->len = len;
	gso->hdr = hdr;
	gso->off = hdr_len;
	gso->index = 0;
	gso->tcp_seq = 0;
	gso->ip_id = 0;
	gso->defer_csum = !!sg;
	gso->csum_pending = false;
	gso->fetched = false;
	if (proto == IPPROTO_TCP)
		gso->tcp_seq = get_unaligned_be32(frame + pkt->l4_off +
						  offsetof(struct tcphdr, seq));
	if (pkt->l3_proto == ETH_P_IP)
		gso->ip_id = get_unaligned_be16(frame + pkt->l3_off +
						offsetof(struct iphdr, id));
	return 0;
}

static void refnic_gso_fix_l3(struct refnic_gso *gso, u8 *h, u32 l4_len)
{
	const struct refnic_pkt *pkt = &gso->pkt;
	u32 l3_len = pkt->l4_off - pkt->l3_off;
	struct ipv6hdr *ip6;
	struct iphdr *iph;

	if (pkt->l3_proto == ETH_P_IP) {
		iph = (void *)(h + pkt->l3_off);
		put_unaligned(htons(l3_len + l4_len), &iph->tot_len);
		put_unaligned(htons(gso->ip_id + gso->index), &iph->id);
		put_unaligned(0, &iph->check);
		put_unaligned(csum_fold(csum_partial(iph, l3_len, 0)),
			      &iph->check);
	} else {
		ip6 = (void *)(h + pkt->l3_off);
		put_unaligned(htons(l3_len - sizeof(*ip6) + l4_len),
			      &ip6->payload_len);
	}
}

/* Fill in the L4 checksum of the segment headed by @h, from scratch over
 * its pseudo-header, so that whatever the driver left there does not matter.
 */
static void refnic_gso_l4_csum(const struct refnic_gso *gso, u8 *h,
			       __wsum payload_sum, u32 payload_len)
{
	const struct refnic_pkt *pkt = &gso->pkt;
	u32 l4_hdr_len = pkt->hdr_len - pkt->l4_off;
	__sum16 *check;
	__wsum sum;

	if (pkt->l4_proto == IPPROTO_TCP)
		check = &((struct tcphdr *)(h + pkt->l4_off))->check;
	else
		check = &((struct udphdr *)(h + pkt->l4_off))->check;
	put_unaligned(0, check);
	sum = csum_partial(h + pkt->l4_off, l4_hdr_len, 0);
	sum = csum_block_add(sum, payload_sum, l4_hdr_len);
	put_unaligned(refnic_l4_magic(h, pkt, l4_hdr_len + payload_len, sum) ?:
		      CSUM_MANGLED_0, check);
}

static void refnic_gso_fix_l4(struct refnic_gso *gso, u8 *h, u32 l4_len,
			      const u8 *payload, u32 payload_len, bool last)
{
	const struct refnic_pkt *pkt = &gso->pkt;
	struct tcphdr *th;
	struct udphdr *uh;

	if (pkt->l4_proto == IPPROTO_TCP) {
		th = (void *)(h + pkt->l4_off);
		put_unaligned_be32(gso->tcp_seq + (gso->off - pkt->hdr_len),
				   &th->seq);
		if (!last) {
			th->fin = 0;
			th->psh = 0;
		}
		if (gso->index)
			th->cwr = 0;
		/* A checksum only ever verified again is not computed until
		 * the segment's header bytes are to be used.
		 */
		gso->csum_pending = gso->defer_csum;
		if (gso->csum_pending)
			return;
	} else {
		uh = (void *)(h + pkt->l4_off);
		put_unaligned(htons(l4_len), &uh->len);
	}
	refnic_gso_l4_csum(gso, h, csum_partial(payload, payload_len, 0),
			   payload_len);
}

/**
 * refnic_frame_fetch - make a wire-fast-path segment whole in engine memory
 * @f: the frame
 *
 * A TSO segment on the wire fast path may still lack its TCP checksum and,
 * cut through, have its payload in the sender's buffers. Read that payload
 * once, to its place in the frame buffer, and sum what was read, as a NIC
 * sums the bytes it fetched: the checksum always matches the bytes that
 * go on, even if the sender's memory changes meanwhile.
 *
 * Return: where @f's payload is now.
 */
const u8 *refnic_frame_fetch(const struct refnic_frame *f)
{
	struct refnic_gso *gso = f->gso;
	u8 *payload;

	if (!gso)
		return f->data;
	payload = gso->frame + f->sg_off;
	if (gso->sg && !gso->fetched) {
		/* Every buffer was found readable before the frame was cut
		 * (refnic_dma_readable() checks what a read needs), so this
		 * cannot fail; if it did, zeros go on, never older bytes.
		 */
		WARN_ON_ONCE(refnic_sg_read(gso->sg, f->sg_off, payload,
					    f->data_len));
		gso->fetched = true;
	}
	if (gso->csum_pending) {
		gso->csum_pending = false;
		refnic_gso_l4_csum(gso, gso->hdr,
				   csum_partial(payload, f->data_len, 0),
				   f->data_len);
	}
	return payload;
}

/**
 * refnic_gso_next - build the next segment
 * @gso: segmentation state
 * @f: the segment: headers in @gso->hdr, payload in the frame
 *
 * @f stays valid until the next call.
 *
 * Return: false when all segments have been built.
 */
bool refnic_gso_next(struct refnic_gso *gso, struct refnic_frame *f)
{
	u32 hdr_len = gso->pkt.hdr_len;
	const u8 *payload = gso->sg ? NULL : gso->frame + gso->off;
	u32 payload_len, l4_len;
	bool last;

	if (gso->off >= gso->len)
		return false;
	payload_len = min(gso->mss, gso->len - gso->off);
	last = gso->off + payload_len == gso->len;
	l4_len = hdr_len - gso->pkt.l4_off + payload_len;

	memcpy(gso->hdr, gso->frame, hdr_len);
	refnic_gso_fix_l3(gso, gso->hdr, l4_len);
	refnic_gso_fix_l4(gso, gso->hdr, l4_len, payload, payload_len, last);

	f->head = gso->hdr;
	f->head_len = hdr_len;
	f->data = payload;
	f->data_len = payload_len;
	f->sg = gso->sg;
	f->sg_off = gso->off;
	f->len = hdr_len + payload_len;
	f->pad = f->len < ETH_ZLEN ? ETH_ZLEN - f->len : 0;
	f->len += f->pad;
	f->csum_valid = true;
	f->gso = gso->csum_pending ? gso : NULL;
	gso->fetched = false;

	gso->off += payload_len;
	gso->index++;
	return true;
}
