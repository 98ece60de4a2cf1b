/* SPDX-License-Identifier: GPL-2.0-only */
// refnicctl top: per queue and per second, what each refnic port's datapath did. The samples
// (top_sample.cpp) are cumulative counters from four sources; a frame is the difference of two
// samples over the time between them. Kept free of I/O so the arithmetic and the rendering can
// be unit tested.
#pragma once

#include "json.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace refnic::refnicctl {

// One queue pair's counters at one moment, each from where a real NIC's user would read it;
// nullopt when the source did not report it.
struct QueueSample {
    std::uint32_t queue = 0;
    // qstats (netdev netlink): what the stack got and gave.
    std::optional<std::uint64_t> rx_packets;
    std::optional<std::uint64_t> rx_bytes;
    std::optional<std::uint64_t> tx_packets;
    std::optional<std::uint64_t> tx_bytes;
    // The driver (ethtool -S qN_irqs, qN_polls).
    std::optional<std::uint64_t> irqs;
    std::optional<std::uint64_t> polls;
    // The device (refnic family stats): doorbells written (RX tail, RX completion head, TX
    // tail) and frames dropped for want of a posted buffer.
    std::optional<std::uint64_t> doorbells;
    std::optional<std::uint64_t> nobuf_drops;
    // Gauges, not counters: RX buffers posted and not yet given back by the driver, TX
    // descriptors not yet reclaimed (driver debugfs "rings", root only), and pages the queue's
    // page_pool has out (netdev page-pool-get).
    std::optional<std::uint32_t> rx_posted;
    std::optional<std::uint32_t> tx_inflight;
    // Of each ring (driver debugfs ring_rx, ring_tx): descriptors the device owns (rung, not
    // consumed yet) and those it is done with that wait for the driver to reap.
    std::optional<std::uint32_t> rx_device;
    std::optional<std::uint32_t> rx_to_reap;
    std::optional<std::uint32_t> tx_device;
    std::optional<std::uint32_t> tx_to_reap;
    std::optional<std::uint64_t> page_pool_inflight;
    bool devmem = false;  // A dmabuf is bound to the RX queue.
    bool bypass = false;  // A kernel-bypass session holds the queue pair (debugfs "rings").

    friend bool operator==(const QueueSample&, const QueueSample&) = default;
};

struct PortSample {
    std::uint32_t ifindex = 0;
    std::string ifname;
    std::uint64_t time_ns = 0;  // CLOCK_MONOTONIC, when its counters were read
    std::vector<QueueSample> queues;

    friend bool operator==(const PortSample&, const PortSample&) = default;
};

struct Sample {
    std::uint64_t time_ns = 0;  // CLOCK_MONOTONIC, at the start
    std::vector<PortSample> ports;

    friend bool operator==(const Sample&, const Sample&) = default;
};

// One queue over one interval. Rates per second; ratios nullopt when undefined (no packet, no
// poll) or when a source is missing at either end.
struct QueueRates {
    std::uint32_t queue = 0;
    std::optional<double> rx_pps;
    std::optional<double> rx_bps;
    std::optional<double> tx_pps;
    std::optional<double> tx_bps;
    std::optional<double> irqs_per_s;
    std::optional<double> polls_per_s;
    std::optional<double> packets_per_poll;      // RX packets per NAPI poll
    std::optional<double> doorbells_per_packet;  // all doorbells per RX + TX packet
    std::optional<double> nobuf_drops_per_s;
    std::optional<std::uint32_t> rx_posted;
    std::optional<std::uint32_t> tx_inflight;
    std::optional<std::uint32_t> rx_device;
    std::optional<std::uint32_t> rx_to_reap;
    std::optional<std::uint32_t> tx_device;
    std::optional<std::uint32_t> tx_to_reap;
    std::optional<std::uint64_t> page_pool_inflight;
    bool devmem = false;
    bool bypass = false;
};

struct PortRates {
    std::uint32_t ifindex = 0;
    std::string ifname;
    std::vector<QueueRates> queues;
};

struct Frame {
    std::uint64_t interval_ns = 0;
    std::vector<PortRates> ports;
};

// The frame between two samples. A port or queue in `now` but not in `before` (it appeared)
// gets its gauges and no rates; a counter that went backwards (a port recreated under the same
// ifindex) gives no rate.
[[nodiscard]] Frame make_frame(const Sample& before, const Sample& now);

// `clock` is the wall-clock time the text header shows ("12:00:01").
[[nodiscard]] std::string frame_text(const Frame& frame, const std::string& clock);
// {"interval_ns":..., "ports":[{"ifindex":..., "ifname":..., "queues":[{...}]}]}, derived
// values null when undefined (docs/cli.md, "JSON").
[[nodiscard]] tool_cli::Json frame_json(const Frame& frame);

// I/O (top_sample.cpp): samples of every refnic port in this namespace, or of the one named,
// over sockets kept for the whole run.
class Sampler {
public:
    Sampler();
    Sampler(const Sampler&) = delete;
    Sampler& operator=(const Sampler&) = delete;
    Sampler(Sampler&&) = delete;
    Sampler& operator=(Sampler&&) = delete;
    ~Sampler();

    [[nodiscard]] Sample take(const std::optional<std::uint32_t>& ifindex);

private:
    struct Clients;
    std::unique_ptr<Clients> clients_;
};

// The device port `name` sits on ("refnic.3"), as ETHTOOL_GDRVINFO's bus_info names it from this
// namespace (top_sample.cpp); empty when it cannot be asked. Its driver debugfs directory is
// /sys/kernel/debug/refnic/drv-<it>.
[[nodiscard]] std::string port_bus(const std::string& name);

}  // namespace refnic::refnicctl
