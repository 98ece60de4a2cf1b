// SPDX-License-Identifier: LGPL-2.1-only OR BSD-2-Clause
#include "attr_names.hpp"
#include "family_request.hpp"
#include "netdev_uapi.hpp"

#include <refnic/error.hpp>
#include <refnic/netdev.hpp>

#include <array>
#include <cerrno>
#include <string>
#include <utility>

namespace refnic::netdev {

namespace {

using namespace compat::netdev;  // NOLINT(google-build-using-namespace): uapi names, scoped

static_assert(static_cast<std::uint32_t>(QueueType::rx) == NETDEV_QUEUE_TYPE_RX);
static_assert(static_cast<std::uint32_t>(QueueType::tx) == NETDEV_QUEUE_TYPE_TX);
static_assert(family_version == NETDEV_FAMILY_VERSION);

using nl::detail::AttrSet;

const AttrSet queue_set{"queue", {nullptr, "id", "ifindex", "type", "napi-id", "dmabuf"}, {}};
const AttrSet napi_set{"napi", {nullptr, "ifindex", "id", "irq", "pid"}, {}};
const AttrSet qstats_set{"qstats", {nullptr, "ifindex", "queue-type", "queue-id", "scope"}, {}};
const AttrSet page_pool_set{"page-pool", {nullptr, "id", "ifindex", "napi-id"}, {}};
const AttrSet queue_id_set{"queue-id", {nullptr, "id", nullptr, "type"}, {}};
const AttrSet dmabuf_set{
    "dmabuf", {nullptr, "ifindex", "queues", "fd", "id"}, {nullptr, nullptr, &queue_id_set}};

std::string attribute_name(std::uint8_t cmd, const std::vector<std::uint16_t>& path) {
    switch (cmd) {
        case NETDEV_CMD_QUEUE_GET:
            return nl::detail::name_in(queue_set, path);
        case NETDEV_CMD_NAPI_GET:
            return nl::detail::name_in(napi_set, path);
        case NETDEV_CMD_QSTATS_GET:
            return nl::detail::name_in(qstats_set, path);
        case NETDEV_CMD_PAGE_POOL_GET:
            return nl::detail::name_in(page_pool_set, path);
        case NETDEV_CMD_BIND_RX:
            return nl::detail::name_in(dmabuf_set, path);
        default:
            return {};
    }
}

nl::MessageBuilder make_message(std::uint16_t family_id, std::uint8_t cmd) {
    return nl::make_genl_message(family_id, cmd, NETDEV_FAMILY_VERSION);
}

void expect_cmd(const nl::MessageView& message, std::uint8_t cmd, std::string_view what) {
    if (message.genl_cmd() != cmd) {
        throw Error(EPROTO, "expected a netdev " + std::string(what) + " message, got command " +
                                std::to_string(message.genl_cmd()));
    }
}

[[noreturn]] void throw_missing(std::string_view attributes, std::string_view what) {
    throw Error(EBADMSG, "malformed netlink data: netdev " + std::string(what) + " without " +
                             std::string(attributes));
}

// The qstats counters, NETDEV_A_QSTATS_RX_PACKETS onwards, in attribute order.
using Counter = std::optional<std::uint64_t> Qstats::*;
constexpr std::array<Counter, NETDEV_A_QSTATS_TX_WAKE - NETDEV_A_QSTATS_RX_PACKETS + 1>
    qstats_counters{
        &Qstats::rx_packets,
        &Qstats::rx_bytes,
        &Qstats::tx_packets,
        &Qstats::tx_bytes,
        &Qstats::rx_alloc_fail,
        &Qstats::rx_hw_drops,
        &Qstats::rx_hw_drop_overruns,
        &Qstats::rx_csum_complete,
        &Qstats::rx_csum_unnecessary,
        &Qstats::rx_csum_none,
        &Qstats::rx_csum_bad,
        &Qstats::rx_hw_gro_packets,
        &Qstats::rx_hw_gro_bytes,
        &Qstats::rx_hw_gro_wire_packets,
        &Qstats::rx_hw_gro_wire_bytes,
        &Qstats::rx_hw_drop_ratelimits,
        &Qstats::tx_hw_drops,
        &Qstats::tx_hw_drop_errors,
        &Qstats::tx_csum_none,
        &Qstats::tx_needs_csum,
        &Qstats::tx_hw_gso_packets,
        &Qstats::tx_hw_gso_bytes,
        &Qstats::tx_hw_gso_wire_packets,
        &Qstats::tx_hw_gso_wire_bytes,
        &Qstats::tx_hw_drop_ratelimits,
        &Qstats::tx_stop,
        &Qstats::tx_wake,
    };

}  // namespace

Error name_attributes(const Error& error, const nl::MessageBuilder& request) {
    const std::uint8_t cmd = nl::MessageView(request.bytes()).genl_cmd();
    return nl::detail::with_attribute_names(
        error, request,
        [cmd](const std::vector<std::uint16_t>& path) { return attribute_name(cmd, path); });
}

// --- Requests -------------------------------------------------------------------------------

nl::MessageBuilder make_queue_get_request(std::uint16_t family_id, std::uint32_t ifindex,
                                          QueueType type, std::uint32_t id) {
    nl::MessageBuilder message = make_message(family_id, NETDEV_CMD_QUEUE_GET);
    message.put_u32(NETDEV_A_QUEUE_IFINDEX, ifindex);
    message.put_u32(NETDEV_A_QUEUE_TYPE, static_cast<std::uint32_t>(type));
    message.put_u32(NETDEV_A_QUEUE_ID, id);
    return message;
}

nl::MessageBuilder make_queue_dump_request(std::uint16_t family_id,
                                           std::optional<std::uint32_t> ifindex) {
    nl::MessageBuilder message = make_message(family_id, NETDEV_CMD_QUEUE_GET);
    if (ifindex) {
        message.put_u32(NETDEV_A_QUEUE_IFINDEX, *ifindex);
    }
    return message;
}

nl::MessageBuilder make_napi_get_request(std::uint16_t family_id, std::uint32_t id) {
    nl::MessageBuilder message = make_message(family_id, NETDEV_CMD_NAPI_GET);
    message.put_u32(NETDEV_A_NAPI_ID, id);
    return message;
}

nl::MessageBuilder make_napi_dump_request(std::uint16_t family_id,
                                          std::optional<std::uint32_t> ifindex) {
    nl::MessageBuilder message = make_message(family_id, NETDEV_CMD_NAPI_GET);
    if (ifindex) {
        message.put_u32(NETDEV_A_NAPI_IFINDEX, *ifindex);
    }
    return message;
}

nl::MessageBuilder make_qstats_request(std::uint16_t family_id,
                                       std::optional<std::uint32_t> ifindex, QstatsScope scope) {
    nl::MessageBuilder message = make_message(family_id, NETDEV_CMD_QSTATS_GET);
    if (ifindex) {
        message.put_u32(NETDEV_A_QSTATS_IFINDEX, *ifindex);
    }
    // "scope" is a uint: the kernel takes 4 bytes for values that fit.
    if (scope == QstatsScope::queue) {
        message.put_u32(NETDEV_A_QSTATS_SCOPE, NETDEV_QSTATS_SCOPE_QUEUE);
    }
    return message;
}

nl::MessageBuilder make_page_pool_get_request(std::uint16_t family_id, std::uint64_t id) {
    nl::MessageBuilder message = make_message(family_id, NETDEV_CMD_PAGE_POOL_GET);
    // "id" is a uint (at most u32-max by policy): 4 bytes.
    if (id > UINT32_MAX) {
        throw Error(EINVAL, "page pool id " + std::to_string(id) + " is out of range");
    }
    message.put_u32(NETDEV_A_PAGE_POOL_ID, static_cast<std::uint32_t>(id));
    return message;
}

nl::MessageBuilder make_page_pool_dump_request(std::uint16_t family_id) {
    return make_message(family_id, NETDEV_CMD_PAGE_POOL_GET);
}

nl::MessageBuilder make_bind_rx_request(std::uint16_t family_id, std::uint32_t ifindex,
                                        int dmabuf_fd, std::span<const std::uint32_t> rx_queues) {
    if (dmabuf_fd < 0) {
        throw Error(EBADF, "binding a dmabuf: invalid file descriptor");
    }
    nl::MessageBuilder message = make_message(family_id, NETDEV_CMD_BIND_RX);
    message.put_u32(NETDEV_A_DMABUF_IFINDEX, ifindex);
    message.put_u32(NETDEV_A_DMABUF_FD, static_cast<std::uint32_t>(dmabuf_fd));
    for (const std::uint32_t queue : rx_queues) {
        message.put_nested(NETDEV_A_DMABUF_QUEUES, [queue](nl::MessageBuilder& nest) {
            nest.put_u32(NETDEV_A_QUEUE_ID, queue);
            nest.put_u32(NETDEV_A_QUEUE_TYPE, NETDEV_QUEUE_TYPE_RX);
        });
    }
    return message;
}

nl::MessageBuilder make_bind_tx_request(std::uint16_t family_id, std::uint32_t ifindex,
                                        int dmabuf_fd) {
    if (dmabuf_fd < 0) {
        throw Error(EBADF, "binding a dmabuf: invalid file descriptor");
    }
    nl::MessageBuilder message = make_message(family_id, NETDEV_CMD_BIND_TX);
    message.put_u32(NETDEV_A_DMABUF_IFINDEX, ifindex);
    message.put_u32(NETDEV_A_DMABUF_FD, static_cast<std::uint32_t>(dmabuf_fd));
    return message;
}

// --- Replies --------------------------------------------------------------------------------

Queue parse_queue(const nl::MessageView& message) {
    expect_cmd(message, NETDEV_CMD_QUEUE_GET, "queue");
    Queue queue;
    bool has_type = false;
    bool has_id = false;
    for (const nl::Attr attr : message.genl_attrs()) {
        switch (attr.type()) {
            case NETDEV_A_QUEUE_ID:
                queue.id = attr.as_u32();
                has_id = true;
                break;
            case NETDEV_A_QUEUE_IFINDEX:
                queue.ifindex = attr.as_u32();
                break;
            case NETDEV_A_QUEUE_TYPE:
                queue.type = static_cast<QueueType>(attr.as_u32());
                has_type = true;
                break;
            case NETDEV_A_QUEUE_NAPI_ID:
                queue.napi_id = attr.as_u32();
                break;
            case NETDEV_A_QUEUE_DMABUF:
                queue.dmabuf = attr.as_u32();
                break;
            default:
                break;
        }
    }
    if (queue.ifindex == 0 || !has_type || !has_id) {
        throw_missing("an ifindex, type and id", "queue");
    }
    return queue;
}

Napi parse_napi(const nl::MessageView& message) {
    expect_cmd(message, NETDEV_CMD_NAPI_GET, "napi");
    Napi napi;
    for (const nl::Attr attr : message.genl_attrs()) {
        switch (attr.type()) {
            case NETDEV_A_NAPI_IFINDEX:
                napi.ifindex = attr.as_u32();
                break;
            case NETDEV_A_NAPI_ID:
                napi.id = attr.as_u32();
                break;
            case NETDEV_A_NAPI_IRQ:
                napi.irq = attr.as_u32();
                break;
            case NETDEV_A_NAPI_PID:
                napi.pid = attr.as_u32();
                break;
            default:
                break;
        }
    }
    if (napi.id == 0) {
        throw_missing("an id", "napi");
    }
    return napi;
}

Qstats parse_qstats(const nl::MessageView& message) {
    expect_cmd(message, NETDEV_CMD_QSTATS_GET, "qstats");
    Qstats stats;
    for (const nl::Attr attr : message.genl_attrs()) {
        const std::uint16_t type = attr.type();
        if (type >= NETDEV_A_QSTATS_RX_PACKETS && type <= NETDEV_A_QSTATS_TX_WAKE) {
            stats.*(qstats_counters.at(type - NETDEV_A_QSTATS_RX_PACKETS)) = attr.as_uint();
            continue;
        }
        switch (type) {
            case NETDEV_A_QSTATS_IFINDEX:
                stats.ifindex = attr.as_u32();
                break;
            case NETDEV_A_QSTATS_QUEUE_TYPE:
                stats.queue_type = static_cast<QueueType>(attr.as_u32());
                break;
            case NETDEV_A_QSTATS_QUEUE_ID:
                stats.queue_id = attr.as_u32();
                break;
            default:
                break;
        }
    }
    if (stats.ifindex == 0) {
        throw_missing("an ifindex", "qstats");
    }
    return stats;
}

PagePool parse_page_pool(const nl::MessageView& message) {
    const std::uint8_t cmd = message.genl_cmd();
    if (cmd != NETDEV_CMD_PAGE_POOL_GET && cmd != NETDEV_CMD_PAGE_POOL_ADD_NTF &&
        cmd != NETDEV_CMD_PAGE_POOL_DEL_NTF && cmd != NETDEV_CMD_PAGE_POOL_CHANGE_NTF) {
        expect_cmd(message, NETDEV_CMD_PAGE_POOL_GET, "page pool");
    }
    PagePool pool;
    for (const nl::Attr attr : message.genl_attrs()) {
        switch (attr.type()) {
            case NETDEV_A_PAGE_POOL_ID:
                pool.id = attr.as_uint();
                break;
            case NETDEV_A_PAGE_POOL_IFINDEX:
                pool.ifindex = attr.as_u32();
                break;
            case NETDEV_A_PAGE_POOL_NAPI_ID:
                pool.napi_id = attr.as_uint();
                break;
            case NETDEV_A_PAGE_POOL_INFLIGHT:
                pool.inflight = attr.as_uint();
                break;
            case NETDEV_A_PAGE_POOL_INFLIGHT_MEM:
                pool.inflight_mem = attr.as_uint();
                break;
            case NETDEV_A_PAGE_POOL_DETACH_TIME:
                pool.detach_time = attr.as_uint();
                break;
            case NETDEV_A_PAGE_POOL_DMABUF:
                pool.dmabuf = attr.as_u32();
                break;
            default:
                break;
        }
    }
    if (pool.id == 0) {
        throw_missing("an id", "page pool");
    }
    return pool;
}

namespace {

std::uint32_t parse_bind_reply(const nl::MessageView& message, std::uint8_t cmd, const char* what) {
    expect_cmd(message, cmd, what);
    const std::optional<nl::Attr> id = message.genl_attrs().find(NETDEV_A_DMABUF_ID);
    if (!id) {
        throw_missing("a binding id", std::string(what) + " reply");
    }
    return id->as_u32();
}

}  // namespace

std::uint32_t parse_bind_rx_reply(const nl::MessageView& message) {
    return parse_bind_reply(message, NETDEV_CMD_BIND_RX, "bind-rx");
}

std::uint32_t parse_bind_tx_reply(const nl::MessageView& message) {
    return parse_bind_reply(message, NETDEV_CMD_BIND_TX, "bind-tx");
}

// --- Client ---------------------------------------------------------------------------------

Client::Client() : client_(family_name) {}

Queue Client::queue_get(std::uint32_t ifindex, QueueType type, std::uint32_t id) {
    nl::MessageBuilder message = make_queue_get_request(family().id, ifindex, type, id);
    return nl::detail::get_one<Queue>(client_, message,
                                      "netdev queue-get " + std::string(to_string(type)) + " " +
                                          std::to_string(id) + " on ifindex " +
                                          std::to_string(ifindex),
                                      parse_queue, name_attributes);
}

std::vector<Queue> Client::queue_dump(std::optional<std::uint32_t> ifindex) {
    nl::MessageBuilder message = make_queue_dump_request(family().id, ifindex);
    return nl::detail::dump_all<Queue>(client_, message, "netdev queue-get dump", parse_queue,
                                       name_attributes);
}

Napi Client::napi_get(std::uint32_t id) {
    nl::MessageBuilder message = make_napi_get_request(family().id, id);
    return nl::detail::get_one<Napi>(client_, message, "netdev napi-get " + std::to_string(id),
                                     parse_napi, name_attributes);
}

std::vector<Napi> Client::napi_dump(std::optional<std::uint32_t> ifindex) {
    nl::MessageBuilder message = make_napi_dump_request(family().id, ifindex);
    return nl::detail::dump_all<Napi>(client_, message, "netdev napi-get dump", parse_napi,
                                      name_attributes);
}

std::vector<Qstats> Client::qstats_dump(std::optional<std::uint32_t> ifindex, QstatsScope scope) {
    nl::MessageBuilder message = make_qstats_request(family().id, ifindex, scope);
    return nl::detail::dump_all<Qstats>(client_, message, "netdev qstats-get dump", parse_qstats,
                                        name_attributes);
}

PagePool Client::page_pool_get(std::uint64_t id) {
    nl::MessageBuilder message = make_page_pool_get_request(family().id, id);
    return nl::detail::get_one<PagePool>(client_, message,
                                         "netdev page-pool-get " + std::to_string(id),
                                         parse_page_pool, name_attributes);
}

std::vector<PagePool> Client::page_pool_dump() {
    nl::MessageBuilder message = make_page_pool_dump_request(family().id);
    return nl::detail::dump_all<PagePool>(client_, message, "netdev page-pool-get dump",
                                          parse_page_pool, name_attributes);
}

// --- DmabufBinding --------------------------------------------------------------------------

DmabufBinding DmabufBinding::bind_rx(std::uint32_t ifindex, int dmabuf_fd,
                                     std::span<const std::uint32_t> rx_queues) {
    nl::GenlClient client(family_name);
    nl::MessageBuilder message =
        make_bind_rx_request(client.family().id, ifindex, dmabuf_fd, rx_queues);
    const auto id = nl::detail::get_one<std::uint32_t>(
        client, message, "netdev bind-rx on ifindex " + std::to_string(ifindex),
        parse_bind_rx_reply, name_attributes);
    return {std::move(client), id, ifindex,
            std::vector<std::uint32_t>(rx_queues.begin(), rx_queues.end())};
}

DmabufBinding DmabufBinding::bind_tx(std::uint32_t ifindex, int dmabuf_fd) {
    nl::GenlClient client(family_name);
    nl::MessageBuilder message = make_bind_tx_request(client.family().id, ifindex, dmabuf_fd);
    const auto id = nl::detail::get_one<std::uint32_t>(
        client, message, "netdev bind-tx on ifindex " + std::to_string(ifindex),
        parse_bind_tx_reply, name_attributes);
    return {std::move(client), id, ifindex, {}};
}

DmabufBinding::DmabufBinding(nl::GenlClient client, std::uint32_t id, std::uint32_t ifindex,
                             std::vector<std::uint32_t> rx_queues)
    : client_(std::move(client)), id_(id), ifindex_(ifindex), rx_queues_(std::move(rx_queues)) {}

DmabufBinding::DmabufBinding(DmabufBinding&& other) noexcept
    : client_(std::exchange(other.client_, std::nullopt)),
      id_(other.id_),
      ifindex_(other.ifindex_),
      rx_queues_(std::move(other.rx_queues_)) {}

DmabufBinding& DmabufBinding::operator=(DmabufBinding&& other) noexcept {
    if (this != &other) {
        client_ = std::exchange(other.client_, std::nullopt);
        id_ = other.id_;
        ifindex_ = other.ifindex_;
        rx_queues_ = std::move(other.rx_queues_);
    }
    return *this;
}

DmabufBinding::~DmabufBinding() = default;

void DmabufBinding::reset() noexcept { client_.reset(); }

}  // namespace refnic::netdev
