// SPDX-License-Identifier: GPL-2.0-only
// refnic-devmem: zero-copy TCP through a NIC with librefnic: a devmem TCP receiver over a
// udmabuf (devmem::Receiver), an io_uring zcrx receiver (zcrx::Receiver) and a devmem TX sender
// from a udmabuf (devmem::Sender). See help_text() in cli.cpp.
#include "cli.hpp"
#include "report.hpp"

#include <refnic/devmem.hpp>
#include <refnic/error.hpp>
#include <refnic/fd.hpp>
#include <refnic/netdev.hpp>
#include <refnic/zcrx.hpp>

#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace {

using namespace refnic::devmem_cli;
namespace devmem = refnic::devmem;
namespace netdev = refnic::netdev;
namespace zcrx = refnic::zcrx;

// A run that cannot go on, with the whole message to print (bad data, unusable setup).
class Failure : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

void print_line(std::string_view message) { std::cerr << "refnic-devmem: " << message << '\n'; }

std::string queue_list(const std::vector<std::uint32_t>& queues) {
    std::string text = queues.size() == 1 ? "RX queue " : "RX queues ";
    for (std::size_t i = 0; i < queues.size(); ++i) {
        text += (i == 0 ? "" : ", ") + std::to_string(queues[i]);
    }
    return text;
}

std::uint32_t resolve_ifindex(const std::string& name) {
    const unsigned int ifindex = ::if_nametoindex(name.c_str());
    if (ifindex == 0) {
        throw refnic::Error(errno, "interface " + name);
    }
    return ifindex;
}

// bind-rx attaches the dmabuf to the device's parent (dev->dev.parent): a device without one,
// such as lo or veth, cannot be bound, and Linux 6.12 WARNs in dma_buf_attach() trying. Checked
// through sysfs when sysfs shows this network namespace's device of that name.
void require_parent_device(const std::string& name, std::uint32_t ifindex) {
    const std::filesystem::path directory = std::filesystem::path("/sys/class/net") / name;
    std::ifstream index_file(directory / "ifindex");
    std::uint32_t sysfs_ifindex = 0;
    if (!(index_file >> sysfs_ifindex) || sysfs_ifindex != ifindex) {
        return;
    }
    std::error_code error;
    if (!std::filesystem::exists(directory / "device", error) && !error) {
        throw Failure(name + " has no parent device (no " + (directory / "device").string() +
                      "), which bind-rx attaches the dmabuf to: devmem TCP needs a NIC driver, "
                      "not a virtual device");
    }
}

// EBUSY from bind-rx or a zcrx registration: the kernel gives no reason.
constexpr std::string_view queue_taken_hint =
    " (the queue is taken: a refnic bypass session, or an AF_XDP socket; the kernel log names "
    "it)";

std::string bind_hint(const refnic::Error& error) {
    switch (error.errnum()) {
        case EPERM:
            return " (bind-rx needs CAP_NET_ADMIN)";
        case EOPNOTSUPP:
            return " (the driver has no devmem support: no queue management ops, or no header "
                   "split)";
        case EBUSY:
            return std::string(queue_taken_hint);
        default:
            return "";
    }
}

netdev::DmabufBinding bind(const Rx& rx, std::uint32_t ifindex, const devmem::Udmabuf& buffer) {
    try {
        return netdev::DmabufBinding::bind_rx(ifindex, buffer.fd(), rx.queues);
    } catch (const refnic::Error& error) {
        throw Failure("binding the udmabuf to " + rx.ifname + " " + queue_list(rx.queues) + ": " +
                      error.what() + bind_hint(error));
    }
}

std::string endpoint(const sockaddr_in6& address) {
    std::array<char, INET6_ADDRSTRLEN> text{};
    if (::inet_ntop(AF_INET6, &address.sin6_addr, text.data(), text.size()) == nullptr) {
        return "?";
    }
    return "[" + std::string(text.data()) + "]:" + std::to_string(ntohs(address.sin6_port));
}

refnic::UniqueFd listen_on(std::uint16_t port, const Ipv6Address& server_address) {
    refnic::UniqueFd socket(::socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (!socket) {
        throw refnic::Error(errno, "opening an IPv6 TCP socket");
    }
    const int on = 1;
    const int off = 0;
    if (::setsockopt(socket.get(), SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on)) != 0 ||
        ::setsockopt(socket.get(), IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off)) != 0) {
        throw refnic::Error(errno, "setting SO_REUSEADDR and IPV6_V6ONLY off");
    }
    sockaddr_in6 address{};
    address.sin6_family = AF_INET6;
    address.sin6_port = htons(port);
    std::memcpy(&address.sin6_addr, server_address.data(), server_address.size());
    if (::bind(socket.get(), reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0) {
        throw refnic::Error(errno, "binding " + endpoint(address));
    }
    if (::listen(socket.get(), 1) != 0) {
        throw refnic::Error(errno, "listening on " + endpoint(address));
    }
    return socket;
}

refnic::UniqueFd accept_one(const refnic::UniqueFd& listener) {
    for (;;) {
        sockaddr_in6 peer{};
        socklen_t length = sizeof(peer);
        refnic::UniqueFd connection(
            ::accept4(listener.get(), reinterpret_cast<sockaddr*>(&peer), &length, SOCK_CLOEXEC));
        if (connection) {
            print_line("connection from " + endpoint(peer));
            return connection;
        }
        if (errno != EINTR) {
            throw refnic::Error(errno, "accepting a connection");
        }
    }
}

std::chrono::nanoseconds time_of(const timeval& time) {
    return std::chrono::seconds(time.tv_sec) + std::chrono::microseconds(time.tv_usec);
}

rusage usage() {
    rusage now{};
    ::getrusage(RUSAGE_SELF, &now);
    return now;
}

// Runs `receive` (which returns a Summary or ZcrxSummary without times) and fills in its wall
// clock and CPU times.
template <typename Receive>
auto timed(Receive receive) {
    const auto start = std::chrono::steady_clock::now();
    const rusage before = usage();
    auto summary = receive();
    const rusage after = usage();
    summary.elapsed = std::chrono::duration_cast<std::chrono::nanoseconds>(
        std::chrono::steady_clock::now() - start);
    summary.cpu_user = time_of(after.ru_utime) - time_of(before.ru_utime);
    summary.cpu_system = time_of(after.ru_stime) - time_of(before.ru_stime);
    return summary;
}

// What a recvmsg brought that is not payload in our dmabuf: a Failure saying why. Once the
// udmabuf is unbound, plain data is what the rest of the stream is.
void check_devmem(const Rx& rx, const devmem::Received& received, std::uint64_t stream_offset,
                  const netdev::DmabufBinding& binding, const devmem::Udmabuf& buffer) {
    const std::string where = " at stream offset " + std::to_string(stream_offset);
    if (!received.devmem && !binding.bound()) {
        return;
    }
    if (!received.devmem) {
        throw Failure(std::to_string(received.bytes) + " bytes arrived without devmem cmsgs" +
                      where + ": the flow is not steered to a bound queue (ethtool -N " +
                      rx.ifname + " flow-type tcp4 dst-port " + std::to_string(rx.port) +
                      " action " + std::to_string(rx.queues.front()) +
                      "), or the kernel cannot do devmem TCP");
    }
    if (!received.linear.empty()) {
        throw Failure(std::to_string(received.linear.size()) +
                      " payload bytes arrived through SCM_DEVMEM_LINEAR" + where +
                      ", copied instead of placed in the dmabuf: is header split on? "
                      "(refnic-ethtool -G " +
                      rx.ifname + " tcp-data-split on)");
    }
    for (const devmem::Frag& frag : received.frags) {
        if (frag.dmabuf_id != binding.id()) {
            throw Failure("a frag" + where + " is in dmabuf binding " +
                          std::to_string(frag.dmabuf_id) + ", not ours (" +
                          std::to_string(binding.id()) +
                          "): the flow is steered to a queue bound by someone else");
        }
        try {
            static_cast<void>(buffer.bytes(frag.offset, frag.size));
        } catch (const refnic::Error& error) {
            throw Failure("the kernel reported a frag (token " + std::to_string(frag.token) +
                          ") outside the udmabuf: " + error.what());
        }
    }
}

// Checks what a recvmsg brought against the pattern: the frags in the udmabuf, or the plain
// data after an unbind.
void validate_received(const Rx& rx, PatternValidator& validator, const devmem::Received& received,
                       const devmem::Udmabuf& buffer, Summary& summary) {
    if (!received.devmem) {
        if (const std::optional<Mismatch> mismatch = validator.check(received.linear)) {
            throw Failure("validation failed at " + describe(*mismatch) +
                          " (plain data after the unbind, period " + std::to_string(*rx.validate) +
                          ")");
        }
        return;
    }
    devmem::CpuAccess access = buffer.cpu_read();
    for (const devmem::Frag& frag : received.frags) {
        if (const std::optional<Mismatch> mismatch =
                validator.check(buffer.bytes(frag.offset, frag.size))) {
            throw Failure("validation failed at " + describe(*mismatch) +
                          " (frag at dmabuf offset " + std::to_string(frag.offset) + ", period " +
                          std::to_string(*rx.validate) + ")");
        }
    }
    access.end();
    summary.sync_ioctls += 2;
}

// Receives until the end of the stream; the Summary has no times yet. With --unbind-after,
// the binding is closed once that much arrived, before the frags of that recvmsg (and any
// tokens batched) are handed back: the kernel must keep them valid until then.
Summary receive_stream(const Rx& rx, devmem::Receiver& receiver, netdev::DmabufBinding& binding,
                       const devmem::Udmabuf& buffer) {
    Summary summary;
    summary.ifname = rx.ifname;
    summary.queues = rx.queues;
    summary.binding = binding.id();
    summary.release = rx.release;
    summary.validate = rx.validate;
    std::optional<PatternValidator> validator;
    if (rx.validate) {
        validator.emplace(*rx.validate);
    }
    std::uint64_t stream_offset = 0;
    for (;;) {
        const devmem::Received received = receiver.receive();
        if (received.eof()) {
            break;
        }
        check_devmem(rx, received, stream_offset, binding, buffer);
        stream_offset += received.bytes;
        if (rx.unbind_after_mib && binding.bound() &&
            stream_offset >= (*rx.unbind_after_mib << 20U)) {
            summary.unbound_at = stream_offset;
            summary.held_at_unbind = received.frags.size() + receiver.pending_frags();
            binding.reset();
        }
        if (validator) {
            validate_received(rx, *validator, received, buffer, summary);
        }
        receiver.release(received.frags);
    }
    receiver.flush();
    summary.stats = receiver.stats();
    return summary;
}

int run_rx(const Rx& rx) {
    const std::uint32_t ifindex = resolve_ifindex(rx.ifname);
    const devmem::Udmabuf buffer(static_cast<std::size_t>(rx.size_mib) << 20U);
    require_parent_device(rx.ifname, ifindex);
    netdev::DmabufBinding binding = bind(rx, ifindex, buffer);
    const refnic::UniqueFd listener = listen_on(rx.port, rx.server_address);
    print_line("bound a " + std::to_string(rx.size_mib) + " MiB udmabuf to " + rx.ifname + " " +
               queue_list(rx.queues) + " (binding " + std::to_string(binding.id()) +
               "); listening on [" + rx.server + "]:" + std::to_string(rx.port));

    devmem::Receiver receiver(accept_one(listener), devmem::ReceiverOptions{.release = rx.release});
    const Summary summary = timed([&] { return receive_stream(rx, receiver, binding, buffer); });
    std::cout << (rx.json ? summary_json(summary, rx.pretty) : summary_text(summary)) << std::flush;
    return exit_ok;
}

std::string zcrx_hint(const refnic::Error& error, const Zcrx& zcrx) {
    switch (error.errnum()) {
        case EPERM:
            return " (registering a zcrx queue needs CAP_NET_ADMIN)";
        case EINVAL:
            return " (the queue needs header split on and hds-thresh 0: refnic-ethtool -G " +
                   zcrx.ifname + " tcp-data-split on; refnic's hds-thresh is always 0)";
        case EOPNOTSUPP:
            return " (the driver cannot give a queue to a memory provider)";
        case ERANGE:
            return zcrx.rx_buf_len != 0
                       ? " (the driver refused --rx-buf-len " + std::to_string(zcrx.rx_buf_len) +
                             ": the kernel log says what it takes)"
                       : "";
        case EEXIST:
            return " (XDP is on the device, or the queue has a memory provider already: a "
                   "dmabuf, or a zcrx whose ring the kernel has not torn down yet)";
        case EBUSY:
            return std::string(queue_taken_hint);
        case ENOSYS:
            return " (no io_uring zero-copy receive in this kernel: Linux 7.3 has it)";
        default:
            return "";
    }
}

// --refill-garbage: entries the kernel must skip after a batch handed back - an offset just
// past the area, one far beyond it, and `first` again (its buffer already returned). Returns
// how many.
std::uint64_t release_garbage(zcrx::Receiver& receiver, const zcrx::Chunk& first) {
    const std::uint64_t area = receiver.options().area_size;
    const std::array<zcrx::Chunk, 3> garbage{{
        {.offset = area, .size = 1},
        {.offset = area << 8U, .size = 1},
        first,
    }};
    receiver.release(garbage);
    return garbage.size();
}

// Receives until the end of the stream; the summary has no times yet.
ZcrxSummary receive_zcrx_stream(const Zcrx& zcrx, zcrx::Receiver& receiver) {
    ZcrxSummary summary;
    summary.ifname = zcrx.ifname;
    summary.queue = zcrx.queue;
    summary.zcrx_id = receiver.zcrx_id();
    summary.area_bytes = receiver.options().area_size;
    summary.refill_batch = zcrx.refill_batch;
    summary.validate = zcrx.validate;
    std::optional<PatternValidator> validator;
    if (zcrx.validate) {
        validator.emplace(*zcrx.validate);
    }
    for (;;) {
        const zcrx::Received received = receiver.receive();
        if (received.eof) {
            break;
        }
        summary.chunks += received.chunks.size();
        if (validator) {
            for (const zcrx::Chunk& chunk : received.chunks) {
                if (const std::optional<Mismatch> mismatch =
                        validator->check(receiver.bytes(chunk))) {
                    throw Failure("validation failed at " + describe(*mismatch) +
                                  " (chunk at area offset " + std::to_string(chunk.offset) +
                                  ", period " + std::to_string(*zcrx.validate) + ")");
                }
            }
        }
        receiver.release(received.chunks);
        if (zcrx.refill_garbage && !received.chunks.empty()) {
            summary.refill_garbage += release_garbage(receiver, received.chunks.front());
        }
    }
    receiver.flush();
    summary.stats = receiver.stats();
    return summary;
}

int run_zcrx(const Zcrx& zcrx) {
    const std::uint32_t ifindex = resolve_ifindex(zcrx.ifname);
    const zcrx::ReceiverOptions options{.area_size = static_cast<std::size_t>(zcrx.area_mib) << 20U,
                                        .refill_batch = zcrx.refill_batch,
                                        .rx_buf_len = zcrx.rx_buf_len};
    std::optional<zcrx::Receiver> receiver;
    try {
        receiver.emplace(ifindex, zcrx.queue, options);
    } catch (const refnic::Error& error) {
        throw Failure("registering a zcrx queue on " + zcrx.ifname + " RX queue " +
                      std::to_string(zcrx.queue) + ": " + error.what() + zcrx_hint(error, zcrx));
    }
    const refnic::UniqueFd listener = listen_on(zcrx.port, zcrx.server_address);
    print_line("registered a " + std::to_string(zcrx.area_mib) + " MiB area for " + zcrx.ifname +
               " RX queue " + std::to_string(zcrx.queue) + " (zcrx " +
               std::to_string(receiver->zcrx_id()) + ", " +
               std::to_string(receiver->refill_entries()) + " refill entries" +
               (zcrx.rx_buf_len != 0 ? ", " + std::to_string(zcrx.rx_buf_len) + "-byte buffers"
                                     : std::string()) +
               "); listening on [" + zcrx.server + "]:" + std::to_string(zcrx.port));

    receiver->attach(accept_one(listener));
    const ZcrxSummary summary = timed([&] { return receive_zcrx_stream(zcrx, *receiver); });
    std::cout << (zcrx.json ? summary_json(summary, zcrx.pretty) : summary_text(summary))
              << std::flush;
    return exit_ok;
}

std::string tx_bind_hint(const refnic::Error& error) {
    if (error.errnum() == EOPNOTSUPP) {
        return " (no devmem TX: it needs Linux 6.16 or later and a driver that offers netmem TX; "
               "refnic offers it with module parameter devmem_tx=1)";
    }
    return "";
}

refnic::UniqueFd connect_to(const Tx& tx) {
    refnic::UniqueFd socket(::socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (!socket) {
        throw refnic::Error(errno, "opening an IPv6 TCP socket");
    }
    const int off = 0;
    if (::setsockopt(socket.get(), IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off)) != 0) {
        throw refnic::Error(errno, "setting IPV6_V6ONLY off");
    }
    // The kernel drops a devmem frame routed to another device than the binding's.
    if (::setsockopt(socket.get(), SOL_SOCKET, SO_BINDTODEVICE, tx.ifname.c_str(),
                     static_cast<socklen_t>(tx.ifname.size() + 1)) != 0) {
        throw refnic::Error(errno, "binding the socket to " + tx.ifname + " (SO_BINDTODEVICE)");
    }
    sockaddr_in6 address{};
    address.sin6_family = AF_INET6;
    if (tx.client) {
        std::memcpy(&address.sin6_addr, tx.client_address.data(), tx.client_address.size());
        if (::bind(socket.get(), reinterpret_cast<const sockaddr*>(&address), sizeof(address)) !=
            0) {
            throw refnic::Error(errno, "binding " + endpoint(address));
        }
    }
    address.sin6_port = htons(tx.port);
    std::memcpy(&address.sin6_addr, tx.server_address.data(), tx.server_address.size());
    while (::connect(socket.get(), reinterpret_cast<const sockaddr*>(&address), sizeof(address)) !=
           0) {
        if (errno != EINTR) {
            throw refnic::Error(errno, "connecting to " + endpoint(address));
        }
    }
    return socket;
}

// Fills the first `length` bytes of `buffer` with the pattern, one block at a time: `length` and
// the block are whole cycles, so every block is the same.
void fill_pattern(devmem::Udmabuf& buffer, std::uint64_t period, std::size_t length) {
    const std::size_t cycle = pattern_cycle(period);
    const std::vector<std::byte> block = pattern_bytes(period, cycle * 4096);
    for (std::size_t offset = 0; offset < length; offset += block.size()) {
        buffer.write(offset, std::span(block).first(std::min(block.size(), length - offset)));
    }
}

// Sends tx.bytes of the pattern, wrapping around the udmabuf; the summary has no times yet.
TxSummary send_stream(const Tx& tx, devmem::Sender& sender, std::uint64_t length) {
    TxSummary summary;
    summary.ifname = tx.ifname;
    summary.binding = sender.binding_id();
    summary.udmabuf_bytes = tx.size_mib << 20U;
    summary.chunk = tx.chunk;
    summary.validate = tx.period;
    for (std::uint64_t sent = 0; sent < tx.bytes;) {
        const std::uint64_t offset = sent % length;
        const std::uint64_t size = std::min(tx.bytes - sent, length - offset);
        sender.send(offset, static_cast<std::size_t>(size));
        sent += size;
    }
    // The udmabuf may be reused or freed only once the NIC read it all.
    sender.wait_completions();
    summary.stats = sender.stats();
    return summary;
}

int run_tx(const Tx& tx) {
    const std::uint32_t ifindex = resolve_ifindex(tx.ifname);
    devmem::Udmabuf buffer(static_cast<std::size_t>(tx.size_mib) << 20U);
    // The stream wraps around the udmabuf at a whole number of pattern cycles.
    const std::uint64_t length = buffer.size() - buffer.size() % pattern_cycle(tx.period);
    fill_pattern(buffer, tx.period, static_cast<std::size_t>(length));
    std::optional<netdev::DmabufBinding> binding;
    try {
        binding.emplace(netdev::DmabufBinding::bind_tx(ifindex, buffer.fd()));
    } catch (const refnic::Error& error) {
        throw Failure("binding the udmabuf to " + tx.ifname + " for TX: " + error.what() +
                      tx_bind_hint(error));
    }
    devmem::Sender sender(connect_to(tx), binding->id(),
                          devmem::SenderOptions{.max_chunk = static_cast<std::size_t>(tx.chunk)});
    print_line("bound a " + std::to_string(tx.size_mib) + " MiB udmabuf to " + tx.ifname +
               " for TX (binding " + std::to_string(binding->id()) + "); connected to [" +
               tx.server + "]:" + std::to_string(tx.port));
    const TxSummary summary = timed([&] { return send_stream(tx, sender, length); });
    std::cout << (tx.json ? summary_json(summary, tx.pretty) : summary_text(summary)) << std::flush;
    return exit_ok;
}

}  // namespace

int main(int argc, char* argv[]) {
    const std::span<char*> arguments(argv, static_cast<std::size_t>(argc));
    const std::vector<std::string_view> args(arguments.begin() + (argc > 0 ? 1 : 0),
                                             arguments.end());
    Command command;
    try {
        command = parse_command_line(args);
    } catch (const UsageError& error) {
        print_line(std::string(error.what()) + "; see 'refnic-devmem --help'");
        return exit_usage_error;
    }
    try {
        if (std::holds_alternative<Help>(command)) {
            std::cout << help_text();
            return exit_ok;
        }
        if (std::holds_alternative<Version>(command)) {
            std::cout << version_text();
            return exit_ok;
        }
        if (const Zcrx* zcrx = std::get_if<Zcrx>(&command)) {
            return run_zcrx(*zcrx);
        }
        if (const Tx* tx = std::get_if<Tx>(&command)) {
            return run_tx(*tx);
        }
        return run_rx(std::get<Rx>(command));
    } catch (const std::exception& error) {
        // refnic::Error: "<what was done>: <the kernel's extack message> (<strerror>)".
        print_line(error.what());
        return exit_runtime_error;
    }
}
