// SPDX-License-Identifier: GPL-2.0-only
#include "cli.hpp"

#include "units.hpp"

#include <algorithm>
#include <array>

namespace refnic::refnicctl {

namespace {

// Walks argv. Options (-j, -s, -h, -V and their long forms) are taken wherever a keyword is
// expected, so `refnicctl -j dev show` and `refnicctl dev show -j` mean the same; a value
// after a keyword is always that keyword's value.
class Cursor {
public:
    explicit Cursor(std::span<const std::string_view> args) : args_(args) {}

    [[nodiscard]] Options& options() noexcept { return options_; }
    [[nodiscard]] bool help() const noexcept { return help_; }
    [[nodiscard]] bool version() const noexcept { return version_; }
    void set_topic(std::string topic) { topic_ = std::move(topic); }
    [[nodiscard]] const std::string& topic() const noexcept { return topic_; }

    // The next keyword or positional word, or nullopt at the end.
    std::optional<std::string_view> word() {
        skip_options();
        if (position_ >= args_.size()) {
            return std::nullopt;
        }
        const std::string_view next = args_[position_++];
        if (next == "help") {
            help_ = true;
            return word();
        }
        return next;
    }

    // The value of `keyword`, which must follow it; `expected`, if given, says what it may be.
    std::string_view value(std::string_view keyword, std::string_view expected = {}) {
        if (position_ >= args_.size()) {
            fail("\"" + std::string(keyword) + "\" needs a value" +
                 (expected.empty() ? "" : ": " + std::string(expected)));
        }
        return args_[position_++];
    }

    void expect_end() {
        if (const std::optional<std::string_view> extra = word()) {
            fail("unexpected \"" + std::string(*extra) + "\"");
        }
    }

    [[noreturn]] void fail(const std::string& message) const { throw UsageError(message, topic_); }

private:
    void skip_options() {
        while (position_ < args_.size() && args_[position_].size() > 1 &&
               args_[position_].starts_with('-')) {
            const std::string_view option = args_[position_];
            if (option == "-j" || option == "--json") {
                options_.json = true;
            } else if (option == "-s" || option == "--stats") {
                ++options_.stats_level;
            } else if (option == "-h" || option == "--help") {
                help_ = true;
            } else if (option == "-V" || option == "--version") {
                version_ = true;
            } else {
                fail("unknown option \"" + std::string(option) + "\"");
            }
            ++position_;
        }
    }

    std::span<const std::string_view> args_;
    std::size_t position_ = 0;
    Options options_;
    bool help_ = false;
    bool version_ = false;
    std::string topic_;
};

// Keywords may be given once each.
class Seen {
public:
    void mark(Cursor& cursor, std::string_view keyword) {
        if (std::find(seen_.begin(), seen_.end(), keyword) != seen_.end()) {
            cursor.fail("\"" + std::string(keyword) + "\" given twice");
        }
        seen_.emplace_back(keyword);
    }

private:
    std::vector<std::string_view> seen_;
};

template <typename T>
T need(Cursor& cursor, std::optional<T> parsed, std::string_view keyword, std::string_view value,
       std::string_view expected) {
    if (!parsed) {
        cursor.fail("invalid " + std::string(keyword) + " \"" + std::string(value) +
                    "\": expected " + std::string(expected));
    }
    return *parsed;
}

std::string interface_name(Cursor& cursor, std::string_view keyword, std::string_view value) {
    // The kernel's dev_valid_name(), so that a bad name is a usage error rather than EINVAL.
    const bool valid = !value.empty() && value.size() <= 15 && value != "." && value != ".." &&
                       std::none_of(value.begin(), value.end(), [](char c) {
                           return c == '/' || c == ':' || c == ' ' || c == '\t' || c == '\n';
                       });
    if (!valid) {
        cursor.fail("invalid " + std::string(keyword) + " \"" + std::string(value) +
                    "\": an interface name is 1 to 15 characters, without '/', ':' or spaces");
    }
    return std::string(value);
}

std::uint32_t ring_size(Cursor& cursor, std::string_view keyword, std::string_view value) {
    const std::uint32_t size = need(cursor, parse_size(value), keyword, value, "a number");
    if (size < control::ring_min || size > control::ring_max || (size & (size - 1)) != 0) {
        cursor.fail("invalid " + std::string(keyword) + " " + std::string(value) +
                    ": a power of two from " + std::to_string(control::ring_min) + " to " +
                    std::to_string(control::ring_max));
    }
    return size;
}

Command parse_dev_add(Cursor& cursor) {
    DevAdd add;
    Seen seen;
    while (const std::optional<std::string_view> keyword = cursor.word()) {
        seen.mark(cursor, *keyword);
        if (*keyword == "name") {
            add.name = interface_name(cursor, *keyword, cursor.value(*keyword));
        } else if (*keyword == "peer") {
            add.peer = interface_name(cursor, *keyword, cursor.value(*keyword));
        } else if (*keyword == "netns") {
            add.netns = std::string(cursor.value(*keyword));
        } else if (*keyword == "peer-netns") {
            add.peer_netns = std::string(cursor.value(*keyword));
        } else if (*keyword == "queues") {
            const std::string_view value = cursor.value(*keyword);
            add.queues = need(cursor, parse_count(value), *keyword, value, "a number");
            if (*add.queues < 1 || *add.queues > control::queues_max) {
                cursor.fail("invalid queues " + std::string(value) + ": 1 to " +
                            std::to_string(control::queues_max));
            }
        } else if (*keyword == "rx-ring") {
            add.rx_ring = ring_size(cursor, *keyword, cursor.value(*keyword));
        } else if (*keyword == "tx-ring") {
            add.tx_ring = ring_size(cursor, *keyword, cursor.value(*keyword));
        } else {
            cursor.fail("unknown \"" + std::string(*keyword) + "\" for dev add");
        }
    }
    return add;
}

Command parse_dev_set(Cursor& cursor) {
    const std::optional<std::string_view> dev = cursor.word();
    if (!dev) {
        cursor.fail("dev set needs a device");
    }
    DevSet set{std::string(*dev), {}};
    Seen seen;
    while (const std::optional<std::string_view> keyword = cursor.word()) {
        seen.mark(cursor, *keyword);
        if (*keyword == "tcp-data-split") {
            constexpr std::string_view expected = "on, off or auto";
            const std::string_view value = cursor.value(*keyword, expected);
            set.tcp_data_split =
                need(cursor, ethtool::parse_tcp_data_split(value), *keyword, value, expected);
        } else {
            cursor.fail("unknown \"" + std::string(*keyword) + "\" for dev set");
        }
    }
    if (!set.tcp_data_split) {
        cursor.fail("dev set needs tcp-data-split on|off|auto");
    }
    return set;
}

Command parse_dev(Cursor& cursor) {
    cursor.set_topic("dev");
    const std::optional<std::string_view> verb = cursor.word();
    if (!verb || *verb == "show" || *verb == "list" || *verb == "ls") {
        DevShow show;
        if (verb) {
            if (const std::optional<std::string_view> dev = cursor.word()) {
                show.dev = std::string(*dev);
            }
        }
        cursor.expect_end();
        return show;
    }
    if (*verb == "add" || *verb == "new") {
        return parse_dev_add(cursor);
    }
    if (*verb == "set") {
        return parse_dev_set(cursor);
    }
    if (*verb == "del" || *verb == "delete") {
        const std::optional<std::string_view> dev = cursor.word();
        if (!dev) {
            cursor.fail("dev del needs a device");
        }
        cursor.expect_end();
        return DevDel{std::string(*dev)};
    }
    cursor.fail("unknown dev command \"" + std::string(*verb) +
                "\": expected add, del, set or show");
}

Command parse_link_set(Cursor& cursor) {
    const std::optional<std::string_view> dev = cursor.word();
    if (!dev) {
        cursor.fail("link set needs a device");
    }
    LinkSet set{std::string(*dev), {}};
    Seen seen;
    while (const std::optional<std::string_view> keyword = cursor.word()) {
        seen.mark(cursor, *keyword);
        const std::string_view value = cursor.value(*keyword);
        if (*keyword == "rate") {
            set.link.rate_bps = need(cursor, parse_rate(value), *keyword, value,
                                     "a rate such as 25gbit, 100mbit or 0 (unlimited)");
        } else if (*keyword == "latency") {
            set.link.latency_us = need(cursor, parse_latency_us(value), *keyword, value,
                                       "a time such as 20us or 1ms");
            if (*set.link.latency_us > control::latency_max_us) {
                cursor.fail("invalid latency " + std::string(value) + ": at most 10s");
            }
        } else if (*keyword == "loss") {
            set.link.loss_ppm =
                need(cursor, parse_ppm(value), *keyword, value, "a percentage such as 0.1%");
        } else if (*keyword == "carrier") {
            if (value != "on" && value != "off") {
                cursor.fail("invalid carrier \"" + std::string(value) + "\": expected on or off");
            }
            set.link.carrier = value == "on";
        } else {
            cursor.fail("unknown \"" + std::string(*keyword) + "\" for link set");
        }
    }
    if (set.link == control::Link{}) {
        cursor.fail("link set needs at least one of rate, latency, loss, carrier");
    }
    return set;
}

Command parse_link(Cursor& cursor) {
    cursor.set_topic("link");
    const std::optional<std::string_view> verb = cursor.word();
    if (!verb || *verb == "show" || *verb == "list" || *verb == "ls") {
        LinkShow show;
        if (verb) {
            if (const std::optional<std::string_view> dev = cursor.word()) {
                show.dev = std::string(*dev);
            }
        }
        cursor.expect_end();
        return show;
    }
    if (*verb == "set") {
        return parse_link_set(cursor);
    }
    cursor.fail("unknown link command \"" + std::string(*verb) + "\"");
}

Command parse_stats(Cursor& cursor) {
    cursor.set_topic("stats");
    StatsShow show;
    std::optional<std::string_view> dev = cursor.word();
    if (dev && *dev == "show") {
        dev = cursor.word();
    }
    if (dev) {
        show.dev = std::string(*dev);
    }
    cursor.expect_end();
    return show;
}

constexpr const char* fault_types =
    "drop-completion, corrupt-dma-addr, stall-txq, fail-alloc, wedge-txq, gro-bad-len, stall-rxq "
    "or lose-irq";

Command parse_fault_setting(Cursor& cursor, std::string dev, bool is_set) {
    const std::optional<std::string_view> type_word = cursor.word();
    if (!type_word) {
        cursor.fail(std::string("fault ") + (is_set ? "set" : "clear") +
                    " needs a type: " + fault_types);
    }
    FaultSet fault{std::move(dev), {}};
    fault.setting.type =
        need(cursor, control::parse_fault(*type_word), "fault type", *type_word, fault_types);
    bool has_queue = false;
    Seen seen;
    while (const std::optional<std::string_view> keyword = cursor.word()) {
        seen.mark(cursor, *keyword);
        const std::string_view value = cursor.value(*keyword);
        if (*keyword == "queue") {
            fault.setting.queue = need(cursor, parse_count(value), *keyword, value, "a number");
            if (fault.setting.queue >= control::queues_max) {
                cursor.fail("invalid queue " + std::string(value) + ": 0 to " +
                            std::to_string(control::queues_max - 1));
            }
            has_queue = true;
        } else if (is_set && *keyword == "rate") {
            fault.setting.rate_ppm =
                need(cursor, parse_ppm(value), *keyword, value, "a percentage such as 5%");
        } else if (is_set && *keyword == "count") {
            fault.setting.count = need(cursor, parse_count(value), *keyword, value, "a number");
        } else {
            cursor.fail("unknown \"" + std::string(*keyword) + "\" for fault " +
                        (is_set ? "set" : "clear"));
        }
    }
    if (!has_queue) {
        cursor.fail("fault " + std::string(is_set ? "set" : "clear") + " needs queue Q");
    }
    if (is_set && fault.setting.rate_ppm.has_value() == fault.setting.count.has_value()) {
        cursor.fail("fault set needs either rate R% or count N");
    }
    return fault;
}

Command parse_fault(Cursor& cursor) {
    cursor.set_topic("fault");
    const std::optional<std::string_view> first = cursor.word();
    if (!first || *first == "show" || *first == "list" || *first == "ls") {
        cursor.expect_end();
        return FaultShow{};
    }
    std::string dev(*first);
    const std::optional<std::string_view> verb = cursor.word();
    if (!verb || *verb == "show" || *verb == "list" || *verb == "ls") {
        cursor.expect_end();
        return FaultShow{std::move(dev)};
    }
    if (*verb == "set") {
        return parse_fault_setting(cursor, std::move(dev), true);
    }
    if (*verb == "clear") {
        return parse_fault_setting(cursor, std::move(dev), false);
    }
    cursor.fail("unknown fault command \"" + std::string(*verb) +
                "\": expected set, clear or show");
}

Command parse_object(Cursor& cursor) {
    const std::optional<std::string_view> object = cursor.word();
    if (!object) {
        if (cursor.help() || cursor.version()) {
            return Help{};
        }
        cursor.fail("no command given");
    }
    if (*object == "dev" || *object == "device") {
        return parse_dev(cursor);
    }
    if (*object == "link") {
        return parse_link(cursor);
    }
    if (*object == "stats" || *object == "statistics") {
        return parse_stats(cursor);
    }
    if (*object == "fault") {
        return parse_fault(cursor);
    }
    if (*object == "monitor") {
        cursor.set_topic("monitor");
        cursor.expect_end();
        return Monitor{};
    }
    cursor.fail("unknown object \"" + std::string(*object) + "\"");
}

}  // namespace

Invocation parse_command_line(std::span<const std::string_view> args) {
    Cursor cursor(args);
    Command command;
    try {
        command = parse_object(cursor);
    } catch (const UsageError&) {
        // Help asked for anywhere wins over a command line it would explain.
        if (!cursor.help()) {
            throw;
        }
    }
    if (cursor.help()) {
        return {cursor.options(), Help{cursor.topic()}};
    }
    if (cursor.version()) {
        return {cursor.options(), Version{}};
    }
    return {cursor.options(), std::move(command)};
}

std::string version_text() { return "refnicctl " REFNIC_VERSION "\n"; }

std::string help_text(std::string_view topic) {
    static constexpr std::string_view common = R"(
DEV is an interface name or ifindex in the current network namespace.

Options (anywhere a keyword may stand):
  -j, --json      JSON output (see each command's --help for its shape)
  -s, --stats     more detail (stats: every counter)
  -h, --help      this help, or a command's: refnicctl dev --help
  -V, --version   print the version

Exit status: 0 success; 1 runtime error (the kernel refused, with its extack message, no such
device, refnic.ko not loaded); 2 usage error (the command line is wrong, nothing was done).
Errors are one line on stderr starting with "refnicctl: ".
)";
    if (topic == "dev") {
        return R"(Usage:
  refnicctl dev add [name NAME] [peer NAME] [netns NS] [peer-netns NS] [queues N]
                    [rx-ring N] [tx-ring N]
  refnicctl dev del DEV
  refnicctl dev set DEV tcp-data-split on|off|auto
  refnicctl dev show [DEV]

dev add creates a pair: port NAME and its peer (the kernel picks refnic%d names when not
given), each in the current namespace unless netns/peer-netns says otherwise. NS is a name
under /var/run/netns (ip netns add) or a path such as /proc/PID/ns/net. queues: 1 to 16; rings:
powers of two from 64 to 4096 (4k is 4096). It prints the new port as dev show does, without
tcp-data-split.
dev del deletes the pair DEV belongs to, both ports.
dev set changes DEV's ring settings through ethtool netlink, as ethtool -G does:
  tcp-data-split  header/data split of received TCP: on, off, or auto (the driver's default,
                  off on refnic). A port with a dmabuf bound to an RX queue needs it on:
                  turning it off fails (EBUSY) with the kernel's reason.
dev show lists refnic ports (one, or all in the current namespace), with ethtool's
tcp-data-split (on, off, or unknown when the driver does not say):
  5: r0: peer r1 (ifindex 6) card 0 port 0 queues 4 rx-ring 1024 tx-ring 1024 tcp-data-split off
    link carrier on rate unlimited latency 0us loss 0%

JSON (-j): dev show prints an array, dev add one object, of
  {"ifindex": 5, "ifname": "r0", "peer_ifindex": 6, "peer_ifname": "r1", "peer_netnsid": 0,
   "queues": 4, "rx_ring_size": 1024, "tx_ring_size": 1024, "card": 0, "port": 0,
   "link": {"carrier": true, "rate_bps": 0, "latency_us": 0, "loss_ppm": 0},
   "tcp_data_split": "off"}
Members the kernel did not report are left out: peer_netnsid when both share a namespace;
tcp_data_split always from dev add, and from dev show when the port went away before ethtool
was asked.
)" + std::string(common);
    }
    if (topic == "link") {
        return R"(Usage:
  refnicctl link set DEV [rate RATE] [latency TIME] [loss PERCENT] [carrier on|off]
  refnicctl link show [DEV]

The link model of a port: the wire leaving it. What link set leaves out keeps its value.
  RATE     egress limit: 25gbit, 100mbit, 1.5gbit, 1000000 (bit/s), kbit/mbit/gbit/tbit,
           kibit/mibit/gibit/tibit, and as in tc bps/kbps/mbps/gbps (bytes/s); 0 is unlimited
  TIME     one-way delay: 20us, 1ms, 1.5ms, 1s (a plain number is us); at most 10s
  PERCENT  frames lost at random: 0.1%, 250ppm (a plain number is percent); 1 ppm resolution
  carrier  the port's PHY sees a signal; the link is up when both ends do

link show prints one line per port:
  5: r0: carrier on rate 25gbit latency 20us loss 0.1%
JSON (-j): an array of {"ifindex": 5, "ifname": "r0", "link": {"carrier": true,
  "rate_bps": 25000000000, "latency_us": 20, "loss_ppm": 1000}}.
)" + std::string(common);
    }
    if (topic == "stats") {
        return R"(Usage:
  refnicctl [-s] stats [DEV]

The device model's counters of a port (of every port without DEV) since its card was created:
the port's register file, link drops, and a table with one row per queue (rx and tx of each
queue pair): frames, doorbells, descriptors fetched and written, drops for lack of a posted
buffer, interrupts raised. -s adds every other counter: MMIO reads and writes, completion
queue doorbells, DMA bytes read and written, drops on a full completion queue, engine busy
time, and masked or moderated interrupt events.

JSON (-j): for DEV an object, without DEV an array of objects:
  {"ifindex": 5, "ifname": "r0", "mmio_reads": 0, "mmio_writes": 0, "mmio_bad": 0,
   "resets": 0, "link_drop_loss": 0, "link_drop_down": 0,
   "queues": [{"type": "rx", "id": 0, "mmio_reads": 0, "mmio_writes": 0, "doorbells": 0,
               "cq_doorbells": 0, "desc_fetched": 0, "desc_written": 0, "frames": 0,
               "dma_read_bytes": 0, "dma_write_bytes": 0, "drop_nobuf": 0, "drop_cq_full": 0,
               "busy_ns": 0, "irq_raised": 0, "irq_masked": 0, "irq_moderated": 0}, ...]}
JSON always carries every counter.
)" + std::string(common);
    }
    if (topic == "fault") {
        return R"(Usage:
  refnicctl fault DEV set TYPE queue Q (rate PERCENT | count N)
  refnicctl fault DEV clear TYPE queue Q
  refnicctl fault [DEV] show

Fault injection in the device model, per queue (pair) Q (0 to 15):
  drop-completion   RX frames DMA'd but never completed (buffer lost until queue reset)
  corrupt-dma-addr  TX reads from a corrupted DMA address: the queue halts, the driver resets it
  stall-txq         TX stops consuming descriptors: the netdev watchdog's TX timeout
  fail-alloc        the driver's RX buffer allocation fails (rxN_alloc_fail)
  wedge-txq         the TX engine wedges inside the queue, holding a DMA write: the port cannot
                    be stopped or reset and fails (quiesce_failures) until it is deleted; clear
                    the fault to end the wedge
  gro-bad-len       hardware GRO writes a run's IP lengths one segment short: the driver drops
                    the run (rxN_drops), TCP retransmits it
  stall-rxq         RX stops completing: frames arrive and are lost; the driver's service task
                    restarts the queue pair (rx_stalls, queue_resets)
  lose-irq          an interrupt of the queue pair's vector is lost; the driver's service task
                    schedules NAPI (lost_irqs)
rate arms it on that share of events (5%, 100ppm) until cleared; count on the next N events.

fault show prints the faults armed or taken, one per line ("disarmed" once cleared or once its
count ran out, while the kernel still lists it):
  5: r0: queue 1 stall-txq rate 5% injected 3
JSON (-j): an array of {"ifindex": 5, "ifname": "r0", "type": "stall-txq", "queue": 1,
  "rate_ppm": 50000, "injected": 3} ("count": N instead of rate_ppm when armed by count).
)" + std::string(common);
    }
    if (topic == "monitor") {
        return R"(Usage:
  refnicctl [-j] monitor

Prints the refnic family's notifications as they come, one line each, until interrupted:
  dev-added 5: r0: peer r1 (ifindex 6) card 0 port 0 queues 4 rx-ring 1024 tx-ring 1024 ...
  dev-deleted 5: r0: ...
  link-changed 5: r0: carrier off rate 25gbit latency 20us loss 0%
  fault 5: r0: queue 1 stall-txq rate 5% injected 4
JSON (-j): one object per line, {"event": "dev-added"|"dev-deleted"|"link-changed",
  "dev": {...as dev add...}} or {"event": "fault", "fault": {...as fault show...}}.
If the kernel drops notifications because they were not read in time, a warning goes to
stderr and monitoring goes on.
)" + std::string(common);
    }
    return R"(refnicctl - control refnic device pairs and their device model

Usage: refnicctl [OPTIONS] OBJECT COMMAND [ARGUMENTS]
  refnicctl dev add [name NAME] [peer NAME] [netns NS] [peer-netns NS] [queues N]
                    [rx-ring N] [tx-ring N]
  refnicctl dev del DEV
  refnicctl dev set DEV tcp-data-split on|off|auto
  refnicctl dev show [DEV]
  refnicctl link set DEV [rate RATE] [latency TIME] [loss PERCENT] [carrier on|off]
  refnicctl link show [DEV]
  refnicctl stats [DEV]
  refnicctl fault DEV set TYPE queue Q (rate PERCENT | count N)
  refnicctl fault DEV clear TYPE queue Q
  refnicctl fault [DEV] show
  refnicctl monitor

refnicctl OBJECT --help explains each object, with its JSON output.
)" + std::string(common);
}

}  // namespace refnic::refnicctl
