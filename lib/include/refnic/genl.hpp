/* SPDX-License-Identifier: LGPL-2.1-only OR BSD-2-Clause */
// Generic netlink: resolving a family by name through the "nlctrl" controller and talking to it.
#pragma once

#include <refnic/export.hpp>
#include <refnic/netlink.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace refnic::nl {

struct MulticastGroup {
    std::string name;
    std::uint32_t id = 0;
};

// What CTRL_CMD_GETFAMILY tells about a family.
struct REFNIC_EXPORT Family {
    std::string name;
    std::uint16_t id = 0;
    std::uint32_t version = 0;
    std::uint32_t header_size = 0;  // Size of the family's own header after struct genlmsghdr.
    std::uint32_t max_attr = 0;
    std::vector<MulticastGroup> multicast_groups;

    [[nodiscard]] std::optional<std::uint32_t> group_id(std::string_view group_name) const;
};

// Starts a generic netlink message: struct nlmsghdr (type = family id) and struct genlmsghdr.
[[nodiscard]] REFNIC_EXPORT MessageBuilder make_genl_message(std::uint16_t family_id,
                                                             std::uint8_t cmd,
                                                             std::uint8_t version);
// The CTRL_CMD_GETFAMILY request for `family_name`.
[[nodiscard]] REFNIC_EXPORT MessageBuilder make_get_family_request(std::string_view family_name);
// Decodes the CTRL_CMD_NEWFAMILY reply (or notification).
[[nodiscard]] REFNIC_EXPORT Family parse_family(const MessageView& message);
// Asks the kernel; throws Error(ENOENT) if no such family is registered.
[[nodiscard]] REFNIC_EXPORT Family resolve_family(Socket& socket, std::string_view family_name);

// A NETLINK_GENERIC socket bound to one resolved family.
class REFNIC_EXPORT GenlClient {
public:
    explicit GenlClient(std::string_view family_name);

    [[nodiscard]] const Family& family() const noexcept { return family_; }
    [[nodiscard]] Socket& socket() noexcept { return socket_; }
    [[nodiscard]] const Socket& socket() const noexcept { return socket_; }

    // A new message for `cmd`, stamped with the family's id and the given version.
    [[nodiscard]] MessageBuilder message(std::uint8_t cmd, std::uint8_t version) const;
    // See Socket::request() and Socket::dump().
    void request(MessageBuilder& message, const MessageHandler& on_reply = {},
                 std::string_view description = "generic netlink request");
    void dump(MessageBuilder& message, const MessageHandler& on_reply,
              std::string_view description = "generic netlink dump");
    // Joins a multicast group of the family by name; throws Error(ENOENT) if it has none such.
    void join_group(std::string_view group_name);

private:
    Socket socket_;
    Family family_;
};

}  // namespace refnic::nl
