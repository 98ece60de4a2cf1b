/* SPDX-License-Identifier: LGPL-2.1-only OR BSD-2-Clause */
// Requests of the family clients (refnic::control, refnic::netdev): a kernel refusal comes back
// with the attribute it points at named, and a get must bring exactly one reply.
#pragma once

#include <refnic/error.hpp>
#include <refnic/genl.hpp>
#include <refnic/netlink.hpp>

#include <cerrno>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace refnic::nl::detail {

// A family's name_attributes(): `error` with the attributes of `request` it points at named.
using ErrorNamer = Error (*)(const Error& error, const MessageBuilder& request);

// Runs a request or dump; a kernel error is rethrown through `name_attributes`.
inline void transact(GenlClient& client, MessageBuilder& message, bool is_dump,
                     const MessageHandler& on_reply, const std::string& description,
                     ErrorNamer name_attributes) {
    try {
        if (is_dump) {
            client.dump(message, on_reply, description);
        } else {
            client.request(message, on_reply, description);
        }
    } catch (const Error& error) {
        if (!error.from_kernel()) {
            throw;
        }
        throw name_attributes(error, message);
    }
}

// A request whose answer is one reply, parsed by `parse`; an ACK alone is EPROTO.
template <typename Result, typename Parse>
Result get_one(GenlClient& client, MessageBuilder& message, const std::string& description,
               Parse parse, ErrorNamer name_attributes) {
    std::optional<Result> result;
    transact(
        client, message, false,
        [&result, &parse](const MessageView& reply) { result = parse(reply); }, description,
        name_attributes);
    if (!result) {
        throw Error(EPROTO, description + ": the kernel acknowledged without a reply");
    }
    return *std::move(result);
}

// A dump, every reply parsed by `parse`.
template <typename Result, typename Parse>
std::vector<Result> dump_all(GenlClient& client, MessageBuilder& message,
                             const std::string& description, Parse parse,
                             ErrorNamer name_attributes) {
    std::vector<Result> results;
    transact(
        client, message, true,
        [&results, &parse](const MessageView& reply) { results.push_back(parse(reply)); },
        description, name_attributes);
    return results;
}

}  // namespace refnic::nl::detail
