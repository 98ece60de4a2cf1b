// SPDX-License-Identifier: LGPL-2.1-only OR BSD-2-Clause
// The refnic generic netlink family on librefnic's own netlink core. libnl-3 (libnl-genl) would
// add nothing here: family resolution, extack parsing, dumps and multicast are already in the
// core, and libnl would bring a second error convention (NLE_* codes), void* callbacks instead
// of typed parsing, and another runtime dependency for library users.
#include "attr_names.hpp"
#include "family_request.hpp"

#include <refnic/control.hpp>
#include <refnic/error.hpp>

#include <linux/netlink.h>
#include <linux/refnic.h>
#include <net/if.h>
#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <string>
#include <utility>

namespace refnic::control {

namespace {

static_assert(family_version == REFNIC_FAMILY_VERSION);
static_assert(queues_max == REFNIC_QUEUES_MAX);
static_assert(ring_min == REFNIC_RING_MIN && ring_max == REFNIC_RING_MAX);
static_assert(latency_max_us == REFNIC_LATENCY_MAX && ppm_max == REFNIC_PPM_MAX);
static_assert(bus_ns_max == REFNIC_BUS_NS_MAX);
static_assert(static_cast<int>(QueueType::rx) == REFNIC_QUEUE_TYPE_RX);
static_assert(static_cast<int>(QueueType::tx) == REFNIC_QUEUE_TYPE_TX);
static_assert(static_cast<int>(Fault::drop_completion) == REFNIC_FAULT_DROP_COMPLETION);
static_assert(static_cast<int>(Fault::corrupt_dma_addr) == REFNIC_FAULT_CORRUPT_DMA_ADDR);
static_assert(static_cast<int>(Fault::stall_txq) == REFNIC_FAULT_STALL_TXQ);
static_assert(static_cast<int>(Fault::fail_alloc) == REFNIC_FAULT_FAIL_ALLOC);
static_assert(static_cast<int>(Fault::wedge_txq) == REFNIC_FAULT_WEDGE_TXQ);
static_assert(static_cast<int>(Fault::gro_bad_len) == REFNIC_FAULT_GRO_BAD_LEN);
static_assert(static_cast<int>(Fault::stall_rxq) == REFNIC_FAULT_STALL_RXQ);
static_assert(static_cast<int>(Fault::lose_irq) == REFNIC_FAULT_LOSE_IRQ);

using nl::detail::AttrSet;

// Attribute names as in uapi/refnic.yaml, indexed by REFNIC_A_* value.
const AttrSet link_set{"link", {nullptr, "carrier", "rate", "latency", "loss", "pad"}, {}};
const AttrSet bus_set{
    "bus",
    {nullptr, "read-ns", "gen", "lanes", "node", "remote-ns", "reads", "remote-reads",
     "read-charged-ns", "writes", "dma-tlps", "dma-bytes", "dma-remote-tlps", "dma-charged-ns",
     "dma-throttled", "read-waited-ns", "pad"},
    {}};
const AttrSet dev_set{
    "dev",
    {nullptr, "ifindex", "ifname", "peer-ifindex", "peer-ifname", "netns-fd", "peer-netns-fd",
     "peer-netnsid", "queues", "rx-ring-size", "tx-ring-size", "card", "port", "link", "bus"},
    {nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
     nullptr, nullptr, nullptr, &link_set, &bus_set}};
const AttrSet queue_stats_set{
    "queue-stats",
    {nullptr, "type", "id", "mmio-reads", "mmio-writes", "doorbells", "cq-doorbells",
     "desc-fetched", "desc-written", "frames", "dma-read-bytes", "dma-write-bytes", "drop-nobuf",
     "drop-cq-full", "busy-ns", "irq-raised", "irq-masked", "irq-moderated", "pad"},
    {}};
const AttrSet stats_set{
    "stats",
    {nullptr, "ifindex", "mmio-reads", "mmio-writes", "mmio-bad", "resets", "link-drop-loss",
     "link-drop-down", "queue", "pad"},
    {nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, &queue_stats_set}};
const AttrSet fault_set{
    "fault", {nullptr, "ifindex", "type", "queue", "rate", "count", "injected", "pad"}, {}};

std::string request_description(std::string_view op, std::optional<std::uint32_t> ifindex) {
    std::string text = "refnic " + std::string(op);
    if (ifindex) {
        text += " on ifindex " + std::to_string(*ifindex);
    }
    return text;
}

nl::MessageBuilder make_message(std::uint16_t family_id, std::uint8_t cmd) {
    return nl::make_genl_message(family_id, cmd, REFNIC_FAMILY_VERSION);
}

void expect_cmd(const nl::MessageView& message, std::initializer_list<std::uint8_t> cmds,
                std::string_view what) {
    const std::uint8_t cmd = message.genl_cmd();
    for (const std::uint8_t expected : cmds) {
        if (cmd == expected) {
            return;
        }
    }
    throw Error(EPROTO, "expected a refnic " + std::string(what) + " message, got command " +
                            std::to_string(cmd));
}

[[noreturn]] void throw_missing(std::string_view attribute, std::string_view what) {
    throw Error(EBADMSG, "malformed netlink data: refnic " + std::string(what) + " without " +
                             std::string(attribute));
}

Link parse_link(const nl::Attr& nest) {
    Link link;
    for (const nl::Attr attr : nest.nested()) {
        switch (attr.type()) {
            case REFNIC_A_LINK_CARRIER:
                link.carrier = attr.as_u8() != 0;
                break;
            case REFNIC_A_LINK_RATE:
                link.rate_bps = attr.as_u64();
                break;
            case REFNIC_A_LINK_LATENCY:
                link.latency_us = attr.as_u32();
                break;
            case REFNIC_A_LINK_LOSS:
                link.loss_ppm = attr.as_u32();
                break;
            default:
                break;
        }
    }
    return link;
}

// The bus nest of a device: its settings into `bus`, its counters into `counters`.
void parse_bus(const nl::Attr& nest, Bus& bus, BusCounters& counters) {
    for (const nl::Attr attr : nest.nested()) {
        switch (attr.type()) {
            case REFNIC_A_BUS_READ_NS:
                bus.read_ns = attr.as_u32();
                break;
            case REFNIC_A_BUS_GEN:
                bus.gen = attr.as_u32();
                break;
            case REFNIC_A_BUS_LANES:
                bus.lanes = attr.as_u32();
                break;
            case REFNIC_A_BUS_NODE:
                bus.node = static_cast<std::int32_t>(attr.as_u32());
                break;
            case REFNIC_A_BUS_REMOTE_NS:
                bus.remote_ns = attr.as_u32();
                break;
            case REFNIC_A_BUS_READS:
                counters.reads = attr.as_u64();
                break;
            case REFNIC_A_BUS_REMOTE_READS:
                counters.remote_reads = attr.as_u64();
                break;
            case REFNIC_A_BUS_READ_CHARGED_NS:
                counters.read_charged_ns = attr.as_u64();
                break;
            case REFNIC_A_BUS_WRITES:
                counters.writes = attr.as_u64();
                break;
            case REFNIC_A_BUS_DMA_TLPS:
                counters.dma_tlps = attr.as_u64();
                break;
            case REFNIC_A_BUS_DMA_BYTES:
                counters.dma_bytes = attr.as_u64();
                break;
            case REFNIC_A_BUS_DMA_REMOTE_TLPS:
                counters.dma_remote_tlps = attr.as_u64();
                break;
            case REFNIC_A_BUS_DMA_CHARGED_NS:
                counters.dma_charged_ns = attr.as_u64();
                break;
            case REFNIC_A_BUS_DMA_THROTTLED:
                counters.dma_throttled = attr.as_u64();
                break;
            case REFNIC_A_BUS_READ_WAITED_NS:
                counters.read_waited_ns = attr.as_u64();
                break;
            default:
                break;
        }
    }
}

Device parse_device_attrs(const nl::AttrRange& attrs) {
    Device device;
    for (const nl::Attr attr : attrs) {
        switch (attr.type()) {
            case REFNIC_A_DEV_IFINDEX:
                device.ifindex = attr.as_u32();
                break;
            case REFNIC_A_DEV_IFNAME:
                device.name = attr.as_string();
                break;
            case REFNIC_A_DEV_PEER_IFINDEX:
                device.peer_ifindex = attr.as_u32();
                break;
            case REFNIC_A_DEV_PEER_IFNAME:
                device.peer_name = std::string(attr.as_string());
                break;
            case REFNIC_A_DEV_PEER_NETNSID:
                device.peer_netnsid = static_cast<std::int32_t>(attr.as_u32());
                break;
            case REFNIC_A_DEV_QUEUES:
                device.queues = attr.as_u32();
                break;
            case REFNIC_A_DEV_RX_RING_SIZE:
                device.rx_ring_size = attr.as_u32();
                break;
            case REFNIC_A_DEV_TX_RING_SIZE:
                device.tx_ring_size = attr.as_u32();
                break;
            case REFNIC_A_DEV_CARD:
                device.card = attr.as_u32();
                break;
            case REFNIC_A_DEV_PORT:
                device.port = attr.as_u32();
                break;
            case REFNIC_A_DEV_LINK:
                device.link = parse_link(attr);
                break;
            case REFNIC_A_DEV_BUS:
                parse_bus(attr, device.bus, device.bus_counters);
                break;
            default:
                break;
        }
    }
    if (device.ifindex == 0) {
        throw_missing("an ifindex", "device");
    }
    return device;
}

QueueStats parse_queue_stats(const nl::Attr& nest) {
    QueueStats queue;
    bool has_type = false;
    bool has_id = false;
    for (const nl::Attr attr : nest.nested()) {
        switch (attr.type()) {
            case REFNIC_A_QUEUE_STATS_TYPE:
                queue.type = static_cast<QueueType>(attr.as_u32());
                has_type = true;
                break;
            case REFNIC_A_QUEUE_STATS_ID:
                queue.id = attr.as_u32();
                has_id = true;
                break;
            case REFNIC_A_QUEUE_STATS_MMIO_READS:
                queue.mmio_reads = attr.as_u64();
                break;
            case REFNIC_A_QUEUE_STATS_MMIO_WRITES:
                queue.mmio_writes = attr.as_u64();
                break;
            case REFNIC_A_QUEUE_STATS_DOORBELLS:
                queue.doorbells = attr.as_u64();
                break;
            case REFNIC_A_QUEUE_STATS_CQ_DOORBELLS:
                queue.cq_doorbells = attr.as_u64();
                break;
            case REFNIC_A_QUEUE_STATS_DESC_FETCHED:
                queue.desc_fetched = attr.as_u64();
                break;
            case REFNIC_A_QUEUE_STATS_DESC_WRITTEN:
                queue.desc_written = attr.as_u64();
                break;
            case REFNIC_A_QUEUE_STATS_FRAMES:
                queue.frames = attr.as_u64();
                break;
            case REFNIC_A_QUEUE_STATS_DMA_READ_BYTES:
                queue.dma_read_bytes = attr.as_u64();
                break;
            case REFNIC_A_QUEUE_STATS_DMA_WRITE_BYTES:
                queue.dma_write_bytes = attr.as_u64();
                break;
            case REFNIC_A_QUEUE_STATS_DROP_NOBUF:
                queue.drop_nobuf = attr.as_u64();
                break;
            case REFNIC_A_QUEUE_STATS_DROP_CQ_FULL:
                queue.drop_cq_full = attr.as_u64();
                break;
            case REFNIC_A_QUEUE_STATS_BUSY_NS:
                queue.busy_ns = attr.as_u64();
                break;
            case REFNIC_A_QUEUE_STATS_IRQ_RAISED:
                queue.irq_raised = attr.as_u64();
                break;
            case REFNIC_A_QUEUE_STATS_IRQ_MASKED:
                queue.irq_masked = attr.as_u64();
                break;
            case REFNIC_A_QUEUE_STATS_IRQ_MODERATED:
                queue.irq_moderated = attr.as_u64();
                break;
            default:
                break;
        }
    }
    if (!has_type || !has_id) {
        throw_missing("a queue type and id", "queue stats");
    }
    return queue;
}

FaultStatus parse_fault_attrs(const nl::AttrRange& attrs) {
    FaultStatus fault;
    bool has_type = false;
    bool has_queue = false;
    for (const nl::Attr attr : attrs) {
        switch (attr.type()) {
            case REFNIC_A_FAULT_IFINDEX:
                fault.ifindex = attr.as_u32();
                break;
            case REFNIC_A_FAULT_TYPE:
                fault.type = static_cast<Fault>(attr.as_u32());
                has_type = true;
                break;
            case REFNIC_A_FAULT_QUEUE:
                fault.queue = attr.as_u32();
                has_queue = true;
                break;
            case REFNIC_A_FAULT_RATE:
                fault.rate_ppm = attr.as_u32();
                break;
            case REFNIC_A_FAULT_COUNT:
                fault.count = attr.as_u32();
                break;
            case REFNIC_A_FAULT_INJECTED:
                fault.injected = attr.as_u64();
                break;
            default:
                break;
        }
    }
    if (fault.ifindex == 0 || !has_type || !has_queue) {
        throw_missing("an ifindex, type and queue", "fault");
    }
    return fault;
}

template <typename Integer>
void put_optional(nl::MessageBuilder& message, std::uint16_t type,
                  const std::optional<Integer>& value) {
    if (!value) {
        return;
    }
    if constexpr (sizeof(Integer) == 8) {
        message.put_u64(type, *value);
    } else {
        message.put_u32(type, static_cast<std::uint32_t>(*value));
    }
}

}  // namespace

std::string_view to_string(Fault fault) noexcept {
    switch (fault) {
        case Fault::drop_completion:
            return "drop-completion";
        case Fault::corrupt_dma_addr:
            return "corrupt-dma-addr";
        case Fault::stall_txq:
            return "stall-txq";
        case Fault::fail_alloc:
            return "fail-alloc";
        case Fault::wedge_txq:
            return "wedge-txq";
        case Fault::gro_bad_len:
            return "gro-bad-len";
        case Fault::stall_rxq:
            return "stall-rxq";
        case Fault::lose_irq:
            return "lose-irq";
    }
    return "unknown";
}

std::optional<Fault> parse_fault(std::string_view name) noexcept {
    for (const Fault fault :
         {Fault::drop_completion, Fault::corrupt_dma_addr, Fault::stall_txq, Fault::fail_alloc,
          Fault::wedge_txq, Fault::gro_bad_len, Fault::stall_rxq, Fault::lose_irq}) {
        if (name == to_string(fault)) {
            return fault;
        }
    }
    return std::nullopt;
}

std::string_view to_string(EventType type) noexcept {
    switch (type) {
        case EventType::dev_added:
            return "dev-added";
        case EventType::dev_deleted:
            return "dev-deleted";
        case EventType::link_changed:
            return "link-changed";
        case EventType::fault:
            return "fault";
    }
    return "unknown";
}

// --- Requests -------------------------------------------------------------------------------

nl::MessageBuilder make_dev_get_request(std::uint16_t family_id, std::uint32_t ifindex) {
    nl::MessageBuilder message = make_message(family_id, REFNIC_CMD_DEV_GET);
    message.put_u32(REFNIC_A_DEV_IFINDEX, ifindex);
    return message;
}

nl::MessageBuilder make_dev_dump_request(std::uint16_t family_id) {
    return make_message(family_id, REFNIC_CMD_DEV_GET);
}

nl::MessageBuilder make_dev_new_request(std::uint16_t family_id, const NewDevice& options) {
    nl::MessageBuilder message = make_message(family_id, REFNIC_CMD_DEV_NEW);
    if (options.name) {
        message.put_string(REFNIC_A_DEV_IFNAME, *options.name);
    }
    if (options.peer_name) {
        message.put_string(REFNIC_A_DEV_PEER_IFNAME, *options.peer_name);
    }
    if (options.netns_fd) {
        message.put_u32(REFNIC_A_DEV_NETNS_FD, static_cast<std::uint32_t>(*options.netns_fd));
    }
    if (options.peer_netns_fd) {
        message.put_u32(REFNIC_A_DEV_PEER_NETNS_FD,
                        static_cast<std::uint32_t>(*options.peer_netns_fd));
    }
    put_optional(message, REFNIC_A_DEV_QUEUES, options.queues);
    put_optional(message, REFNIC_A_DEV_RX_RING_SIZE, options.rx_ring_size);
    put_optional(message, REFNIC_A_DEV_TX_RING_SIZE, options.tx_ring_size);
    return message;
}

nl::MessageBuilder make_dev_del_request(std::uint16_t family_id, std::uint32_t ifindex) {
    nl::MessageBuilder message = make_message(family_id, REFNIC_CMD_DEV_DEL);
    message.put_u32(REFNIC_A_DEV_IFINDEX, ifindex);
    return message;
}

nl::MessageBuilder make_link_set_request(std::uint16_t family_id, std::uint32_t ifindex,
                                         const Link& link) {
    nl::MessageBuilder message = make_message(family_id, REFNIC_CMD_LINK_SET);
    message.put_u32(REFNIC_A_DEV_IFINDEX, ifindex);
    message.put_nested(REFNIC_A_DEV_LINK, [&link](nl::MessageBuilder& nest) {
        if (link.carrier) {
            nest.put_u8(REFNIC_A_LINK_CARRIER, *link.carrier ? 1 : 0);
        }
        put_optional(nest, REFNIC_A_LINK_RATE, link.rate_bps);
        put_optional(nest, REFNIC_A_LINK_LATENCY, link.latency_us);
        put_optional(nest, REFNIC_A_LINK_LOSS, link.loss_ppm);
    });
    return message;
}

nl::MessageBuilder make_bus_set_request(std::uint16_t family_id, std::uint32_t ifindex,
                                        const Bus& bus) {
    nl::MessageBuilder message = make_message(family_id, REFNIC_CMD_BUS_SET);
    message.put_u32(REFNIC_A_DEV_IFINDEX, ifindex);
    message.put_nested(REFNIC_A_DEV_BUS, [&bus](nl::MessageBuilder& nest) {
        put_optional(nest, REFNIC_A_BUS_READ_NS, bus.read_ns);
        put_optional(nest, REFNIC_A_BUS_GEN, bus.gen);
        put_optional(nest, REFNIC_A_BUS_LANES, bus.lanes);
        put_optional(nest, REFNIC_A_BUS_NODE, bus.node);
        put_optional(nest, REFNIC_A_BUS_REMOTE_NS, bus.remote_ns);
    });
    return message;
}

nl::MessageBuilder make_stats_get_request(std::uint16_t family_id, std::uint32_t ifindex) {
    nl::MessageBuilder message = make_message(family_id, REFNIC_CMD_STATS_GET);
    message.put_u32(REFNIC_A_STATS_IFINDEX, ifindex);
    return message;
}

nl::MessageBuilder make_stats_dump_request(std::uint16_t family_id) {
    return make_message(family_id, REFNIC_CMD_STATS_GET);
}

nl::MessageBuilder make_fault_set_request(std::uint16_t family_id, std::uint32_t ifindex,
                                          const FaultSetting& setting) {
    nl::MessageBuilder message = make_message(family_id, REFNIC_CMD_FAULT_SET);
    message.put_u32(REFNIC_A_FAULT_IFINDEX, ifindex);
    message.put_u32(REFNIC_A_FAULT_TYPE, static_cast<std::uint32_t>(setting.type));
    message.put_u32(REFNIC_A_FAULT_QUEUE, setting.queue);
    put_optional(message, REFNIC_A_FAULT_RATE, setting.rate_ppm);
    put_optional(message, REFNIC_A_FAULT_COUNT, setting.count);
    return message;
}

nl::MessageBuilder make_fault_get_request(std::uint16_t family_id,
                                          std::optional<std::uint32_t> ifindex) {
    nl::MessageBuilder message = make_message(family_id, REFNIC_CMD_FAULT_GET);
    put_optional(message, REFNIC_A_FAULT_IFINDEX, ifindex);
    return message;
}

// --- Replies --------------------------------------------------------------------------------

Device parse_device(const nl::MessageView& message) {
    expect_cmd(message,
               {REFNIC_CMD_DEV_GET, REFNIC_CMD_DEV_NEW, REFNIC_CMD_DEV_ADD_NTF,
                REFNIC_CMD_DEV_DEL_NTF, REFNIC_CMD_LINK_CHANGE_NTF},
               "device");
    return parse_device_attrs(message.genl_attrs());
}

PortStats parse_port_stats(const nl::MessageView& message) {
    expect_cmd(message, {REFNIC_CMD_STATS_GET}, "stats");
    PortStats stats;
    for (const nl::Attr attr : message.genl_attrs()) {
        switch (attr.type()) {
            case REFNIC_A_STATS_IFINDEX:
                stats.ifindex = attr.as_u32();
                break;
            case REFNIC_A_STATS_MMIO_READS:
                stats.mmio_reads = attr.as_u64();
                break;
            case REFNIC_A_STATS_MMIO_WRITES:
                stats.mmio_writes = attr.as_u64();
                break;
            case REFNIC_A_STATS_MMIO_BAD:
                stats.mmio_bad = attr.as_u64();
                break;
            case REFNIC_A_STATS_RESETS:
                stats.resets = attr.as_u64();
                break;
            case REFNIC_A_STATS_LINK_DROP_LOSS:
                stats.link_drop_loss = attr.as_u64();
                break;
            case REFNIC_A_STATS_LINK_DROP_DOWN:
                stats.link_drop_down = attr.as_u64();
                break;
            case REFNIC_A_STATS_QUEUE:
                stats.queues.push_back(parse_queue_stats(attr));
                break;
            default:
                break;
        }
    }
    if (stats.ifindex == 0) {
        throw_missing("an ifindex", "stats");
    }
    return stats;
}

FaultStatus parse_fault_status(const nl::MessageView& message) {
    expect_cmd(message, {REFNIC_CMD_FAULT_GET, REFNIC_CMD_FAULT_NTF}, "fault");
    return parse_fault_attrs(message.genl_attrs());
}

std::optional<Event> parse_event(const nl::MessageView& message) {
    switch (message.genl_cmd()) {
        case REFNIC_CMD_DEV_ADD_NTF:
            return Event{EventType::dev_added, parse_device(message)};
        case REFNIC_CMD_DEV_DEL_NTF:
            return Event{EventType::dev_deleted, parse_device(message)};
        case REFNIC_CMD_LINK_CHANGE_NTF:
            return Event{EventType::link_changed, parse_device(message)};
        case REFNIC_CMD_FAULT_NTF:
            return Event{EventType::fault, parse_fault_status(message)};
        default:
            return std::nullopt;
    }
}

std::string attribute_name(std::uint8_t cmd, const std::vector<std::uint16_t>& path) {
    switch (cmd) {
        case REFNIC_CMD_DEV_GET:
        case REFNIC_CMD_DEV_NEW:
        case REFNIC_CMD_DEV_DEL:
        case REFNIC_CMD_LINK_SET:
        case REFNIC_CMD_BUS_SET:
            return nl::detail::name_in(dev_set, path);
        case REFNIC_CMD_STATS_GET:
            return nl::detail::name_in(stats_set, path);
        case REFNIC_CMD_FAULT_SET:
        case REFNIC_CMD_FAULT_GET:
            return nl::detail::name_in(fault_set, path);
        default:
            return {};
    }
}

Error name_attributes(const Error& error, const nl::MessageBuilder& request) {
    const std::uint8_t cmd = nl::MessageView(request.bytes()).genl_cmd();
    return nl::detail::with_attribute_names(
        error, request,
        [cmd](const std::vector<std::uint16_t>& path) { return attribute_name(cmd, path); });
}

// --- Client ---------------------------------------------------------------------------------

bool family_available() {
    try {
        nl::Socket socket(NETLINK_GENERIC);
        static_cast<void>(nl::resolve_family(socket, family_name));
        return true;
    } catch (const Error& error) {
        if (error.errnum() == ENOENT && error.from_kernel()) {
            return false;
        }
        throw;
    }
}

std::uint32_t resolve_ifindex(std::string_view name_or_index) {
    std::uint32_t index = 0;
    const char* end = name_or_index.data() + name_or_index.size();
    const auto [next, error] = std::from_chars(name_or_index.data(), end, index);
    if (!name_or_index.empty() && error == std::errc() && next == end && index != 0) {
        return index;
    }
    const std::string name(name_or_index);
    if (name.empty() || name.size() >= IF_NAMESIZE || name.find('\0') != std::string::npos) {
        throw Error(ENODEV, "no device \"" + name + "\"");
    }
    index = ::if_nametoindex(name.c_str());
    if (index == 0) {
        throw Error(errno == ENXIO ? ENODEV : errno, "no device \"" + name + "\"");
    }
    return index;
}

namespace {

// The family's client, with a plain answer when the module is not loaded.
nl::GenlClient open_family() {
    try {
        return nl::GenlClient(family_name);
    } catch (const Error& error) {
        if (error.errnum() == ENOENT && error.from_kernel()) {
            throw Error(ENOENT,
                        "the refnic generic netlink family is not registered; load the refnic "
                        "module: modprobe refnic (make dkms-install installs it)",
                        error.extack(), true);
        }
        throw;
    }
}

}  // namespace

Client::Client() : client_(open_family()) {}

Device Client::dev_get(std::uint32_t ifindex) {
    nl::MessageBuilder message = make_dev_get_request(family().id, ifindex);
    return nl::detail::get_one<Device>(client_, message, request_description("dev-get", ifindex),
                                       parse_device, name_attributes);
}

std::vector<Device> Client::dev_dump() {
    nl::MessageBuilder message = make_dev_dump_request(family().id);
    return nl::detail::dump_all<Device>(client_, message,
                                        request_description("dev-get dump", std::nullopt),
                                        parse_device, name_attributes);
}

Device Client::dev_new(const NewDevice& options) {
    nl::MessageBuilder message = make_dev_new_request(family().id, options);
    return nl::detail::get_one<Device>(client_, message,
                                       request_description("dev-new", std::nullopt), parse_device,
                                       name_attributes);
}

void Client::dev_del(std::uint32_t ifindex) {
    nl::MessageBuilder message = make_dev_del_request(family().id, ifindex);
    nl::detail::transact(client_, message, false, {}, request_description("dev-del", ifindex),
                         name_attributes);
}

void Client::link_set(std::uint32_t ifindex, const Link& link) {
    nl::MessageBuilder message = make_link_set_request(family().id, ifindex, link);
    nl::detail::transact(client_, message, false, {}, request_description("link-set", ifindex),
                         name_attributes);
}

void Client::bus_set(std::uint32_t ifindex, const Bus& bus) {
    nl::MessageBuilder message = make_bus_set_request(family().id, ifindex, bus);
    nl::detail::transact(client_, message, false, {}, request_description("bus-set", ifindex),
                         name_attributes);
}

PortStats Client::stats_get(std::uint32_t ifindex) {
    nl::MessageBuilder message = make_stats_get_request(family().id, ifindex);
    return nl::detail::get_one<PortStats>(client_, message,
                                          request_description("stats-get", ifindex),
                                          parse_port_stats, name_attributes);
}

std::vector<PortStats> Client::stats_dump() {
    nl::MessageBuilder message = make_stats_dump_request(family().id);
    return nl::detail::dump_all<PortStats>(client_, message,
                                           request_description("stats-get dump", std::nullopt),
                                           parse_port_stats, name_attributes);
}

void Client::fault_set(std::uint32_t ifindex, const FaultSetting& setting) {
    nl::MessageBuilder message = make_fault_set_request(family().id, ifindex, setting);
    nl::detail::transact(client_, message, false, {}, request_description("fault-set", ifindex),
                         name_attributes);
}

void Client::fault_clear(std::uint32_t ifindex, Fault type, std::uint32_t queue) {
    fault_set(ifindex, FaultSetting{.type = type, .queue = queue, .rate_ppm = {}, .count = {}});
}

std::vector<FaultStatus> Client::fault_get(std::optional<std::uint32_t> ifindex) {
    nl::MessageBuilder message = make_fault_get_request(family().id, ifindex);
    return nl::detail::dump_all<FaultStatus>(client_, message,
                                             request_description("fault-get dump", ifindex),
                                             parse_fault_status, name_attributes);
}

// --- Monitor --------------------------------------------------------------------------------

Monitor::Monitor() : client_(open_family()) { client_.join_group(monitor_group); }

std::optional<Event> Monitor::next(std::optional<std::chrono::milliseconds> timeout) {
    const auto deadline =
        timeout ? std::optional(std::chrono::steady_clock::now() + *timeout) : std::nullopt;
    while (pending_.empty()) {
        if (deadline) {
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                *deadline - std::chrono::steady_clock::now());
            pollfd descriptor{.fd = fd(), .events = POLLIN, .revents = 0};
            const int ready =
                ::poll(&descriptor, 1,
                       static_cast<int>(std::max<long>(0, static_cast<long>(left.count()))));
            if (ready < 0) {
                if (errno == EINTR) {
                    continue;
                }
                throw Error(errno, "waiting for refnic monitor events");
            }
            if (ready == 0) {
                return std::nullopt;
            }
        }
        client_.socket().receive([this](const nl::MessageView& message) {
            if (message.type() != client_.family().id) {
                return;
            }
            if (std::optional<Event> event = parse_event(message)) {
                pending_.push_back(*std::move(event));
            }
        });
    }
    Event event = std::move(pending_.front());
    pending_.pop_front();
    return event;
}

}  // namespace refnic::control
