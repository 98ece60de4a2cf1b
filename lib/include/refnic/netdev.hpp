/* SPDX-License-Identifier: LGPL-2.1-only OR BSD-2-Clause */
// The parts of the kernel's "netdev" generic netlink family (Linux 6.12,
// Documentation/netlink/specs/netdev.yaml) that matter with refnic: queues, NAPI instances,
// per-queue stats (qstats), page pools, and binding a dmabuf to RX queues for devmem TCP.
// Debian 12's uapi headers (6.1) predate most of this family, so librefnic carries the 6.12
// numbering itself; nothing here needs <linux/netdev.h>.
#pragma once

#include <refnic/error.hpp>
#include <refnic/export.hpp>
#include <refnic/genl.hpp>
#include <refnic/netlink.hpp>
#include <refnic/types.hpp>

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace refnic::netdev {

inline constexpr std::string_view family_name = "netdev";
inline constexpr std::uint8_t family_version = 1;

// NETDEV_CMD_QUEUE_GET: a queue the driver has configured.
struct Queue {
    std::uint32_t ifindex = 0;
    QueueType type = QueueType::rx;
    std::uint32_t id = 0;
    std::optional<std::uint32_t> napi_id;
    std::optional<std::uint32_t> dmabuf;  // Binding id of a dmabuf bound to this RX queue.

    friend bool operator==(const Queue&, const Queue&) = default;
};

// NETDEV_CMD_NAPI_GET.
struct Napi {
    std::uint32_t id = 0;
    std::uint32_t ifindex = 0;
    std::optional<std::uint32_t> irq;
    std::optional<std::uint32_t> pid;  // Of the threaded-NAPI kthread, if threaded.

    friend bool operator==(const Napi&, const Napi&) = default;
};

// NETDEV_A_QSTATS_SCOPE: one record per device (0, no scope attribute) or per queue.
enum class QstatsScope : std::uint8_t {
    device,
    queue,
};

// NETDEV_CMD_QSTATS_GET: each counter is present only if the driver reports it.
struct Qstats {
    std::uint32_t ifindex = 0;
    std::optional<QueueType> queue_type;  // Set in per-queue records.
    std::optional<std::uint32_t> queue_id;
    std::optional<std::uint64_t> rx_packets;
    std::optional<std::uint64_t> rx_bytes;
    std::optional<std::uint64_t> tx_packets;
    std::optional<std::uint64_t> tx_bytes;
    std::optional<std::uint64_t> rx_alloc_fail;
    std::optional<std::uint64_t> rx_hw_drops;
    std::optional<std::uint64_t> rx_hw_drop_overruns;
    std::optional<std::uint64_t> rx_csum_complete;
    std::optional<std::uint64_t> rx_csum_unnecessary;
    std::optional<std::uint64_t> rx_csum_none;
    std::optional<std::uint64_t> rx_csum_bad;
    std::optional<std::uint64_t> rx_hw_gro_packets;
    std::optional<std::uint64_t> rx_hw_gro_bytes;
    std::optional<std::uint64_t> rx_hw_gro_wire_packets;
    std::optional<std::uint64_t> rx_hw_gro_wire_bytes;
    std::optional<std::uint64_t> rx_hw_drop_ratelimits;
    std::optional<std::uint64_t> tx_hw_drops;
    std::optional<std::uint64_t> tx_hw_drop_errors;
    std::optional<std::uint64_t> tx_csum_none;
    std::optional<std::uint64_t> tx_needs_csum;
    std::optional<std::uint64_t> tx_hw_gso_packets;
    std::optional<std::uint64_t> tx_hw_gso_bytes;
    std::optional<std::uint64_t> tx_hw_gso_wire_packets;
    std::optional<std::uint64_t> tx_hw_gso_wire_bytes;
    std::optional<std::uint64_t> tx_hw_drop_ratelimits;
    std::optional<std::uint64_t> tx_stop;
    std::optional<std::uint64_t> tx_wake;

    friend bool operator==(const Qstats&, const Qstats&) = default;
};

// NETDEV_CMD_PAGE_POOL_GET.
struct PagePool {
    std::uint64_t id = 0;
    std::optional<std::uint32_t> ifindex;  // 0 once its netdev is gone.
    std::optional<std::uint64_t> napi_id;
    std::optional<std::uint64_t> inflight;  // Pages handed out and not yet returned.
    std::optional<std::uint64_t> inflight_mem;
    std::optional<std::uint64_t> detach_time;  // CLOCK_BOOTTIME seconds; set once detached.
    std::optional<std::uint32_t> dmabuf;

    friend bool operator==(const PagePool&, const PagePool&) = default;
};

// --- Encoding and decoding ------------------------------------------------------------------

[[nodiscard]] REFNIC_EXPORT nl::MessageBuilder make_queue_get_request(std::uint16_t family_id,
                                                                      std::uint32_t ifindex,
                                                                      QueueType type,
                                                                      std::uint32_t id);
// Dumps take an optional ifindex filter.
[[nodiscard]] REFNIC_EXPORT nl::MessageBuilder make_queue_dump_request(
    std::uint16_t family_id, std::optional<std::uint32_t> ifindex);
[[nodiscard]] REFNIC_EXPORT nl::MessageBuilder make_napi_get_request(std::uint16_t family_id,
                                                                     std::uint32_t id);
[[nodiscard]] REFNIC_EXPORT nl::MessageBuilder make_napi_dump_request(
    std::uint16_t family_id, std::optional<std::uint32_t> ifindex);
// qstats-get exists only as a dump.
[[nodiscard]] REFNIC_EXPORT nl::MessageBuilder make_qstats_request(
    std::uint16_t family_id, std::optional<std::uint32_t> ifindex, QstatsScope scope);
[[nodiscard]] REFNIC_EXPORT nl::MessageBuilder make_page_pool_get_request(std::uint16_t family_id,
                                                                          std::uint64_t id);
[[nodiscard]] REFNIC_EXPORT nl::MessageBuilder make_page_pool_dump_request(std::uint16_t family_id);
// NETDEV_CMD_BIND_RX: one NETDEV_A_DMABUF_QUEUES nest {id, type rx} per RX queue.
[[nodiscard]] REFNIC_EXPORT nl::MessageBuilder make_bind_rx_request(
    std::uint16_t family_id, std::uint32_t ifindex, int dmabuf_fd,
    std::span<const std::uint32_t> rx_queues);

// NETDEV_CMD_BIND_TX (Linux 6.16 and later): the dmabuf, for sending from, to the device.
[[nodiscard]] REFNIC_EXPORT nl::MessageBuilder make_bind_tx_request(std::uint16_t family_id,
                                                                    std::uint32_t ifindex,
                                                                    int dmabuf_fd);

[[nodiscard]] REFNIC_EXPORT Queue parse_queue(const nl::MessageView& message);
[[nodiscard]] REFNIC_EXPORT Napi parse_napi(const nl::MessageView& message);
[[nodiscard]] REFNIC_EXPORT Qstats parse_qstats(const nl::MessageView& message);
[[nodiscard]] REFNIC_EXPORT PagePool parse_page_pool(const nl::MessageView& message);
// The binding id (NETDEV_A_DMABUF_ID) of a bind-rx reply.
[[nodiscard]] REFNIC_EXPORT std::uint32_t parse_bind_rx_reply(const nl::MessageView& message);
// The binding id of a bind-tx reply.
[[nodiscard]] REFNIC_EXPORT std::uint32_t parse_bind_tx_reply(const nl::MessageView& message);

// A kernel error for `request` with the offending or missing attribute named, e.g.
// "dmabuf.fd" (what Client and DmabufBinding do for every error they throw).
[[nodiscard]] REFNIC_EXPORT Error name_attributes(const Error& error,
                                                  const nl::MessageBuilder& request);

// --- Talking to the kernel ------------------------------------------------------------------

// A generic netlink socket bound to the netdev family.
class REFNIC_EXPORT Client {
public:
    // Throws Error(ENOENT) (from_kernel) on kernels without the netdev family.
    Client();

    [[nodiscard]] Queue queue_get(std::uint32_t ifindex, QueueType type, std::uint32_t id);
    [[nodiscard]] std::vector<Queue> queue_dump(
        std::optional<std::uint32_t> ifindex = std::nullopt);
    [[nodiscard]] Napi napi_get(std::uint32_t id);
    [[nodiscard]] std::vector<Napi> napi_dump(std::optional<std::uint32_t> ifindex = std::nullopt);
    [[nodiscard]] std::vector<Qstats> qstats_dump(
        std::optional<std::uint32_t> ifindex = std::nullopt,
        QstatsScope scope = QstatsScope::queue);
    [[nodiscard]] PagePool page_pool_get(std::uint64_t id);
    [[nodiscard]] std::vector<PagePool> page_pool_dump();

    [[nodiscard]] const nl::Family& family() const noexcept { return client_.family(); }

private:
    nl::GenlClient client_;
};

// A dmabuf bound to RX queues of a device (devmem TCP), or to a device for sending from (devmem
// TX). The kernel keeps the binding for as long as the netlink socket that made it stays open, so
// the binding owns that socket: destroying or reset()ting the object unbinds. Move-only.
class REFNIC_EXPORT DmabufBinding {
public:
    // Binds `dmabuf_fd` (borrowed: the kernel takes its own reference) to `rx_queues` of
    // `ifindex` on a new socket. Needs CAP_NET_ADMIN; the queues must be idle of other memory
    // providers, and the driver must support it, or the kernel's extack says why not.
    [[nodiscard]] static DmabufBinding bind_rx(std::uint32_t ifindex, int dmabuf_fd,
                                               std::span<const std::uint32_t> rx_queues);
    // Binds `dmabuf_fd` to `ifindex` for sending (Linux 6.16 and later; no capability needed):
    // devmem::Sender sends from it. The kernel refuses with EOPNOTSUPP and "Driver does not
    // support netmem TX" where the device cannot.
    [[nodiscard]] static DmabufBinding bind_tx(std::uint32_t ifindex, int dmabuf_fd);

    DmabufBinding(const DmabufBinding&) = delete;
    DmabufBinding& operator=(const DmabufBinding&) = delete;
    DmabufBinding(DmabufBinding&& other) noexcept;
    DmabufBinding& operator=(DmabufBinding&& other) noexcept;
    ~DmabufBinding();

    // The binding id, as netdev queue-get and page-pool-get report it (NETDEV_A_*_DMABUF).
    [[nodiscard]] std::uint32_t id() const noexcept { return id_; }
    [[nodiscard]] std::uint32_t ifindex() const noexcept { return ifindex_; }
    // Empty for a TX binding.
    [[nodiscard]] const std::vector<std::uint32_t>& rx_queues() const noexcept {
        return rx_queues_;
    }
    // False once reset() or moved from.
    [[nodiscard]] bool bound() const noexcept { return client_.has_value(); }
    // Closes the socket now: the kernel unbinds the dmabuf.
    void reset() noexcept;

private:
    DmabufBinding(nl::GenlClient client, std::uint32_t id, std::uint32_t ifindex,
                  std::vector<std::uint32_t> rx_queues);

    std::optional<nl::GenlClient> client_;
    std::uint32_t id_ = 0;
    std::uint32_t ifindex_ = 0;
    std::vector<std::uint32_t> rx_queues_;
};

}  // namespace refnic::netdev
