// SPDX-License-Identifier: GPL-2.0-only
// refnicctl top's arithmetic and rendering (top.hpp).
#include "top.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <string_view>
#include <utility>

namespace refnic::refnicctl {

namespace {

constexpr double ns_per_s = 1e9;

// How far a counter moved, if both ends have it and it did not go backwards.
std::optional<std::uint64_t> moved(const std::optional<std::uint64_t>& before,
                                   const std::optional<std::uint64_t>& now) {
    if (!before || !now || *now < *before) {
        return std::nullopt;
    }
    return *now - *before;
}

std::optional<double> per_second(const std::optional<std::uint64_t>& delta, double secs) {
    if (!delta || secs <= 0) {
        return std::nullopt;
    }
    return static_cast<double>(*delta) / secs;
}

std::optional<double> ratio(const std::optional<std::uint64_t>& num,
                            const std::optional<std::uint64_t>& den) {
    if (!num || !den || *den == 0) {
        return std::nullopt;
    }
    return static_cast<double>(*num) / static_cast<double>(*den);
}

std::optional<std::uint64_t> sum(const std::optional<std::uint64_t>& a,
                                 const std::optional<std::uint64_t>& b) {
    if (!a || !b) {
        return std::nullopt;
    }
    return *a + *b;
}

template <typename T>
const T* find_by(const std::vector<T>& items, auto key, auto value) {
    const auto it =
        std::find_if(items.begin(), items.end(), [&](const T& item) { return item.*key == value; });
    return it == items.end() ? nullptr : &*it;
}

QueueRates queue_rates(const QueueSample* before, const QueueSample& now, double secs) {
    QueueRates rates;
    rates.queue = now.queue;
    rates.rx_posted = now.rx_posted;
    rates.tx_inflight = now.tx_inflight;
    rates.rx_device = now.rx_device;
    rates.rx_to_reap = now.rx_to_reap;
    rates.tx_device = now.tx_device;
    rates.tx_to_reap = now.tx_to_reap;
    rates.page_pool_inflight = now.page_pool_inflight;
    rates.devmem = now.devmem;
    rates.bypass = now.bypass;
    if (before == nullptr) {
        return rates;
    }
    const auto rx_packets = moved(before->rx_packets, now.rx_packets);
    const auto tx_packets = moved(before->tx_packets, now.tx_packets);
    const auto rx_bytes = moved(before->rx_bytes, now.rx_bytes);
    const auto tx_bytes = moved(before->tx_bytes, now.tx_bytes);
    const auto polls = moved(before->polls, now.polls);
    rates.rx_pps = per_second(rx_packets, secs);
    rates.tx_pps = per_second(tx_packets, secs);
    if (rx_bytes) {
        rates.rx_bps = per_second(*rx_bytes * 8, secs);
    }
    if (tx_bytes) {
        rates.tx_bps = per_second(*tx_bytes * 8, secs);
    }
    rates.irqs_per_s = per_second(moved(before->irqs, now.irqs), secs);
    rates.polls_per_s = per_second(polls, secs);
    rates.packets_per_poll = ratio(rx_packets, polls);
    rates.doorbells_per_packet =
        ratio(moved(before->doorbells, now.doorbells), sum(rx_packets, tx_packets));
    rates.nobuf_drops_per_s = per_second(moved(before->nobuf_drops, now.nobuf_drops), secs);
    return rates;
}

// "12.3k", "4.56M": a rate in a 7-column cell; "-" when unknown.
std::string si(const std::optional<double>& value) {
    if (!value) {
        return "-";
    }
    constexpr std::string_view prefixes = " kMGT";
    double v = *value;
    std::size_t i = 0;
    while (v >= 999.5 && i + 1 < prefixes.size()) {
        v /= 1000;
        ++i;
    }
    std::array<char, 32> buf{};
    if (i == 0) {
        std::snprintf(buf.data(), buf.size(), "%.0f", v);
    } else {
        const char* format = v < 9.995 ? "%.2f%c" : (v < 99.95 ? "%.1f%c" : "%.0f%c");
        std::snprintf(buf.data(), buf.size(), format, v, prefixes[i]);
    }
    return buf.data();
}

std::string fixed(const std::optional<double>& value, int decimals) {
    if (!value) {
        return "-";
    }
    std::array<char, 32> buf{};
    std::snprintf(buf.data(), buf.size(), "%.*f", decimals, *value);
    return buf.data();
}

template <typename T>
std::string count(const std::optional<T>& value) {
    return value ? std::to_string(*value) : "-";
}

tool_cli::Json number_or_null(const std::optional<double>& value) {
    return value ? tool_cli::Json(*value) : tool_cli::Json(nullptr);
}

}  // namespace

Frame make_frame(const Sample& before, const Sample& now) {
    Frame frame;
    frame.interval_ns = now.time_ns > before.time_ns ? now.time_ns - before.time_ns : 0;
    const double secs = static_cast<double>(frame.interval_ns) / ns_per_s;
    for (const PortSample& port : now.ports) {
        PortRates rates{port.ifindex, port.ifname, {}};
        const PortSample* old = find_by(before.ports, &PortSample::ifindex, port.ifindex);
        // Each port's counters were read at their own moment.
        double port_secs = secs;
        if (old != nullptr && old->time_ns != 0 && port.time_ns > old->time_ns) {
            port_secs = static_cast<double>(port.time_ns - old->time_ns) / ns_per_s;
        }
        for (const QueueSample& queue : port.queues) {
            const QueueSample* was =
                old == nullptr ? nullptr : find_by(old->queues, &QueueSample::queue, queue.queue);
            rates.queues.push_back(queue_rates(was, queue, port_secs));
        }
        frame.ports.push_back(std::move(rates));
    }
    return frame;
}

std::string frame_text(const Frame& frame, const std::string& clock) {
    std::string out;
    std::array<char, 256> line{};
    std::snprintf(line.data(), line.size(), "refnicctl top  %s  interval %.2f s\n", clock.c_str(),
                  static_cast<double>(frame.interval_ns) / ns_per_s);
    out += line.data();
    std::snprintf(line.data(), line.size(),
                  "%-15s %3s %7s %7s %7s %7s %7s %7s %6s %6s %7s %6s %7s %6s %7s %11s\n", "DEV",
                  "Q", "rx-pps", "rx-bps", "tx-pps", "tx-bps", "irq/s", "poll/s", "pkt/pl",
                  "db/pkt", "nobuf/s", "rx-dev", "rx-reap", "tx-dev", "tx-reap", "pp-inflight");
    out += line.data();
    if (frame.ports.empty()) {
        out += "no refnic ports in this network namespace\n";
    }
    for (const PortRates& port : frame.ports) {
        const std::string name = port.ifname.empty() ? std::to_string(port.ifindex) : port.ifname;
        for (const QueueRates& q : port.queues) {
            std::snprintf(
                line.data(), line.size(),
                "%-15s %3u %7s %7s %7s %7s %7s %7s %6s %6s %7s %6s %7s %6s %7s %11s%s%s\n",
                name.c_str(), q.queue, si(q.rx_pps).c_str(), si(q.rx_bps).c_str(),
                si(q.tx_pps).c_str(), si(q.tx_bps).c_str(), si(q.irqs_per_s).c_str(),
                si(q.polls_per_s).c_str(), fixed(q.packets_per_poll, 1).c_str(),
                fixed(q.doorbells_per_packet, 2).c_str(), si(q.nobuf_drops_per_s).c_str(),
                count(q.rx_device).c_str(), count(q.rx_to_reap).c_str(), count(q.tx_device).c_str(),
                count(q.tx_to_reap).c_str(), count(q.page_pool_inflight).c_str(),
                q.devmem ? "  devmem" : "", q.bypass ? "  bypass" : "");
            out += line.data();
        }
    }
    return out;
}

tool_cli::Json frame_json(const Frame& frame) {
    tool_cli::Json ports = tool_cli::Json::array();
    for (const PortRates& port : frame.ports) {
        tool_cli::Json queues = tool_cli::Json::array();
        for (const QueueRates& q : port.queues) {
            tool_cli::Json j;
            j["queue"] = q.queue;
            j["rx_pps"] = number_or_null(q.rx_pps);
            j["rx_bps"] = number_or_null(q.rx_bps);
            j["tx_pps"] = number_or_null(q.tx_pps);
            j["tx_bps"] = number_or_null(q.tx_bps);
            j["irqs_per_s"] = number_or_null(q.irqs_per_s);
            j["polls_per_s"] = number_or_null(q.polls_per_s);
            j["packets_per_poll"] = number_or_null(q.packets_per_poll);
            j["doorbells_per_packet"] = number_or_null(q.doorbells_per_packet);
            j["drop_nobuf_per_s"] = number_or_null(q.nobuf_drops_per_s);
            if (q.rx_posted) {
                j["rx_posted"] = *q.rx_posted;
            }
            if (q.tx_inflight) {
                j["tx_inflight"] = *q.tx_inflight;
            }
            for (const auto& [key, value] :
                 {std::pair{"rx_device", q.rx_device}, std::pair{"rx_to_reap", q.rx_to_reap},
                  std::pair{"tx_device", q.tx_device}, std::pair{"tx_to_reap", q.tx_to_reap}}) {
                if (value) {
                    j[key] = *value;
                }
            }
            if (q.page_pool_inflight) {
                j["pp_inflight"] = *q.page_pool_inflight;
            }
            j["devmem"] = q.devmem;
            j["bypass"] = q.bypass;
            queues.push_back(std::move(j));
        }
        tool_cli::Json p;
        p["ifindex"] = port.ifindex;
        if (!port.ifname.empty()) {
            p["ifname"] = port.ifname;
        }
        p["queues"] = std::move(queues);
        ports.push_back(std::move(p));
    }
    tool_cli::Json doc;
    doc["interval_ns"] = frame.interval_ns;
    doc["ports"] = std::move(ports);
    return doc;
}

}  // namespace refnic::refnicctl
