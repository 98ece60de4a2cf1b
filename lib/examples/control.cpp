// SPDX-License-Identifier: LGPL-2.1-only OR BSD-2-Clause
// The control plane: create a refnic pair, shape its link, read the device model's counters and
// delete it again. Needs refnic.ko and CAP_NET_ADMIN (docs/control-plane.md quotes it).
#include <refnic/control.hpp>
#include <refnic/error.hpp>

#include <iostream>

int main() {
    try {
        refnic::control::Client refnic;

        refnic::control::NewDevice options;
        options.name = "r0";
        options.peer_name = "r1";
        options.queues = 2;
        const refnic::control::Device port = refnic.dev_new(options);
        std::cout << port.name << " is ifindex " << port.ifindex << ", peer "
                  << port.peer_name.value_or("?") << '\n';

        refnic::control::Link link;  // only what is set changes
        link.rate_bps = 25'000'000'000;
        link.latency_us = 20;
        refnic.link_set(port.ifindex, link);

        for (const refnic::control::QueueStats& queue : refnic.stats_get(port.ifindex).queues) {
            std::cout << refnic::to_string(queue.type) << queue.id << ": " << queue.frames
                      << " frames\n";
        }
        refnic.dev_del(port.ifindex);
    } catch (const refnic::Error& error) {
        // e.g. "refnic dev-new: integer out of range (...) [offending attribute dev.queues ...]"
        std::cerr << "control: " << error.what() << '\n';
        return 1;
    }
    return 0;
}
