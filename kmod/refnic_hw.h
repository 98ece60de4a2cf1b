/* SPDX-License-Identifier: GPL-2.0 */
/* Copyright (c) 2026 The refnic authors
 *
 * The refnic "datasheet": register map and DMA descriptor formats. This is
 * the whole contract between the driver and the device model (model/); the
 * driver includes no other model header. Everything here is what a real
 * NIC's programming manual would give: offsets, bit fields and the layout of
 * memory the device reads and writes. All multi-byte fields in DMA memory
 * are little endian.
 *
 * Queues come in pairs: queue pair N has TX queue N, RX queue N (with its
 * completion queue) and interrupt vector N. Vector REFNIC_MAX_QUEUES is the
 * device ("misc") vector: link changes and errors.
 */

#ifndef _REFNIC_HW_H_
#define _REFNIC_HW_H_

#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/types.h>

#define REFNIC_DEV_ID			0x52464e43	/* "RFNC" */
#define REFNIC_DEV_REVISION		1

#define REFNIC_MAX_QUEUES		16
#define REFNIC_NUM_VECTORS		(REFNIC_MAX_QUEUES + 1)
#define REFNIC_MISC_VECTOR		REFNIC_MAX_QUEUES

#define REFNIC_MIN_RING_SIZE		64
#define REFNIC_MAX_RING_SIZE		4096

#define REFNIC_RSS_KEY_SIZE		40
#define REFNIC_RSS_TABLE_SIZE		128

/* Largest frame the MAC accepts, without FCS. */
#define REFNIC_MAX_FRAME		(9216 + 18)
/* Largest TSO/USO payload one TX descriptor chain may carry. */
#define REFNIC_MAX_TSO_SIZE		65536
/* Longest L2+L3+L4 header of a TSO/USO frame; longer ones are dropped. */
#define REFNIC_MAX_TSO_HDR		256

/* ---- Device registers (BAR 0), 32 bits wide ---------------------------- */

#define REFNIC_REG_ID			0x0000	/* RO: REFNIC_DEV_ID */
#define REFNIC_REG_REVISION		0x0004	/* RO */
#define REFNIC_REG_CAPS			0x0008	/* RO: REFNIC_CAP_* */
#define  REFNIC_CAP_MAX_QUEUES		GENMASK(7, 0)
#define  REFNIC_CAP_HDR_SPLIT		BIT(8)
#define  REFNIC_CAP_TSO			BIT(9)
#define  REFNIC_CAP_USO			BIT(10)
#define  REFNIC_CAP_RX_CSUM		BIT(11)
#define  REFNIC_CAP_TX_CSUM		BIT(12)
#define  REFNIC_CAP_RSS			BIT(13)
#define  REFNIC_CAP_HW_GRO		BIT(14)
#define  REFNIC_CAP_FLOW_STEER		BIT(15)	/* flow steering table */
#define  REFNIC_CAP_RSS_FIELDS		BIT(16)	/* RSS_FIELDS, symmetric-xor */
#define  REFNIC_CAP_RSS_CTX		BIT(17)	/* RSS contexts, flow action RSS */

#define REFNIC_REG_CTRL			0x0010	/* RW */
#define  REFNIC_CTRL_RESET		BIT(0)	/* self-clearing */
#define  REFNIC_CTRL_ENABLE		BIT(1)	/* MAC TX and RX on */

#define REFNIC_REG_STATUS		0x0014	/* RO */
#define  REFNIC_STATUS_LINK_UP		BIT(0)
#define  REFNIC_STATUS_RESET_DONE	BIT(1)

#define REFNIC_REG_MAC_LO		0x0018	/* RW: bytes 0-3 of the address */
#define REFNIC_REG_MAC_HI		0x001c	/* RW: bytes 4-5 in bits 15:0 */
#define REFNIC_REG_MAX_FRAME		0x0020	/* RW: MTU + L2 header */

/* RX offload controls. */
#define REFNIC_REG_RX_CTRL		0x0024	/* RW */
#define  REFNIC_RX_CTRL_CSUM		BIT(0)	/* verify L4 checksums */
#define  REFNIC_RX_CTRL_RSS		BIT(1)	/* hash and spread flows */
#define  REFNIC_RX_CTRL_HW_GRO		BIT(2)	/* coalesce TCP segments */
#define  REFNIC_RX_CTRL_PROMISC		BIT(3)
/* Hardware GRO rules that differ between Linux versions (see below). */
#define  REFNIC_RX_CTRL_GRO_CWR		BIT(4)	/* CWR segments join runs */
#define  REFNIC_RX_CTRL_GRO_FIXEDID_NODF	BIT(5)	/* fixed IDs without DF */

/* Number of RX queues RSS may select (the indirection table is masked
 * against nothing: entries >= this value drop the frame and count it).
 */
#define REFNIC_REG_RSS_QUEUES		0x0028	/* RW */

/* Misc vector cause, written to host memory too (REFNIC_REG_MISC_CAUSE_ADDR)
 * so the driver need not read it here.
 */
#define REFNIC_REG_MISC_CAUSE		0x002c	/* RO, clear on read */
#define  REFNIC_MISC_LINK		BIT(0)
#define  REFNIC_MISC_ERROR		BIT(1)
/* Where the device writes MISC_CAUSE (le32, the causes pending so far) each
 * time it raises the misc vector; 0 (the reset value) writes nothing.
 */
#define REFNIC_REG_MISC_CAUSE_ADDR_LO	0x0030	/* RW */
#define REFNIC_REG_MISC_CAUSE_ADDR_HI	0x0034	/* RW */

/* Hardware GRO timers. RX_GRO_IDLE: every context of a queue closes (its
 * aggregate is written to the ring) once no frame has arrived at the queue
 * for this many microseconds. RX_GRO_TIMEOUT: a context still open this
 * many microseconds after its first segment arrived closes, however busy
 * the queue. Both 0: every context closes at the end of each burst the port
 * receives. Values above REFNIC_GRO_TIMEOUT_MAX read back as that.
 */
#define REFNIC_REG_RX_GRO_TIMEOUT	0x0038	/* RW, microseconds */
#define  REFNIC_GRO_TIMEOUT_RESET	500
#define REFNIC_REG_RX_GRO_IDLE		0x003c	/* RW, microseconds */
#define  REFNIC_GRO_IDLE_RESET		50
#define  REFNIC_GRO_TIMEOUT_MAX		1000000

/* RSS hash input: one register per flow type, REFNIC_RSS_FT_*, selecting
 * the fields the Toeplitz hash (RX_CTRL.RSS) covers. A frame's flow type:
 * TCP or UDP over IPv4 or IPv6 whose L4 header the device parsed (not an
 * IP fragment) is TCP4, UDP4, TCP6 or UDP6; any other IPv4 or IPv6 frame
 * (another protocol, a fragment, an L4 header cut short) is IP4 or IP6.
 * Frames that are not IP are not hashed.
 *
 * The hash runs over the selected fields, concatenated in wire order:
 * source address, destination address, L4 bytes 0-1 (the TCP/UDP source
 * port), L4 bytes 2-3 (the destination port). All four is the RSS
 * specification's 4-tuple hash, the two addresses its 2-tuple hash. The
 * L4 bits of IP4 and IP6 are reserved: they read 0, writes are ignored.
 *
 * SYM_XOR makes the hash the same in both directions of a flow: a pair of
 * fields selected together (the two addresses, the two ports) is fed as
 * their XOR, twice, in the pair's two places. A field selected without its
 * partner is fed as it is.
 *
 * A frame whose flow type selects no field is not hashed: its completion
 * has RSS_VALID clear and it goes to the queue of indirection table entry
 * 0, as a hash of 0 would (unless a flow rule sends it elsewhere).
 *
 * Reset: TCP4, UDP4, TCP6 and UDP6 select all four fields, IP4 and IP6
 * the two addresses; SYM_XOR is clear.
 */
#define REFNIC_RSS_FT_TCP4		0
#define REFNIC_RSS_FT_UDP4		1
#define REFNIC_RSS_FT_IP4		2
#define REFNIC_RSS_FT_TCP6		3
#define REFNIC_RSS_FT_UDP6		4
#define REFNIC_RSS_FT_IP6		5
#define REFNIC_RSS_NUM_FT		6

#define REFNIC_REG_RSS_FIELDS(t)	(0x0040 + (t) * 4)	/* RW */
#define  REFNIC_RSS_IP_SRC		BIT(0)
#define  REFNIC_RSS_IP_DST		BIT(1)
#define  REFNIC_RSS_L4_SRC		BIT(2)	/* L4 bytes 0-1 */
#define  REFNIC_RSS_L4_DST		BIT(3)	/* L4 bytes 2-3 */
#define  REFNIC_RSS_SYM_XOR		BIT(8)
#define  REFNIC_RSS_IP_FIELDS		(REFNIC_RSS_IP_SRC | REFNIC_RSS_IP_DST)
#define  REFNIC_RSS_L4_FIELDS		(REFNIC_RSS_L4_SRC | REFNIC_RSS_L4_DST)

#define REFNIC_REG_RSS_KEY(i)		(0x0100 + (i) * 4)	/* 10 words */
/* Indirection table: 4 one-byte entries per word, entry 4i in bits 7:0. */
#define REFNIC_REG_RSS_TABLE(i)		(0x0200 + (i) * 4)	/* 32 words */

/* RSS contexts: REFNIC_NUM_RSS_CTX indirection tables. Context 0 is
 * RSS_TABLE; contexts 1 to REFNIC_NUM_RSS_CTX - 1 have a table each at
 * RSS_CTX_TABLE(c, 0), in RSS_TABLE's layout (block 0 is reserved: reads
 * 0, ignores writes). Only a flow rule with action RSS leads a frame to a
 * context (see Flow steering); a frame no rule matches uses RSS_TABLE.
 * Every context hashes with the port's key and RSS_FIELDS. Reset clears
 * every table.
 */
#define REFNIC_NUM_RSS_CTX		16
#define REFNIC_REG_RSS_CTX_BASE		0x6000
#define REFNIC_REG_RSS_CTX_STRIDE	0x80
#define REFNIC_REG_RSS_CTX_TABLE(c, i)	(REFNIC_REG_RSS_CTX_BASE + \
					 (c) * REFNIC_REG_RSS_CTX_STRIDE + \
					 (i) * 4)
#define REFNIC_REG_RSS_CTX_END		REFNIC_REG_RSS_CTX_TABLE(REFNIC_NUM_RSS_CTX, 0)

/* ---- Interrupt vectors ---------------------------------------------------
 * A vector masks itself when it fires (MSI-X auto-mask); the driver unmasks
 * it by writing REFNIC_REG_INTR_UNMASK once its NAPI poll completes, which
 * costs one posted write and no read. Moderation: the vector fires when
 * REFNIC_ITR_FRAMES completions are pending, or REFNIC_ITR_USECS after the
 * first pending one, whichever comes first (0 disables that trigger; both 0
 * fires on every completion).
 */
#define REFNIC_REG_VEC_BASE		0x1000
#define REFNIC_REG_VEC_STRIDE		0x10
#define REFNIC_REG_VEC(v, r)		(REFNIC_REG_VEC_BASE + \
					 (v) * REFNIC_REG_VEC_STRIDE + (r))
#define REFNIC_REG_INTR_MASK(v)		REFNIC_REG_VEC(v, 0x0)	/* WO: mask */
#define REFNIC_REG_INTR_UNMASK(v)	REFNIC_REG_VEC(v, 0x4)	/* WO: unmask */
#define REFNIC_REG_INTR_ITR(v)		REFNIC_REG_VEC(v, 0x8)	/* RW */
#define  REFNIC_ITR_USECS		GENMASK(15, 0)
#define  REFNIC_ITR_FRAMES		GENMASK(31, 16)
#define REFNIC_REG_INTR_STATUS(v)	REFNIC_REG_VEC(v, 0xc)	/* RO */
#define  REFNIC_INTR_MASKED		BIT(0)
#define  REFNIC_INTR_PENDING		BIT(1)

/* ---- Queues ---------------------------------------------------------------
 * Programming a queue: write its ring base, size and vector while it is
 * disabled, then set ENABLE. Clearing ENABLE stops the engine on the queue;
 * the queue is quiescent (no DMA in flight) when its STATUS reads STOPPED.
 * Head registers are for reset and debugging only: the hot path learns
 * progress from completions in host memory.
 */
#define REFNIC_REG_Q_BASE		0x2000
#define REFNIC_REG_Q_STRIDE		0x80
#define REFNIC_REG_Q(q, r)		(REFNIC_REG_Q_BASE + \
					 (q) * REFNIC_REG_Q_STRIDE + (r))

/* TX queue: a ring of struct refnic_tx_desc. */
#define REFNIC_REG_TXQ_BASE_LO(q)	REFNIC_REG_Q(q, 0x00)
#define REFNIC_REG_TXQ_BASE_HI(q)	REFNIC_REG_Q(q, 0x04)
#define REFNIC_REG_TXQ_SIZE(q)		REFNIC_REG_Q(q, 0x08)	/* entries, 2^n */
#define REFNIC_REG_TXQ_TAIL(q)		REFNIC_REG_Q(q, 0x0c)	/* doorbell */
#define REFNIC_REG_TXQ_HEAD(q)		REFNIC_REG_Q(q, 0x10)	/* RO */
#define REFNIC_REG_TXQ_CTRL(q)		REFNIC_REG_Q(q, 0x14)
#define REFNIC_REG_TXQ_STATUS(q)	REFNIC_REG_Q(q, 0x18)	/* RO */

/* RX queue: a ring of struct refnic_rx_desc the driver posts buffers on,
 * and a completion ring of struct refnic_rx_cmpl the device writes.
 */
#define REFNIC_REG_RXQ_BASE_LO(q)	REFNIC_REG_Q(q, 0x20)
#define REFNIC_REG_RXQ_BASE_HI(q)	REFNIC_REG_Q(q, 0x24)
#define REFNIC_REG_RXQ_SIZE(q)		REFNIC_REG_Q(q, 0x28)	/* entries, 2^n */
#define REFNIC_REG_RXQ_TAIL(q)		REFNIC_REG_Q(q, 0x2c)	/* doorbell */
#define REFNIC_REG_RXQ_HEAD(q)		REFNIC_REG_Q(q, 0x30)	/* RO */
#define REFNIC_REG_RXQ_CTRL(q)		REFNIC_REG_Q(q, 0x34)
#define REFNIC_REG_RXQ_STATUS(q)	REFNIC_REG_Q(q, 0x38)	/* RO */
#define REFNIC_REG_RXQ_BUF_LEN(q)	REFNIC_REG_Q(q, 0x3c)	/* payload buffer */
/* The largest payload buffer the device takes: a queue enabled with a
 * larger (or zero) RXQ_BUF_LEN halts with STATUS.ERROR set.
 */
#define REFNIC_RXQ_BUF_LEN_MAX		65536
#define REFNIC_REG_RXQ_HDR_LEN(q)	REFNIC_REG_Q(q, 0x40)	/* header buffer */
#define REFNIC_REG_RXCQ_BASE_LO(q)	REFNIC_REG_Q(q, 0x44)
#define REFNIC_REG_RXCQ_BASE_HI(q)	REFNIC_REG_Q(q, 0x48)
#define REFNIC_REG_RXCQ_SIZE(q)		REFNIC_REG_Q(q, 0x4c)	/* entries, 2^n */
/* Completions the driver has consumed (free-running index): the device
 * never overwrites an unconsumed completion.
 */
#define REFNIC_REG_RXCQ_HEAD(q)		REFNIC_REG_Q(q, 0x50)	/* doorbell */

/* TXQ_CTRL and RXQ_CTRL */
#define  REFNIC_Q_CTRL_ENABLE		BIT(0)
#define  REFNIC_Q_CTRL_VECTOR		GENMASK(15, 8)
#define  REFNIC_Q_CTRL_HDR_SPLIT	BIT(16)	/* RX only */
/* TXQ_STATUS and RXQ_STATUS */
#define  REFNIC_Q_STATUS_STOPPED	BIT(0)
#define  REFNIC_Q_STATUS_ERROR		BIT(1)	/* bad descriptor: queue halted */

/* Queue indices (TAIL, HEAD, RXCQ_HEAD) are free-running 32-bit counts; the
 * slot is the index modulo the ring size. Setting ENABLE restarts HEAD (and
 * the completion producer, whose phase starts at 1) at 0; clearing it zeroes
 * TAIL and RXCQ_HEAD, so buffers may be posted before or after enabling.
 */

/* ---- Counters (RO, 32-bit, wrap) -----------------------------------------
 * The model's own counters, as hardware MIB registers. The driver reads them
 * only off the hot path (ethtool -S, stats refresh).
 */
#define REFNIC_REG_CNT_BASE		0x3000
/* Frames dropped for want of posted buffers, and because the queue's
 * completion ring was full; a hardware GRO aggregate counts its segments.
 */
#define REFNIC_REG_CNT_RX_NOBUF(q)	(REFNIC_REG_CNT_BASE + (q) * 4)
#define REFNIC_REG_CNT_RX_CQ_FULL(q)	(REFNIC_REG_CNT_BASE + 0x40 + (q) * 4)
/* Frames that arrived at an RX queue: sent to it by RSS or a flow rule while
 * it was enabled and not halted, whatever became of them (written with a
 * completion, dropped for want of buffers or completion entries, held in a
 * hardware GRO context, lost); a GRO aggregate's segments count each as it
 * arrives. Set beside the completions a driver receives, it tells a queue
 * that gets no traffic from one that gets traffic and completes none.
 */
#define REFNIC_REG_CNT_RX_FRAMES(q)	(REFNIC_REG_CNT_BASE + 0xc0 + (q) * 4)
/* Per port. */
#define REFNIC_REG_CNT_RX_OVERSIZE	0x3080	/* longer than MAX_FRAME */
#define REFNIC_REG_CNT_RX_FILTERED	0x3084	/* unicast to another MAC */
#define REFNIC_REG_CNT_RX_BAD_QUEUE	0x3088	/* queue >= RSS_QUEUES or off */
#define REFNIC_REG_CNT_RX_MAC_OFF	0x308c	/* arrived with CTRL.ENABLE clear */
#define REFNIC_REG_CNT_TX_LINK_DOWN	0x3090	/* sent with the link down */
#define REFNIC_REG_CNT_TX_ERRORS	0x3094	/* bad length or offload request */
#define REFNIC_REG_CNT_RX_STEERED	0x3098	/* sent to a queue by a flow rule */
#define REFNIC_REG_CNT_RX_STEER_DROP	0x309c	/* dropped by a flow rule */

/* ---- Flow steering ---------------------------------------------------------
 * REFNIC_NUM_FLOW_RULES rules, each a block of registers. A received frame
 * is matched against the valid rules in index order before RSS; the first
 * rule it matches decides: deliver to the rule's queue, or drop. A frame no
 * rule matches goes on to RSS (or queue 0) as usual. Only TCP and UDP over
 * IPv4 or IPv6 that is not an IP fragment can match (the device must see
 * the ports); anything else goes straight to RSS.
 *
 * A frame matches a rule when the rule's FLOW_TYPE names its L3/L4 protocol
 * and, for every field, the frame's value equals the rule's in every bit
 * set in the field's mask (bits clear in the mask are ignored, a zero mask
 * matches anything). Addresses are four words each: bytes 4i to 4i + 3 of
 * the address, in wire order, in word i, byte 4i in bits 7:0 (as MAC_LO).
 * An IPv4 address is word 0; words 1-3 are ignored for IPv4 rules. Ports
 * are numbers (host order): source port in bits 15:0, destination port in
 * bits 31:16 of FLOW_PORTS and FLOW_PORTS_MASK.
 *
 * Programming: write a rule's fields, then its FLOW_CTRL with VALID. The
 * engine matches a copy of the fields latched by the FLOW_CTRL write, never
 * the registers themselves, so that no frame sees a half-written rule: the
 * fields may be rewritten while the rule is valid, and the next FLOW_CTRL
 * write with VALID replaces the rule in one step. FLOW_CTRL without VALID
 * removes the rule. Each FLOW_CTRL write restarts the rule's FLOW_HITS at 0.
 *
 * Action: DROP drops the frame and counts it (CNT_RX_STEER_DROP). RSS
 * (with REFNIC_CAP_RSS_CTX) hashes the frame as RSS would (hash 0 with
 * RX_CTRL.RSS clear) and sends it to QUEUE plus the entry the hash picks
 * in context CTX's table (context 0: RSS_TABLE); QUEUE is an offset then.
 * Otherwise the frame goes to RX queue QUEUE. Both count in
 * CNT_RX_STEERED. A queue at or above RSS_QUEUES, or a CTX at or above
 * REFNIC_NUM_RSS_CTX, drops the frame and counts it in CNT_RX_BAD_QUEUE
 * instead, as an RSS table entry would. FLOW_HITS counts every frame the
 * rule matched.
 *
 * Reset (CTRL.RESET) clears every rule, valid or not, and every FLOW_HITS.
 */
#define REFNIC_NUM_FLOW_RULES		64
#define REFNIC_FLOW_IP_WORDS		4

#define REFNIC_REG_FLOW_BASE		0x4000
#define REFNIC_REG_FLOW_STRIDE		0x80
#define REFNIC_REG_FLOW(n, r)		(REFNIC_REG_FLOW_BASE + \
					 (n) * REFNIC_REG_FLOW_STRIDE + (r))
#define REFNIC_REG_FLOW_END		REFNIC_REG_FLOW(REFNIC_NUM_FLOW_RULES, 0)

#define REFNIC_REG_FLOW_CTRL(n)		REFNIC_REG_FLOW(n, 0x00)	/* RW */
#define  REFNIC_FLOW_CTRL_VALID		BIT(0)
#define REFNIC_REG_FLOW_TYPE(n)		REFNIC_REG_FLOW(n, 0x04)	/* RW */
#define  REFNIC_FLOW_TYPE_TCP4		1
#define  REFNIC_FLOW_TYPE_UDP4		2
#define  REFNIC_FLOW_TYPE_TCP6		3
#define  REFNIC_FLOW_TYPE_UDP6		4	/* others never match */
#define REFNIC_REG_FLOW_ACTION(n)	REFNIC_REG_FLOW(n, 0x08)	/* RW */
#define  REFNIC_FLOW_ACTION_QUEUE	GENMASK(15, 0)
#define  REFNIC_FLOW_ACTION_CTX		GENMASK(23, 16)	/* with RSS */
#define  REFNIC_FLOW_ACTION_RSS		BIT(30)
#define  REFNIC_FLOW_ACTION_DROP	BIT(31)
/* Frames the rule matched since its FLOW_CTRL was last written (32 bits,
 * wraps). A frame in flight while FLOW_CTRL is written may count against
 * the old rule or the new one.
 */
#define REFNIC_REG_FLOW_HITS(n)		REFNIC_REG_FLOW(n, 0x0c)	/* RO */
#define REFNIC_REG_FLOW_PORTS(n)	REFNIC_REG_FLOW(n, 0x10)	/* RW */
#define REFNIC_REG_FLOW_PORTS_MASK(n)	REFNIC_REG_FLOW(n, 0x14)	/* RW */
#define  REFNIC_FLOW_SRC_PORT		GENMASK(15, 0)
#define  REFNIC_FLOW_DST_PORT		GENMASK(31, 16)
#define REFNIC_REG_FLOW_SRC_IP(n, i)	REFNIC_REG_FLOW(n, 0x20 + (i) * 4)
#define REFNIC_REG_FLOW_SRC_MASK(n, i)	REFNIC_REG_FLOW(n, 0x30 + (i) * 4)
#define REFNIC_REG_FLOW_DST_IP(n, i)	REFNIC_REG_FLOW(n, 0x40 + (i) * 4)
#define REFNIC_REG_FLOW_DST_MASK(n, i)	REFNIC_REG_FLOW(n, 0x50 + (i) * 4)

#define REFNIC_BAR_SIZE			0x8000

/* ---- DMA memory layouts -------------------------------------------------- */

/* TX descriptor, 32 bytes. A frame is one or more descriptors, the last with
 * EOP. The offload fields are taken from the first descriptor of a frame.
 * The device writes DONE into @status of the frame's last descriptor once
 * it has read the whole frame (the driver may then unmap and free it).
 */
struct refnic_tx_desc {
	__le64 addr;
	__le32 len;
	__le16 flags;
	__le16 mss;		/* TSO/USO segment payload size */
	__le16 csum_start;	/* from the frame start */
	__le16 csum_offset;	/* from csum_start */
	__le16 hdr_len;		/* TSO/USO: L2+L3+L4 header length */
	__le16 status;
	__le64 reserved;
};

#define REFNIC_TXD_EOP			BIT(0)
#define REFNIC_TXD_CSUM			BIT(1)	/* insert L4 checksum */
#define REFNIC_TXD_TSO			BIT(2)	/* segment TCP by mss */
#define REFNIC_TXD_USO			BIT(3)	/* segment UDP by mss */
#define REFNIC_TXD_IPV6			BIT(4)	/* TSO/USO: L3 is IPv6 */

#define REFNIC_TXD_STATUS_DONE		BIT(0)

/* Most descriptors one TX frame may use; a longer chain halts the queue. */
#define REFNIC_MAX_TX_DESC_PER_FRAME	64

/* RX descriptor, 16 bytes: one header buffer and one payload buffer.
 *
 * Header split (RXQ_CTRL.HDR_SPLIT set when the queue is enabled, with a
 * non-zero RXQ_HDR_LEN): the device parses Ethernet (up to two VLAN tags),
 * IPv4 or IPv6 (with hop-by-hop, routing, destination and AH extension
 * headers) and TCP or UDP, writes every header byte up to the L4 payload
 * into the frame's first descriptor's header buffer and the payload into
 * the payload buffers, the first one included. A frame without payload
 * (a bare TCP ACK) still takes one descriptor, its payload buffer unused.
 * A frame the device cannot split (see REFNIC_SPLIT_*) goes whole into the
 * payload buffers with hdr_len 0. Header buffers of a frame's later
 * descriptors are never written: a driver may keep every unwritten buffer
 * where it is and post it again.
 *
 * With header split off, @hdr_addr is not read and may be 0.
 */
struct refnic_rx_desc {
	__le64 hdr_addr;
	__le64 buf_addr;
};

/**
 * struct refnic_rx_cmpl - RX completion, 32 bytes
 * @flags: REFNIC_RXC_*, the current phase in REFNIC_RXC_PHASE
 * @rss_hash: RSS hash (REFNIC_RXC_RSS_VALID)
 * @pay_len: bytes in the payload buffers
 * @hdr_len: bytes in the header buffer (split frames)
 * @nbufs: RX descriptors consumed
 * @seg_count: TCP segments coalesced (1 if none)
 * @gso_size: coalesced segment payload size
 * @queue: RX queue, as chosen by RSS or steering
 * @split_status: REFNIC_SPLIT_*
 * @buf_index: RX ring index of the first descriptor
 * @l3_off: coalesced runs (@seg_count > 1) only, else 0: offset from the
 *	frame's first byte of the IP header TCP is carried in (the inner
 *	one of IP-in-IP)
 * @l4_off: coalesced runs only, else 0: offset of the TCP header
 *
 * One completion per received frame (or, with hardware GRO, per coalesced
 * run of TCP segments). The frame used @nbufs consecutive RX descriptors:
 * header in the first one's header buffer, payload filling each payload
 * buffer in turn. The device writes the entry with the current phase in
 * REFNIC_RXC_PHASE; the phase flips each time the completion ring wraps,
 * so the driver needs no MMIO read to find new work. @buf_index is the
 * free-running index (as RXQ_TAIL counts) of the frame's first RX
 * descriptor: completions come in ring order, so it equals the driver's
 * own count of descriptors consumed, unless the device used descriptors
 * for frames it wrote no completion for.
 */
struct refnic_rx_cmpl {
	__le32 flags;
	__le32 rss_hash;
	__le32 pay_len;
	__le16 hdr_len;
	__le16 nbufs;
	__le16 seg_count;
	__le16 gso_size;
	__le16 queue;
	__le16 split_status;
	__le32 buf_index;
	__le16 l3_off;
	__le16 l4_off;
};

static_assert(sizeof(struct refnic_rx_cmpl) == 32);

/* Hardware GRO (RX_CTRL.HW_GRO): in-order TCP segments of one flow that
 * arrive at a queue (untagged; TCP over IPv4, or over IPv6 with
 * hop-by-hop, routing or destination options headers, or either of them
 * tunnelled in IPv4 or IPv6, IP-in-IP; checksum verified, merged by Linux's
 * GRO rules) share one completion. The first segment's headers go where a
 * single frame's would (the header buffer with header split, else the start
 * of the payload buffers), with the IP total or payload length of the whole
 * run in every IP header (outer and inner) and fresh IPv4 header checksums;
 * the segments' payloads follow one another in the payload buffers, each
 * buffer filled before the next. @seg_count is the number of segments,
 * @gso_size the payload of each but the last, @l3_off and @l4_off where the
 * (inner) IP and the TCP header are. Flags: IPV4/IPV6 name the outer IP
 * header, TCP and L4_CSUM_OK the (inner) TCP segment; TUNNEL says the frame
 * is IP-in-IP, INNER_IPV6 that its inner header is IPv6 (else IPv4). The
 * TCP checksum field is left as the first segment had it.
 * The device keeps REFNIC_GRO_CONTEXTS aggregation contexts per queue, one
 * per flow, and holds their data in its own packet buffer
 * (REFNIC_GRO_BUFFER bytes per queue) until the context closes; only then
 * does it take descriptors and a completion, so completions stay in ring
 * order. Frames of other flows (and anything that is not TCP) are
 * delivered meanwhile; a frame of a flow with an open context that cannot
 * join closes that context first. A context closes at a short or PSH
 * segment, 64 KiB, 16 descriptors, when the queue has been quiet for
 * RX_GRO_IDLE, RX_GRO_TIMEOUT after its first segment, when the table or
 * the buffer is full (the oldest first), or when RX_CTRL.HW_GRO is
 * cleared; it is lost when the queue is disabled or the port reset.
 * A run's IPv4 IDs either count up by one a segment or are all the first
 * segment's (fixed), decided for each IPv4 header by the second segment;
 * IPID_FIXED says the outer (or only) header's were fixed, IPID_FIXED_INNER
 * the inner IPv4 header's of IP-in-IP.
 * Two RX_CTRL bits pick between rules Linux changed:
 *  - GRO_CWR: a segment with CWR joins a run whose first segment had CWR
 *    too (CWR must match, as TCP flags must). Clear: a segment with CWR
 *    joins no run (only a run's first segment may have it).
 *  - GRO_FIXEDID_NODF: any IPv4 header's IDs may be fixed. Clear: fixed
 *    IDs only when every IPv4 header of the run has DF set, else they
 *    must count up.
 */
#define REFNIC_GRO_CONTEXTS		1024
#define REFNIC_GRO_BUFFER		(512 * 1024)

#define REFNIC_RXC_PHASE		BIT(31)
#define REFNIC_RXC_RSS_VALID		BIT(0)
#define REFNIC_RXC_L4_CSUM_OK		BIT(1)	/* verified good */
#define REFNIC_RXC_L4_CSUM_BAD		BIT(2)	/* verified bad */
#define REFNIC_RXC_HASH_L4		BIT(3)	/* hash covered the 4-tuple */
#define REFNIC_RXC_IPV4			BIT(4)
#define REFNIC_RXC_IPV6			BIT(5)
#define REFNIC_RXC_TCP			BIT(6)
#define REFNIC_RXC_UDP			BIT(7)
#define REFNIC_RXC_TRUNCATED		BIT(8)	/* frame larger than buffers */
#define REFNIC_RXC_TUNNEL		BIT(9)	/* coalesced IP-in-IP run */
#define REFNIC_RXC_INNER_IPV6		BIT(10)	/* its inner header is IPv6 */
#define REFNIC_RXC_IPID_FIXED		BIT(11)	/* outer IPv4 IDs fixed */
#define REFNIC_RXC_IPID_FIXED_INNER	BIT(12)	/* inner IPv4 IDs fixed */

/* Why a frame was or was not split (header split on). */
#define REFNIC_SPLIT_DISABLED		0	/* header split off */
#define REFNIC_SPLIT_DONE		1	/* headers and payload split */
#define REFNIC_SPLIT_NO_L3		2	/* not IPv4/IPv6 */
#define REFNIC_SPLIT_NO_L4		3	/* not TCP/UDP, or fragment */
#define REFNIC_SPLIT_HDR_TOO_BIG	4	/* headers exceed the hdr buffer */

#endif /* _REFNIC_HW_H_ */
