// SPDX-License-Identifier: LGPL-2.1-only OR BSD-2-Clause
// Parsing of received netlink data: attributes, messages and ACKs. Every header is copied out
// with memcpy after a bounds check, so neither short nor misaligned buffers are a problem.
#include "wire.hpp"

#include <refnic/error.hpp>
#include <refnic/netlink.hpp>

#include <linux/genetlink.h>
#include <linux/netlink.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

namespace refnic::nl {

namespace {

static_assert(std::forward_iterator<AttrRange::iterator>);
static_assert(std::forward_iterator<MessageRange::iterator>);

constexpr std::size_t genl_header_size = wire::align(sizeof(genlmsghdr));

[[noreturn]] void throw_malformed(const std::string& what) {
    throw Error(EBADMSG, "malformed netlink data: " + what);
}

// Callers check bytes.size() >= sizeof(T) first.
template <typename T>
T load(Bytes bytes) {
    static_assert(std::is_trivially_copyable_v<T>);
    T value{};
    std::memcpy(&value, bytes.data(), sizeof(T));
    return value;
}

}  // namespace

// --- Attr -----------------------------------------------------------------------------------

std::uint16_t Attr::type() const noexcept { return raw_type_ & wire::attr_type_mask; }

bool Attr::has_nested_flag() const noexcept { return (raw_type_ & wire::attr_nested_flag) != 0; }

template <typename Integer>
Integer Attr::as_integer(std::string_view type_name) const {
    if (payload_.size() != sizeof(Integer)) {
        throw_malformed("attribute type " + std::to_string(type()) + " has " +
                        std::to_string(payload_.size()) + " payload bytes, " +
                        std::string(type_name) + " needs " + std::to_string(sizeof(Integer)));
    }
    return load<Integer>(payload_);
}

std::uint8_t Attr::as_u8() const { return as_integer<std::uint8_t>("u8"); }
std::uint16_t Attr::as_u16() const { return as_integer<std::uint16_t>("u16"); }
std::uint32_t Attr::as_u32() const { return as_integer<std::uint32_t>("u32"); }
std::uint64_t Attr::as_u64() const { return as_integer<std::uint64_t>("u64"); }

std::uint64_t Attr::as_uint() const {
    if (payload_.size() == sizeof(std::uint32_t)) {
        return load<std::uint32_t>(payload_);
    }
    if (payload_.size() == sizeof(std::uint64_t)) {
        return load<std::uint64_t>(payload_);
    }
    throw_malformed("attribute type " + std::to_string(type()) + " has " +
                    std::to_string(payload_.size()) + " payload bytes, uint needs 4 or 8");
}

std::string_view Attr::as_string() const {
    const auto nul = std::find(payload_.begin(), payload_.end(), std::byte{0});
    if (nul == payload_.end()) {
        throw_malformed("string attribute type " + std::to_string(type()) +
                        " is not NUL-terminated");
    }
    return {reinterpret_cast<const char*>(payload_.data()),
            static_cast<std::size_t>(nul - payload_.begin())};
}

bool Attr::as_flag() const {
    if (!payload_.empty()) {
        throw_malformed("flag attribute type " + std::to_string(type()) + " has " +
                        std::to_string(payload_.size()) + " payload bytes, expected none");
    }
    return true;
}

AttrRange Attr::nested() const { return AttrRange(payload_); }

// --- AttrRange ------------------------------------------------------------------------------

AttrRange::iterator::iterator(Bytes rest) : rest_(rest) { load_current(); }

void AttrRange::iterator::load_current() {
    if (rest_.empty()) {
        return;
    }
    if (rest_.size() < wire::attr_header_size) {
        throw_malformed(std::to_string(rest_.size()) +
                        " bytes left after the last attribute, too few for another");
    }
    const auto header = load<nlattr>(rest_);
    const std::uint16_t type = header.nla_type & wire::attr_type_mask;
    if (header.nla_len < wire::attr_header_size) {
        throw_malformed("attribute type " + std::to_string(type) + " declares length " +
                        std::to_string(header.nla_len) + ", shorter than its header");
    }
    if (header.nla_len > rest_.size()) {
        throw_malformed("attribute type " + std::to_string(type) + " declares length " +
                        std::to_string(header.nla_len) + " but only " +
                        std::to_string(rest_.size()) + " bytes remain");
    }
    current_ = Attr(header.nla_type,
                    rest_.subspan(wire::attr_header_size, header.nla_len - wire::attr_header_size));
    // The last attribute of a stream may legitimately lack its trailing padding.
    current_span_ = std::min<std::size_t>(wire::align(header.nla_len), rest_.size());
}

AttrRange::iterator& AttrRange::iterator::operator++() {
    rest_ = rest_.subspan(current_span_);
    load_current();
    return *this;
}

AttrRange::iterator AttrRange::iterator::operator++(int) {
    iterator previous = *this;
    ++*this;
    return previous;
}

std::optional<Attr> AttrRange::find(std::uint16_t type) const {
    for (const Attr attr : *this) {
        if (attr.type() == type) {
            return attr;
        }
    }
    return std::nullopt;
}

// --- MessageView ----------------------------------------------------------------------------

MessageView::MessageView(Bytes message) {
    if (message.size() < sizeof(nlmsghdr)) {
        throw_malformed(std::to_string(message.size()) +
                        " bytes are too few for a netlink message header");
    }
    const auto header = load<nlmsghdr>(message);
    if (header.nlmsg_len < sizeof(nlmsghdr) || header.nlmsg_len > message.size()) {
        throw_malformed("netlink message declares length " + std::to_string(header.nlmsg_len) +
                        " with " + std::to_string(message.size()) + " bytes available");
    }
    message_ = message.first(header.nlmsg_len);
    type_ = header.nlmsg_type;
    flags_ = header.nlmsg_flags;
    seq_ = header.nlmsg_seq;
    port_id_ = header.nlmsg_pid;
}

Bytes MessageView::payload() const noexcept { return message_.subspan(wire::message_header_size); }

std::uint8_t MessageView::genl_cmd() const {
    if (payload().size() < genl_header_size) {
        throw_malformed("message type " + std::to_string(type_) +
                        " is too short for a generic netlink header");
    }
    return load<genlmsghdr>(payload()).cmd;
}

std::uint8_t MessageView::genl_version() const {
    // genl_cmd() validates the length.
    static_cast<void>(genl_cmd());
    return load<genlmsghdr>(payload()).version;
}

AttrRange MessageView::genl_attrs() const {
    static_cast<void>(genl_cmd());
    return AttrRange(payload().subspan(genl_header_size));
}

// --- MessageRange ---------------------------------------------------------------------------

MessageRange::iterator::iterator(Bytes rest) : rest_(rest) {}

MessageView MessageRange::iterator::operator*() const { return MessageView(rest_); }

MessageRange::iterator& MessageRange::iterator::operator++() {
    const MessageView current(rest_);
    rest_ = rest_.subspan(std::min<std::size_t>(wire::align(current.bytes().size()), rest_.size()));
    return *this;
}

MessageRange::iterator MessageRange::iterator::operator++(int) {
    iterator previous = *this;
    ++*this;
    return previous;
}

// --- ACKs -----------------------------------------------------------------------------------

Ack parse_ack(const MessageView& message) {
    const Bytes payload = message.payload();
    Ack ack;
    std::size_t tlv_offset = 0;
    if (message.type() == NLMSG_ERROR) {
        if (payload.size() < sizeof(nlmsgerr)) {
            throw_malformed("NLMSG_ERROR with " + std::to_string(payload.size()) +
                            " payload bytes, shorter than struct nlmsgerr");
        }
        const auto error = load<nlmsgerr>(payload);
        ack.error = error.error;
        tlv_offset = sizeof(nlmsgerr);
        // Without NLM_F_CAPPED the kernel echoes the whole request, not just its header.
        if ((message.flags() & NLM_F_CAPPED) == 0 && error.msg.nlmsg_len > sizeof(nlmsghdr)) {
            tlv_offset += wire::align(error.msg.nlmsg_len - sizeof(nlmsghdr));
        }
    } else if (message.type() == NLMSG_DONE) {
        // Kernels have always sent the dump's final status here, but an empty DONE is
        // harmless to accept as success.
        if (payload.size() < sizeof(int)) {
            return ack;
        }
        ack.error = load<int>(payload);
        tlv_offset = wire::align(sizeof(int));
    } else {
        throw Error(EPROTO, "expected NLMSG_ERROR or NLMSG_DONE, got message type " +
                                std::to_string(message.type()));
    }
    if (ack.error > 0) {
        throw_malformed("positive error " + std::to_string(ack.error) + " in an ACK");
    }
    if ((message.flags() & NLM_F_ACK_TLVS) == 0) {
        return ack;
    }
    if (tlv_offset > payload.size()) {
        throw_malformed("extended ACK attributes start past the end of the message");
    }
    for (const Attr attr : AttrRange(payload.subspan(tlv_offset))) {
        switch (attr.type()) {
            case NLMSGERR_ATTR_MSG:
                ack.extack.message = attr.as_string();
                break;
            case NLMSGERR_ATTR_OFFS:
                ack.extack.attr_offset = attr.as_u32();
                break;
            case NLMSGERR_ATTR_MISS_TYPE:
                ack.extack.missing_attr = attr.as_u32();
                break;
            case NLMSGERR_ATTR_MISS_NEST:
                ack.extack.missing_in_nest = attr.as_u32();
                break;
            default:
                // NLMSGERR_ATTR_COOKIE and _POLICY are for programs that know the family.
                break;
        }
    }
    return ack;
}

// --- Locating attributes by offset ----------------------------------------------------------

std::vector<std::uint16_t> attribute_path_at(Bytes message, std::size_t fixed_header_size,
                                             std::uint32_t offset) {
    std::vector<std::uint16_t> path;
    std::size_t start = wire::message_header_size + wire::align(fixed_header_size);
    if (start > message.size() || offset < start) {
        return {};
    }
    Bytes stream = message.subspan(start);
    try {
        for (;;) {
            bool descended = false;
            for (const Attr attr : AttrRange(stream)) {
                const auto attr_start =
                    static_cast<std::size_t>(attr.payload().data() - message.data()) -
                    wire::attr_header_size;
                if (attr_start == offset) {
                    path.push_back(attr.type());
                    return path;
                }
                const std::size_t payload_start = attr_start + wire::attr_header_size;
                if (offset >= payload_start && offset < payload_start + attr.payload().size()) {
                    path.push_back(attr.type());
                    stream = attr.payload();
                    descended = true;
                    break;
                }
            }
            if (!descended) {
                return {};
            }
        }
    } catch (const Error&) {
        // A payload that is not an attribute stream: the offset points into plain data.
        return {};
    }
}

}  // namespace refnic::nl
