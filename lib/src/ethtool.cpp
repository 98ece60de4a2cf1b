// SPDX-License-Identifier: LGPL-2.1-only OR BSD-2-Clause
#include "uapi_compat.hpp"

#include <refnic/error.hpp>
#include <refnic/ethtool.hpp>

#include <linux/ethtool_netlink.h>

#include <cerrno>
#include <string>

namespace refnic::ethtool {

namespace {

static_assert(static_cast<int>(TcpDataSplit::unknown) == ETHTOOL_TCP_DATA_SPLIT_UNKNOWN);
static_assert(static_cast<int>(TcpDataSplit::disabled) == ETHTOOL_TCP_DATA_SPLIT_DISABLED);
static_assert(static_cast<int>(TcpDataSplit::enabled) == ETHTOOL_TCP_DATA_SPLIT_ENABLED);

nl::MessageBuilder make_rings_message(std::uint16_t family_id, std::uint8_t cmd,
                                      std::string_view device) {
    nl::MessageBuilder message = nl::make_genl_message(family_id, cmd, ETHTOOL_GENL_VERSION);
    message.put_nested(ETHTOOL_A_RINGS_HEADER, [device](nl::MessageBuilder& header) {
        header.put_string(ETHTOOL_A_HEADER_DEV_NAME, device);
    });
    return message;
}

void put_optional_u32(nl::MessageBuilder& message, std::uint16_t type,
                      const std::optional<std::uint32_t>& value) {
    if (value) {
        message.put_u32(type, *value);
    }
}

void put_optional_bool(nl::MessageBuilder& message, std::uint16_t type,
                       const std::optional<bool>& value) {
    if (value) {
        message.put_u8(type, *value ? 1 : 0);
    }
}

}  // namespace

std::string_view to_string(TcpDataSplit value) noexcept {
    switch (value) {
        case TcpDataSplit::disabled:
            return "off";
        case TcpDataSplit::enabled:
            return "on";
        case TcpDataSplit::unknown:
            break;
    }
    // Values a newer kernel might add are as unknown to us as ETHTOOL_TCP_DATA_SPLIT_UNKNOWN.
    return "unknown";
}

std::optional<TcpDataSplit> parse_tcp_data_split(std::string_view word) noexcept {
    if (word == "on") {
        return TcpDataSplit::enabled;
    }
    if (word == "off") {
        return TcpDataSplit::disabled;
    }
    if (word == "auto") {
        return TcpDataSplit::unknown;
    }
    return std::nullopt;
}

nl::MessageBuilder make_rings_get_request(std::uint16_t family_id, std::string_view device) {
    return make_rings_message(family_id, ETHTOOL_MSG_RINGS_GET, device);
}

nl::MessageBuilder make_rings_set_request(std::uint16_t family_id, std::string_view device,
                                          const RingSettings& settings) {
    nl::MessageBuilder message = make_rings_message(family_id, ETHTOOL_MSG_RINGS_SET, device);
    put_optional_u32(message, ETHTOOL_A_RINGS_RX, settings.rx);
    put_optional_u32(message, ETHTOOL_A_RINGS_RX_MINI, settings.rx_mini);
    put_optional_u32(message, ETHTOOL_A_RINGS_RX_JUMBO, settings.rx_jumbo);
    put_optional_u32(message, ETHTOOL_A_RINGS_TX, settings.tx);
    put_optional_u32(message, ETHTOOL_A_RINGS_RX_BUF_LEN, settings.rx_buf_len);
    if (settings.tcp_data_split) {
        message.put_u8(ETHTOOL_A_RINGS_TCP_DATA_SPLIT,
                       static_cast<std::uint8_t>(*settings.tcp_data_split));
    }
    put_optional_u32(message, ETHTOOL_A_RINGS_CQE_SIZE, settings.cqe_size);
    put_optional_bool(message, ETHTOOL_A_RINGS_TX_PUSH, settings.tx_push);
    put_optional_bool(message, compat::ETHTOOL_A_RINGS_RX_PUSH, settings.rx_push);
    put_optional_u32(message, compat::ETHTOOL_A_RINGS_TX_PUSH_BUF_LEN, settings.tx_push_buf_len);
    return message;
}

RingParams parse_rings_reply(const nl::MessageView& message) {
    const std::uint8_t cmd = message.genl_cmd();
    if (cmd != ETHTOOL_MSG_RINGS_GET_REPLY && cmd != ETHTOOL_MSG_RINGS_NTF) {
        throw Error(EPROTO, "expected an ethtool rings reply, got command " + std::to_string(cmd));
    }
    RingParams rings;
    for (const nl::Attr attr : message.genl_attrs()) {
        switch (attr.type()) {
            case ETHTOOL_A_RINGS_RX_MAX:
                rings.rx_max = attr.as_u32();
                break;
            case ETHTOOL_A_RINGS_RX_MINI_MAX:
                rings.rx_mini_max = attr.as_u32();
                break;
            case ETHTOOL_A_RINGS_RX_JUMBO_MAX:
                rings.rx_jumbo_max = attr.as_u32();
                break;
            case ETHTOOL_A_RINGS_TX_MAX:
                rings.tx_max = attr.as_u32();
                break;
            case ETHTOOL_A_RINGS_RX:
                rings.rx = attr.as_u32();
                break;
            case ETHTOOL_A_RINGS_RX_MINI:
                rings.rx_mini = attr.as_u32();
                break;
            case ETHTOOL_A_RINGS_RX_JUMBO:
                rings.rx_jumbo = attr.as_u32();
                break;
            case ETHTOOL_A_RINGS_TX:
                rings.tx = attr.as_u32();
                break;
            case ETHTOOL_A_RINGS_RX_BUF_LEN:
                rings.rx_buf_len = attr.as_u32();
                break;
            case ETHTOOL_A_RINGS_TCP_DATA_SPLIT:
                rings.tcp_data_split = static_cast<TcpDataSplit>(attr.as_u8());
                break;
            case ETHTOOL_A_RINGS_CQE_SIZE:
                rings.cqe_size = attr.as_u32();
                break;
            case ETHTOOL_A_RINGS_TX_PUSH:
                rings.tx_push = attr.as_u8() != 0;
                break;
            case compat::ETHTOOL_A_RINGS_RX_PUSH:
                rings.rx_push = attr.as_u8() != 0;
                break;
            case compat::ETHTOOL_A_RINGS_TX_PUSH_BUF_LEN:
                rings.tx_push_buf_len = attr.as_u32();
                break;
            case compat::ETHTOOL_A_RINGS_TX_PUSH_BUF_LEN_MAX:
                rings.tx_push_buf_len_max = attr.as_u32();
                break;
            default:
                // ETHTOOL_A_RINGS_HEADER repeats the device; newer attributes are skipped.
                break;
        }
    }
    return rings;
}

Rings::Rings() : client_(ETHTOOL_GENL_NAME) {}

RingParams Rings::get(std::string_view device) {
    nl::MessageBuilder request = make_rings_get_request(client_.family().id, device);
    const std::string description = "ethtool rings get on " + std::string(device);
    std::optional<RingParams> rings;
    client_.request(
        request, [&rings](const nl::MessageView& reply) { rings = parse_rings_reply(reply); },
        description);
    if (!rings) {
        throw Error(EPROTO, description + ": the kernel acknowledged without a reply");
    }
    return *rings;
}

void Rings::set(std::string_view device, const RingSettings& settings) {
    nl::MessageBuilder request = make_rings_set_request(client_.family().id, device, settings);
    client_.request(request, {}, "ethtool rings set on " + std::string(device));
}

}  // namespace refnic::ethtool
