// SPDX-License-Identifier: GPL-2.0-only
#include "output.hpp"

#include "units.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <optional>
#include <string_view>
#include <utility>

namespace refnic::refnicctl {

namespace {

std::string name_or_index(const NameOf& name_of, std::uint32_t ifindex) {
    std::string name = name_of(ifindex);
    return name.empty() ? "ifindex" + std::to_string(ifindex) : name;
}

using tool_cli::Json;

// `key`: `value` in `object`, unless the kernel left it out.
template <typename T>
void put(Json& object, std::string_view key, const std::optional<T>& value) {
    if (value) {
        object[std::string(key)] = *value;
    }
}

// ifname, unless the port has no name here.
void put_name(Json& object, const std::string& name) {
    if (!name.empty()) {
        object["ifname"] = name;
    }
}

Json link_object(const control::Link& link) {
    Json object = Json::object();
    put(object, "carrier", link.carrier);
    put(object, "rate_bps", link.rate_bps);
    if (link.latency_us) {
        object["latency_ns"] = std::uint64_t{*link.latency_us} * 1000U;
    }
    put(object, "loss_ppm", link.loss_ppm);
    return object;
}

// "carrier on rate 25gbit latency 20us loss 0.1%", leaving out what was not reported.
std::string link_words(const control::Link& link) {
    std::string text;
    const auto add = [&text](const std::string& words) {
        text += (text.empty() ? "" : " ") + words;
    };
    if (link.carrier) {
        add(std::string("carrier ") + (*link.carrier ? "on" : "off"));
    }
    if (link.rate_bps) {
        add("rate " + format_rate(*link.rate_bps));
    }
    if (link.latency_us) {
        add("latency " + format_latency(*link.latency_us));
    }
    if (link.loss_ppm) {
        add("loss " + format_ppm(*link.loss_ppm));
    }
    return text;
}

// Whether the kernel reported the card's bus model: a module without one leaves it all out.
bool has_bus(const control::Device& device) { return device.bus != control::Bus{}; }

// One bus counter: its JSON name and its text name.
struct BusCounter {
    std::string_view json;
    std::string_view text;
    std::uint64_t control::BusCounters::*member;
};

constexpr std::array<BusCounter, 10> bus_counters{{
    {"reads", "reads", &control::BusCounters::reads},
    {"remote_reads", "remote-reads", &control::BusCounters::remote_reads},
    {"read_charged_ns", "read-charged-ns", &control::BusCounters::read_charged_ns},
    {"read_waited_ns", "read-waited-ns", &control::BusCounters::read_waited_ns},
    {"writes", "writes", &control::BusCounters::writes},
    {"dma_tlps", "dma-tlps", &control::BusCounters::dma_tlps},
    {"dma_bytes", "dma-bytes", &control::BusCounters::dma_bytes},
    {"dma_remote_tlps", "dma-remote-tlps", &control::BusCounters::dma_remote_tlps},
    {"dma_charged_ns", "dma-charged-ns", &control::BusCounters::dma_charged_ns},
    {"dma_throttled", "dma-throttled", &control::BusCounters::dma_throttled},
}};
// The text's second line starts at the first DMA counter.
constexpr std::size_t bus_dma_first = 5;

// The settings as the kernel reports them, then (when it reported any) every counter.
Json bus_object(const control::Device& device) {
    const control::Bus& bus = device.bus;
    Json object = Json::object();
    put(object, "read_ns", bus.read_ns);
    put(object, "gen", bus.gen);
    put(object, "lanes", bus.lanes);
    put(object, "node", bus.node);
    put(object, "remote_ns", bus.remote_ns);
    if (has_bus(device)) {
        for (const BusCounter& counter : bus_counters) {
            object[std::string(counter.json)] = device.bus_counters.*(counter.member);
        }
    }
    return object;
}

// "read-ns 1000 gen4 x8 node 0 remote-ns 200": "no cap" for gen 0, "node none" for no node;
// what was not reported is left out.
std::string bus_words(const control::Bus& bus) {
    std::string text;
    const auto add = [&text](const std::string& words) {
        text += (text.empty() ? "" : " ") + words;
    };
    if (bus.read_ns) {
        add("read-ns " + std::to_string(*bus.read_ns));
    }
    if (bus.gen && *bus.gen == 0) {
        add("no cap");
    } else if (bus.gen) {
        add("gen" + std::to_string(*bus.gen) +
            (bus.lanes ? " x" + std::to_string(*bus.lanes) : std::string()));
    }
    if (bus.node) {
        add("node " + (*bus.node < 0 ? std::string("none") : std::to_string(*bus.node)));
    }
    if (bus.remote_ns) {
        add("remote-ns " + std::to_string(*bus.remote_ns));
    }
    return text;
}

// A port with no name here (it is in another namespace) goes by its index, as in stats.
std::string header(std::uint32_t ifindex, const std::string& name) {
    return std::to_string(ifindex) + ": " +
           (name.empty() ? "ifindex" + std::to_string(ifindex) : name) + ":";
}

// One queue counter: its JSON name, its column heading, and whether plain `stats` shows it.
struct Counter {
    std::string_view json;
    std::string_view column;
    std::uint64_t control::QueueStats::*member;
    bool basic;
};

constexpr std::array<Counter, 15> queue_counters{{
    {"mmio_reads", "mmio-reads", &control::QueueStats::mmio_reads, false},
    {"mmio_writes", "mmio-writes", &control::QueueStats::mmio_writes, false},
    {"doorbells", "doorbells", &control::QueueStats::doorbells, true},
    {"cq_doorbells", "cq-doorbells", &control::QueueStats::cq_doorbells, false},
    {"desc_fetched", "desc-fetched", &control::QueueStats::desc_fetched, true},
    {"desc_written", "desc-written", &control::QueueStats::desc_written, true},
    {"frames", "frames", &control::QueueStats::frames, true},
    {"dma_read_bytes", "dma-read-bytes", &control::QueueStats::dma_read_bytes, false},
    {"dma_write_bytes", "dma-write-bytes", &control::QueueStats::dma_write_bytes, false},
    {"drop_nobuf", "drop-nobuf", &control::QueueStats::drop_nobuf, true},
    {"drop_cq_full", "drop-cq-full", &control::QueueStats::drop_cq_full, false},
    {"busy_ns", "busy-ns", &control::QueueStats::busy_ns, false},
    {"irq_raised", "irq-raised", &control::QueueStats::irq_raised, true},
    {"irq_masked", "irq-masked", &control::QueueStats::irq_masked, false},
    {"irq_moderated", "irq-moderated", &control::QueueStats::irq_moderated, false},
}};

std::string fault_words(const control::FaultStatus& fault) {
    std::string text =
        "queue " + std::to_string(fault.queue) + " " + std::string(control::to_string(fault.type));
    // A fault cleared, or whose count ran out, may still be listed for its injected count.
    if (fault.rate_ppm.value_or(0) != 0) {
        text += " rate " + format_ppm(*fault.rate_ppm);
    } else if (fault.count.value_or(0) != 0) {
        text += " count " + std::to_string(*fault.count);
    } else {
        text += " disarmed";
    }
    return text + " injected " + std::to_string(fault.injected);
}

}  // namespace

Json device_json(const control::Device& device,
                 const std::optional<ethtool::TcpDataSplit>& tcp_data_split) {
    Json object = Json::object();
    object["ifindex"] = device.ifindex;
    put_name(object, device.name);
    put(object, "peer_ifindex", device.peer_ifindex);
    put(object, "peer_ifname", device.peer_name);
    put(object, "peer_netnsid", device.peer_netnsid);
    put(object, "queues", device.queues);
    put(object, "rx_ring", device.rx_ring_size);
    put(object, "tx_ring", device.tx_ring_size);
    put(object, "card", device.card);
    put(object, "port", device.port);
    object["link"] = link_object(device.link);
    if (has_bus(device)) {
        object["bus"] = bus_object(device);
    }
    // Last, so that the members before it read as they always did.
    if (tcp_data_split) {
        object["tcp_data_split"] = std::string(ethtool::to_string(*tcp_data_split));
    }
    return object;
}

Json link_json(const control::Device& device) {
    Json object = Json::object();
    object["ifindex"] = device.ifindex;
    put_name(object, device.name);
    object["link"] = link_object(device.link);
    return object;
}

Json bus_json(const control::Device& device) {
    Json object = Json::object();
    object["ifindex"] = device.ifindex;
    put_name(object, device.name);
    object["bus"] = bus_object(device);
    return object;
}

Json stats_json(const control::PortStats& stats, const NameOf& name_of) {
    Json queues = Json::array();
    for (const control::QueueStats& queue : stats.queues) {
        Json row = Json::object();
        row["type"] = std::string(to_string(queue.type));
        row["queue"] = queue.id;
        for (const Counter& counter : queue_counters) {
            row[std::string(counter.json)] = queue.*(counter.member);
        }
        queues.push_back(std::move(row));
    }
    Json object = Json::object();
    object["ifindex"] = stats.ifindex;
    put_name(object, name_of(stats.ifindex));
    object["mmio_reads"] = stats.mmio_reads;
    object["mmio_writes"] = stats.mmio_writes;
    object["mmio_bad"] = stats.mmio_bad;
    object["resets"] = stats.resets;
    object["link_drop_loss"] = stats.link_drop_loss;
    object["link_drop_down"] = stats.link_drop_down;
    object["queue_stats"] = std::move(queues);
    return object;
}

Json fault_json(const control::FaultStatus& fault, const NameOf& name_of) {
    Json object = Json::object();
    object["ifindex"] = fault.ifindex;
    put_name(object, name_of(fault.ifindex));
    object["type"] = std::string(control::to_string(fault.type));
    object["queue"] = fault.queue;
    put(object, "rate_ppm", fault.rate_ppm);
    put(object, "count", fault.count);
    object["injected"] = fault.injected;
    return object;
}

Json event_json(const control::Event& event, const NameOf& name_of) {
    Json object = Json::object();
    object["event"] = std::string(control::to_string(event.type));
    if (const control::Device* device = event.device()) {
        object["dev"] = device_json(*device);
    } else if (const control::FaultStatus* fault = event.fault()) {
        object["fault"] = fault_json(*fault, name_of);
    }
    return object;
}

std::string device_text(const control::Device& device,
                        const std::optional<ethtool::TcpDataSplit>& tcp_data_split) {
    std::string text = header(device.ifindex, device.name);
    if (device.peer_name || device.peer_ifindex) {
        text += " peer " + device.peer_name.value_or("?");
        std::string where;
        if (device.peer_ifindex) {
            where = "ifindex " + std::to_string(*device.peer_ifindex);
        }
        if (device.peer_netnsid) {
            where += (where.empty() ? "" : ", ") + std::string("netnsid ") +
                     std::to_string(*device.peer_netnsid);
        }
        if (!where.empty()) {
            text += " (" + where + ")";
        }
    }
    const auto add = [&text](std::string_view label, const std::optional<std::uint32_t>& value) {
        if (value) {
            text += " " + std::string(label) + " " + std::to_string(*value);
        }
    };
    add("card", device.card);
    add("port", device.port);
    add("queues", device.queues);
    add("rx-ring", device.rx_ring_size);
    add("tx-ring", device.tx_ring_size);
    if (tcp_data_split) {
        text += " tcp-data-split " + std::string(ethtool::to_string(*tcp_data_split));
    }
    text += "\n";
    const std::string link = link_words(device.link);
    if (!link.empty()) {
        text += "    link " + link + "\n";
    }
    if (has_bus(device)) {
        text += "    bus " + bus_words(device.bus) + "\n";
    }
    return text;
}

std::string link_text(const control::Device& device) {
    const std::string link = link_words(device.link);
    return header(device.ifindex, device.name) + (link.empty() ? "" : " " + link) + "\n";
}

std::string bus_text(const control::Device& device) {
    std::string text = header(device.ifindex, device.name);
    if (!has_bus(device)) {
        return text + "\n";
    }
    text += " " + bus_words(device.bus) + "\n";
    for (std::size_t i = 0; i < bus_counters.size(); ++i) {
        const BusCounter& counter = bus_counters.at(i);
        text += (i == 0 || i == bus_dma_first ? "    " : " ") + std::string(counter.text) + " " +
                std::to_string(device.bus_counters.*(counter.member)) +
                (i + 1 == bus_dma_first || i + 1 == bus_counters.size() ? "\n" : "");
    }
    return text;
}

std::string stats_text(const control::PortStats& stats, const NameOf& name_of, bool detailed) {
    std::string text = header(stats.ifindex, name_or_index(name_of, stats.ifindex));
    if (detailed) {
        text += " mmio-reads " + std::to_string(stats.mmio_reads) + " mmio-writes " +
                std::to_string(stats.mmio_writes);
    }
    text += " mmio-bad " + std::to_string(stats.mmio_bad) + " resets " +
            std::to_string(stats.resets) + " link-drop-loss " +
            std::to_string(stats.link_drop_loss) + " link-drop-down " +
            std::to_string(stats.link_drop_down) + "\n";
    if (stats.queues.empty()) {
        return text;
    }
    // A table: a header row and one row per queue, each column as wide as its widest cell.
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> heading{"queue", "type"};
    for (const Counter& counter : queue_counters) {
        if (detailed || counter.basic) {
            heading.emplace_back(counter.column);
        }
    }
    rows.push_back(heading);
    for (const control::QueueStats& queue : stats.queues) {
        std::vector<std::string> row{std::to_string(queue.id), std::string(to_string(queue.type))};
        for (const Counter& counter : queue_counters) {
            if (detailed || counter.basic) {
                row.push_back(std::to_string(queue.*(counter.member)));
            }
        }
        rows.push_back(std::move(row));
    }
    std::vector<std::size_t> widths(heading.size(), 0);
    for (const auto& row : rows) {
        for (std::size_t i = 0; i < row.size(); ++i) {
            widths[i] = std::max(widths[i], row[i].size());
        }
    }
    for (const auto& row : rows) {
        std::string line;
        for (std::size_t i = 0; i < row.size(); ++i) {
            // Names left-aligned, numbers right-aligned.
            const std::string pad(widths[i] - row[i].size(), ' ');
            line += (i == 0 ? "" : "  ") + (i < 2 ? row[i] + pad : pad + row[i]);
        }
        line.erase(line.find_last_not_of(' ') + 1);
        text += line + "\n";
    }
    return text;
}

std::string fault_text(const control::FaultStatus& fault, const NameOf& name_of) {
    return header(fault.ifindex, name_or_index(name_of, fault.ifindex)) + " " + fault_words(fault) +
           "\n";
}

std::string event_text(const control::Event& event, const NameOf& name_of) {
    const std::string type(control::to_string(event.type));
    if (const control::FaultStatus* fault = event.fault()) {
        return type + " " + fault_text(*fault, name_of);
    }
    const control::Device& device = *event.device();
    if (event.type == control::EventType::link_changed) {
        return type + " " + link_text(device);
    }
    // One line per event: the device's link goes on the same line.
    std::string text = device_text(device);
    const std::size_t first_end = text.find('\n');
    std::string line = text.substr(0, first_end);
    const std::string link = link_words(device.link);
    if (!link.empty()) {
        line += " link " + link;
    }
    return type + " " + line + "\n";
}

}  // namespace refnic::refnicctl
