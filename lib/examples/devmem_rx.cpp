// SPDX-License-Identifier: LGPL-2.1-only OR BSD-2-Clause
// Devmem TCP receive: bind a udmabuf to an RX queue, accept one TCP connection and receive its
// payload straight into the dmabuf, giving each frag back once read. Needs refnic.ko (or another
// devmem-capable driver), CAP_NET_ADMIN, header split on and the flow steered to the queue:
//   refnic-ethtool -G DEV tcp-data-split on
//   ethtool -N DEV flow-type tcp4 dst-port PORT action QUEUE
// Usage: devmem_rx DEV QUEUE PORT   (refnic-devmem is the full tool: docs/devmem.md)
#include <refnic/control.hpp>
#include <refnic/devmem.hpp>
#include <refnic/error.hpp>
#include <refnic/fd.hpp>
#include <refnic/netdev.hpp>

#include <netinet/in.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

namespace {

refnic::UniqueFd accept_one(std::uint16_t port) {
    const refnic::UniqueFd listener(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    const int on = 1;
    if (!listener || ::setsockopt(listener.get(), SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on)) != 0 ||
        ::bind(listener.get(), reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0 ||
        ::listen(listener.get(), 1) != 0) {
        throw refnic::Error(errno, "listening on port " + std::to_string(port));
    }
    refnic::UniqueFd connection(::accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC));
    if (!connection) {
        throw refnic::Error(errno, "accepting a connection");
    }
    return connection;
}

}  // namespace

int main(int argc, char* argv[]) {
    if (argc != 4) {
        std::cerr << "usage: devmem_rx DEV QUEUE PORT\n";
        return 2;
    }
    try {
        const std::uint32_t ifindex = refnic::control::resolve_ifindex(argv[1]);
        const std::vector<std::uint32_t> queues{static_cast<std::uint32_t>(std::stoul(argv[2]))};
        const auto port = static_cast<std::uint16_t>(std::stoul(argv[3]));

        // 64 MiB of host memory as a dmabuf (/dev/udmabuf), bound to the queue: the queue's
        // payload buffers come from it until `binding` is destroyed.
        const refnic::devmem::Udmabuf buffer(std::size_t{64} << 20U);
        const refnic::netdev::DmabufBinding binding =
            refnic::netdev::DmabufBinding::bind_rx(ifindex, buffer.fd(), queues);

        refnic::devmem::Receiver receiver(accept_one(port));
        std::uint64_t checksum = 0;
        for (;;) {
            const refnic::devmem::Received received = receiver.receive();
            if (received.eof()) {
                break;
            }
            if (!received.devmem) {
                std::cerr << "devmem_rx: plain TCP data: the flow is not steered to queue "
                          << queues.front() << '\n';
                return 1;
            }
            {
                // The payload is in the dmabuf: read it only inside a CPU access.
                const refnic::devmem::CpuAccess access = buffer.cpu_read();
                for (const refnic::devmem::Frag& frag : received.frags) {
                    for (const std::byte byte : buffer.bytes(frag.offset, frag.size)) {
                        checksum += static_cast<std::uint8_t>(byte);
                    }
                }
            }
            receiver.release(received.frags);  // The frags back to the kernel (batched).
        }
        receiver.flush();
        const refnic::devmem::ReceiverStats& stats = receiver.stats();
        std::cout << stats.devmem_bytes << " bytes into dmabuf binding " << binding.id() << " in "
                  << stats.frags << " frags, " << stats.syscalls() << " syscalls, byte sum "
                  << checksum << '\n';
    } catch (const refnic::Error& error) {
        // e.g. "netdev bind-rx: ... [offending attribute ...]" from the kernel's extack
        std::cerr << "devmem_rx: " << error.what() << '\n';
        return 1;
    } catch (const std::exception& error) {  // std::stoul
        std::cerr << "devmem_rx: bad argument: " << error.what() << '\n';
        return 2;
    }
    return 0;
}
