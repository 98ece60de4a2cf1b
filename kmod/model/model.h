/* SPDX-License-Identifier: GPL-2.0 */
/* Copyright (c) 2026 The refnic authors
 *
 * Private state of the refnic device model: the "hardware" behind the bus.
 * Nothing outside model/ includes this file; the driver sees only
 * refnic_bus.h and refnic_hw.h, the control plane refnic_model.h.
 *
 * Contexts. MMIO (refnic_bus_rd32/wr32) may come from any context, hard IRQ
 * included, and never sleeps or waits for the engine: like a posted PCIe
 * write, a register write only records state and kicks work. The engine
 * runs in process context, one work item per TX queue on refnic_engine_wq;
 * it reads the TX ring, applies offloads and delivers each frame straight
 * into the peer port's RX rings. Interrupts are real Linux interrupts of a
 * per-port irq_domain, raised in hard IRQ context on a CPU of the vector's
 * affinity.
 */

#ifndef _REFNIC_MODEL_PRIV_H_
#define _REFNIC_MODEL_PRIV_H_

#include <linux/atomic.h>
#include <linux/cache.h>
#include <linux/hrtimer.h>
#include <linux/if_ether.h>
#include <linux/if_vlan.h>
#include <linux/irq_work.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/seqlock.h>
#include <linux/smp.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include "../refnic_bus.h"
#include "../refnic_kcompat.h"
#include "../refnic_hw.h"
#include "refnic_model.h"

struct dentry;
struct device;
struct fwnode_handle;
struct irq_domain;
struct mem_cgroup;
struct platform_device;

/* Name of the ports' platform devices: "refnic.<2 * card + port>". */
#define REFNIC_MODEL_DEV_NAME		"refnic"

/* The module's debugfs directory, made by the module entry point before
 * refnic_bus_init(); NULL or an error pointer without debugfs. The one
 * module-wide object the model shares with the driver's side of the module.
 */
extern struct dentry *refnic_debugfs_root;

/* Engine work per run of a TX queue before it yields the CPU. */
#define REFNIC_TX_BUDGET_FRAMES		64
#define REFNIC_TX_BUDGET_BYTES		(256 * 1024)

/* Longest L2+L3+L4 header TSO/USO accepts (datasheet). */
#define REFNIC_MODEL_MAX_HDR		REFNIC_MAX_TSO_HDR
/* A TX frame is read whole into a buffer this large. */
#define REFNIC_TX_BUF_SIZE		(REFNIC_MODEL_MAX_HDR + REFNIC_MAX_TSO_SIZE)
/* Frame data starts this far into the buffer, so that the IP header of an
 * untagged frame is 4-byte aligned.
 */
#define REFNIC_TX_BUF_ALIGN		2
/* A port's TX buffers are one allocation, a queue's this far apart. */
#define REFNIC_TX_BUF_STRIDE		ALIGN(REFNIC_TX_BUF_ALIGN + \
					      REFNIC_TX_BUF_SIZE, \
					      SMP_CACHE_BYTES)

/* Register values after reset. */
#define REFNIC_RESET_MAX_FRAME		(ETH_FRAME_LEN + VLAN_HLEN)
#define REFNIC_CAPS			(REFNIC_MAX_QUEUES | REFNIC_CAP_TSO | \
					 REFNIC_CAP_USO | REFNIC_CAP_RX_CSUM | \
					 REFNIC_CAP_TX_CSUM | REFNIC_CAP_RSS | \
					 REFNIC_CAP_HDR_SPLIT | \
					 REFNIC_CAP_FLOW_STEER | REFNIC_CAP_HW_GRO | \
					 REFNIC_CAP_RSS_FIELDS | REFNIC_CAP_RSS_CTX)

/**
 * struct refnic_tx_sg - a TSO frame's buffers, left in host memory
 * @port: the sending port, whose engine reads them
 * @n: buffers
 * @addr: each one's DMA address
 * @len: its length
 *
 * The wire fast path's cut-through (tx.c): a segment's payload is read
 * from here straight to where it goes on the receiving side.
 */
struct refnic_tx_sg {
	struct refnic_model_port *port;
	u32 n;
	u64 addr[REFNIC_MAX_TX_DESC_PER_FRAME];
	u32 len[REFNIC_MAX_TX_DESC_PER_FRAME];
};

/**
 * struct refnic_frame - a frame on the wire between the two ports
 * @head: first bytes: the whole frame, or a TSO/USO segment's headers
 * @head_len: bytes at @head
 * @data: the rest (a segment's payload, in the sender's frame buffer), or
 *	NULL when it is still in host memory: in @sg from @sg_off on
 * @data_len: bytes at @data
 * @pad: zero bytes after them: the MAC pads runts to ETH_ZLEN
 * @len: @head_len + @data_len + @pad
 * @csum_valid: the sending engine computed the L4 checksum from scratch
 *	(TSO/USO): the receiver would find it right, and skips the pass
 * @gso: the segmentation a TSO segment comes from, while it is being sent
 *	on the wire fast path (its TCP checksum not computed yet, its payload
 *	maybe still in @sg): whatever reads or copies header bytes beyond
 *	parsing calls refnic_frame_fetch() first; else NULL
 * @sg: with @data NULL, the sending frame's buffers (cut-through, tx.c)
 * @sg_off: offset of the payload's first byte in the frame @sg describes
 *
 * Segments are never assembled: the receiver copies them piece by piece
 * straight into its buffers.
 */
struct refnic_frame {
	const u8 *head;
	u32 head_len;
	const u8 *data;
	u32 data_len;
	u32 pad;
	u32 len;
	bool csum_valid;
	struct refnic_gso *gso;
	const struct refnic_tx_sg *sg;
	u32 sg_off;
};

/**
 * struct refnic_pkt - what refnic_parse() found in a frame's headers
 * @l3_proto: ETH_P_IP or ETH_P_IPV6 (host order), 0 for anything else
 * @l4_proto: IPPROTO_TCP or IPPROTO_UDP, 0 for anything else
 * @ip_proto: the protocol after the IP header and its extension headers,
 *	whatever it is (IPPROTO_IPIP, IPPROTO_IPV6 for IP-in-IP)
 * @frag: an IP fragment: L4 header and checksum are not usable
 * @l3_off: offset of the IP header
 * @l4_off: offset of the TCP/UDP header
 * @l4_len: L4 header plus payload as the IP header says; 0 when the frame
 *	is shorter than that
 * @hdr_len: bytes of L2..L4 headers; 0 when not parsed to L4
 * @split: REFNIC_SPLIT_* for a header split of this frame
 */
struct refnic_pkt {
	u16 l3_proto;
	u8 l4_proto;
	u8 ip_proto;
	bool frag;
	u16 l3_off;
	u16 l4_off;
	u32 l4_len;
	u16 hdr_len;
	u16 split;
};

u16 refnic_parse(const u8 *p, u32 avail, u32 len, struct refnic_pkt *pkt);
u16 refnic_parse_inner(const u8 *p, u32 avail, const struct refnic_pkt *outer,
		       struct refnic_pkt *inner);

/**
 * struct refnic_qgate - the engine's way into a queue
 * @lock: orders ENABLE changes (MMIO, any context) against the engine
 *	entering and leaving the queue; protects this struct and the queue's
 *	latched configuration and indices
 * @enabled: Q_CTRL.ENABLE as the engine obeys it
 * @busy: the engine is inside: it may be doing DMA on the queue's rings
 * @halted: a bad descriptor stopped the queue (Q_STATUS.ERROR)
 * @gen: bumped on every enable and reset, so that work begun before is not
 *	committed
 *
 * Disabling never waits: the queue reads STOPPED once it is disabled and the
 * engine has left it, and the engine does no DMA on it outside enter/leave.
 */
struct refnic_qgate {
	spinlock_t lock;	/* orders enable/disable against enter/leave */
	bool enabled;
	bool busy;
	bool halted;
	u32 gen;
};

/* A TX queue's rings as the engine sees them during one run. */
struct refnic_txq_view {
	u64 ring;
	u32 mask;
	u32 vector;
	u32 head;
	u32 tail;
	u32 gen;
};

/**
 * struct refnic_model_txq - a TX queue
 * @port: owner
 * @index: queue number
 * @base_lo: TXQ_BASE_LO as written
 * @base_hi: TXQ_BASE_HI as written
 * @size: TXQ_SIZE as written
 * @ctrl: TXQ_CTRL as written
 * @tail: TXQ_TAIL, the doorbell (free-running index)
 * @gate: enable/stop handshake
 * @ring: latched at enable (under @gate.lock)
 * @ring_size: latched at enable
 * @vector: latched at enable
 * @head: next descriptor the engine reads (free-running, under @gate.lock)
 * @work: the engine for this queue; the work item serializes it
 * @throttle: restarts @work when the rate limit allows the next frame
 * @throttled: @throttle is pending: doorbells need not kick @work
 * @dc: descriptors fetched ahead, slot = index % REFNIC_MAX_TX_DESC_PER_FRAME
 * @dc_start: first index cached
 * @dc_end: one past the last index cached
 * @dc_gen: @gate.gen the cache belongs to
 * @buf: the frame being sent (engine only); only its headers when it is
 *	cut through (@sg)
 * @sg: the buffers of the TSO frame being cut through (engine only)
 * @seg_hdr: headers of the TSO/USO segment being sent (engine only)
 * @hang: injected fault (debugfs fault_tx_hang): the engine consumes no
 *	descriptor of the queue until ENABLE is cleared or the port is reset;
 *	written under @gate.lock
 * @wedge_check: the run has written no DONE yet, so wedge-txq may strike
 *	at the next one (engine only)
 * @wedged: injected fault (wedge-txq): the engine is stuck inside the
 *	queue holding a DONE write-back; @gate.busy stays set until the wedge
 *	ends (written under @gate.lock, read by the engine with READ_ONCE)
 * @unwedge: the wedge is to end: the engine's next run does the held write
 *	and leaves the queue (under @gate.lock)
 * @wedge_view: the wedged run's view, for the late leave (engine only)
 * @wedge_addr: DMA address of the held DONE write-back (engine only)
 * @wedge_ndesc: descriptors of the frame it completes (engine only)
 * @stats: counters; written by @work only (MMIO counts live in the port),
 *	but for hang_injected and hang_cleared, written under @gate.lock
 */
struct refnic_model_txq {
	struct refnic_model_port *port;
	unsigned int index;

	u32 base_lo;
	u32 base_hi;
	u32 size;
	u32 ctrl;
	u32 tail;

	struct refnic_qgate gate;
	u64 ring;
	u32 ring_size;
	u32 vector;
	u32 head;

	struct work_struct work;
	struct hrtimer throttle;
	bool throttled;
	struct refnic_tx_desc dc[REFNIC_MAX_TX_DESC_PER_FRAME];
	u32 dc_start;
	u32 dc_end;
	u32 dc_gen;
	u8 *buf;
	struct refnic_tx_sg sg;
	u8 seg_hdr[REFNIC_TX_BUF_ALIGN + REFNIC_MODEL_MAX_HDR];
	bool hang;
	bool wedge_check;
	bool wedged;
	bool unwedge;
	struct refnic_txq_view wedge_view;
	u64 wedge_addr;
	u32 wedge_ndesc;
	struct refnic_model_txq_stats stats;
};

/* An RX queue's rings as one delivery sees them. */
struct refnic_rxq_view {
	u64 ring;
	u64 cq;
	u32 mask;
	u32 cq_mask;
	u32 buf_len;
	u32 hdr_len;
	u32 vector;
	u32 head;
	u32 tail;
	u32 cq_tail;
	u32 cq_head;
	u32 gen;
};

/* Hardware GRO context table of an RX queue (gro.c). */
struct refnic_gro_table;

/**
 * struct refnic_model_rxq - an RX queue and its completion queue
 * @port: owner
 * @index: queue number
 * @base_lo: RXQ_BASE_LO as written (and so on for the registers below)
 * @base_hi: RXQ_BASE_HI
 * @size: RXQ_SIZE
 * @ctrl: RXQ_CTRL
 * @buf_len: RXQ_BUF_LEN
 * @hdr_len: RXQ_HDR_LEN
 * @cq_base_lo: RXCQ_BASE_LO
 * @cq_base_hi: RXCQ_BASE_HI
 * @cq_size: RXCQ_SIZE
 * @tail: RXQ_TAIL, the doorbell (free-running index)
 * @cq_head: RXCQ_HEAD, completions consumed (free-running index)
 * @lock: serializes deliveries into this queue: every TX queue of the peer
 *	port (and the peer's delay line) may deliver concurrently, and a frame
 *	takes descriptors and a completion entry in ring order
 * @gate: enable/stop handshake
 * @ring: latched at enable (under @gate.lock), as the fields below
 * @cq: completion ring
 * @ring_size: entries in @ring
 * @cq_ring_size: entries in @cq
 * @buf_size: payload buffer length
 * @hdr_size: header buffer length; 0 when header split is off
 * @vector: interrupt vector
 * @head: next RX descriptor to use (free-running, under @gate.lock)
 * @cq_tail: next completion to write (free-running, under @gate.lock);
 *	the phase is 1 on the first pass over @cq
 * @gro: the hardware GRO context table (gro.c), under @lock; set and
 *	cleared by @gro_ctl_work, freed at the latest when the card goes
 * @gro_open: contexts open in @gro (written under @lock, read without)
 * @gro_timer: wakes @gro_work when the oldest open context times out or
 *	the queue may have gone quiet
 * @gro_work: closes timed out contexts (engine workqueue)
 * @gro_ctl_work: gives the queue its table when it is enabled with HW_GRO
 *	on, takes it back (closing its contexts) when it is disabled or
 *	HW_GRO cleared (system workqueue: it allocates)
 * @stalled: injected fault (stall-rxq): frames reaching the queue are lost
 *	while the queue is still the enabling of generation @stall_gen (under
 *	@lock)
 * @stall_gen: @gate.gen the stall struck in: enabling the queue anew (or a
 *	reset) bumps the generation and so ends the stall
 * @stats: counters; written under @lock (MMIO counts live in the port)
 */
struct refnic_model_rxq {
	struct refnic_model_port *port;
	unsigned int index;

	u32 base_lo;
	u32 base_hi;
	u32 size;
	u32 ctrl;
	u32 buf_len;
	u32 hdr_len;
	u32 cq_base_lo;
	u32 cq_base_hi;
	u32 cq_size;
	u32 tail;
	u32 cq_head;

	spinlock_t lock;	/* serializes deliveries into the queue */
	struct refnic_qgate gate;
	u64 ring;
	u64 cq;
	u32 ring_size;
	u32 cq_ring_size;
	u32 buf_size;
	u32 hdr_size;
	u32 vector;
	u32 head;
	u32 cq_tail;
	struct refnic_gro_table *gro;
	u32 gro_open;
	struct hrtimer gro_timer;
	struct work_struct gro_work;
	struct work_struct gro_ctl_work;
	bool stalled;
	u32 stall_gen;
	struct refnic_model_rxq_stats stats;
};

/**
 * struct refnic_model_vec - an interrupt vector (one MSI-X table entry)
 * @port: owner
 * @hwirq: vector number in the port's irq_domain
 * @irq: Linux IRQ number
 * @lock: serializes the vector's state between the engine (events), MMIO
 *	(mask, unmask, ITR), the moderation timer and the irq chip callbacks.
 *	Raw: the chip callbacks run under the irq descriptor's raw lock.
 * @masked: device mask: set when the vector fires (auto-mask) and by
 *	INTR_MASK, cleared by INTR_UNMASK
 * @chip_masked: the irq core's mask (the MSI-X table's mask bit)
 * @itr: INTR_ITR
 * @held: events since the vector last fired (INTR_STATUS.PENDING)
 * @first_ns: when the oldest of them arrived
 * @timer_armed: @timer is pending
 * @timer: fires the vector ITR_USECS after the first held event
 * @cpu: target CPU: the effective affinity
 * @inflight: deliveries queued or running (teardown waits for none)
 * @work: delivers on this CPU (from the irq_work IPI: hard IRQ)
 * @csd: delivers on another CPU (from the IPI: hard IRQ)
 * @lose_next: injected fault (lose-irq): the next interrupt is lost
 * @stats: counters, under @lock
 */
struct refnic_model_vec {
	struct refnic_model_port *port;
	unsigned int hwirq;
	unsigned int irq;
	raw_spinlock_t lock;	/* the vector's state, see above */
	bool masked;
	bool chip_masked;
	u32 itr;
	u32 held;
	u64 first_ns;
	bool timer_armed;
	struct hrtimer timer;
	int cpu;
	atomic_t inflight;
	struct irq_work work;
	call_single_data_t csd;
	bool lose_next;
	struct refnic_model_vec_stats stats;
};

/**
 * struct refnic_model_link - the wire leaving a port
 * @carrier: this end's carrier
 * @shaped: rate, latency or loss is set: the engine takes the slow path
 * @rate_bps: see struct refnic_model_link_cfg
 * @latency_ns: one-way delay
 * @loss_ppm: see struct refnic_model_link_cfg
 * @lock: the token bucket and the delay line, shared by the port's TX
 *	queues and the delay line's timer and work
 * @tokens: bytes that may leave now; negative: in debt
 * @stamp_ns: when @tokens was last refilled
 * @line: the delay line, a ring of frames on the wire (struct
 *	refnic_delayed) in arrival order; NULL while the latency is 0.
 *	Replaced only under the card's link_lock, and the pointer under @lock
 * @line_size: bytes in @line (refnic_link_line_size())
 * @line_head: where the next frame goes
 * @line_tail: the oldest frame
 * @line_used: bytes from @line_tail to @line_head, padding included
 * @line_frames: frames in @line
 * @last_due_ns: arrival time of the last frame put in @line
 * @timer: wakes @work when the oldest frame in @line arrives
 * @work: delivers arrived frames (process context, like the engine)
 *
 * The configuration fields are written under the card's link_lock and read
 * locklessly by the engine.
 */
struct refnic_model_link {
	bool carrier;
	bool shaped;
	u64 rate_bps;
	u64 latency_ns;
	u32 loss_ppm;

	spinlock_t lock;	/* token bucket and delay line */
	s64 tokens;
	u64 stamp_ns;
	u8 *line;
	u32 line_size;
	u32 line_head;
	u32 line_tail;
	u32 line_used;
	u32 line_frames;
	u64 last_due_ns;
	struct hrtimer timer;
	struct work_struct work;
};

/**
 * struct refnic_fault_site - where an armed fault may strike (fault.c)
 * @rate_ppm: strike on this many events per million (0: see @count)
 * @count: strike on the next this many events
 * @injected: strikes so far
 *
 * Armed from process context, consulted by the engine in any context:
 * plain atomics, no lock.
 */
struct refnic_fault_site {
	u32 rate_ppm;
	atomic_t count;
	atomic64_t injected;
};

bool refnic_fault_site_strike(struct refnic_model_port *port,
			      enum refnic_model_fault fault, unsigned int queue);

/* MMIO counters, per CPU: the driver writes doorbells from every CPU. */
struct refnic_mmio_stats {
	u64 reads;
	u64 writes;
	u64 bad;
	u64 q_reads[REFNIC_MAX_QUEUES];
	u64 q_writes[REFNIC_MAX_QUEUES];
	u64 tx_doorbells[REFNIC_MAX_QUEUES];
	u64 rx_doorbells[REFNIC_MAX_QUEUES];
	u64 cq_doorbells[REFNIC_MAX_QUEUES];
};

/* Port-wide counters: bumped concurrently by the engines of all queues. */
struct refnic_port_counters {
	atomic64_t resets;
	atomic64_t rx_drop_mac_off;
	atomic64_t rx_drop_oversize;
	atomic64_t rx_drop_runt;
	atomic64_t rx_drop_filtered;
	atomic64_t rx_drop_bad_queue;
	atomic64_t rx_steered;
	atomic64_t rx_drop_steer;
	atomic64_t link_drop_loss;
	atomic64_t link_drop_overflow;
	atomic64_t link_delayed;
	atomic64_t tx_errors;
	atomic64_t tx_link_down;
};

/**
 * struct refnic_flow_rule - the fields of a flow steering rule
 * @type: FLOW_TYPE
 * @action: FLOW_ACTION
 * @ports: FLOW_PORTS
 * @ports_mask: FLOW_PORTS_MASK
 * @src: FLOW_SRC_IP words
 * @src_mask: FLOW_SRC_MASK words
 * @dst: FLOW_DST_IP words
 * @dst_mask: FLOW_DST_MASK words
 */
struct refnic_flow_rule {
	u32 type;
	u32 action;
	u32 ports;
	u32 ports_mask;
	u32 src[REFNIC_FLOW_IP_WORDS];
	u32 src_mask[REFNIC_FLOW_IP_WORDS];
	u32 dst[REFNIC_FLOW_IP_WORDS];
	u32 dst_mask[REFNIC_FLOW_IP_WORDS];
};

/**
 * struct refnic_steer - the flow steering table (steer.c)
 * @regs: the rules' field registers as written (MMIO, any context)
 * @lock: the engine's view below: MMIO writes it (FLOW_CTRL, reset) with
 *	the lock held and interrupts off, the engine reads it locklessly and
 *	retries when a write overlapped
 * @rule: the rules as latched by their last FLOW_CTRL write
 * @valid: rules with FLOW_CTRL.VALID
 * @nvalid: weight of @valid; read without @lock, so that a frame pays
 *	nothing for steering while no rule is valid
 * @hits: FLOW_HITS, by rule
 */
struct refnic_steer {
	struct refnic_flow_rule regs[REFNIC_NUM_FLOW_RULES];
	seqlock_t lock;		/* @rule, @valid and @nvalid */
	struct refnic_flow_rule rule[REFNIC_NUM_FLOW_RULES];
	DECLARE_BITMAP(valid, REFNIC_NUM_FLOW_RULES);
	unsigned int nvalid;
	atomic64_t hits[REFNIC_NUM_FLOW_RULES];
};

/**
 * struct refnic_model_port - one port: register file, queues, vectors
 * @bus: what the driver sees; @bus.hw points back here
 * @card: the card
 * @peer: the other port of the card: where transmitted frames arrive
 * @pdev: the port's platform device (DMA, netdev parent)
 * @dev: &@pdev->dev
 * @name: "refnic-card<N>-port<P>", names the irq domain
 * @ctrl: CTRL (ENABLE only; RESET self-clears)
 * @mac_lo: MAC_LO: address bytes 0-3, byte 0 in bits 7:0
 * @mac_hi: MAC_HI: bytes 4-5, byte 4 in bits 7:0
 * @max_frame: MAX_FRAME
 * @rx_ctrl: RX_CTRL
 * @gro_timeout: RX_GRO_TIMEOUT (microseconds)
 * @gro_idle: RX_GRO_IDLE (microseconds)
 * @rss_queues: RSS_QUEUES
 * @misc_addr_lo: MISC_CAUSE_ADDR_LO
 * @misc_addr_hi: MISC_CAUSE_ADDR_HI
 * @rss_key: RSS_KEY words: key byte 4i + j in bits 8j+7:8j of word i
 * @rss_table: RSS_TABLE words
 * @rss_ctx_table: RSS_CTX_TABLE words, by context (context 0's unused)
 * @rss_fields: RSS_FIELDS, by flow type (REFNIC_RSS_FT_*)
 * @steer: the flow steering table
 * @misc_cause: MISC_CAUSE, cleared by reading it
 * @reset_pending: RESET written; STATUS.RESET_DONE once no queue is busy
 * @txq: TX queues
 * @tx_bufs: their engines' frame buffers, REFNIC_TX_BUF_STRIDE bytes a
 *	queue: each queue's @buf points into it
 * @rxq: RX queues
 * @vec: interrupt vectors
 * @fwnode: names @domain
 * @domain: the port's interrupt domain, one hwirq per vector
 * @link: the wire leaving this port
 * @mmio: MMIO counters
 * @cnt: port-wide counters
 * @fault: faults armed through refnic_model_fault_set(), by queue
 * @fault_set: which of @fault the last refnic_model_fault_set() armed, as
 *	fault * REFNIC_MAX_QUEUES + queue (a count may have run out since)
 * @faults_set: bits set in @fault_set: the wire fast path (tx.c) is off
 *	while there are any
 * @gro_contexts: GRO contexts an RX queue's table has (debugfs)
 * @gro_buffer: bytes of GRO packet buffer it has (debugfs)
 * @wire_fast: the TX engines may take the wire fast path (tx.c; debugfs)
 * @debugfs: the port's debugfs directory
 *
 * Global registers are plain words: MMIO writes them with WRITE_ONCE, the
 * engine reads them with READ_ONCE, and a frame may see a half-programmed
 * RSS table exactly as on real hardware.
 */
struct refnic_model_port {
	struct refnic_bus_port bus;
	struct refnic_model_card *card;
	struct refnic_model_port *peer;
	struct platform_device *pdev;
	struct device *dev;
	char name[32];

	u32 ctrl;
	u32 mac_lo;
	u32 mac_hi;
	u32 max_frame;
	u32 rx_ctrl;
	u32 gro_timeout;
	u32 gro_idle;
	u32 rss_queues;
	u32 misc_addr_lo;
	u32 misc_addr_hi;
	u32 rss_key[REFNIC_RSS_KEY_SIZE / 4];
	u32 rss_table[REFNIC_RSS_TABLE_SIZE / 4];
	u32 rss_ctx_table[REFNIC_NUM_RSS_CTX][REFNIC_RSS_TABLE_SIZE / 4];
	u32 rss_fields[REFNIC_RSS_NUM_FT];
	struct refnic_steer steer;
	atomic_t misc_cause;
	bool reset_pending;

	struct refnic_model_txq txq[REFNIC_MAX_QUEUES];
	u8 *tx_bufs;
	struct refnic_model_rxq rxq[REFNIC_MAX_QUEUES];
	struct refnic_model_vec vec[REFNIC_NUM_VECTORS];
	struct fwnode_handle *fwnode;
	struct irq_domain *domain;

	struct refnic_model_link link;

	struct refnic_mmio_stats __percpu *mmio;
	struct refnic_port_counters cnt;
	struct refnic_fault_site fault[REFNIC_MODEL_NUM_FAULTS][REFNIC_MAX_QUEUES];
	DECLARE_BITMAP(fault_set, REFNIC_MODEL_NUM_FAULTS * REFNIC_MAX_QUEUES);
	atomic_t faults_set;
	u32 gro_contexts;
	u32 gro_buffer;
	bool wire_fast;
	struct dentry *debugfs;
};

/* Does the armed @fault of @queue strike this event? Cheap while nothing
 * is armed.
 */
static inline bool refnic_fault_strikes(struct refnic_model_port *port,
					enum refnic_model_fault fault,
					unsigned int queue)
{
	struct refnic_fault_site *site = &port->fault[fault][queue];

	if (likely(!READ_ONCE(site->rate_ppm) && !atomic_read(&site->count)))
		return false;
	return refnic_fault_site_strike(port, fault, queue);
}

/* pcie.c: the host bus cost model. */
#define REFNIC_PCIE_MPS			256	/* bytes of payload a TLP */
#define REFNIC_PCIE_TLP_OVERHEAD	24	/* header, sequence, LCRC, framing */
#define REFNIC_PCIE_BURST_NS		(20 * NSEC_PER_USEC)	/* backlog a TX queue may add to */
#define REFNIC_PCIE_MAX_WAIT_NS		(10 * NSEC_PER_MSEC)	/* longest look-again */
#define REFNIC_PCIE_DEFAULT_LANES	8

enum refnic_pcie_way {
	REFNIC_PCIE_TO_CARD,	/* reads of host memory */
	REFNIC_PCIE_TO_HOST,	/* writes into host memory */
};

/**
 * struct refnic_pcie_dir - one direction of the card's link
 * @lock: serializes updates of @busy_until (read without it)
 * @busy_until: when the transfers charged so far are through (ktime ns)
 */
struct refnic_pcie_dir {
	spinlock_t lock;	/* busy_until's read-modify-write */
	u64 busy_until;
};

/**
 * struct refnic_model_pcie - a card's host bus cost model (pcie.c)
 * @on: any cost is set; the datapath calls into pcie.c only then
 * @read_ns: round trip of a register read
 * @remote_ns: cost of crossing to another NUMA node
 * @node: the card's NUMA node, or NUMA_NO_NODE
 * @gen: PCIe generation of the bandwidth cap, 0 for none
 * @lanes: link width
 * @dir: the two directions' backlogs
 * @cnt: what was charged, since the card was plugged in
 *
 * The configuration is written under the card's link_lock and read
 * without it.
 */
struct refnic_model_pcie {
	bool on;
	u32 read_ns;
	u32 remote_ns;
	int node;
	u32 gen;
	u32 lanes;
	struct refnic_pcie_dir dir[2];
	struct {
		atomic64_t reads;
		atomic64_t remote_reads;
		atomic64_t read_ns;
		atomic64_t writes;
		atomic64_t dma_tlps;
		atomic64_t dma_bytes;
		atomic64_t dma_remote_tlps;
		atomic64_t dma_ns;
		atomic64_t dma_throttled;
		atomic64_t read_waited_ns;
	} cnt;
};

/**
 * struct refnic_model_card - a two-port card
 * @id: card number, unique while the card is plugged in
 * @port: its ports
 * @link_lock: serializes link configuration of the two ports (whether the
 *	link is up depends on both carriers), and of the card's bus model
 * @debugfs: the card's debugfs directory
 * @memcg: memory cgroup of whoever plugged the card in (referenced), which
 *	pays for the card's memory (refnic_card_vzalloc())
 * @pcie: the host bus cost model of the card's link
 */
struct refnic_model_card {
	unsigned int id;
	struct refnic_model_port *port[2];
	struct mutex link_lock;	/* link and bus configuration */
	struct dentry *debugfs;
	struct mem_cgroup *memcg;
	struct refnic_model_pcie pcie;
};

void refnic_pcie_init(struct refnic_model_card *card);
bool refnic_pcie_valid(u32 gen, u32 lanes);
void refnic_pcie_read(struct refnic_model_card *card);
void refnic_pcie_write(struct refnic_model_card *card);
void refnic_pcie_dma(struct refnic_model_port *port, u64 addr, u32 len,
		     enum refnic_pcie_way way);
bool refnic_pcie_admit(struct refnic_model_port *port, u64 *wait_ns);

/* Whether the card's bus costs anything: cheap when it does not. */
static inline bool refnic_pcie_on(const struct refnic_model_card *card)
{
	/* Pairs with refnic_model_bus_set(): the costs are set when seen. */
	return unlikely(smp_load_acquire(&card->pcie.on));
}

extern struct workqueue_struct *refnic_engine_wq;

/* bus.c */
void *refnic_card_vzalloc(struct refnic_model_card *card, size_t size);

static inline struct refnic_model_port *
refnic_port_of(const struct refnic_bus_port *bport)
{
	return bport->hw;
}

/* Descriptors (or completions) posted and not yet used: indices are
 * free-running, so a full ring is told apart from an empty one.
 */
static inline u32 refnic_ring_used(u32 prod, u32 cons)
{
	return prod - cons;
}

/* bar.c */
void refnic_port_reset(struct refnic_model_port *port);
void refnic_port_raise_misc(struct refnic_model_port *port, u32 cause);
bool refnic_port_mac_enabled(const struct refnic_model_port *port);

/* queue.c */
void refnic_queues_init(struct refnic_model_port *port);
void refnic_queues_reset(struct refnic_model_port *port);
bool refnic_queues_busy(struct refnic_model_port *port);
u32 refnic_queue_reg_read(struct refnic_model_port *port, unsigned int q,
			  u32 off);
void refnic_queue_reg_write(struct refnic_model_port *port, unsigned int q,
			    u32 off, u32 val);
void refnic_txq_fault_hang(struct refnic_model_txq *txq);
void refnic_txq_fault_clear(struct refnic_model_txq *txq);
bool refnic_txq_enter(struct refnic_model_txq *txq,
		      struct refnic_txq_view *view);
void refnic_txq_leave(struct refnic_model_txq *txq,
		      const struct refnic_txq_view *view, bool halt);
void refnic_txq_wedge(struct refnic_model_txq *txq);
bool refnic_txq_unwedge_due(struct refnic_model_txq *txq);
void refnic_txq_unwedge_request(struct refnic_model_txq *txq);
bool refnic_rxq_enter(struct refnic_model_rxq *rxq,
		      struct refnic_rxq_view *view);
void refnic_rxq_leave(struct refnic_model_rxq *rxq,
		      const struct refnic_rxq_view *view, bool halt);

/* tx.c */
void refnic_tx_init(struct refnic_model_txq *txq);
void refnic_tx_kick(struct refnic_model_txq *txq);
void refnic_tx_stop(struct refnic_model_txq *txq);
void refnic_tx_unwedge(struct refnic_model_txq *txq);

/* rx.c */
void refnic_rx_deliver(struct refnic_model_port *port,
		       const struct refnic_frame *f);
int refnic_rx_copy(struct refnic_model_port *port,
		   const struct refnic_frame *f, u32 off, u64 addr, u32 len);
int refnic_rx_post_cmpl(struct refnic_model_rxq *rxq,
			const struct refnic_rxq_view *view,
			struct refnic_rx_cmpl *cmpl, u32 flags);
void refnic_rxq_report_halt(struct refnic_model_rxq *rxq, u32 head);
int refnic_rx_fetch_desc(struct refnic_model_rxq *rxq,
			 const struct refnic_rxq_view *view, u32 i,
			 struct refnic_rx_desc *desc);

/* gro.c */
void refnic_rx_gro_init(struct refnic_model_rxq *rxq);
int refnic_rx_gro_put(struct refnic_model_rxq *rxq,
		      struct refnic_rxq_view *view,
		      const struct refnic_frame *f,
		      const struct refnic_pkt *pkt, u32 flags, u32 hash,
		      u32 hdr_len, u16 split, u32 *signal);
void refnic_rx_gro_flush_port(struct refnic_model_port *port);
void refnic_rx_gro_update(struct refnic_model_rxq *rxq);
void refnic_rx_gro_ctrl_changed(struct refnic_model_port *port);
void refnic_rx_gro_stop(struct refnic_model_rxq *rxq);
int refnic_rx_gro_set_contexts(struct refnic_model_port *port, u64 val);
int refnic_rx_gro_set_buffer(struct refnic_model_port *port, u64 val);

/* offload.c */
/**
 * struct refnic_gso - cutting a TSO/USO frame into segments
 * @frame: the whole frame (headers first), or only its headers when the
 *	payload stays in host memory (@sg): then refnic_frame_fetch() reads a
 *	segment's payload here, at its place in the frame, when it is due
 * @sg: the frame's buffers, when cut through (tx.c); else NULL
 * @len: its length
 * @hdr: where each segment's headers are built
 * @pkt: the frame's headers, parsed
 * @mss: payload bytes per segment
 * @off: offset in @frame of the next segment's payload
 * @index: number of the next segment
 * @tcp_seq: sequence number of the first segment
 * @ip_id: IPv4 ID of the first segment
 * @defer_csum: leave each TCP segment's checksum for refnic_frame_fetch()
 *	(always so when cut through: the sum is taken over the bytes read once)
 * @csum_pending: the last segment built still lacks its checksum
 * @fetched: the last segment's payload is at its place in @frame
 */
struct refnic_gso {
	u8 *frame;
	const struct refnic_tx_sg *sg;
	u32 len;
	u8 *hdr;
	struct refnic_pkt pkt;
	u32 mss;
	u32 off;
	u32 index;
	u32 tcp_seq;
	u16 ip_id;
	bool defer_csum;
	bool csum_pending;
	bool fetched;
};

int refnic_tx_csum(u8 *frame, u32 len, u32 start, u32 offset);
int refnic_gso_init(struct refnic_gso *gso, u8 *frame, u32 len,
		    const struct refnic_tx_sg *sg, u8 *hdr,
		    const struct refnic_tx_desc *desc);
bool refnic_gso_next(struct refnic_gso *gso, struct refnic_frame *f);
u32 refnic_gso_wire_bytes(u32 len, u32 hdr_len, u32 mss);
__sum16 refnic_frame_l4_csum(const struct refnic_frame *f,
			     const struct refnic_pkt *pkt);
const u8 *refnic_frame_fetch(const struct refnic_frame *f);

/* rss.c */
void refnic_rss_reset(struct refnic_model_port *port);
void refnic_rss_fields_write(struct refnic_model_port *port, unsigned int t,
			     u32 val);
u32 refnic_rss_hash(const struct refnic_model_port *port, const u8 *p,
		    const struct refnic_pkt *pkt, u32 *flags);
u32 refnic_rss_lookup(const struct refnic_model_port *port, unsigned int ctx,
		      u32 hash);
u32 refnic_rss_ctx_read(struct refnic_model_port *port, u32 reg);
void refnic_rss_ctx_write(struct refnic_model_port *port, u32 reg, u32 val);

/* steer.c */
enum refnic_steer_verdict {
	REFNIC_STEER_NONE,	/* no rule matched: RSS decides */
	REFNIC_STEER_QUEUE,	/* a rule chose the queue */
	REFNIC_STEER_DROP,	/* a rule dropped the frame (counted) */
	REFNIC_STEER_RSS,	/* a rule chose an RSS context and offset */
};

void refnic_steer_init(struct refnic_model_port *port);
void refnic_steer_reset(struct refnic_model_port *port);
u32 refnic_steer_reg_read(struct refnic_model_port *port, u32 reg);
void refnic_steer_reg_write(struct refnic_model_port *port, u32 reg, u32 val);
enum refnic_steer_verdict refnic_steer_classify(struct refnic_model_port *port,
						const u8 *p,
						const struct refnic_pkt *pkt,
						u32 *q, unsigned int *ctx);

/* dma.c */
int refnic_dma_check(struct device *dev);
bool refnic_dma_readable(struct refnic_model_port *port, u64 addr, u32 len);
int refnic_sg_read(const struct refnic_tx_sg *sg, u32 off, void *buf, u32 len);
int refnic_dma_read(struct refnic_model_port *port, u64 addr, void *buf,
		    u32 len);
int refnic_dma_write(struct refnic_model_port *port, u64 addr,
		     const void *buf, u32 len);
int refnic_dma_write_zero(struct refnic_model_port *port, u64 addr, u32 len);
int refnic_dma_write_le16(struct refnic_model_port *port, u64 addr, u16 val);
int refnic_dma_write_le32(struct refnic_model_port *port, u64 addr, u32 val);

/* irq.c */
int refnic_irq_init(struct refnic_model_port *port);
void refnic_irq_fini(struct refnic_model_port *port);
void refnic_irq_reset(struct refnic_model_port *port);
void refnic_vec_signal(struct refnic_model_port *port, u32 vector, u32 n);
u32 refnic_vec_reg_read(struct refnic_model_port *port, unsigned int v,
			u32 off);
void refnic_vec_reg_write(struct refnic_model_port *port, unsigned int v,
			  u32 off, u32 val);

/* link.c */
void refnic_link_init(struct refnic_model_port *port);
void refnic_link_stop(struct refnic_model_port *port);
bool refnic_link_up(const struct refnic_model_port *port);
void refnic_link_changed(struct refnic_model_port *port, bool was_up);
bool refnic_link_admit(struct refnic_model_port *port, u32 bytes,
		       u64 *wait_ns);
void refnic_link_xmit(struct refnic_model_port *port,
		      const struct refnic_frame *f);

/* debugfs.c */
void refnic_debugfs_card_add(struct refnic_model_card *card);
void refnic_debugfs_card_remove(struct refnic_model_card *card);

#endif /* _REFNIC_MODEL_PRIV_H_ */
