// SPDX-License-Identifier: GPL-2.0-only
// refnicctl top's samples (top.hpp): each counter read where a user of a real NIC reads it.
//   - the refnic family: the ports, and the device's doorbells and no-buffer drops;
//   - netdev netlink: per-queue qstats, the queues' NAPI ids and dmabuf bindings, and page
//     pools (pages in flight; the netdev family asks CAP_NET_ADMIN for page pools, so without
//     it the column stays empty);
//   - ethtool -S (ETHTOOL_GSTRINGS/GSTATS ioctls: the ethtool netlink family carries no
//     driver-defined counters): the driver's interrupts and NAPI polls;
//   - the driver's debugfs "rings" (root only): ring positions.
#include "ring.hpp"
#include "top.hpp"

#include <refnic/control.hpp>
#include <refnic/error.hpp>
#include <refnic/fd.hpp>
#include <refnic/netdev.hpp>

#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string_view>
#include <utility>

namespace refnic::refnicctl {

namespace {

std::uint64_t monotonic_ns() {
    timespec ts{};
    ::clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000U +
           static_cast<std::uint64_t>(ts.tv_nsec);
}

// One SIOCETHTOOL request on `name`; false when the device is gone or refuses.
bool ethtool_ioctl(int fd, const std::string& name, void* data) {
    ifreq ifr{};
    std::strncpy(ifr.ifr_name, name.c_str(), IFNAMSIZ - 1);
    ifr.ifr_data = static_cast<char*>(data);
    return ::ioctl(fd, SIOCETHTOOL, &ifr) == 0;
}

// The kernel answers GSTRINGS and GSTATS with as many entries as the driver has at that moment,
// whatever the request said: a channel change between the calls would write past a buffer sized
// by GSSET_INFO. So the buffers have room for this many more, and a count that differs from the
// one asked for is asked again.
constexpr std::size_t stats_headroom = 4096;

// ethtool -S of `name`, by counter name; empty when it cannot be read.
std::map<std::string, std::uint64_t> driver_stats(int fd, const std::string& name) {
    std::map<std::string, std::uint64_t> stats;
    for (int attempt = 0; attempt < 3; ++attempt) {
        // struct ethtool_sset_info and the one count it returns in data[].
        std::array<std::uint8_t, sizeof(ethtool_sset_info) + sizeof(std::uint32_t)> sset{};
        ethtool_sset_info info{};
        info.cmd = ETHTOOL_GSSET_INFO;
        info.sset_mask = 1ULL << ETH_SS_STATS;
        std::memcpy(sset.data(), &info, sizeof(info));
        if (!ethtool_ioctl(fd, name, sset.data())) {
            return stats;
        }
        std::memcpy(&info, sset.data(), sizeof(info));
        std::uint32_t n = 0;
        std::memcpy(&n, sset.data() + sizeof(info), sizeof(n));
        if (info.sset_mask == 0 || n == 0) {
            return stats;
        }
        const std::size_t room = n + stats_headroom;
        std::vector<std::uint8_t> strings(sizeof(ethtool_gstrings) + room * ETH_GSTRING_LEN);
        ethtool_gstrings gstrings{};
        gstrings.cmd = ETHTOOL_GSTRINGS;
        gstrings.string_set = ETH_SS_STATS;
        gstrings.len = n;
        std::memcpy(strings.data(), &gstrings, sizeof(gstrings));
        std::vector<std::uint8_t> values(sizeof(ethtool_stats) + room * sizeof(std::uint64_t));
        ethtool_stats gstats{};
        gstats.cmd = ETHTOOL_GSTATS;
        gstats.n_stats = n;
        std::memcpy(values.data(), &gstats, sizeof(gstats));
        if (!ethtool_ioctl(fd, name, strings.data()) || !ethtool_ioctl(fd, name, values.data())) {
            return stats;
        }
        std::memcpy(&gstrings, strings.data(), sizeof(gstrings));
        std::memcpy(&gstats, values.data(), sizeof(gstats));
        if (gstrings.len != n || gstats.n_stats != n) {
            continue;  // the driver's count changed under us
        }
        const std::size_t count = n;
        for (std::size_t i = 0; i < count; ++i) {
            const char* key = reinterpret_cast<const char*>(strings.data()) +
                              sizeof(ethtool_gstrings) + i * ETH_GSTRING_LEN;
            std::uint64_t value = 0;
            std::memcpy(&value, values.data() + sizeof(ethtool_stats) + i * sizeof(value),
                        sizeof(value));
            stats[std::string(key, ::strnlen(key, ETH_GSTRING_LEN))] = value;
        }
        return stats;
    }
    return stats;
}

// The device a port's netdev sits on ("refnic.3"): ETHTOOL_GDRVINFO's bus_info, asked on the
// current namespace's socket (unlike /sys/class/net, which shows the namespace sysfs was mounted
// in).
std::string bus_info(int fd, const std::string& name) {
    ethtool_drvinfo info{};
    info.cmd = ETHTOOL_GDRVINFO;
    if (!ethtool_ioctl(fd, name, &info)) {
        return {};
    }
    return {info.bus_info, ::strnlen(info.bus_info, sizeof(info.bus_info))};
}

std::optional<std::uint64_t> lookup(const std::map<std::string, std::uint64_t>& stats,
                                    const std::string& key) {
    const auto it = stats.find(key);
    return it == stats.end() ? std::nullopt : std::optional<std::uint64_t>(it->second);
}

// What the driver's debugfs "rings" says of one queue pair.
struct RingGauges {
    std::optional<std::uint32_t> rx_posted;    // RX buffers posted, not yet given back
    std::optional<std::uint32_t> tx_inflight;  // TX descriptors not yet reclaimed
    bool bypass = false;                       // a kernel-bypass session holds the pair
};

// The driver's debugfs "rings" of the port `name` on device `bus`, by queue. Empty when not
// readable (not root, no debugfs, debugfs hidden by `ip netns exec`) or when the file is another
// port's.
std::map<std::uint32_t, RingGauges> ring_gauges(const std::string& bus, const std::string& name) {
    std::map<std::uint32_t, RingGauges> rings;
    if (bus.empty()) {
        return rings;
    }
    std::ifstream file("/sys/kernel/debug/refnic/drv-" + bus + "/rings");
    std::string first;
    // "NAME: N queue pairs, running R"
    if (!std::getline(file, first) || first.rfind(name + ":", 0) != 0) {
        return rings;
    }
    std::string line;
    while (std::getline(file, line)) {
        std::istringstream words(line);
        std::string what;
        words >> what;
        std::map<std::string, std::uint32_t> fields;
        std::string key;
        std::uint32_t value = 0;
        while (words >> key >> value) {
            fields[key] = value;
        }
        const auto queue = [&what](std::size_t prefix) {
            return static_cast<std::uint32_t>(std::stoul(what.substr(prefix)));
        };
        // Indices are free-running u32: their difference is the occupancy.
        if (what.rfind("rxq", 0) == 0 && fields.contains("ntu") && fields.contains("ntc")) {
            rings[queue(3)].rx_posted = fields["ntu"] - fields["ntc"];
        } else if (what.rfind("txq", 0) == 0 && fields.contains("tail") &&
                   fields.contains("head")) {
            rings[queue(3)].tx_inflight = fields["tail"] - fields["head"];
        } else if (what.rfind("bypass", 0) == 0 && what.size() > 6) {
            // "bypassN whole_port W": a session holds the pair
            rings[queue(6)].bypass = true;
        }
    }
    return rings;
}

QueueSample* queue_of(PortSample& port, std::uint32_t q) {
    return q < port.queues.size() ? &port.queues[q] : nullptr;
}

// Each ring's owners (driver debugfs ring_rx, ring_tx): what the device owns and what waits for
// the driver. Left unknown where the files cannot be read or are another port's.
void ring_owners(PortSample& port, const std::string& bus, const std::string& name) {
    if (bus.empty()) {
        return;
    }
    for (const bool rx : {true, false}) {
        RingDump dump;
        try {
            dump = read_ring_dump(bus, name, rx ? "rx" : "tx");
        } catch (const std::runtime_error&) {
            continue;
        }
        for (const Ring& ring : dump.rings) {
            QueueSample* sample = queue_of(port, ring.queue);
            if (sample == nullptr) {
                continue;
            }
            const OwnerCounts owners = count_owners(ring);
            (rx ? sample->rx_device : sample->tx_device) = owners.device;
            (rx ? sample->rx_to_reap : sample->tx_to_reap) = owners.consumed;
        }
    }
}

// The device's counters (refnic family) and the driver's (ethtool -S): the counters that rates
// are made of, read one right after the other.
void counters(PortSample& port, control::Client& control, int fd, const control::Device& device) {
    const control::PortStats hw = control.stats_get(device.ifindex);
    for (const control::QueueStats& stats : hw.queues) {
        QueueSample* sample = queue_of(port, stats.id);
        if (sample == nullptr) {
            continue;
        }
        const std::uint64_t doorbells =
            stats.doorbells + (stats.type == QueueType::rx ? stats.cq_doorbells : 0);
        sample->doorbells = sample->doorbells.value_or(0) + doorbells;
        if (stats.type == QueueType::rx) {
            sample->nobuf_drops = stats.drop_nobuf;
        }
    }
    const auto driver = driver_stats(fd, device.name);
    for (QueueSample& sample : port.queues) {
        const std::string q = std::to_string(sample.queue);
        sample.irqs = lookup(driver, "q" + q + "_irqs");
        sample.polls = lookup(driver, "q" + q + "_polls");
    }
}

// What the stack sees (qstats, netdev netlink).
void qstats(PortSample& port, netdev::Client& netdev, std::uint32_t ifindex) {
    for (const netdev::Qstats& stats : netdev.qstats_dump(ifindex)) {
        QueueSample* sample = stats.queue_id ? queue_of(port, *stats.queue_id) : nullptr;
        if (sample == nullptr || !stats.queue_type) {
            continue;
        }
        if (*stats.queue_type == QueueType::rx) {
            sample->rx_packets = stats.rx_packets;
            sample->rx_bytes = stats.rx_bytes;
        } else {
            sample->tx_packets = stats.tx_packets;
            sample->tx_bytes = stats.tx_bytes;
        }
    }
}

// The gauges: ring positions and bypass sessions (debugfs), dmabuf bindings and page_pool pages
// out per RX queue (page pools and queues both name their NAPI).
void gauges(PortSample& port, netdev::Client* netdev, const std::vector<netdev::PagePool>& pools,
            const std::string& bus, const control::Device& device) {
    for (const auto& [q, ring] : ring_gauges(bus, device.name)) {
        if (QueueSample* sample = queue_of(port, q)) {
            sample->rx_posted = ring.rx_posted;
            sample->tx_inflight = ring.tx_inflight;
            sample->bypass = ring.bypass;
        }
    }
    ring_owners(port, bus, device.name);
    if (netdev == nullptr) {
        return;
    }
    std::map<std::uint64_t, std::uint32_t> queue_of_napi;
    for (const netdev::Queue& q : netdev->queue_dump(device.ifindex)) {
        QueueSample* sample = queue_of(port, q.id);
        if (q.type != QueueType::rx || sample == nullptr) {
            continue;
        }
        sample->devmem = q.dmabuf.has_value();
        if (q.napi_id) {
            queue_of_napi[*q.napi_id] = q.id;
        }
    }
    for (const netdev::PagePool& pool : pools) {
        if (pool.ifindex != device.ifindex || !pool.napi_id || !pool.inflight) {
            continue;
        }
        const auto it = queue_of_napi.find(*pool.napi_id);
        if (it != queue_of_napi.end()) {
            QueueSample& sample = port.queues[it->second];
            sample.page_pool_inflight = sample.page_pool_inflight.value_or(0) + *pool.inflight;
        }
    }
}

}  // namespace

struct Sampler::Clients {
    control::Client control;
    std::optional<netdev::Client> netdev;
    UniqueFd ethtool;
};

Sampler::Sampler() : clients_(std::make_unique<Clients>()) {
    try {
        clients_->netdev.emplace();
    } catch (const Error& error) {
        if (error.errnum() != ENOENT) {
            throw;
        }
    }
    clients_->ethtool = UniqueFd(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
    if (!clients_->ethtool) {
        throw Error(errno, "socket for ethtool ioctls");
    }
}

Sampler::~Sampler() = default;

Sample Sampler::take(const std::optional<std::uint32_t>& ifindex) {
    control::Client& control = clients_->control;
    netdev::Client* netdev = clients_->netdev ? &*clients_->netdev : nullptr;
    const int fd = clients_->ethtool.get();
    std::vector<control::Device> devices;
    if (ifindex) {
        devices.push_back(control.dev_get(*ifindex));
    } else {
        devices = control.dev_dump();
    }
    // Page pools come in one dump for every device; without CAP_NET_ADMIN, none.
    std::vector<netdev::PagePool> pools;
    if (netdev != nullptr) {
        try {
            pools = netdev->page_pool_dump();
        } catch (const Error& error) {
            if (error.errnum() != EPERM) {
                throw;
            }
        }
    }
    Sample sample;
    sample.time_ns = monotonic_ns();
    for (const control::Device& device : devices) {
        PortSample port{device.ifindex, device.name, 0, {}};
        port.queues.resize(device.queues.value_or(0));
        for (std::size_t q = 0; q < port.queues.size(); ++q) {
            port.queues[q].queue = static_cast<std::uint32_t>(q);
        }
        try {
            // The counters between two clock reads: the port's time is their midpoint.
            const std::uint64_t start = monotonic_ns();
            counters(port, control, fd, device);
            if (netdev != nullptr) {
                qstats(port, *netdev, device.ifindex);
            }
            port.time_ns = start + (monotonic_ns() - start) / 2;
            gauges(port, netdev, pools, bus_info(fd, device.name), device);
        } catch (const Error& error) {
            // Deleted while sampled: gone from this frame. Anything else is an error.
            if (error.errnum() != ENODEV || ifindex) {
                throw;
            }
            continue;
        }
        sample.ports.push_back(std::move(port));
    }
    return sample;
}

std::string port_bus(const std::string& name) {
    const UniqueFd fd(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
    return fd.get() < 0 ? std::string() : bus_info(fd.get(), name);
}

}  // namespace refnic::refnicctl
