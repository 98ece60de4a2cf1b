/* SPDX-License-Identifier: LGPL-2.1-only OR BSD-2-Clause */
// Ring parameters over the kernel's "ethtool" generic netlink family (ETHTOOL_MSG_RINGS_GET and
// ETHTOOL_MSG_RINGS_SET), including tcp-data-split, which Debian 12's ethtool 6.1 cannot set.
#pragma once

#include <refnic/export.hpp>
#include <refnic/genl.hpp>
#include <refnic/netlink.hpp>

#include <cstdint>
#include <optional>
#include <string_view>

namespace refnic::ethtool {

// ETHTOOL_TCP_DATA_SPLIT_*: header/data split of received TCP payload. On a set, `unknown`
// asks the driver to pick its default ("auto" on the ethtool command line).
enum class TcpDataSplit : std::uint8_t {
    unknown = 0,
    disabled = 1,
    enabled = 2,
};

// The words ethtool prints: "unknown", "off", "on".
[[nodiscard]] REFNIC_EXPORT std::string_view to_string(TcpDataSplit value) noexcept;

// The words ethtool -G takes: "on", "off", "auto" (which sets `unknown`); nullopt for others.
[[nodiscard]] REFNIC_EXPORT std::optional<TcpDataSplit> parse_tcp_data_split(
    std::string_view word) noexcept;

// A RINGS_GET reply. Every field is optional because the kernel only sends what the driver
// reports.
struct RingParams {
    std::optional<std::uint32_t> rx_max;
    std::optional<std::uint32_t> rx_mini_max;
    std::optional<std::uint32_t> rx_jumbo_max;
    std::optional<std::uint32_t> tx_max;
    std::optional<std::uint32_t> rx;
    std::optional<std::uint32_t> rx_mini;
    std::optional<std::uint32_t> rx_jumbo;
    std::optional<std::uint32_t> tx;
    std::optional<std::uint32_t> rx_buf_len;
    std::optional<TcpDataSplit> tcp_data_split;
    std::optional<std::uint32_t> cqe_size;
    std::optional<bool> tx_push;
    std::optional<bool> rx_push;
    std::optional<std::uint32_t> tx_push_buf_len;
    std::optional<std::uint32_t> tx_push_buf_len_max;

    friend bool operator==(const RingParams&, const RingParams&) = default;
};

// A RINGS_SET request: only the fields that are set are sent, the rest stay as they are.
struct RingSettings {
    std::optional<std::uint32_t> rx;
    std::optional<std::uint32_t> rx_mini;
    std::optional<std::uint32_t> rx_jumbo;
    std::optional<std::uint32_t> tx;
    std::optional<std::uint32_t> rx_buf_len;
    std::optional<TcpDataSplit> tcp_data_split;
    std::optional<std::uint32_t> cqe_size;
    std::optional<bool> tx_push;
    std::optional<bool> rx_push;
    std::optional<std::uint32_t> tx_push_buf_len;

    friend bool operator==(const RingSettings&, const RingSettings&) = default;
};

// Message encoding and decoding, separate from the socket so they can be checked offline.
[[nodiscard]] REFNIC_EXPORT nl::MessageBuilder make_rings_get_request(std::uint16_t family_id,
                                                                      std::string_view device);
[[nodiscard]] REFNIC_EXPORT nl::MessageBuilder make_rings_set_request(std::uint16_t family_id,
                                                                      std::string_view device,
                                                                      const RingSettings& settings);
// Decodes ETHTOOL_MSG_RINGS_GET_REPLY (or ETHTOOL_MSG_RINGS_NTF); attributes it does not know
// are skipped so newer kernels keep working.
[[nodiscard]] REFNIC_EXPORT RingParams parse_rings_reply(const nl::MessageView& message);

// Ring parameters of network devices, addressed by name.
class REFNIC_EXPORT Rings {
public:
    // Opens a generic netlink socket and resolves the "ethtool" family.
    Rings();

    [[nodiscard]] RingParams get(std::string_view device);
    void set(std::string_view device, const RingSettings& settings);

private:
    nl::GenlClient client_;
};

}  // namespace refnic::ethtool
