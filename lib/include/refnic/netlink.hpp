/* SPDX-License-Identifier: LGPL-2.1-only OR BSD-2-Clause */
// Netlink core: building messages, walking received messages and their attributes, and a
// request/ACK and dump socket. Everything that parses kernel data bounds-checks it first and
// throws refnic::Error(EBADMSG) on malformed input; nothing here assumes the buffer is aligned.
#pragma once

#include <refnic/error.hpp>
#include <refnic/export.hpp>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iterator>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

struct mnl_socket;

namespace refnic::nl {

using Bytes = std::span<const std::byte>;

class AttrRange;

// One attribute of a bounds-checked attribute stream; refers into the caller's buffer.
class REFNIC_EXPORT Attr {
public:
    Attr(std::uint16_t raw_type, Bytes payload) noexcept : raw_type_(raw_type), payload_(payload) {}

    // The attribute type without the NLA_F_NESTED and NLA_F_NET_BYTEORDER flag bits.
    [[nodiscard]] std::uint16_t type() const noexcept;
    [[nodiscard]] bool has_nested_flag() const noexcept;
    [[nodiscard]] Bytes payload() const noexcept { return payload_; }

    // Typed getters; each throws Error(EBADMSG) unless the payload has exactly the right size.
    [[nodiscard]] std::uint8_t as_u8() const;
    [[nodiscard]] std::uint16_t as_u16() const;
    [[nodiscard]] std::uint32_t as_u32() const;
    [[nodiscard]] std::uint64_t as_u64() const;
    // NLA_UINT ("uint" in the YAML specs): the kernel sends 4 bytes when the value fits, else 8.
    [[nodiscard]] std::uint64_t as_uint() const;
    // NLA_NUL_STRING: the payload must contain a NUL; the view ends before the first one.
    [[nodiscard]] std::string_view as_string() const;
    // NLA_FLAG: presence means true, so the payload must be empty.
    [[nodiscard]] bool as_flag() const;
    // The payload parsed as a stream of attributes.
    [[nodiscard]] AttrRange nested() const;

private:
    template <typename Integer>
    [[nodiscard]] Integer as_integer(std::string_view type_name) const;

    std::uint16_t raw_type_;
    Bytes payload_;
};

// A stream of attributes, iterable with range-for. Each step validates the next attribute
// header against the remaining bytes and throws Error(EBADMSG) when it does not fit.
class REFNIC_EXPORT AttrRange {
public:
    class REFNIC_EXPORT iterator {
    public:
        using iterator_concept = std::forward_iterator_tag;
        using iterator_category = std::forward_iterator_tag;
        using value_type = Attr;
        using difference_type = std::ptrdiff_t;
        using reference = Attr;

        iterator() = default;
        [[nodiscard]] Attr operator*() const noexcept { return current_; }
        iterator& operator++();
        iterator operator++(int);
        [[nodiscard]] bool operator==(const iterator& other) const noexcept {
            return rest_.data() == other.rest_.data() && rest_.size() == other.rest_.size();
        }

    private:
        friend class AttrRange;
        explicit iterator(Bytes rest);
        void load_current();

        Bytes rest_;  // The current attribute and everything after it.
        Attr current_{0, {}};
        std::size_t current_span_ = 0;  // Aligned size of the current attribute within rest_.
    };

    explicit AttrRange(Bytes stream) noexcept : stream_(stream) {}

    [[nodiscard]] iterator begin() const { return iterator(stream_); }
    [[nodiscard]] iterator end() const { return iterator(stream_.subspan(stream_.size())); }
    // The first attribute of the given type (flags masked off), if any.
    [[nodiscard]] std::optional<Attr> find(std::uint16_t type) const;

private:
    Bytes stream_;
};

// A bounds-checked view of one netlink message.
class REFNIC_EXPORT MessageView {
public:
    // `message` starts with a struct nlmsghdr whose nlmsg_len must fit inside it; bytes past
    // nlmsg_len are ignored.
    explicit MessageView(Bytes message);

    [[nodiscard]] std::uint16_t type() const noexcept { return type_; }
    [[nodiscard]] std::uint16_t flags() const noexcept { return flags_; }
    [[nodiscard]] std::uint32_t seq() const noexcept { return seq_; }
    [[nodiscard]] std::uint32_t port_id() const noexcept { return port_id_; }
    // Header and payload, nlmsg_len bytes.
    [[nodiscard]] Bytes bytes() const noexcept { return message_; }
    // Everything after struct nlmsghdr.
    [[nodiscard]] Bytes payload() const noexcept;

    // Generic netlink accessors; throw Error(EBADMSG) if there is no struct genlmsghdr.
    [[nodiscard]] std::uint8_t genl_cmd() const;
    [[nodiscard]] std::uint8_t genl_version() const;
    [[nodiscard]] AttrRange genl_attrs() const;

private:
    Bytes message_;
    std::uint16_t type_ = 0;
    std::uint16_t flags_ = 0;
    std::uint32_t seq_ = 0;
    std::uint32_t port_id_ = 0;
};

// The messages of one received datagram, iterable with range-for; validated like AttrRange.
class REFNIC_EXPORT MessageRange {
public:
    class REFNIC_EXPORT iterator {
    public:
        using iterator_concept = std::forward_iterator_tag;
        using iterator_category = std::forward_iterator_tag;
        using value_type = MessageView;
        using difference_type = std::ptrdiff_t;
        using reference = MessageView;

        iterator() = default;
        [[nodiscard]] MessageView operator*() const;
        iterator& operator++();
        iterator operator++(int);
        [[nodiscard]] bool operator==(const iterator& other) const noexcept {
            return rest_.data() == other.rest_.data() && rest_.size() == other.rest_.size();
        }

    private:
        friend class MessageRange;
        explicit iterator(Bytes rest);

        Bytes rest_;  // The current message and everything after it.
    };

    explicit MessageRange(Bytes datagram) noexcept : datagram_(datagram) {}

    [[nodiscard]] iterator begin() const { return iterator(datagram_); }
    [[nodiscard]] iterator end() const { return iterator(datagram_.subspan(datagram_.size())); }

private:
    Bytes datagram_;
};

// The outcome carried by an NLMSG_ERROR (error 0 is an ACK) or by the NLMSG_DONE ending a dump.
struct Ack {
    int error = 0;  // 0 or a negative errno, as the kernel sends it.
    Extack extack;  // On success the kernel may still attach a warning message.
};

// Parses an NLMSG_ERROR or NLMSG_DONE message, including the extended ACK TLVs that follow it
// when NLM_F_ACK_TLVS is set, whether or not the kernel capped the echoed request.
[[nodiscard]] REFNIC_EXPORT Ack parse_ack(const MessageView& message);

// The types of the attributes leading to the one whose header starts `offset` bytes into
// `message` (a request, counted as NLMSGERR_ATTR_OFFS and NLMSGERR_ATTR_MISS_NEST count),
// outermost first. `fixed_header_size` is the family's header after struct nlmsghdr (4 for
// generic netlink). Empty when no attribute starts there; never throws on malformed bytes.
[[nodiscard]] REFNIC_EXPORT std::vector<std::uint16_t> attribute_path_at(
    Bytes message, std::size_t fixed_header_size, std::uint32_t offset);

class MessageBuilder;

// Closes a nested attribute when it goes out of scope. Guards must close innermost first,
// which scoping gives for free.
class REFNIC_EXPORT NestGuard {
public:
    NestGuard(const NestGuard&) = delete;
    NestGuard& operator=(const NestGuard&) = delete;
    NestGuard(NestGuard&& other) noexcept;
    NestGuard& operator=(NestGuard&&) = delete;
    ~NestGuard();

    // Ends the nest now instead of at scope exit; later calls do nothing.
    void close() noexcept;

private:
    friend class MessageBuilder;
    NestGuard(MessageBuilder& builder, std::size_t offset) noexcept
        : builder_(&builder), offset_(offset) {}

    MessageBuilder* builder_;  // Not owned; null once closed or moved from.
    std::size_t offset_;       // Where the nest's struct nlattr starts in the message.
};

// Builds one netlink message in a fixed-capacity buffer through libmnl. Attribute payloads
// are padded with zeroes, so the bytes are deterministic. A put that does not fit throws
// Error(EMSGSIZE) and leaves the message as it was.
class REFNIC_EXPORT MessageBuilder {
public:
    static constexpr std::size_t default_capacity = 8192;
    // Attribute lengths are 16 bits; capping the whole message keeps every nest in range.
    static constexpr std::size_t max_capacity = 0xffff;

    MessageBuilder(std::uint16_t type, std::uint16_t flags,
                   std::size_t capacity = default_capacity);

    // Appends a family's fixed header (e.g. struct ifinfomsg) right after struct nlmsghdr;
    // only valid before any attribute.
    template <typename Header>
    void put_header(const Header& header) {
        static_assert(std::is_trivially_copyable_v<Header>, "a netlink header is plain bytes");
        append_header(std::as_bytes(std::span<const Header, 1>(&header, 1)));
    }
    // Appends struct genlmsghdr.
    void put_genl_header(std::uint8_t cmd, std::uint8_t version);

    void put_u8(std::uint16_t type, std::uint8_t value);
    void put_u16(std::uint16_t type, std::uint16_t value);
    void put_u32(std::uint16_t type, std::uint32_t value);
    void put_u64(std::uint16_t type, std::uint64_t value);
    // NUL-terminated; throws Error(EINVAL) if `value` itself contains a NUL.
    void put_string(std::uint16_t type, std::string_view value);
    void put_binary(std::uint16_t type, Bytes value);
    void put_flag(std::uint16_t type);

    // Starts a nested attribute (libmnl sets NLA_F_NESTED) that lasts as long as the guard.
    [[nodiscard]] NestGuard open_nest(std::uint16_t type);
    // Runs `fill(*this)` inside a nested attribute.
    template <std::invocable<MessageBuilder&> Fill>
    void put_nested(std::uint16_t type, Fill&& fill) {
        NestGuard nest = open_nest(type);
        std::invoke(std::forward<Fill>(fill), *this);
    }

    [[nodiscard]] std::uint16_t type() const noexcept;
    [[nodiscard]] std::uint16_t flags() const noexcept;
    void set_flags(std::uint16_t flags) noexcept;
    [[nodiscard]] std::uint32_t seq() const noexcept;
    void set_seq(std::uint32_t seq) noexcept;

    // The message as it stands, nlmsg_len bytes.
    [[nodiscard]] Bytes bytes() const noexcept;

private:
    friend class NestGuard;
    void append_header(Bytes header);
    void end_nest(std::size_t offset) noexcept;
    void check_room(std::size_t attr_payload, std::uint16_t type) const;

    std::vector<std::byte> buffer_;
    bool has_attributes_ = false;  // Fixed headers are only allowed before the first attribute.
};

using MessageHandler = std::function<void(const MessageView&)>;

// A netlink socket (RAII over libmnl's mnl_socket) bound to a kernel-assigned port id, with
// NETLINK_EXT_ACK (the kernel explains errors) and NETLINK_CAP_ACK (error replies do not echo
// the whole request) enabled.
class REFNIC_EXPORT Socket {
public:
    // `protocol` is a NETLINK_* bus, e.g. NETLINK_GENERIC or NETLINK_ROUTE.
    explicit Socket(int protocol);
    Socket(const Socket&) = delete;
    Socket& operator=(const Socket&) = delete;
    Socket(Socket&& other) noexcept;
    Socket& operator=(Socket&& other) noexcept;
    ~Socket();

    [[nodiscard]] int fd() const noexcept;
    [[nodiscard]] std::uint32_t port_id() const noexcept { return port_id_; }

    // Sends `message` with NLM_F_REQUEST | NLM_F_ACK and the next sequence number, calls
    // `on_reply` for each reply message, and returns at the kernel's ACK. A kernel error is
    // thrown as Error carrying the extack; messages with other sequence numbers (late replies
    // to an abandoned request, notifications) are skipped, so use a separate socket to listen.
    // `description` (e.g. "ethtool rings get on eth0") becomes the context of thrown errors.
    void request(MessageBuilder& message, const MessageHandler& on_reply = {},
                 std::string_view description = "netlink request");
    // Like request() with NLM_F_DUMP added; returns at NLMSG_DONE. Throws Error(EINTR) if the
    // kernel flagged the dump as inconsistent (NLM_F_DUMP_INTR), after consuming it.
    void dump(MessageBuilder& message, const MessageHandler& on_reply,
              std::string_view description = "netlink dump");

    void join_group(std::uint32_t group);
    void leave_group(std::uint32_t group);
    // Blocks for one datagram and calls `on_message` for each message in it; for listening to
    // joined multicast groups.
    void receive(const MessageHandler& on_message);

private:
    struct MnlSocketCloser {
        void operator()(mnl_socket* socket) const noexcept;
    };

    void transact(MessageBuilder& message, bool is_dump, const MessageHandler& on_reply,
                  std::string_view description);
    void send(const MessageBuilder& message, std::string_view description);
    Bytes receive_datagram();

    std::unique_ptr<mnl_socket, MnlSocketCloser> socket_;
    std::uint32_t port_id_ = 0;
    std::uint32_t next_seq_ = 1;
    std::vector<std::byte> receive_buffer_;
};

}  // namespace refnic::nl
