/* SPDX-License-Identifier: LGPL-2.1-only OR BSD-2-Clause */
// The refnic generic netlink family (uapi/refnic.yaml): refnic device pairs and the device model
// behind them — the link model, the host bus model, the model's counters, fault injection — and
// its "monitor" multicast group. Every failure is thrown as refnic::Error; a kernel refusal
// carries the kernel's extack message and names the offending attribute (Extack::attr_name).
#pragma once

#include <refnic/error.hpp>
#include <refnic/export.hpp>
#include <refnic/genl.hpp>
#include <refnic/netlink.hpp>
#include <refnic/types.hpp>

#include <chrono>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace refnic::control {

// The family's name and the version librefnic speaks (REFNIC_FAMILY_NAME/_VERSION).
inline constexpr std::string_view family_name = "refnic";
inline constexpr std::uint8_t family_version = 1;
inline constexpr std::string_view monitor_group = "monitor";

// Limits of the family (REFNIC_QUEUES_MAX, REFNIC_RING_MIN/MAX, REFNIC_LATENCY_MAX,
// REFNIC_PPM_MAX, REFNIC_BUS_NS_MAX); the kernel enforces them, these let callers check first.
inline constexpr std::uint32_t queues_max = 16;
inline constexpr std::uint32_t ring_min = 64;
inline constexpr std::uint32_t ring_max = 4096;
inline constexpr std::uint32_t latency_max_us = 10'000'000;
inline constexpr std::uint32_t ppm_max = 1'000'000;
inline constexpr std::uint32_t bus_ns_max = 100'000;  // Bus::read_ns and remote_ns, 100 us
// Bus::node of a card that hangs off no NUMA node.
inline constexpr std::int32_t bus_node_none = -1;

// The link model of a port (the wire leaving it). In a reply every field the kernel sent is set;
// in link_set() only the fields that are set are changed.
struct Link {
    std::optional<bool> carrier;            // The port's PHY sees a signal.
    std::optional<std::uint64_t> rate_bps;  // Egress rate limit, bit/s; 0 is unlimited.
    std::optional<std::uint32_t> latency_us;
    std::optional<std::uint32_t> loss_ppm;  // Frames lost at random, per million.

    friend bool operator==(const Link&, const Link&) = default;
};

// The host bus (PCIe) cost model of a port's card, shared by its two ports: what register reads,
// DMA bandwidth and crossing NUMA nodes cost; the costs run from 0 to bus_ns_max. Off while
// read_ns, gen and remote_ns are 0. In a reply every field the kernel sent is set; in bus_set()
// only the fields that are set are changed. The kernel refuses (with an extack message) a gen
// other than 0, 3, 4 or 5, lanes that are not a power of two, a node that is not online, and
// callers without CAP_NET_ADMIN in the initial user namespace.
struct Bus {
    std::optional<std::uint32_t> read_ns;    // A register read's round trip, ns.
    std::optional<std::uint32_t> gen;        // PCIe generation capping DMA: 3, 4, 5; 0 no cap.
    std::optional<std::uint32_t> lanes;      // Width of that link: 1, 2, 4, 8 or 16.
    std::optional<std::int32_t> node;        // NUMA node the card hangs off, or bus_node_none.
    std::optional<std::uint32_t> remote_ns;  // What crossing to another node costs, ns.

    friend bool operator==(const Bus&, const Bus&) = default;
};

// The bus model's counters of a card since it was plugged in, counted while the model is on;
// counters the kernel did not send are zero.
struct BusCounters {
    std::uint64_t reads = 0;            // Register reads charged.
    std::uint64_t remote_reads = 0;     // Of those, by a CPU of another node than the card's.
    std::uint64_t read_charged_ns = 0;  // CPU time register reads were made to wait.
    std::uint64_t writes = 0;           // Register writes (posted: charged nothing).
    std::uint64_t dma_tlps = 0;         // DMA transactions, TLPs of at most 256 bytes.
    std::uint64_t dma_bytes = 0;        // Bytes on the link, TLP overhead included.
    std::uint64_t dma_remote_tlps = 0;  // Transactions to memory of another node.
    std::uint64_t dma_charged_ns = 0;   // Link time of the DMA traffic, remote costs included.
    std::uint64_t dma_throttled = 0;    // Times a TX queue waited for the link's bandwidth.
    // Time the reading CPUs actually spent waiting in register reads, by the kernel's clock: at
    // least read_charged_ns.
    std::uint64_t read_waited_ns = 0;

    friend bool operator==(const BusCounters&, const BusCounters&) = default;
};

// One port of a pair, as dev_get/dev_dump/dev_new and the monitor's device events report it.
struct Device {
    std::uint32_t ifindex = 0;  // In the namespace of the socket that asked.
    std::string name;
    std::optional<std::uint32_t> peer_ifindex;  // In the peer's own namespace.
    std::optional<std::string> peer_name;
    std::optional<std::int32_t> peer_netnsid;  // Absent when both ports share a namespace.
    std::optional<std::uint32_t> queues;
    std::optional<std::uint32_t> rx_ring_size;
    std::optional<std::uint32_t> tx_ring_size;
    std::optional<std::uint32_t> card;  // The parent device is refnic.<card>...
    std::optional<std::uint32_t> port;  // ... and this is port 0 or 1 of it.
    Link link;
    // The card's bus model and its counters; all unset and zero from a kernel without one.
    Bus bus;
    BusCounters bus_counters;

    friend bool operator==(const Device&, const Device&) = default;
};

// dev_new(): everything left unset is the kernel's choice (names refnic%d, the caller's network
// namespace, the default queue count and ring sizes).
struct NewDevice {
    std::optional<std::string> name;
    std::optional<std::string> peer_name;
    // Borrowed descriptors of network namespaces (see refnic::open_netns()); the caller keeps
    // them open until dev_new() returns.
    std::optional<int> netns_fd;
    std::optional<int> peer_netns_fd;
    std::optional<std::uint32_t> queues;
    std::optional<std::uint32_t> rx_ring_size;  // Powers of two in [ring_min, ring_max].
    std::optional<std::uint32_t> tx_ring_size;

    friend bool operator==(const NewDevice&, const NewDevice&) = default;
};

// Device model counters of one queue since the card was created; counters the kernel did not
// send are zero.
struct QueueStats {
    QueueType type = QueueType::rx;
    std::uint32_t id = 0;
    std::uint64_t mmio_reads = 0;
    std::uint64_t mmio_writes = 0;
    std::uint64_t doorbells = 0;     // Tail register writes.
    std::uint64_t cq_doorbells = 0;  // RX completion queue head writes.
    std::uint64_t desc_fetched = 0;
    std::uint64_t desc_written = 0;
    std::uint64_t frames = 0;
    std::uint64_t dma_read_bytes = 0;
    std::uint64_t dma_write_bytes = 0;
    std::uint64_t drop_nobuf = 0;
    std::uint64_t drop_cq_full = 0;
    std::uint64_t busy_ns = 0;
    std::uint64_t irq_raised = 0;
    std::uint64_t irq_masked = 0;
    std::uint64_t irq_moderated = 0;

    friend bool operator==(const QueueStats&, const QueueStats&) = default;
};

// Device model counters of one port, with its queues in the order the kernel sent them.
struct PortStats {
    std::uint32_t ifindex = 0;
    std::uint64_t mmio_reads = 0;
    std::uint64_t mmio_writes = 0;
    std::uint64_t mmio_bad = 0;
    std::uint64_t resets = 0;
    std::uint64_t link_drop_loss = 0;
    std::uint64_t link_drop_down = 0;
    std::vector<QueueStats> queues;

    friend bool operator==(const PortStats&, const PortStats&) = default;
};

// Faults the device model can inject (enum refnic_fault).
enum class Fault : std::uint32_t {
    drop_completion = 0,
    corrupt_dma_addr = 1,
    stall_txq = 2,
    fail_alloc = 3,
    wedge_txq = 4,
    gro_bad_len = 5,
    stall_rxq = 6,
    lose_irq = 7,
};

// The spec's names: "drop-completion", "corrupt-dma-addr", "stall-txq", "fail-alloc",
// "wedge-txq", "gro-bad-len", "stall-rxq", "lose-irq"; "unknown" for values a newer kernel
// might add.
[[nodiscard]] REFNIC_EXPORT std::string_view to_string(Fault fault) noexcept;
[[nodiscard]] REFNIC_EXPORT std::optional<Fault> parse_fault(std::string_view name) noexcept;

// fault_set(): arm with a rate (events per million, until cleared) or a count (the next N
// events, then disarm); with neither, the fault is cleared.
struct FaultSetting {
    Fault type = Fault::drop_completion;
    std::uint32_t queue = 0;
    std::optional<std::uint32_t> rate_ppm;
    std::optional<std::uint32_t> count;

    friend bool operator==(const FaultSetting&, const FaultSetting&) = default;
};

// A fault armed or taken on a port's queue, as fault_get() and the monitor report it.
struct FaultStatus {
    std::uint32_t ifindex = 0;
    Fault type = Fault::drop_completion;
    std::uint32_t queue = 0;
    std::optional<std::uint32_t> rate_ppm;
    std::optional<std::uint32_t> count;
    std::uint64_t injected = 0;  // Times the fault took effect since the device was created.

    friend bool operator==(const FaultStatus&, const FaultStatus&) = default;
};

// A notification of the "monitor" group.
enum class EventType : std::uint8_t {
    dev_added,     // REFNIC_CMD_DEV_ADD_NTF: a port appeared
    dev_deleted,   // REFNIC_CMD_DEV_DEL_NTF: a port is going away
    link_changed,  // REFNIC_CMD_LINK_CHANGE_NTF: link model or link state changed
    fault,         // REFNIC_CMD_FAULT_NTF: a fault was armed, cleared or took effect
};

// "dev-added", "dev-deleted", "link-changed", "fault".
[[nodiscard]] REFNIC_EXPORT std::string_view to_string(EventType type) noexcept;

struct Event {
    EventType type = EventType::dev_added;
    std::variant<Device, FaultStatus> object;  // FaultStatus for EventType::fault only.

    [[nodiscard]] const Device* device() const noexcept { return std::get_if<Device>(&object); }
    [[nodiscard]] const FaultStatus* fault() const noexcept {
        return std::get_if<FaultStatus>(&object);
    }

    friend bool operator==(const Event&, const Event&) = default;
};

// --- Encoding and decoding, separate from the socket so they can be checked offline ---------
// Dump requests get NLM_F_DUMP from Socket::dump(); all flags are left to the socket.

[[nodiscard]] REFNIC_EXPORT nl::MessageBuilder make_dev_get_request(std::uint16_t family_id,
                                                                    std::uint32_t ifindex);
[[nodiscard]] REFNIC_EXPORT nl::MessageBuilder make_dev_dump_request(std::uint16_t family_id);
[[nodiscard]] REFNIC_EXPORT nl::MessageBuilder make_dev_new_request(std::uint16_t family_id,
                                                                    const NewDevice& options);
[[nodiscard]] REFNIC_EXPORT nl::MessageBuilder make_dev_del_request(std::uint16_t family_id,
                                                                    std::uint32_t ifindex);
[[nodiscard]] REFNIC_EXPORT nl::MessageBuilder make_link_set_request(std::uint16_t family_id,
                                                                     std::uint32_t ifindex,
                                                                     const Link& link);
[[nodiscard]] REFNIC_EXPORT nl::MessageBuilder make_bus_set_request(std::uint16_t family_id,
                                                                    std::uint32_t ifindex,
                                                                    const Bus& bus);
[[nodiscard]] REFNIC_EXPORT nl::MessageBuilder make_stats_get_request(std::uint16_t family_id,
                                                                      std::uint32_t ifindex);
[[nodiscard]] REFNIC_EXPORT nl::MessageBuilder make_stats_dump_request(std::uint16_t family_id);
[[nodiscard]] REFNIC_EXPORT nl::MessageBuilder make_fault_set_request(std::uint16_t family_id,
                                                                      std::uint32_t ifindex,
                                                                      const FaultSetting& setting);
// A dump, of one port's faults or (without ifindex) of every port's.
[[nodiscard]] REFNIC_EXPORT nl::MessageBuilder make_fault_get_request(
    std::uint16_t family_id, std::optional<std::uint32_t> ifindex);

// Decoders; unknown attributes are skipped so newer kernels keep working, a missing ifindex or
// a wrongly sized attribute is Error(EBADMSG), another command Error(EPROTO).
[[nodiscard]] REFNIC_EXPORT Device parse_device(const nl::MessageView& message);
[[nodiscard]] REFNIC_EXPORT PortStats parse_port_stats(const nl::MessageView& message);
[[nodiscard]] REFNIC_EXPORT FaultStatus parse_fault_status(const nl::MessageView& message);
// A monitor notification; std::nullopt for commands this version does not know.
[[nodiscard]] REFNIC_EXPORT std::optional<Event> parse_event(const nl::MessageView& message);

// The attribute `path` (outermost first) of a request for `cmd`, named as in the spec, e.g.
// {REFNIC_A_DEV_LINK, REFNIC_A_LINK_RATE} for REFNIC_CMD_LINK_SET is "link.rate"; empty if
// unknown. Used to name the attribute an extack points at.
[[nodiscard]] REFNIC_EXPORT std::string attribute_name(std::uint8_t cmd,
                                                       const std::vector<std::uint16_t>& path);

// A kernel error for `request` with Extack::attr_name and Extack::missing_attr_name filled in,
// e.g. "dev.queues" (what Client does for every error it throws).
[[nodiscard]] REFNIC_EXPORT Error name_attributes(const Error& error,
                                                  const nl::MessageBuilder& request);

// --- Talking to the kernel ------------------------------------------------------------------

// Whether the kernel has the refnic family (is refnic.ko loaded?), in this network namespace's
// view; false only on ENOENT, other failures throw.
[[nodiscard]] REFNIC_EXPORT bool family_available();

// An interface name, or a decimal ifindex, in the caller's network namespace, as an ifindex.
// Throws Error(ENODEV) naming it when there is no such device.
[[nodiscard]] REFNIC_EXPORT std::uint32_t resolve_ifindex(std::string_view name_or_index);

// A generic netlink socket bound to the refnic family. Requests act in the socket's network
// namespace (that of the thread that created it).
class REFNIC_EXPORT Client {
public:
    // Throws Error(ENOENT) (from_kernel), "the refnic generic netlink family is not registered;
    // load the refnic module: ...", if the family is not registered; so does Monitor().
    Client();

    [[nodiscard]] Device dev_get(std::uint32_t ifindex);
    [[nodiscard]] std::vector<Device> dev_dump();
    // Creates a pair and returns the first port (the one named by options.name).
    Device dev_new(const NewDevice& options);
    // Deletes the pair the port belongs to.
    void dev_del(std::uint32_t ifindex);
    void link_set(std::uint32_t ifindex, const Link& link);
    // Sets the bus model of the card the port belongs to (both ports).
    void bus_set(std::uint32_t ifindex, const Bus& bus);
    [[nodiscard]] PortStats stats_get(std::uint32_t ifindex);
    [[nodiscard]] std::vector<PortStats> stats_dump();
    void fault_set(std::uint32_t ifindex, const FaultSetting& setting);
    // Clears a fault: fault_set() with neither rate nor count.
    void fault_clear(std::uint32_t ifindex, Fault type, std::uint32_t queue);
    // The faults armed or taken on one port, or on all.
    [[nodiscard]] std::vector<FaultStatus> fault_get(
        std::optional<std::uint32_t> ifindex = std::nullopt);

    [[nodiscard]] const nl::Family& family() const noexcept { return client_.family(); }

private:
    nl::GenlClient client_;
};

// A subscription to the "monitor" group on a socket of its own, iterated one event at a time:
//   control::Monitor monitor;
//   while (auto event = monitor.next()) { ... }
// Throws Error(ENOBUFS) from next() when the kernel dropped notifications because they were
// not read fast enough; the subscription stays usable.
class REFNIC_EXPORT Monitor {
public:
    Monitor();

    // The next event, waiting at most `timeout` (forever without one); std::nullopt when the
    // timeout expires first. Notifications this version does not know are skipped.
    [[nodiscard]] std::optional<Event> next(
        std::optional<std::chrono::milliseconds> timeout = std::nullopt);
    // For poll()/epoll integration: readable when next() has something to read.
    [[nodiscard]] int fd() const noexcept { return client_.socket().fd(); }
    [[nodiscard]] bool has_pending() const noexcept { return !pending_.empty(); }

private:
    nl::GenlClient client_;
    std::deque<Event> pending_;
};

}  // namespace refnic::control
