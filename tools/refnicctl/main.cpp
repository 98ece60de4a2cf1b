// SPDX-License-Identifier: GPL-2.0-only
// refnicctl: control refnic device pairs and their device model over the refnic generic
// netlink family. See help_text() in cli.cpp.
#include "cli.hpp"
#include "json.hpp"
#include "output.hpp"
#include "ring.hpp"
#include "top.hpp"

#include <refnic/control.hpp>
#include <refnic/error.hpp>
#include <refnic/ethtool.hpp>
#include <refnic/fd.hpp>

#include <net/if.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iostream>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <variant>
#include <vector>

namespace {

using namespace refnic::refnicctl;
namespace control = refnic::control;
namespace ethtool = refnic::ethtool;

std::string name_of(std::uint32_t ifindex) {
    std::array<char, IF_NAMESIZE> name{};
    return ::if_indextoname(ifindex, name.data()) != nullptr ? std::string(name.data())
                                                             : std::string();
}

void print_error(std::string_view message) { std::cerr << "refnicctl: " << message << '\n'; }

void print_json(const Options& options, const refnic::tool_cli::Json& value) {
    std::cout << refnic::tool_cli::dump_json(value, options.pretty) << '\n';
}

// Prints `values` as a JSON array, or each as text.
template <typename T, typename ToJson, typename Text>
void print_all(const Options& options, const std::vector<T>& values, ToJson json, Text text) {
    if (options.json) {
        refnic::tool_cli::Json array = refnic::tool_cli::Json::array();
        for (const T& value : values) {
            array.push_back(json(value));
        }
        print_json(options, array);
        return;
    }
    for (const T& value : values) {
        std::cout << text(value);
    }
}

int dev_add(const Options& options, const DevAdd& add) {
    // The namespaces stay open until the kernel has taken them.
    refnic::UniqueFd netns;
    refnic::UniqueFd peer_netns;
    control::NewDevice request;
    request.name = add.name;
    request.peer_name = add.peer;
    if (add.netns) {
        netns = refnic::open_netns(*add.netns);
        request.netns_fd = netns.get();
    }
    if (add.peer_netns) {
        peer_netns = refnic::open_netns(*add.peer_netns);
        request.peer_netns_fd = peer_netns.get();
    }
    request.queues = add.queues;
    request.rx_ring_size = add.rx_ring;
    request.tx_ring_size = add.tx_ring;
    control::Client client;
    const control::Device device = client.dev_new(request);
    if (options.json) {
        print_json(options, device_json(device));
    } else {
        std::cout << device_text(device);
    }
    return exit_ok;
}

std::vector<control::Device> devices(control::Client& client,
                                     const std::optional<std::string>& dev) {
    if (dev) {
        return {client.dev_get(control::resolve_ifindex(*dev))};
    }
    return client.dev_dump();
}

// A port as dev show prints it: the refnic family's view plus ethtool's.
struct ShownDevice {
    control::Device device;
    std::optional<ethtool::TcpDataSplit> tcp_data_split;
};

// ethtool's tcp-data-split of a port in this namespace; nullopt when the port went away (or
// was renamed) after the refnic family reported it.
std::optional<ethtool::TcpDataSplit> tcp_data_split(ethtool::Rings& rings,
                                                    const control::Device& device) {
    try {
        // The kernel leaves the attribute out while the driver reports "unknown".
        return rings.get(device.name).tcp_data_split.value_or(ethtool::TcpDataSplit::unknown);
    } catch (const refnic::Error& error) {
        if (error.errnum() != ENODEV) {
            throw;
        }
        return std::nullopt;
    }
}

int dev_show(const Options& options, const DevShow& show) {
    control::Client client;
    std::vector<ShownDevice> shown;
    for (control::Device& device : devices(client, show.dev)) {
        shown.push_back({std::move(device), std::nullopt});
    }
    if (!shown.empty()) {
        // RINGS_GET needs no privilege, so dev show still works without CAP_NET_ADMIN.
        ethtool::Rings rings;
        for (ShownDevice& port : shown) {
            port.tcp_data_split = tcp_data_split(rings, port.device);
        }
    }
    print_all(
        options, shown,
        [](const ShownDevice& port) { return device_json(port.device, port.tcp_data_split); },
        [](const ShownDevice& port) { return device_text(port.device, port.tcp_data_split); });
    return exit_ok;
}

// DEV's name in this namespace: ethtool netlink is asked by name, and DEV may be an ifindex.
std::string interface_name(const std::string& dev) {
    std::string name = name_of(control::resolve_ifindex(dev));
    if (name.empty()) {
        throw refnic::Error(ENODEV, "no device \"" + dev + "\"");
    }
    return name;
}

int dev_set(const DevSet& set) {
    const std::string name = interface_name(set.dev);
    ethtool::RingSettings settings;
    settings.tcp_data_split = set.tcp_data_split;
    ethtool::Rings rings;
    // A refusal reads "ethtool rings set on r0: <the kernel's extack> (<strerror>)".
    rings.set(name, settings);
    return exit_ok;
}

int monitor(const Options& options) {
    control::Monitor monitor;
    for (;;) {
        try {
            const std::optional<control::Event> event = monitor.next();
            if (event) {
                if (options.json) {
                    print_json(options, event_json(*event, name_of));
                } else {
                    std::cout << event_text(*event, name_of);
                }
                std::cout << std::flush;
            }
        } catch (const refnic::Error& error) {
            if (error.errnum() != ENOBUFS) {
                throw;
            }
            print_error("monitor: the kernel dropped events that were not read in time");
        }
    }
}

std::string wall_clock() {
    const std::time_t now = std::time(nullptr);
    std::tm local{};
    std::array<char, 16> text{};
    if (::localtime_r(&now, &local) == nullptr ||
        std::strftime(text.data(), text.size(), "%H:%M:%S", &local) == 0) {
        return {};
    }
    return text.data();
}

int top(const Options& options, const Top& top) {
    std::optional<std::uint32_t> ifindex;
    if (top.dev) {
        ifindex = control::resolve_ifindex(*top.dev);
    }
    // On a terminal each frame replaces the last; into a pipe or file they follow each other.
    const bool in_place = !options.json && ::isatty(STDOUT_FILENO) == 1;
    Sampler sampler;
    Sample before = sampler.take(ifindex);
    auto next = std::chrono::steady_clock::now();
    for (std::uint32_t frames = 0; !top.count || frames < *top.count; ++frames) {
        next += std::chrono::milliseconds(top.interval_ms);
        std::this_thread::sleep_until(next);
        Sample now = sampler.take(ifindex);
        const Frame frame = make_frame(before, now);
        if (options.json) {
            print_json(options, frame_json(frame));
        } else {
            if (in_place) {
                std::cout << "\x1b[H\x1b[2J";
            }
            std::cout << frame_text(frame, wall_clock());
        }
        std::cout << std::flush;
        if (!std::cout) {
            print_error("top: cannot write the frame");
            return exit_runtime_error;
        }
        before = std::move(now);
    }
    return exit_ok;
}

int stats(const Options& options, const StatsShow& show) {
    control::Client client;
    const bool detailed = options.stats_level > 0;
    const auto json = [](const control::PortStats& port) { return stats_json(port, name_of); };
    const auto text = [detailed](const control::PortStats& port) {
        return stats_text(port, name_of, detailed);
    };
    // With DEV too, JSON is an array (of one), as every show prints.
    print_all(options,
              show.dev ? std::vector{client.stats_get(control::resolve_ifindex(*show.dev))}
                       : client.stats_dump(),
              json, text);
    return exit_ok;
}

int fault_show(const Options& options, const FaultShow& show) {
    control::Client client;
    const std::optional<std::uint32_t> ifindex =
        show.dev ? std::optional(control::resolve_ifindex(*show.dev)) : std::nullopt;
    print_all(
        options, client.fault_get(ifindex),
        [](const control::FaultStatus& status) { return fault_json(status, name_of); },
        [](const control::FaultStatus& status) { return fault_text(status, name_of); });
    return exit_ok;
}

int ring_show(const Options& options, const RingShow& show) {
    control::Client client;
    // Validates the device: a refnic port in this namespace.
    const control::Device device = client.dev_get(control::resolve_ifindex(show.dev));
    const std::string bus = port_bus(device.name);
    if (bus.empty()) {
        print_error("cannot find the bus device of " + device.name + " (ethtool -i)");
        return exit_runtime_error;
    }
    std::string source;
    const std::vector<Ring> rings = read_rings(bus, device.name, show.queue, source);
    if (show.svg) {
        errno = 0;
        std::ofstream file(*show.svg);
        file << ring_svg(device.name, show.queue, source, rings);
        if (!file.flush()) {
            const int error = errno;
            print_error("cannot write " + *show.svg + ": " +
                        (error != 0 ? std::strerror(error) : "write failed"));
            return exit_runtime_error;
        }
    }
    if (options.json) {
        print_json(options, ring_json(device.name, show.queue, source, rings));
    } else {
        std::cout << ring_text(device.name, show.queue, source, rings);
    }
    return exit_ok;
}

// One overload per command.
struct Runner {
    const Options& options;

    int operator()(const Help& help) const {
        std::cout << help_text(help.topic);
        return exit_ok;
    }
    int operator()(const Version& /*version*/) const {
        std::cout << version_text();
        return exit_ok;
    }
    int operator()(const DevAdd& add) const { return dev_add(options, add); }
    int operator()(const DevDel& del) const {
        control::Client client;
        client.dev_del(control::resolve_ifindex(del.dev));
        return exit_ok;
    }
    int operator()(const DevShow& show) const { return dev_show(options, show); }
    int operator()(const DevSet& set) const { return dev_set(set); }
    int operator()(const LinkSet& set) const {
        control::Client client;
        client.link_set(control::resolve_ifindex(set.dev), set.link);
        return exit_ok;
    }
    int operator()(const LinkShow& show) const {
        control::Client client;
        print_all(options, devices(client, show.dev), link_json, link_text);
        return exit_ok;
    }
    int operator()(const BusSet& set) const {
        control::Client client;
        client.bus_set(control::resolve_ifindex(set.dev), set.bus);
        return exit_ok;
    }
    int operator()(const BusShow& show) const {
        control::Client client;
        print_all(options, devices(client, show.dev), bus_json, bus_text);
        return exit_ok;
    }
    int operator()(const StatsShow& show) const { return stats(options, show); }
    int operator()(const FaultSet& fault) const {
        control::Client client;
        client.fault_set(control::resolve_ifindex(fault.dev), fault.setting);
        return exit_ok;
    }
    int operator()(const FaultShow& show) const { return fault_show(options, show); }
    int operator()(const Monitor& /*monitor*/) const { return monitor(options); }
    int operator()(const Top& command) const { return top(options, command); }
    int operator()(const RingShow& show) const { return ring_show(options, show); }
};

}  // namespace

int main(int argc, char* argv[]) {
    const std::span<char*> arguments(argv, static_cast<std::size_t>(argc));
    const std::vector<std::string_view> args(arguments.begin() + (argc > 0 ? 1 : 0),
                                             arguments.end());
    Invocation invocation;
    try {
        invocation = parse_command_line(args);
    } catch (const UsageError& error) {
        print_error(std::string(error.what()) + "; see 'refnicctl " +
                    (error.topic().empty() ? "" : error.topic() + " ") + "--help'");
        return exit_usage_error;
    }
    try {
        return std::visit(Runner{invocation.options}, invocation.command);
    } catch (const refnic::Error& error) {
        // "<what was done>: <the kernel's extack message> (<strerror>) [<attribute>]"
        print_error(error.what());
        return exit_runtime_error;
    } catch (const std::exception& error) {
        print_error(error.what());
        return exit_runtime_error;
    }
}
