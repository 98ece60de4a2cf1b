/* SPDX-License-Identifier: GPL-2.0 */
/* Copyright (c) 2026 The refnic authors
 *
 * What the device model offers besides the bus (refnic_bus.h): knobs and
 * counters that have no register, for the control plane. A real NIC would
 * expose these through a management interface, not its BAR; the driver's
 * datapath must not use them.
 *
 * A port is named by refnic_bus_port.hw. Callers must hold the card (no
 * refnic_bus_card_remove() concurrently); the functions may sleep.
 */

#ifndef _REFNIC_MODEL_API_H_
#define _REFNIC_MODEL_API_H_

#include <linux/types.h>

#include "../refnic_hw.h"

struct refnic_model_port;

/**
 * struct refnic_model_link_cfg - the wire leaving a port
 * @carrier: the port's PHY sees a signal. The link between the two ports of
 *	a card is up when both carriers are; a change raises the misc vector
 *	(REFNIC_MISC_LINK) of each port whose STATUS.LINK_UP changed. Frames
 *	sent while the link is down are dropped and counted.
 * @rate_bps: egress rate limit in bits per second; 0 is unlimited
 * @latency_us: one-way delay of every frame sent from this port. Frames
 *	wait on a delay line sized for the latency and rate (link.c), at
 *	most 16 MiB a port, which refnic_model_link_set() allocates
 * @loss_ppm: frames lost on the way, per million, chosen at random
 *
 * Defaults: carrier up, everything else 0, which costs the datapath nothing.
 */
struct refnic_model_link_cfg {
	bool carrier;
	u64 rate_bps;
	u32 latency_us;
	u32 loss_ppm;
};

#define REFNIC_MODEL_MAX_LATENCY_US	10000000	/* 10 s */
#define REFNIC_MODEL_MAX_RATE_BPS	10000000000000ULL	/* 10 Tbit/s */

void refnic_model_link_get(struct refnic_model_port *port,
			   struct refnic_model_link_cfg *cfg);
int refnic_model_link_set(struct refnic_model_port *port,
			  const struct refnic_model_link_cfg *cfg);

/**
 * struct refnic_model_bus_cfg - the card's host bus cost model (pcie.c)
 * @read_ns: round trip of a register read: the CPU waits this long
 * @gen: PCIe generation capping the card's DMA bandwidth (3-5), 0 for none
 * @lanes: link width, 1-16, a power of two
 * @node: the card's NUMA node (online), or NUMA_NO_NODE
 * @remote_ns: added to a read by a CPU of another node, and to the link
 *	time of a DMA transaction to memory of another node
 *
 * Shared by the card's two ports. Defaults: all costs 0 (off), 8 lanes, no
 * node.
 */
struct refnic_model_bus_cfg {
	u32 read_ns;
	u32 gen;
	u32 lanes;
	int node;
	u32 remote_ns;
};

/* Charged while the model is on, since the card was plugged in. */
struct refnic_model_bus_stats {
	u64 reads;
	u64 remote_reads;
	u64 read_ns;		/* reads x read_ns + remote_reads x remote_ns */
	u64 writes;		/* posted: charged nothing */
	u64 dma_tlps;
	u64 dma_bytes;		/* with TLP overhead */
	u64 dma_remote_tlps;
	u64 dma_ns;		/* link time, both directions summed */
	u64 dma_throttled;	/* TX queue waits for bandwidth */
	u64 read_waited_ns;	/* reads' spins, by the kernel's clock */
};

#define REFNIC_MODEL_MAX_BUS_NS		100000		/* 100 us */

void refnic_model_bus_get(struct refnic_model_port *port,
			  struct refnic_model_bus_cfg *cfg,
			  struct refnic_model_bus_stats *stats);
int refnic_model_bus_set(struct refnic_model_port *port,
			 const struct refnic_model_bus_cfg *cfg);

/* Counters, all since the card was plugged in (RESET does not clear them).
 * The 32-bit counter registers of refnic_hw.h show the low bits of some.
 */
struct refnic_model_txq_stats {
	u64 mmio_reads;		/* this queue's registers, and its vector's */
	u64 mmio_writes;
	u64 doorbells;		/* TXQ_TAIL writes */
	u64 desc_fetched;
	u64 desc_written;	/* DONE write-backs */
	u64 frames;		/* frames consumed from the ring (DONE) */
	u64 segments;		/* frames put on the wire (after TSO/USO) */
	u64 csum_elided;	/* TSO segments whose TCP checksum was never
				 * computed: the wire fast path (tx.c)
				 */
	u64 cut_through;	/* TSO frames sent cut through (tx.c) */
	u64 dma_read_bytes;	/* descriptors and frame data */
	u64 dma_write_bytes;
	u64 drop_link_down;
	u64 drop_mac_off;	/* sent with CTRL.ENABLE clear */
	u64 errors;		/* bad length or offload request: dropped */
	u64 bad_desc;		/* unreachable address or chain: queue halted */
	u64 throttled;		/* runs cut short by the rate limit */
	u64 runs;		/* engine work runs */
	u64 busy_ns;		/* engine wall time on this queue, delivery and
				 * interrupts taken on its CPU included
				 */
	/* Fault injection (debugfs fault_tx_hang). */
	u64 hang_injected;	/* hangs armed on the queue */
	u64 hang_stalls;	/* engine runs that found the queue hung and
				 * left its descriptors unconsumed
				 */
	u64 hang_cleared;	/* hangs ended by clearing ENABLE, a port
				 * reset or the debugfs file
				 */
	/* Fault injection (wedge-txq). */
	u64 wedges;		/* times the engine wedged inside the queue */
	u64 wedge_stalls;	/* engine runs that found it wedged */
	u64 late_writes;	/* held DONE write-backs done when a wedge
				 * ended, into whatever the ring's memory
				 * was by then
				 */
};

struct refnic_model_rxq_stats {
	u64 mmio_reads;
	u64 mmio_writes;
	u64 doorbells;		/* RXQ_TAIL writes */
	u64 cq_doorbells;	/* RXCQ_HEAD writes */
	u64 desc_fetched;
	u64 cmpl_written;
	u64 frames;
	u64 dma_read_bytes;	/* descriptors */
	u64 dma_write_bytes;	/* frame data and completions */
	u64 csum_ok;
	u64 csum_bad;
	u64 hdr_split;		/* header split: headers and payload apart */
	u64 hdr_not_split;	/* header split on, frame written whole */
	u64 gro_runs;		/* completions of coalesced runs (HW GRO) */
	u64 gro_segs;		/* segments in them */
	u64 gro_timeouts;	/* closed by RX_GRO_TIMEOUT or RX_GRO_IDLE */
	u64 gro_evicted;	/* closed to make room for another */
	/* Drops count frames: an aggregate's segments each. */
	u64 gro_dropped;	/* in contexts lost to a queue disable or reset */
	u64 drop_nobuf;		/* no posted buffer */
	u64 drop_cq_full;	/* no free completion entry */
	u64 drop_disabled;	/* queue disabled or halted */
	u64 bad_desc;		/* unreachable address, bad index: halted */
	u64 arrived;		/* frames that reached the enabled queue
				 * (REFNIC_REG_CNT_RX_FRAMES)
				 */
	/* Fault injection (stall-rxq). */
	u64 stalls;		/* times the queue stalled */
	u64 stall_drops;	/* frames a stalled queue took and lost */
};

struct refnic_model_vec_stats {
	u64 raised;		/* interrupts sent */
	u64 suppressed;		/* events that found the vector masked */
	u64 moderated;		/* events held back by ITR */
	u64 lost;		/* interrupts lost (lose-irq): the vector
				 * masked itself, no message was sent
				 */
};

struct refnic_model_port_stats {
	u64 mmio_reads;
	u64 mmio_writes;
	u64 mmio_bad;		/* outside the BAR or unaligned */
	u64 resets;
	u64 rx_drop_mac_off;
	u64 rx_drop_oversize;
	u64 rx_drop_runt;
	u64 rx_drop_filtered;
	u64 rx_drop_bad_queue;
	u64 rx_steered;		/* sent to a queue by a flow rule */
	u64 rx_drop_steer;	/* dropped by a flow rule */
	u64 link_drop_loss;	/* lost by the loss model */
	u64 link_drop_overflow;	/* delay line full, or resized with
				 * frames on it
				 */
	u64 link_delayed;	/* frames that went through the delay line */
};

struct refnic_model_stats {
	struct refnic_model_port_stats port;
	struct refnic_model_txq_stats txq[REFNIC_MAX_QUEUES];
	struct refnic_model_rxq_stats rxq[REFNIC_MAX_QUEUES];
	struct refnic_model_vec_stats vec[REFNIC_NUM_VECTORS];
	u64 flow_hits[REFNIC_NUM_FLOW_RULES];	/* FLOW_HITS, by rule */
};

/* Fill @stats (large: allocate it) with a snapshot of @port's counters. */
void refnic_model_stats_get(struct refnic_model_port *port,
			    struct refnic_model_stats *stats);

/**
 * enum refnic_model_fault - faults the device model injects on demand
 * @REFNIC_MODEL_FAULT_DROP_CMPL: RX queue: the engine writes a frame into
 *	the posted buffers and consumes them, but writes no completion for it
 *	and raises no interrupt. The next completion's buf_index then lies
 *	past the buffers the driver expected (struct refnic_rx_cmpl).
 * @REFNIC_MODEL_FAULT_BAD_DMA: TX queue: the engine reads a frame's first
 *	buffer from its address with bit REFNIC_MODEL_FAULT_DMA_BIT flipped,
 *	which is never RAM: the read faults, the queue halts
 *	(Q_STATUS.ERROR) and the misc vector reports REFNIC_MISC_ERROR.
 * @REFNIC_MODEL_FAULT_STALL_TXQ: TX queue: the engine hangs the queue as
 *	debugfs fault_tx_hang does, until the driver disables the queue.
 * @REFNIC_MODEL_FAULT_WEDGE_TXQ: TX queue: the engine wedges inside the
 *	queue, as a DMA engine stuck on a bus transaction does: it has read a
 *	frame and holds the DONE write-back of its last descriptor, with the
 *	address. It stays inside the queue (its gate busy), so neither
 *	clearing TXQ_CTRL.ENABLE nor CTRL.RESET gets it out: the queue never
 *	reads STOPPED and the port never RESET_DONE. Doorbells are taken and
 *	nothing runs. The wedge ends only when the fault is cleared on that
 *	queue (refnic_model_fault_set() with rate and count 0) or the card is
 *	removed: the engine then does the held write at the saved address,
 *	into whatever that memory is by then (counted as late_writes), and
 *	leaves the queue; what it did commits only if the queue was not
 *	enabled anew or reset meanwhile.
 * @REFNIC_MODEL_FAULT_GRO_BAD_LEN: RX queue: hardware GRO lies about the
 *	length of a coalesced run: every IP header it writes for the run
 *	(both of IP-in-IP) says one segment (gso_size bytes) less than the
 *	run has, with IPv4 header checksums to match. The buffers hold the
 *	whole run and the completion's lengths and segment count are true;
 *	only the headers disagree with them. A stack that believed the IP
 *	header would trim the skb and be left with fewer bytes than
 *	gso_size and seg_count say.
 * @REFNIC_MODEL_FAULT_STALL_RXQ: RX queue: the RX engine stops serving the
 *	queue, as a DMA engine that lost its way does, from the frame the
 *	fault strikes on: every frame steered to the queue still arrives
 *	(counted in REFNIC_REG_CNT_RX_FRAMES) but is lost, silently: no
 *	descriptor is read, no buffer written, no completion written, no
 *	interrupt raised, and neither CNT_RX_NOBUF nor CNT_RX_CQ_FULL counts
 *	it; the posted buffers stay posted. Frames taken into hardware GRO
 *	contexts before the stall are still delivered when their contexts
 *	close. The queue stays stalled until the driver disables it (clearing
 *	RXQ_CTRL.ENABLE) or resets the port; it then reads STOPPED as usual
 *	and runs normally once enabled again. Clearing the fault does not end
 *	a stall. The model's debugfs counts stalls and stall_drops per queue.
 * @REFNIC_MODEL_FAULT_LOSE_IRQ: queue pair: an interrupt of the pair's
 *	vector is lost on its way. When the fault strikes on an event, the
 *	vector's next interrupt, with that event in it, masks the vector
 *	(the MSI-X auto-mask) as a sent one does, but no message reaches the
 *	CPU: the completions wait in their rings and the events that follow
 *	are held (INTR_STATUS.PENDING) until the driver unmasks the vector.
 *	Counted as lost in the vector's counters.
 * @REFNIC_MODEL_NUM_FAULTS: number of faults
 *
 * An armed fault strikes on events of its queue: for DROP_CMPL each frame
 * about to be completed, for BAD_DMA each frame about to be read, for
 * STALL_TXQ each engine run on a queue that is not hung already, for
 * WEDGE_TXQ the first DONE write-back of each engine run, for GRO_BAD_LEN
 * each run of two or more segments whose headers are about to be written,
 * for STALL_RXQ each frame arriving at a queue that is not stalled already,
 * for LOSE_IRQ each batch of completions (RX or TX) signalled to the vector.
 */
enum refnic_model_fault {
	REFNIC_MODEL_FAULT_DROP_CMPL,
	REFNIC_MODEL_FAULT_BAD_DMA,
	REFNIC_MODEL_FAULT_STALL_TXQ,
	REFNIC_MODEL_FAULT_WEDGE_TXQ,
	REFNIC_MODEL_FAULT_GRO_BAD_LEN,
	REFNIC_MODEL_FAULT_STALL_RXQ,
	REFNIC_MODEL_FAULT_LOSE_IRQ,
	REFNIC_MODEL_NUM_FAULTS
};

/* The address bit BAD_DMA flips: far above any physical address. */
#define REFNIC_MODEL_FAULT_DMA_BIT	55

/**
 * struct refnic_model_fault_state - a fault of one queue
 * @rate_ppm: strikes on this many events per million, chosen at random
 * @count: strikes on the next this many events, then disarms; ignored
 *	while @rate_ppm is set
 * @injected: times it struck since the card was plugged in
 */
struct refnic_model_fault_state {
	u32 rate_ppm;
	u32 count;
	u64 injected;
};

#define REFNIC_MODEL_PPM		1000000

int refnic_model_fault_set(struct refnic_model_port *port,
			   enum refnic_model_fault fault, unsigned int queue,
			   u32 rate_ppm, u32 count);
int refnic_model_fault_get(struct refnic_model_port *port,
			   enum refnic_model_fault fault, unsigned int queue,
			   struct refnic_model_fault_state *state);

/* Toeplitz hash of @len bytes of @data under @key, which must be at least
 * @len + 4 bytes long (REFNIC_RSS_KEY_SIZE covers an IPv6 4-tuple). Pure:
 * usable from tests.
 */
u32 refnic_toeplitz(const u8 *key, const u8 *data, unsigned int len);

#endif /* _REFNIC_MODEL_API_H_ */
