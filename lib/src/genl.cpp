// SPDX-License-Identifier: LGPL-2.1-only OR BSD-2-Clause
#include <refnic/error.hpp>
#include <refnic/genl.hpp>

#include <linux/genetlink.h>
#include <linux/netlink.h>

#include <cerrno>
#include <string>

namespace refnic::nl {

namespace {

MulticastGroup parse_multicast_group(const Attr& group_nest) {
    MulticastGroup group;
    bool has_id = false;
    for (const Attr attr : group_nest.nested()) {
        switch (attr.type()) {
            case CTRL_ATTR_MCAST_GRP_NAME:
                group.name = attr.as_string();
                break;
            case CTRL_ATTR_MCAST_GRP_ID:
                group.id = attr.as_u32();
                has_id = true;
                break;
            default:
                break;
        }
    }
    if (group.name.empty() || !has_id) {
        throw Error(EBADMSG, "malformed netlink data: multicast group without a name or an id");
    }
    return group;
}

}  // namespace

std::optional<std::uint32_t> Family::group_id(std::string_view group_name) const {
    for (const MulticastGroup& group : multicast_groups) {
        if (group.name == group_name) {
            return group.id;
        }
    }
    return std::nullopt;
}

MessageBuilder make_genl_message(std::uint16_t family_id, std::uint8_t cmd, std::uint8_t version) {
    MessageBuilder message(family_id, 0);
    message.put_genl_header(cmd, version);
    return message;
}

MessageBuilder make_get_family_request(std::string_view family_name) {
    // Generic netlink does not check the version a request carries; send nlctrl's first one.
    MessageBuilder message = make_genl_message(GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1);
    message.put_string(CTRL_ATTR_FAMILY_NAME, family_name);
    return message;
}

Family parse_family(const MessageView& message) {
    if (message.type() != GENL_ID_CTRL || message.genl_cmd() != CTRL_CMD_NEWFAMILY) {
        throw Error(EPROTO, "expected a CTRL_CMD_NEWFAMILY message, got type " +
                                std::to_string(message.type()));
    }
    Family family;
    bool has_id = false;
    for (const Attr attr : message.genl_attrs()) {
        switch (attr.type()) {
            case CTRL_ATTR_FAMILY_ID:
                family.id = attr.as_u16();
                has_id = true;
                break;
            case CTRL_ATTR_FAMILY_NAME:
                family.name = attr.as_string();
                break;
            case CTRL_ATTR_VERSION:
                family.version = attr.as_u32();
                break;
            case CTRL_ATTR_HDRSIZE:
                family.header_size = attr.as_u32();
                break;
            case CTRL_ATTR_MAXATTR:
                family.max_attr = attr.as_u32();
                break;
            case CTRL_ATTR_MCAST_GROUPS:
                // A nest of nests, one per group, typed by their 1-based index.
                for (const Attr group : attr.nested()) {
                    family.multicast_groups.push_back(parse_multicast_group(group));
                }
                break;
            default:
                // Operations and policies are not needed to talk to a family.
                break;
        }
    }
    if (!has_id || family.name.empty()) {
        throw Error(EBADMSG, "malformed netlink data: family reply without an id or a name");
    }
    return family;
}

Family resolve_family(Socket& socket, std::string_view family_name) {
    MessageBuilder request = make_get_family_request(family_name);
    std::optional<Family> family;
    const std::string description =
        "resolving generic netlink family \"" + std::string(family_name) + "\"";
    socket.request(
        request, [&family](const MessageView& reply) { family = parse_family(reply); },
        description);
    if (!family) {
        throw Error(EPROTO, description + ": the kernel acknowledged without a reply");
    }
    return *std::move(family);
}

GenlClient::GenlClient(std::string_view family_name)
    : socket_(NETLINK_GENERIC), family_(resolve_family(socket_, family_name)) {}

MessageBuilder GenlClient::message(std::uint8_t cmd, std::uint8_t version) const {
    return make_genl_message(family_.id, cmd, version);
}

void GenlClient::request(MessageBuilder& message, const MessageHandler& on_reply,
                         std::string_view description) {
    socket_.request(message, on_reply, description);
}

void GenlClient::dump(MessageBuilder& message, const MessageHandler& on_reply,
                      std::string_view description) {
    socket_.dump(message, on_reply, description);
}

void GenlClient::join_group(std::string_view group_name) {
    const std::optional<std::uint32_t> id = family_.group_id(group_name);
    if (!id) {
        throw Error(ENOENT, "generic netlink family \"" + family_.name +
                                "\" has no multicast group \"" + std::string(group_name) + "\"");
    }
    socket_.join_group(*id);
}

}  // namespace refnic::nl
