/* SPDX-License-Identifier: LGPL-2.1-only OR BSD-2-Clause */
// The single error type of librefnic: every failure, whether reported by the kernel or detected
// while parsing what the kernel sent, is thrown as refnic::Error.
#pragma once

#include <refnic/export.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <system_error>

namespace refnic {

// Extended ACK details (NETLINK_EXT_ACK) attached by the kernel to an NLMSG_ERROR/NLMSG_DONE.
struct Extack {
    std::string message;                           // NLMSGERR_ATTR_MSG
    std::optional<std::uint32_t> attr_offset;      // NLMSGERR_ATTR_OFFS, from the request's start
    std::optional<std::uint32_t> missing_attr;     // NLMSGERR_ATTR_MISS_TYPE
    std::optional<std::uint32_t> missing_in_nest;  // NLMSGERR_ATTR_MISS_NEST (offset)
    // Names of the attributes above, e.g. "dev.queues" (attribute set, attribute), filled in by
    // the family clients (control::Client, netdev::Client) that know the request they sent;
    // empty when unknown.
    std::string attr_name;
    std::string missing_attr_name;

    [[nodiscard]] bool empty() const noexcept {
        return message.empty() && !attr_offset && !missing_attr && !missing_in_nest;
    }
};

class REFNIC_EXPORT Error : public std::system_error {
public:
    // errnum is a positive errno value; context says what librefnic was doing.
    Error(int errnum, std::string context, Extack extack = {}, bool from_kernel = false);

    [[nodiscard]] int errnum() const noexcept { return code().value(); }
    [[nodiscard]] const std::string& context() const noexcept { return context_; }
    [[nodiscard]] const Extack& extack() const noexcept { return extack_; }
    // True when the kernel answered the request with this error (NLMSG_ERROR or NLMSG_DONE);
    // false when librefnic itself failed (a syscall, or a malformed or unexpected message).
    [[nodiscard]] bool from_kernel() const noexcept { return from_kernel_; }

    // What a command-line tool should print: the kernel's extack message when it sent one,
    // otherwise strerror(errnum).
    [[nodiscard]] std::string reason() const;

    // "<context>: <extack message> (<strerror>)" plus the offending attribute, if known.
    [[nodiscard]] const char* what() const noexcept override { return what_.c_str(); }

private:
    std::string context_;
    Extack extack_;
    bool from_kernel_;
    std::string what_;
};

}  // namespace refnic
