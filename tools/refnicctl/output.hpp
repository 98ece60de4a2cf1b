/* SPDX-License-Identifier: GPL-2.0-only */
// refnicctl's output, text and JSON, as pure functions of what the kernel reported so they can
// be unit tested. JSON shapes are documented in help_text().
#pragma once

#include "json.hpp"

#include <refnic/control.hpp>
#include <refnic/ethtool.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace refnic::refnicctl {

// The interface name of an ifindex in this namespace ("" when there is none).
using NameOf = std::function<std::string(std::uint32_t ifindex)>;

// JSON values (docs/cli.md, "JSON"): snake_case keys in a fixed order, integers in the units
// their suffix names; what the kernel did not report is left out, and so is ifname for a port
// without a name in this namespace. Written with tool_cli::dump_json().
// tcp_data_split is ethtool's, which only dev show asks for: left out when not given.
[[nodiscard]] tool_cli::Json device_json(
    const control::Device& device,
    const std::optional<ethtool::TcpDataSplit>& tcp_data_split = std::nullopt);
[[nodiscard]] tool_cli::Json link_json(const control::Device& device);
// {ifindex, ifname, bus: {read_ns, gen, lanes, node, remote_ns, then the counters}}; bus is {}
// from a module without the bus model.
[[nodiscard]] tool_cli::Json bus_json(const control::Device& device);
[[nodiscard]] tool_cli::Json stats_json(const control::PortStats& stats, const NameOf& name_of);
[[nodiscard]] tool_cli::Json fault_json(const control::FaultStatus& fault, const NameOf& name_of);
[[nodiscard]] tool_cli::Json event_json(const control::Event& event, const NameOf& name_of);

// Text, each ending in a newline.
[[nodiscard]] std::string device_text(
    const control::Device& device,
    const std::optional<ethtool::TcpDataSplit>& tcp_data_split = std::nullopt);
[[nodiscard]] std::string link_text(const control::Device& device);
// "5: r0: read-ns 1000 gen4 x8 node 0 remote-ns 200", then two lines of counters.
[[nodiscard]] std::string bus_text(const control::Device& device);
[[nodiscard]] std::string stats_text(const control::PortStats& stats, const NameOf& name_of,
                                     bool detailed);
[[nodiscard]] std::string fault_text(const control::FaultStatus& fault, const NameOf& name_of);
[[nodiscard]] std::string event_text(const control::Event& event, const NameOf& name_of);

}  // namespace refnic::refnicctl
