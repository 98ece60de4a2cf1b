// SPDX-License-Identifier: GPL-2.0-only
// Uses librefnic the way an outside program would: installed headers and library only.
#include <refnic/control.hpp>
#include <refnic/devmem.hpp>
#include <refnic/error.hpp>
#include <refnic/ethtool.hpp>
#include <refnic/fd.hpp>
#include <refnic/genl.hpp>
#include <refnic/netdev.hpp>
#include <refnic/netlink.hpp>
#include <refnic/types.hpp>

#include <cstdint>
#include <iostream>
#include <vector>

namespace {

// The refnic and netdev family APIs, offline: encode requests, and name the attribute a kernel
// error points at.
bool control_and_netdev_work() {
    refnic::control::Link link;
    link.latency_us = 20;
    const refnic::nl::MessageBuilder link_set =
        refnic::control::make_link_set_request(0x1d, 5, link);
    refnic::Extack extack;
    extack.attr_offset = 32;  // REFNIC_A_LINK_LATENCY inside REFNIC_A_DEV_LINK
    const refnic::Error named = refnic::control::name_attributes(
        refnic::Error(34, "refnic link-set", extack, true), link_set);
    const std::vector<std::uint32_t> queues{0, 1};
    const refnic::nl::MessageBuilder bind =
        refnic::netdev::make_bind_rx_request(0x11, 5, 3, queues);
    std::cout << "refnic consumer: link-set " << link_set.bytes().size() << " bytes, "
              << named.extack().attr_name << ", bind-rx " << bind.bytes().size() << " bytes, "
              << refnic::control::to_string(refnic::control::Fault::stall_txq) << ", "
              << refnic::to_string(refnic::QueueType::tx) << '\n';
    return link_set.bytes().size() == 40 && named.extack().attr_name == "link.latency" &&
           bind.bytes().size() == 76;
}

// Devmem token batching, offline: the public header alone, on Debian 12's 6.1 uapi headers.
bool devmem_works() {
    refnic::devmem::TokenBatch batch;
    for (std::uint32_t token = 10; token < 13; ++token) {
        static_cast<void>(batch.add(token));
    }
    std::cout << "refnic consumer: devmem " << batch.ranges().size() << " range, " << batch.frags()
              << " frags, " << refnic::devmem::to_string(refnic::devmem::Release::batched) << '\n';
    return batch.ranges().size() == 1 && batch.frags() == 3 &&
           batch.max_frags() == refnic::devmem::max_dontneed_frags;
}

}  // namespace

int main() {
    refnic::ethtool::RingSettings settings;
    settings.tcp_data_split = refnic::ethtool::TcpDataSplit::enabled;
    const refnic::nl::MessageBuilder request =
        refnic::ethtool::make_rings_set_request(0x14, "eth0", settings);
    try {
        // A string with a NUL is refused before anything is sent: exercises refnic::Error.
        refnic::nl::MessageBuilder bad(0x14, 0);
        bad.put_string(1, std::string_view("a\0b", 3));
        return 1;
    } catch (const refnic::Error& error) {
        std::cout << "refnic consumer: " << request.bytes().size() << " bytes, "
                  << refnic::ethtool::to_string(*settings.tcp_data_split) << ", " << error.what()
                  << '\n';
    }
    return request.bytes().size() == 44 && control_and_netdev_work() && devmem_works() ? 0 : 1;
}
