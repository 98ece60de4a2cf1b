// SPDX-License-Identifier: LGPL-2.1-only OR BSD-2-Clause
// Message building on libmnl. The buffer is a zero-filled std::vector, which operator new aligns
// for struct nlmsghdr, and libmnl zeroes every header and attribute padding it writes.
#include "wire.hpp"

#include <refnic/error.hpp>
#include <refnic/netlink.hpp>

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

namespace refnic::nl {

namespace {

// libmnl's attribute API takes the message header; the vector's storage holds it.
nlmsghdr* header_of(std::vector<std::byte>& buffer) {
    return reinterpret_cast<nlmsghdr*>(buffer.data());
}

const nlmsghdr* header_of(const std::vector<std::byte>& buffer) {
    return reinterpret_cast<const nlmsghdr*>(buffer.data());
}

[[noreturn]] void throw_full(std::size_t capacity, const std::string& what) {
    throw Error(EMSGSIZE, "netlink message would exceed its " + std::to_string(capacity) +
                              "-byte buffer adding " + what);
}

std::string attribute_name(std::uint16_t type) { return "attribute type " + std::to_string(type); }

}  // namespace

// --- NestGuard ------------------------------------------------------------------------------

NestGuard::NestGuard(NestGuard&& other) noexcept
    : builder_(std::exchange(other.builder_, nullptr)), offset_(other.offset_) {}

NestGuard::~NestGuard() { close(); }

void NestGuard::close() noexcept {
    if (builder_ != nullptr) {
        std::exchange(builder_, nullptr)->end_nest(offset_);
    }
}

// --- MessageBuilder -------------------------------------------------------------------------

MessageBuilder::MessageBuilder(std::uint16_t type, std::uint16_t flags, std::size_t capacity) {
    if (capacity < wire::message_header_size || capacity > max_capacity) {
        throw Error(EINVAL, "netlink message capacity " + std::to_string(capacity) +
                                " is outside [" + std::to_string(wire::message_header_size) + ", " +
                                std::to_string(max_capacity) + "]");
    }
    buffer_.resize(capacity);
    nlmsghdr* header = mnl_nlmsg_put_header(buffer_.data());
    header->nlmsg_type = type;
    header->nlmsg_flags = flags;
}

void MessageBuilder::append_header(Bytes header) {
    if (has_attributes_) {
        throw Error(EINVAL, "a fixed netlink header must come before all attributes");
    }
    nlmsghdr* message = header_of(buffer_);
    if (message->nlmsg_len + wire::align(header.size()) > buffer_.size()) {
        throw_full(buffer_.size(), "a " + std::to_string(header.size()) + "-byte header");
    }
    void* destination = mnl_nlmsg_put_extra_header(message, header.size());
    std::memcpy(destination, header.data(), header.size());
}

void MessageBuilder::put_genl_header(std::uint8_t cmd, std::uint8_t version) {
    const genlmsghdr header{.cmd = cmd, .version = version, .reserved = 0};
    put_header(header);
}

void MessageBuilder::put_u8(std::uint16_t type, std::uint8_t value) {
    if (!mnl_attr_put_u8_check(header_of(buffer_), buffer_.size(), type, value)) {
        throw_full(buffer_.size(), attribute_name(type));
    }
    has_attributes_ = true;
}

void MessageBuilder::put_u16(std::uint16_t type, std::uint16_t value) {
    if (!mnl_attr_put_u16_check(header_of(buffer_), buffer_.size(), type, value)) {
        throw_full(buffer_.size(), attribute_name(type));
    }
    has_attributes_ = true;
}

void MessageBuilder::put_u32(std::uint16_t type, std::uint32_t value) {
    if (!mnl_attr_put_u32_check(header_of(buffer_), buffer_.size(), type, value)) {
        throw_full(buffer_.size(), attribute_name(type));
    }
    has_attributes_ = true;
}

void MessageBuilder::put_u64(std::uint16_t type, std::uint64_t value) {
    if (!mnl_attr_put_u64_check(header_of(buffer_), buffer_.size(), type, value)) {
        throw_full(buffer_.size(), attribute_name(type));
    }
    has_attributes_ = true;
}

void MessageBuilder::put_string(std::uint16_t type, std::string_view value) {
    if (value.find('\0') != std::string_view::npos) {
        // The kernel would silently cut the string at the NUL.
        throw Error(EINVAL, "string for " + attribute_name(type) + " contains a NUL byte");
    }
    const std::string terminated(value);
    if (!mnl_attr_put_strz_check(header_of(buffer_), buffer_.size(), type, terminated.c_str())) {
        throw_full(buffer_.size(), attribute_name(type));
    }
    has_attributes_ = true;
}

void MessageBuilder::put_binary(std::uint16_t type, Bytes value) {
    // libmnl's bounds check is enough: capacity <= 0xffff keeps nla_len from overflowing.
    if (!mnl_attr_put_check(header_of(buffer_), buffer_.size(), type, value.size(), value.data())) {
        throw_full(buffer_.size(), attribute_name(type));
    }
    has_attributes_ = true;
}

void MessageBuilder::put_flag(std::uint16_t type) {
    // libmnl memcpy()s zero bytes from `data`; give it a valid pointer rather than null.
    static constexpr std::byte no_payload{};
    if (!mnl_attr_put_check(header_of(buffer_), buffer_.size(), type, 0, &no_payload)) {
        throw_full(buffer_.size(), attribute_name(type));
    }
    has_attributes_ = true;
}

NestGuard MessageBuilder::open_nest(std::uint16_t type) {
    nlattr* nest = mnl_attr_nest_start_check(header_of(buffer_), buffer_.size(), type);
    if (nest == nullptr) {
        throw_full(buffer_.size(), "nested " + attribute_name(type));
    }
    has_attributes_ = true;
    const auto offset =
        static_cast<std::size_t>(reinterpret_cast<std::byte*>(nest) - buffer_.data());
    return {*this, offset};
}

void MessageBuilder::end_nest(std::size_t offset) noexcept {
    mnl_attr_nest_end(header_of(buffer_), reinterpret_cast<nlattr*>(buffer_.data() + offset));
}

std::uint16_t MessageBuilder::type() const noexcept { return header_of(buffer_)->nlmsg_type; }

std::uint16_t MessageBuilder::flags() const noexcept { return header_of(buffer_)->nlmsg_flags; }

void MessageBuilder::set_flags(std::uint16_t flags) noexcept {
    header_of(buffer_)->nlmsg_flags = flags;
}

std::uint32_t MessageBuilder::seq() const noexcept { return header_of(buffer_)->nlmsg_seq; }

void MessageBuilder::set_seq(std::uint32_t seq) noexcept { header_of(buffer_)->nlmsg_seq = seq; }

Bytes MessageBuilder::bytes() const noexcept {
    return Bytes(buffer_).first(header_of(buffer_)->nlmsg_len);
}

}  // namespace refnic::nl
