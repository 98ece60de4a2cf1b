// SPDX-License-Identifier: GPL-2.0-only
// Against the live refnic module in the test VM (ctest label "vm"; selftests/lib/control_vm.sh
// runs it as root). The refnic family tests skip, with the reason, while the kernel has no
// "refnic" generic netlink family; the netdev family tests create their pair with `ip link add
// ... type refnic` and need only the module.
#include <refnic/control.hpp>
#include <refnic/error.hpp>
#include <refnic/fd.hpp>
#include <refnic/netdev.hpp>
#include <refnic/netlink.hpp>

#include <gtest/gtest.h>

#include <fcntl.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace refnic {
namespace {

using namespace std::chrono_literals;

constexpr const char* port_name = "rvt0";
constexpr const char* peer_name = "rvt1";

std::uint32_t index_of(const char* name) { return ::if_nametoindex(name); }

void set_up(std::uint32_t ifindex) {
    nl::Socket socket(NETLINK_ROUTE);
    nl::MessageBuilder message(RTM_NEWLINK, 0);
    ifinfomsg link{};
    link.ifi_family = AF_UNSPEC;
    link.ifi_index = static_cast<int>(ifindex);
    link.ifi_flags = IFF_UP;
    link.ifi_change = IFF_UP;
    message.put_header(link);
    socket.request(message, {}, "setting a port up");
}

// Removes the test's pair however a test ended.
void remove_pair() {
    if (const std::uint32_t ifindex = index_of(port_name); ifindex != 0) {
        const std::string command = std::string("ip link del ") + port_name + " 2>/dev/null";
        static_cast<void>(std::system(command.c_str()));
    }
}

// A network namespace of its own, made by a short-lived thread (namespaces are per thread).
UniqueFd new_netns() {
    UniqueFd fd;
    int error = 0;
    std::thread worker([&] {
        if (::unshare(CLONE_NEWNET) != 0) {
            error = errno;
            return;
        }
        fd = UniqueFd(::open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC));
        if (!fd) {
            error = errno;
        }
    });
    worker.join();
    if (error != 0) {
        throw Error(error, "creating a network namespace");
    }
    return fd;
}

class ControlVmTest : public ::testing::Test {
protected:
    void SetUp() override {
        if (::geteuid() != 0) {
            GTEST_SKIP() << "needs root (CAP_NET_ADMIN)";
        }
        if (!control::family_available()) {
            GTEST_SKIP() << "the kernel has no \"refnic\" generic netlink family (refnic.ko not "
                            "loaded, or built without the control plane)";
        }
        remove_pair();
    }
    void TearDown() override { remove_pair(); }

    static control::NewDevice pair_options() {
        control::NewDevice options;
        options.name = port_name;
        options.peer_name = peer_name;
        options.queues = 2;
        options.rx_ring_size = 256;
        options.tx_ring_size = 512;
        return options;
    }
};

TEST_F(ControlVmTest, DevNewReportsWhatWasAsked) {
    control::Client client;
    const control::Device port = client.dev_new(pair_options());
    EXPECT_EQ(port.name, port_name);
    EXPECT_EQ(port.ifindex, index_of(port_name));
    EXPECT_EQ(port.peer_name, peer_name);
    EXPECT_EQ(port.peer_ifindex, index_of(peer_name));
    EXPECT_FALSE(port.peer_netnsid.has_value());
    EXPECT_EQ(port.queues, 2U);
    EXPECT_EQ(port.rx_ring_size, 256U);
    EXPECT_EQ(port.tx_ring_size, 512U);
    EXPECT_TRUE(port.card.has_value());
    EXPECT_EQ(port.port, 0U);
    EXPECT_TRUE(port.link.carrier.has_value());
}

TEST_F(ControlVmTest, DevGetAndDumpAgree) {
    control::Client client;
    const control::Device port = client.dev_new(pair_options());
    EXPECT_EQ(client.dev_get(port.ifindex), port);
    const control::Device peer = client.dev_get(index_of(peer_name));
    EXPECT_EQ(peer.card, port.card);
    EXPECT_EQ(peer.port, 1U);
    EXPECT_EQ(peer.peer_ifindex, port.ifindex);
    std::vector<std::uint32_t> listed;
    for (const control::Device& device : client.dev_dump()) {
        listed.push_back(device.ifindex);
    }
    EXPECT_NE(std::find(listed.begin(), listed.end(), port.ifindex), listed.end());
    EXPECT_NE(std::find(listed.begin(), listed.end(), peer.ifindex), listed.end());
}

TEST_F(ControlVmTest, DevDelByEitherPortRemovesBoth) {
    control::Client client;
    static_cast<void>(client.dev_new(pair_options()));
    client.dev_del(index_of(peer_name));
    EXPECT_EQ(index_of(port_name), 0U);
    EXPECT_EQ(index_of(peer_name), 0U);
}

TEST_F(ControlVmTest, DevNewPicksNamesAndNamespaces) {
    control::Client client;
    const UniqueFd netns = new_netns();
    control::NewDevice options;
    options.peer_netns_fd = netns.get();
    const control::Device port = client.dev_new(options);
    EXPECT_EQ(port.name.rfind("refnic", 0), 0U) << port.name;
    EXPECT_TRUE(port.peer_netnsid.has_value());
    EXPECT_TRUE(port.peer_name.has_value());
    client.dev_del(port.ifindex);
    EXPECT_EQ(index_of(port.name.c_str()), 0U);
}

// The error a call throws, or an Error(0) if it throws none.
template <typename Call>
Error error_of(Call&& call) {
    try {
        call();
    } catch (const Error& error) {
        return error;
    }
    return {0, "no error"};
}

TEST_F(ControlVmTest, PolicyErrorsNameTheAttribute) {
    control::Client client;
    control::NewDevice options = pair_options();
    options.queues = control::queues_max + 1;
    const Error error = error_of([&] { client.dev_new(options); });
    EXPECT_TRUE(error.from_kernel());
    EXPECT_EQ(error.errnum(), ERANGE) << error.what();
    EXPECT_EQ(error.extack().attr_name, "dev.queues") << error.what();
    EXPECT_EQ(index_of(port_name), 0U);
}

TEST_F(ControlVmTest, PolicyErrorsNameNestedAttributes) {
    control::Client client;
    const control::Device port = client.dev_new(pair_options());
    control::Link link;
    link.latency_us = control::latency_max_us + 1;
    const Error error = error_of([&] { client.link_set(port.ifindex, link); });
    EXPECT_TRUE(error.from_kernel());
    EXPECT_EQ(error.extack().attr_name, "link.latency") << error.what();
}

TEST_F(ControlVmTest, NonRefnicDevicesAreRefused) {
    control::Client client;
    const Error error = error_of([&] { static_cast<void>(client.dev_get(index_of("lo"))); });
    EXPECT_TRUE(error.from_kernel()) << error.what();
    EXPECT_FALSE(error.reason().empty());
}

TEST_F(ControlVmTest, LinkSetChangesOnlyWhatIsGiven) {
    control::Client client;
    const control::Device port = client.dev_new(pair_options());
    control::Link shape;
    shape.rate_bps = 25'000'000'000;
    shape.latency_us = 20;
    client.link_set(port.ifindex, shape);
    control::Link seen = client.dev_get(port.ifindex).link;
    EXPECT_EQ(seen.rate_bps, 25'000'000'000U);
    EXPECT_EQ(seen.latency_us, 20U);
    EXPECT_EQ(seen.loss_ppm, port.link.loss_ppm);
    EXPECT_EQ(seen.carrier, port.link.carrier);

    control::Link loss_and_carrier;
    loss_and_carrier.loss_ppm = 1000;
    loss_and_carrier.carrier = false;
    client.link_set(port.ifindex, loss_and_carrier);
    seen = client.dev_get(port.ifindex).link;
    EXPECT_EQ(seen.rate_bps, 25'000'000'000U);
    EXPECT_EQ(seen.latency_us, 20U);
    EXPECT_EQ(seen.loss_ppm, 1000U);
    EXPECT_EQ(seen.carrier, false);
}

TEST_F(ControlVmTest, StatsHaveEveryQueue) {
    control::Client client;
    const control::Device port = client.dev_new(pair_options());
    set_up(port.ifindex);
    set_up(index_of(peer_name));
    const control::PortStats stats = client.stats_get(port.ifindex);
    EXPECT_EQ(stats.ifindex, port.ifindex);
    std::vector<std::string> queues;
    for (const control::QueueStats& queue : stats.queues) {
        queues.push_back(std::string(to_string(queue.type)) + std::to_string(queue.id));
    }
    std::sort(queues.begin(), queues.end());
    EXPECT_EQ(queues, (std::vector<std::string>{"rx0", "rx1", "tx0", "tx1"}));
    const std::vector<control::PortStats> all = client.stats_dump();
    EXPECT_TRUE(std::any_of(all.begin(), all.end(), [&port](const control::PortStats& s) {
        return s.ifindex == port.ifindex;
    }));
}

TEST_F(ControlVmTest, FaultsArmShowAndClear) {
    control::Client client;
    const control::Device port = client.dev_new(pair_options());
    control::FaultSetting setting;
    setting.type = control::Fault::fail_alloc;
    setting.queue = 1;
    setting.rate_ppm = 100'000;
    client.fault_set(port.ifindex, setting);
    const auto armed = [&client, &port] {
        for (const control::FaultStatus& fault : client.fault_get(port.ifindex)) {
            EXPECT_EQ(fault.ifindex, port.ifindex);
            if (fault.type == control::Fault::fail_alloc && fault.queue == 1 &&
                (fault.rate_ppm.value_or(0) != 0 || fault.count.value_or(0) != 0)) {
                return fault.rate_ppm;
            }
        }
        return std::optional<std::uint32_t>();
    };
    EXPECT_EQ(armed(), 100'000U);
    client.fault_clear(port.ifindex, control::Fault::fail_alloc, 1);
    EXPECT_FALSE(armed().has_value());
}

// The types of the events about `ifindex` within `timeout`, up to its dev-deleted.
std::vector<control::EventType> events_of(control::Monitor& monitor, std::uint32_t ifindex,
                                          std::chrono::seconds timeout) {
    std::vector<control::EventType> seen;
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
        const std::optional<control::Event> event = monitor.next(500ms);
        if (!event) {
            continue;
        }
        const control::Device* device = event->device();
        const std::uint32_t about = device != nullptr ? device->ifindex : event->fault()->ifindex;
        if (about != ifindex) {
            continue;  // the peer's, or another test's
        }
        seen.push_back(event->type);
        if (event->type == control::EventType::dev_deleted) {
            break;
        }
    }
    return seen;
}

TEST_F(ControlVmTest, MonitorSeesEveryKindOfEvent) {
    control::Monitor monitor;
    control::Client client;
    const control::Device port = client.dev_new(pair_options());
    control::Link link;
    link.carrier = false;
    client.link_set(port.ifindex, link);
    control::FaultSetting fault;
    fault.type = control::Fault::drop_completion;
    fault.queue = 0;
    fault.count = 1;
    client.fault_set(port.ifindex, fault);
    client.dev_del(port.ifindex);

    const std::vector<control::EventType> seen = events_of(monitor, port.ifindex, 10s);
    const auto has = [&seen](control::EventType type) {
        return std::find(seen.begin(), seen.end(), type) != seen.end();
    };
    EXPECT_TRUE(has(control::EventType::dev_added));
    EXPECT_TRUE(has(control::EventType::link_changed));
    EXPECT_TRUE(has(control::EventType::fault));
    EXPECT_TRUE(has(control::EventType::dev_deleted));
    ASSERT_FALSE(seen.empty());
    EXPECT_EQ(seen.front(), control::EventType::dev_added);
}

// --- netdev family against a refnic pair made by rtnetlink ---------------------------------

class NetdevVmTest : public ::testing::Test {
protected:
    void SetUp() override {
        if (::geteuid() != 0) {
            GTEST_SKIP() << "needs root";
        }
        remove_pair();
        const std::string command = std::string("ip link add ") + port_name +
                                    " type refnic queues 2 peer name " + peer_name;
        ASSERT_EQ(std::system(command.c_str()), 0) << command;
        ifindex_ = index_of(port_name);
        ASSERT_NE(ifindex_, 0U);
        set_up(ifindex_);
        set_up(index_of(peer_name));
    }
    void TearDown() override { remove_pair(); }

    std::uint32_t ifindex_ = 0;
};

TEST_F(NetdevVmTest, QueuesPointAtTheirNapis) {
    netdev::Client client;
    const std::vector<netdev::Queue> queues = client.queue_dump(ifindex_);
    ASSERT_EQ(queues.size(), 4U);
    for (const netdev::Queue& queue : queues) {
        EXPECT_EQ(queue.ifindex, ifindex_);
        EXPECT_EQ(client.napi_get(queue.napi_id.value_or(0)).ifindex, ifindex_);
        EXPECT_FALSE(queue.dmabuf.has_value());
    }
}

TEST_F(NetdevVmTest, QueueGetOne) {
    netdev::Client client;
    const netdev::Queue rx1 = client.queue_get(ifindex_, QueueType::rx, 1);
    EXPECT_EQ(rx1.id, 1U);
    EXPECT_EQ(rx1.type, QueueType::rx);
    EXPECT_EQ(rx1.ifindex, ifindex_);
}

TEST_F(NetdevVmTest, NapisHaveInterrupts) {
    netdev::Client client;
    const std::vector<netdev::Napi> napis = client.napi_dump(ifindex_);
    EXPECT_EQ(napis.size(), 2U);
    for (const netdev::Napi& napi : napis) {
        EXPECT_TRUE(napi.irq.has_value());
    }
}

TEST_F(NetdevVmTest, QstatsPerQueueAndPerDevice) {
    netdev::Client client;
    std::size_t per_queue = 0;
    for (const netdev::Qstats& stats : client.qstats_dump(ifindex_, netdev::QstatsScope::queue)) {
        EXPECT_EQ(stats.ifindex, ifindex_);
        EXPECT_TRUE(stats.queue_type.has_value() && stats.queue_id.has_value());
        ++per_queue;
    }
    EXPECT_EQ(per_queue, 4U);
    const std::vector<netdev::Qstats> device =
        client.qstats_dump(ifindex_, netdev::QstatsScope::device);
    ASSERT_EQ(device.size(), 1U);
    EXPECT_FALSE(device[0].queue_id.has_value());
    EXPECT_TRUE(device[0].rx_packets.has_value());
}

TEST_F(NetdevVmTest, PagePoolsOfTheRxQueues) {
    netdev::Client client;
    std::vector<netdev::PagePool> pools;
    for (const netdev::PagePool& pool : client.page_pool_dump()) {
        if (pool.ifindex == ifindex_) {
            pools.push_back(pool);
        }
    }
    ASSERT_GE(pools.size(), 2U);
    EXPECT_EQ(client.page_pool_get(pools[0].id), pools[0]);
}

TEST_F(NetdevVmTest, BindRxRefusesWhatIsNotADmabuf) {
    const UniqueFd not_a_dmabuf(::open("/dev/null", O_RDONLY | O_CLOEXEC));
    ASSERT_TRUE(not_a_dmabuf);
    const std::vector<std::uint32_t> queues{1};
    try {
        const netdev::DmabufBinding binding =
            netdev::DmabufBinding::bind_rx(ifindex_, not_a_dmabuf.get(), queues);
        FAIL() << "bound /dev/null as binding " << binding.id();
    } catch (const Error& error) {
        EXPECT_TRUE(error.from_kernel()) << error.what();
    }
}

}  // namespace
}  // namespace refnic
