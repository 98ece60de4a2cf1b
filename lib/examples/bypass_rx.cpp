// SPDX-License-Identifier: LGPL-2.1-only OR BSD-2-Clause
// Receive on a refnic queue pair bound to this process: open, fill, wait, peek, release, refill.
// Needs refnic.ko and CAP_NET_ADMIN. Usage: bypass_rx DEV QUEUE
#include <refnic/bypass.hpp>
#include <refnic/error.hpp>

#include <chrono>
#include <cstdint>
#include <iostream>
#include <string>

int main(int argc, char* argv[]) {
    if (argc != 3) {
        std::cerr << "usage: bypass_rx DEV QUEUE\n";
        return 2;
    }
    try {
        refnic::bypass::Config config;
        config.ifname = argv[1];
        config.queue = static_cast<std::uint32_t>(std::stoul(argv[2]));
        config.whole_port = true;  // Every frame the port receives, not only steered flows.
        refnic::bypass::BypassQueue queue = refnic::bypass::BypassQueue::open(config);

        queue.refill();  // Post free umem buffers to the fill ring (kicks if the kernel asks).
        std::cerr << "bypass_rx: receiving on " << config.ifname << " queue " << config.queue
                  << std::endl;  // Ready: whoever sends may start.
        std::uint64_t frames = 0;
        while (frames < 1000) {
            if (!queue.wait_rx(refnic::bypass::Wait::block, std::chrono::seconds(1))) {
                continue;  // Timeout, a signal, or only tx completions.
            }
            const std::uint32_t count = queue.rx_peek(64);
            for (std::uint32_t i = 0; i < count; ++i) {
                const refnic::bypass::Frame frame = queue.rx_frame(i);
                std::cout << "frame of " << frame.size() << " bytes in buffer " << frame.addr
                          << (frame.error() ? " (error)" : "") << '\n';
            }
            queue.rx_release(count);  // Entries back to the kernel, buffers to the free list.
            queue.refill();           // ... and from there into the fill ring again.
            frames += count;
        }
        const refnic::bypass::Stats stats = queue.stats();
        std::cout << stats.rx_frames << " frames, " << stats.kicks << " kicks\n";
    } catch (const refnic::Error& error) {
        // e.g. "bind queue 3 of ifindex 7 (r0): Device or resource busy"
        std::cerr << "bypass_rx: " << error.what() << '\n';
        return 1;
    }
    return 0;
}
