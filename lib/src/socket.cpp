// SPDX-License-Identifier: LGPL-2.1-only OR BSD-2-Clause
// The netlink socket: libmnl opens, configures, binds and sends; receiving uses recvfrom() on
// libmnl's descriptor directly, to size the buffer to each datagram (MSG_PEEK | MSG_TRUNC) and to
// drop datagrams that do not come from the kernel.
#include <refnic/error.hpp>
#include <refnic/netlink.hpp>

#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <sys/socket.h>

#include <cerrno>
#include <string>
#include <utility>

namespace refnic::nl {

namespace {

// Large enough for a full dump skb: the kernel sizes those from the reader's buffer, up to 32 KiB.
constexpr std::size_t initial_receive_buffer = 32768;

void enable_option(mnl_socket* socket, int option, const char* name) {
    int enabled = 1;
    if (mnl_socket_setsockopt(socket, option, &enabled, sizeof(enabled)) < 0) {
        throw Error(errno, std::string("enabling ") + name + " on a netlink socket");
    }
}

}  // namespace

void Socket::MnlSocketCloser::operator()(mnl_socket* socket) const noexcept {
    mnl_socket_close(socket);
}

Socket::Socket(int protocol) : receive_buffer_(initial_receive_buffer) {
    socket_.reset(mnl_socket_open2(protocol, SOCK_CLOEXEC));
    if (!socket_) {
        throw Error(errno, "opening a netlink socket for protocol " + std::to_string(protocol));
    }
    enable_option(socket_.get(), NETLINK_EXT_ACK, "NETLINK_EXT_ACK");
    enable_option(socket_.get(), NETLINK_CAP_ACK, "NETLINK_CAP_ACK");
    if (mnl_socket_bind(socket_.get(), 0, MNL_SOCKET_AUTOPID) < 0) {
        throw Error(errno, "binding a netlink socket");
    }
    port_id_ = mnl_socket_get_portid(socket_.get());
}

Socket::Socket(Socket&&) noexcept = default;
Socket& Socket::operator=(Socket&&) noexcept = default;
Socket::~Socket() = default;

int Socket::fd() const noexcept { return mnl_socket_get_fd(socket_.get()); }

void Socket::send(const MessageBuilder& message, std::string_view description) {
    const Bytes bytes = message.bytes();
    if (mnl_socket_sendto(socket_.get(), bytes.data(), bytes.size()) < 0) {
        throw Error(errno, std::string(description) + ": sending");
    }
}

Bytes Socket::receive_datagram() {
    const int descriptor = fd();
    for (;;) {
        const ssize_t pending = ::recv(descriptor, receive_buffer_.data(), receive_buffer_.size(),
                                       MSG_PEEK | MSG_TRUNC);
        if (pending < 0) {
            if (errno == EINTR) {
                continue;
            }
            throw Error(errno, "receiving from a netlink socket");
        }
        if (static_cast<std::size_t>(pending) > receive_buffer_.size()) {
            receive_buffer_.resize(static_cast<std::size_t>(pending));
        }
        sockaddr_nl sender{};
        socklen_t sender_length = sizeof(sender);
        const ssize_t received =
            ::recvfrom(descriptor, receive_buffer_.data(), receive_buffer_.size(), 0,
                       reinterpret_cast<sockaddr*>(&sender), &sender_length);
        if (received < 0) {
            if (errno == EINTR) {
                continue;
            }
            throw Error(errno, "receiving from a netlink socket");
        }
        // Other processes can unicast to our port id; only the kernel (port 0) is trusted.
        if (sender_length != sizeof(sender) || sender.nl_family != AF_NETLINK ||
            sender.nl_pid != 0) {
            continue;
        }
        return Bytes(receive_buffer_).first(static_cast<std::size_t>(received));
    }
}

void Socket::request(MessageBuilder& message, const MessageHandler& on_reply,
                     std::string_view description) {
    transact(message, false, on_reply, description);
}

void Socket::dump(MessageBuilder& message, const MessageHandler& on_reply,
                  std::string_view description) {
    transact(message, true, on_reply, description);
}

void Socket::transact(MessageBuilder& message, bool is_dump, const MessageHandler& on_reply,
                      std::string_view description) {
    // Notifications carry sequence number 0, so requests never use it.
    if (next_seq_ == 0) {
        ++next_seq_;
    }
    const std::uint32_t seq = next_seq_++;
    const std::uint16_t dump_flag = is_dump ? NLM_F_DUMP : 0;
    message.set_flags(message.flags() | NLM_F_REQUEST | NLM_F_ACK | dump_flag);
    message.set_seq(seq);
    send(message, description);

    bool interrupted = false;
    for (;;) {
        for (const MessageView reply : MessageRange(receive_datagram())) {
            if (reply.seq() != seq || reply.port_id() != port_id_) {
                continue;
            }
            if ((reply.flags() & NLM_F_DUMP_INTR) != 0) {
                interrupted = true;
            }
            switch (reply.type()) {
                case NLMSG_NOOP:
                    break;
                case NLMSG_ERROR:
                case NLMSG_DONE: {
                    Ack ack = parse_ack(reply);
                    if (ack.error != 0) {
                        throw Error(-ack.error, std::string(description), std::move(ack.extack),
                                    true);
                    }
                    if (interrupted) {
                        throw Error(EINTR, std::string(description) +
                                               ": the dump changed while it ran, retry it");
                    }
                    return;
                }
                case NLMSG_OVERRUN:
                    throw Error(EPROTO, std::string(description) + ": unexpected NLMSG_OVERRUN");
                default:
                    if (on_reply) {
                        on_reply(reply);
                    }
                    break;
            }
        }
    }
}

void Socket::join_group(std::uint32_t group) {
    int id = static_cast<int>(group);
    if (mnl_socket_setsockopt(socket_.get(), NETLINK_ADD_MEMBERSHIP, &id, sizeof(id)) < 0) {
        throw Error(errno, "joining netlink multicast group " + std::to_string(group));
    }
}

void Socket::leave_group(std::uint32_t group) {
    int id = static_cast<int>(group);
    if (mnl_socket_setsockopt(socket_.get(), NETLINK_DROP_MEMBERSHIP, &id, sizeof(id)) < 0) {
        throw Error(errno, "leaving netlink multicast group " + std::to_string(group));
    }
}

void Socket::receive(const MessageHandler& on_message) {
    for (const MessageView message : MessageRange(receive_datagram())) {
        if (message.type() == NLMSG_NOOP) {
            continue;
        }
        if (message.type() == NLMSG_ERROR || message.type() == NLMSG_DONE) {
            Ack ack = parse_ack(message);
            if (ack.error != 0) {
                throw Error(-ack.error, "netlink notification", std::move(ack.extack), true);
            }
            continue;
        }
        on_message(message);
    }
}

}  // namespace refnic::nl
