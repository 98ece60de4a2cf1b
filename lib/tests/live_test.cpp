// SPDX-License-Identifier: GPL-2.0-only
// Against the running kernel (ctest label "live"): any Linux with ethtool netlink will do, no
// refnic device is needed. The multicast test needs CAP_SYS_ADMIN for a private network namespace.
#include <refnic/error.hpp>
#include <refnic/ethtool.hpp>
#include <refnic/genl.hpp>
#include <refnic/netlink.hpp>

#include <gtest/gtest.h>

#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <cerrno>
#include <string>
#include <thread>
#include <vector>

namespace refnic {
namespace {

TEST(LiveGenlTest, ResolvesControllerAndEthtoolFamilies) {
    nl::Socket socket(NETLINK_GENERIC);
    EXPECT_NE(socket.port_id(), 0U);

    const nl::Family nlctrl = nl::resolve_family(socket, "nlctrl");
    EXPECT_EQ(nlctrl.id, GENL_ID_CTRL);
    EXPECT_TRUE(nlctrl.group_id("notify").has_value());

    const nl::Family ethtool = nl::resolve_family(socket, ETHTOOL_GENL_NAME);
    EXPECT_EQ(ethtool.name, ETHTOOL_GENL_NAME);
    EXPECT_NE(ethtool.id, 0);
    EXPECT_TRUE(ethtool.group_id(ETHTOOL_MCGRP_MONITOR_NAME).has_value());
}

TEST(LiveGenlTest, UnknownFamilyIsENOENTFromTheKernel) {
    nl::Socket socket(NETLINK_GENERIC);
    try {
        static_cast<void>(nl::resolve_family(socket, "refnic-nofam"));
        FAIL() << "resolved a family that does not exist";
    } catch (const Error& error) {
        EXPECT_EQ(error.errnum(), ENOENT);
        EXPECT_TRUE(error.from_kernel());
        EXPECT_NE(std::string(error.what()).find("refnic-nofam"), std::string::npos);
    }
}

TEST(LiveGenlTest, JoinsMulticastGroupsByName) {
    nl::GenlClient client(ETHTOOL_GENL_NAME);
    EXPECT_NO_THROW(client.join_group(ETHTOOL_MCGRP_MONITOR_NAME));
    try {
        client.join_group("no-such-group");
        FAIL() << "joined a group that does not exist";
    } catch (const Error& error) {
        EXPECT_EQ(error.errnum(), ENOENT);
        EXPECT_FALSE(error.from_kernel());
    }
}

TEST(LiveEthtoolTest, MissingDeviceCarriesTheKernelsExtack) {
    ethtool::Rings rings;
    try {
        static_cast<void>(rings.get("refnic-nodev0"));
        FAIL() << "read rings of a device that does not exist";
    } catch (const Error& error) {
        EXPECT_EQ(error.errnum(), ENODEV);
        EXPECT_TRUE(error.from_kernel());
        EXPECT_EQ(error.reason(), "no device matches name");
        // The device name attribute: after nlmsghdr, genlmsghdr and the header nest's nlattr.
        EXPECT_EQ(error.extack().attr_offset, 24U);
    }
}

TEST(LiveEthtoolTest, LoopbackRingsAreUnsupportedOrReadable) {
    ethtool::Rings rings;
    try {
        const ethtool::RingParams params = rings.get("lo");
        EXPECT_TRUE(params.rx.has_value() || params.tx.has_value());
    } catch (const Error& error) {
        EXPECT_EQ(error.errnum(), EOPNOTSUPP) << error.what();
        EXPECT_TRUE(error.from_kernel());
        EXPECT_FALSE(error.reason().empty());
    }
}

TEST(LiveEthtoolTest, DumpsRingsOfAllDevices) {
    nl::GenlClient client(ETHTOOL_GENL_NAME);
    nl::MessageBuilder request = client.message(ETHTOOL_MSG_RINGS_GET, ETHTOOL_GENL_VERSION);
    // A dump takes the header nest without a device.
    static_cast<void>(request.open_nest(ETHTOOL_A_RINGS_HEADER));
    std::vector<std::string> devices;
    client.dump(request, [&devices](const nl::MessageView& reply) {
        static_cast<void>(ethtool::parse_rings_reply(reply));
        const nl::Attr header = reply.genl_attrs().find(ETHTOOL_A_RINGS_HEADER).value();
        devices.emplace_back(header.nested().find(ETHTOOL_A_HEADER_DEV_NAME).value().as_string());
    });
    // Devices without ring parameters (lo) are left out by the kernel, so there may be none;
    // each reply must name its device, and the dump must end cleanly at NLMSG_DONE.
    for (const std::string& device : devices) {
        EXPECT_FALSE(device.empty());
        EXPECT_NE(device, "lo");
    }
}

// Joins RTNLGRP_LINK, sets lo up and expects the RTM_NEWLINK notification. It runs in a thread
// with its own network namespace (namespaces are per thread), so the host's lo is untouched.
TEST(LiveMulticastTest, ReceivesLinkNotificationInPrivateNetns) {
    std::string failure;
    bool skipped = false;
    std::thread worker([&] {
        if (::unshare(CLONE_NEWNET) != 0) {
            skipped = true;
            return;
        }
        try {
            nl::Socket listener(NETLINK_ROUTE);
            listener.join_group(RTNLGRP_LINK);
            // Fail instead of hanging if the notification never comes.
            const timeval timeout{.tv_sec = 5, .tv_usec = 0};
            if (::setsockopt(listener.fd(), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout)) !=
                0) {
                throw Error(errno, "setting SO_RCVTIMEO");
            }

            nl::Socket requester(NETLINK_ROUTE);
            nl::MessageBuilder set_up(RTM_NEWLINK, 0);
            ifinfomsg link{};
            link.ifi_family = AF_UNSPEC;
            link.ifi_index = static_cast<int>(if_nametoindex("lo"));
            link.ifi_flags = IFF_UP;
            link.ifi_change = IFF_UP;
            set_up.put_header(link);
            requester.request(set_up, {}, "setting lo up");

            bool notified = false;
            while (!notified) {
                listener.receive([&](const nl::MessageView& message) {
                    notified = notified || message.type() == RTM_NEWLINK;
                });
            }
        } catch (const Error& error) {
            failure = error.what();
        }
    });
    worker.join();
    if (skipped) {
        GTEST_SKIP() << "cannot create a network namespace here";
    }
    EXPECT_EQ(failure, "");
}

}  // namespace
}  // namespace refnic
