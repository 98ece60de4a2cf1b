// SPDX-License-Identifier: GPL-2.0-only
#include "cli.hpp"

#include "cli_args.hpp"
#include "grammar.hpp"
#include "options.hpp"
#include "units.hpp"

#include <algorithm>
#include <array>
#include <initializer_list>
#include <limits>

namespace refnic::refnicctl {

namespace {

using tool_cli::match_word;
using tool_cli::OptionSpec;
using tool_cli::WordMatch;
using tool_cli::WordSpec;

enum OptionIndex : std::uint8_t { opt_json, opt_pretty, opt_stats, opt_help, opt_version };

constexpr std::array<OptionSpec, 5> option_specs{{
    {"json", 'j', false},
    {"pretty", 'p', false},
    {"stats", 's', false},
    {"help", 'h', false},
    {"version", 'V', false},
}};

enum class Object : std::uint8_t { dev, link, bus, stats, fault, monitor, top, ring, help };

constexpr std::array<std::string_view, 1> device_synonyms{"device"};
constexpr std::array<std::string_view, 1> statistics_synonyms{"statistics"};
constexpr std::array<std::string_view, 1> add_synonyms{"new"};
constexpr std::array<std::string_view, 1> del_synonyms{"delete"};
constexpr std::array<std::string_view, 2> show_synonyms{"list", "ls"};

const std::array<WordSpec, 9> objects{{
    {"dev", device_synonyms},
    {"link"},
    {"bus"},
    {"stats", statistics_synonyms},
    {"fault"},
    {"monitor"},
    {"top"},
    {"ring"},
    {"help"},
}};

const std::array<WordSpec, 5> dev_verbs{{
    {"add", add_synonyms},
    {"del", del_synonyms},
    {"set"},
    {"show", show_synonyms},
    {"help"},
}};
const std::array<WordSpec, 3> link_verbs{{{"set"}, {"show", show_synonyms}, {"help"}}};
const std::array<WordSpec, 3> bus_verbs{{{"set"}, {"show", show_synonyms}, {"help"}}};
const std::array<WordSpec, 2> stats_verbs{{{"show", show_synonyms}, {"help"}}};
const std::array<WordSpec, 4> fault_verbs{{{"set"}, {"clear"}, {"show", show_synonyms}, {"help"}}};
const std::array<WordSpec, 1> monitor_verbs{{{"help"}}};
const std::array<WordSpec, 2> ring_verbs{{{"show", show_synonyms}, {"help"}}};

const std::array<WordSpec, 7> dev_add_keywords{{
    {"name"},
    {"peer"},
    {"netns"},
    {"peer-netns"},
    {"queues"},
    {"rx-ring"},
    {"tx-ring"},
}};
const std::array<WordSpec, 1> dev_set_keywords{{{"tcp-data-split"}}};
const std::array<WordSpec, 4> link_set_keywords{{{"rate"}, {"latency"}, {"loss"}, {"carrier"}}};
const std::array<WordSpec, 5> bus_set_keywords{{
    {"read-ns"},
    {"gen"},
    {"lanes"},
    {"node"},
    {"remote-ns"},
}};
const std::array<WordSpec, 3> fault_set_keywords{{{"queue"}, {"rate"}, {"count"}}};
const std::array<WordSpec, 1> fault_clear_keywords{{{"queue"}}};
const std::array<WordSpec, 3> top_keywords{{{"interval"}, {"count"}, {"once"}}};
const std::array<WordSpec, 1> ring_queue_keyword{{{"queue"}}};
const std::array<WordSpec, 1> ring_show_keywords{{{"svg"}}};

std::span<const WordSpec> verbs_of(Object object) {
    switch (object) {
        case Object::dev:
            return dev_verbs;
        case Object::link:
            return link_verbs;
        case Object::bus:
            return bus_verbs;
        case Object::stats:
            return stats_verbs;
        case Object::fault:
            return fault_verbs;
        case Object::ring:
            return ring_verbs;
        case Object::monitor:
        case Object::top:
        case Object::help:
            break;
    }
    return monitor_verbs;
}

// Walks argv: options (-j, -p, -s, -h, -V and their long forms, bundled or not) wherever an
// object, verb, device or keyword may stand, so `refnicctl -j dev show` and `refnicctl dev show
// -j` mean the same; a value after a keyword is always that keyword's value.
class Cursor {
public:
    explicit Cursor(std::span<const std::string_view> args) : parser_(option_specs, args) {}

    [[nodiscard]] const Options& options() const noexcept { return options_; }
    [[nodiscard]] bool help() const noexcept { return help_; }
    [[nodiscard]] bool version() const noexcept { return version_; }
    // The object a usage error points to, and the help -h prints.
    void set_object(std::string_view object) {
        object_ = object;
        help_topic_ = object;
    }
    void set_verb(std::string_view verb) { help_topic_ = object_ + " " + std::string(verb); }
    [[nodiscard]] const std::string& object() const noexcept { return object_; }
    [[nodiscard]] const std::string& help_topic() const noexcept { return help_topic_; }

    // The next word, options before it taken, or nullopt at the end.
    std::optional<std::string_view> word() {
        skip_options();
        return parser_.take();
    }

    // The next word where a device or keyword stands: the word `help` (matched whole) asks for
    // help and is stepped over.
    std::optional<std::string_view> keyword() {
        for (;;) {
            const std::optional<std::string_view> next = word();
            if (!next || *next != "help") {
                return next;
            }
            help_ = true;
        }
    }

    // The value of `keyword`, which must follow it; `expected`, if given, says what it may be.
    std::string_view value(std::string_view keyword, std::string_view expected = {}) {
        const std::size_t position = parser_.position();
        const std::optional<std::string_view> next = parser_.take();
        if (!next) {
            fail(tool_cli::quoted(keyword) + " needs a value" +
                 (expected.empty() ? "" : ": " + std::string(expected)));
        }
        values_.push_back(position);
        return *next;
    }

    // Whether the word at INDEX of the command line was taken as a keyword's value.
    [[nodiscard]] bool taken_as_value(std::size_t index) const {
        return std::find(values_.begin(), values_.end(), index) != values_.end();
    }

    // A device where one stands: DEV or `dev DEV`; nullopt at the end.
    std::optional<std::string> device() {
        const std::optional<std::string_view> next = keyword();
        if (!next) {
            return std::nullopt;
        }
        if (*next == "dev") {
            return std::string(value("dev", "a device"));
        }
        return std::string(*next);
    }

    void expect_end() {
        if (const std::optional<std::string_view> extra = keyword()) {
            fail("unexpected " + tool_cli::quoted(*extra));
        }
    }

    [[noreturn]] void fail(const std::string& message) const { throw UsageError(message, object_); }

private:
    void skip_options() {
        std::vector<tool_cli::OptionHit> hits;
        try {
            hits = parser_.options();
        } catch (const tool_cli::UsageError& error) {
            fail(error.what());
        }
        for (const tool_cli::OptionHit& hit : hits) {
            switch (hit.index) {
                case opt_json:
                    options_.json = true;
                    break;
                case opt_pretty:
                    options_.json = true;
                    options_.pretty = true;
                    break;
                case opt_stats:
                    ++options_.stats_level;
                    break;
                case opt_help:
                    help_ = true;
                    break;
                default:
                    version_ = true;
                    break;
            }
        }
    }

    tool_cli::OptionParser parser_;
    Options options_;
    bool help_ = false;
    bool version_ = false;
    std::vector<std::size_t> values_;  // The indices of the words taken as values.
    std::string object_;
    std::string help_topic_;
};

// Matches `word` against `table`, or fails: unknown WHAT "x"[ for CONTEXT]: expected ...; or
// ambiguous WHAT "x"[ for CONTEXT]: a, b.
std::size_t match(Cursor& cursor, std::string_view word, std::span<const WordSpec> table,
                  std::string_view what, std::string_view context) {
    const WordMatch found = match_word(word, table);
    const std::string where = context.empty() ? "" : " for " + std::string(context);
    switch (found.kind) {
        case WordMatch::Kind::found:
            return found.index;
        case WordMatch::Kind::ambiguous: {
            std::string candidates;
            for (const std::string_view candidate : found.candidates) {
                candidates += (candidates.empty() ? "" : ", ") + std::string(candidate);
            }
            cursor.fail("ambiguous " + std::string(what) + " " + tool_cli::quoted(word) + where +
                        ": " + candidates);
        }
        case WordMatch::Kind::unknown:
            break;
    }
    cursor.fail("unknown " + std::string(what) + " " + tool_cli::quoted(word) + where +
                ": expected " + tool_cli::one_of(tool_cli::names_of(table)));
}

// Keywords may be given once each.
class Seen {
public:
    void mark(Cursor& cursor, std::string_view keyword) {
        if (std::find(seen_.begin(), seen_.end(), keyword) != seen_.end()) {
            cursor.fail(tool_cli::quoted(keyword) + " given twice");
        }
        seen_.emplace_back(keyword);
    }

private:
    std::vector<std::string_view> seen_;
};

// The keywords of a command, each matched (prefixes) and given once, until the end.
template <typename Apply>
void keywords(Cursor& cursor, std::span<const WordSpec> table, std::string_view command,
              Apply apply) {
    Seen seen;
    while (const std::optional<std::string_view> word = cursor.keyword()) {
        const std::string_view keyword =
            table[match(cursor, *word, table, "keyword", command)].name;
        seen.mark(cursor, keyword);
        apply(keyword);
    }
}

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
    if (!tool_cli::valid_interface_name(value)) {
        cursor.fail("invalid " + std::string(keyword) + " \"" + std::string(value) +
                    "\": an interface name is 1 to 15 characters, without '/', ':' or spaces");
    }
    return std::string(value);
}

std::uint32_t ring_size(Cursor& cursor, std::string_view keyword, std::string_view value) {
    const std::uint32_t size = need(cursor, parse_size(value), keyword, value, "a number");
    if (size < control::ring_min || size > control::ring_max || (size & (size - 1)) != 0) {
        cursor.fail("invalid " + std::string(keyword) + " " + tool_cli::quoted(value) +
                    ": expected a power of two from " + std::to_string(control::ring_min) + " to " +
                    std::to_string(control::ring_max));
    }
    return size;
}

std::string required_device(Cursor& cursor, std::string_view command) {
    std::optional<std::string> dev = cursor.device();
    if (!dev) {
        cursor.fail(std::string(command) + " needs a device");
    }
    return std::move(*dev);
}

Command parse_dev_add(Cursor& cursor) {
    DevAdd add;
    keywords(cursor, dev_add_keywords, "dev add", [&](std::string_view keyword) {
        if (keyword == "name") {
            add.name = interface_name(cursor, keyword, cursor.value(keyword));
        } else if (keyword == "peer") {
            add.peer = interface_name(cursor, keyword, cursor.value(keyword));
        } else if (keyword == "netns") {
            add.netns = std::string(cursor.value(keyword));
        } else if (keyword == "peer-netns") {
            add.peer_netns = std::string(cursor.value(keyword));
        } else if (keyword == "queues") {
            const std::string_view value = cursor.value(keyword);
            add.queues = need(cursor, parse_count(value), keyword, value, "a number");
            if (*add.queues < 1 || *add.queues > control::queues_max) {
                cursor.fail("invalid queues " + tool_cli::quoted(value) +
                            ": expected a number from 1 to " + std::to_string(control::queues_max));
            }
        } else if (keyword == "rx-ring") {
            add.rx_ring = ring_size(cursor, keyword, cursor.value(keyword));
        } else {
            add.tx_ring = ring_size(cursor, keyword, cursor.value(keyword));
        }
    });
    return add;
}

Command parse_dev_set(Cursor& cursor) {
    DevSet set{required_device(cursor, "dev set"), {}};
    keywords(cursor, dev_set_keywords, "dev set", [&](std::string_view keyword) {
        constexpr std::string_view expected = "on, off or auto";
        const std::string_view value = cursor.value(keyword, expected);
        set.tcp_data_split =
            need(cursor, ethtool::parse_tcp_data_split(value), keyword, value, expected);
    });
    if (!set.tcp_data_split) {
        cursor.fail("dev set needs tcp-data-split on|off|auto");
    }
    return set;
}

Command parse_link_set(Cursor& cursor) {
    LinkSet set{required_device(cursor, "link set"), {}};
    keywords(cursor, link_set_keywords, "link set", [&](std::string_view keyword) {
        const std::string_view value = cursor.value(keyword);
        if (keyword == "rate") {
            set.link.rate_bps = need(cursor, parse_rate(value), keyword, value,
                                     "a rate such as 25gbit, 100mbit or 0 (unlimited)");
        } else if (keyword == "latency") {
            set.link.latency_us =
                need(cursor, parse_latency_us(value), keyword, value, "a time such as 20us or 1ms");
            if (*set.link.latency_us > control::latency_max_us) {
                cursor.fail("invalid latency " + tool_cli::quoted(value) + ": at most 10s");
            }
        } else if (keyword == "loss") {
            set.link.loss_ppm = need(cursor, parse_ppm(value), keyword, value,
                                     "a percentage such as 0.1%, at most 100%");
        } else {
            if (value != "on" && value != "off") {
                cursor.fail("invalid carrier \"" + std::string(value) + "\": expected on or off");
            }
            set.link.carrier = value == "on";
        }
    });
    if (set.link == control::Link{}) {
        cursor.fail("link set needs at least one of rate, latency, loss, carrier");
    }
    return set;
}

// A cost of the bus model: whole nanoseconds from 0 to bus_ns_max.
std::uint32_t bus_ns(Cursor& cursor, std::string_view keyword, std::string_view value) {
    const std::optional<std::uint32_t> ns = parse_count(value);
    if (!ns || *ns > control::bus_ns_max) {
        cursor.fail("invalid " + std::string(keyword) + " " + tool_cli::quoted(value) +
                    ": expected nanoseconds from 0 to " + std::to_string(control::bus_ns_max));
    }
    return *ns;
}

Command parse_bus_set(Cursor& cursor) {
    BusSet set{required_device(cursor, "bus set"), {}};
    keywords(cursor, bus_set_keywords, "bus set", [&](std::string_view keyword) {
        const std::string_view value = cursor.value(keyword);
        if (keyword == "read-ns") {
            set.bus.read_ns = bus_ns(cursor, keyword, value);
        } else if (keyword == "remote-ns") {
            set.bus.remote_ns = bus_ns(cursor, keyword, value);
        } else if (keyword == "gen") {
            const std::optional<std::uint32_t> gen = parse_count(value);
            if (!gen || (*gen != 0 && (*gen < 3 || *gen > 5))) {
                cursor.fail("invalid gen " + tool_cli::quoted(value) +
                            ": expected 3, 4, 5 or 0 (no cap)");
            }
            set.bus.gen = *gen;
        } else if (keyword == "lanes") {
            const std::optional<std::uint32_t> lanes = parse_count(value);
            if (!lanes || *lanes == 0 || *lanes > 16 || (*lanes & (*lanes - 1)) != 0) {
                cursor.fail("invalid lanes " + tool_cli::quoted(value) +
                            ": expected 1, 2, 4, 8 or 16");
            }
            set.bus.lanes = *lanes;
        } else {
            constexpr auto node_max =
                static_cast<std::uint32_t>(std::numeric_limits<std::int32_t>::max());
            const std::optional<std::uint32_t> node = parse_count(value);
            if (value == "none") {
                set.bus.node = control::bus_node_none;
            } else if (node && *node <= node_max) {
                set.bus.node = static_cast<std::int32_t>(*node);
            } else {
                cursor.fail("invalid node " + tool_cli::quoted(value) +
                            ": expected a NUMA node number or none");
            }
        }
    });
    if (set.bus == control::Bus{}) {
        cursor.fail("bus set needs at least one of read-ns, gen, lanes, node, remote-ns");
    }
    return set;
}

constexpr const char* fault_types =
    "drop-completion, corrupt-dma-addr, stall-txq, fail-alloc, wedge-txq, gro-bad-len, stall-rxq "
    "or lose-irq";

Command parse_fault_setting(Cursor& cursor, bool is_set) {
    const std::string command = is_set ? "fault set" : "fault clear";
    FaultSet fault{required_device(cursor, command), {}};
    const std::optional<std::string_view> type_word = cursor.keyword();
    if (!type_word) {
        cursor.fail(command + " needs a type: " + fault_types);
    }
    fault.setting.type =
        need(cursor, control::parse_fault(*type_word), "fault type", *type_word, fault_types);
    bool has_queue = false;
    const std::span<const WordSpec> table =
        is_set ? std::span<const WordSpec>(fault_set_keywords) : fault_clear_keywords;
    keywords(cursor, table, command, [&](std::string_view keyword) {
        const std::string_view value = cursor.value(keyword);
        if (keyword == "queue") {
            fault.setting.queue = need(cursor, parse_count(value), keyword, value, "a number");
            if (fault.setting.queue >= control::queues_max) {
                cursor.fail("invalid queue " + tool_cli::quoted(value) +
                            ": expected a number from 0 to " +
                            std::to_string(control::queues_max - 1));
            }
            has_queue = true;
        } else if (keyword == "rate") {
            fault.setting.rate_ppm = need(cursor, parse_ppm(value), keyword, value,
                                          "a percentage such as 5%, at most 100%");
        } else {
            fault.setting.count = need(cursor, parse_count(value), keyword, value, "a number");
        }
    });
    if (!has_queue) {
        cursor.fail(command + " needs queue Q");
    }
    if (is_set && fault.setting.rate_ppm && fault.setting.count) {
        cursor.fail("fault set takes rate R% or count N, not both");
    }
    if (is_set && !fault.setting.rate_ppm && !fault.setting.count) {
        cursor.fail("fault set needs either rate R% or count N");
    }
    return fault;
}

// The show of an object: [[dev] DEV].
template <typename Show>
Command parse_show(Cursor& cursor) {
    Show show;
    show.dev = cursor.device();
    cursor.expect_end();
    return show;
}

// A word after `stats` or `fault` that is no verb: the 0.2.0 order (OBJECT DEV VERB). Fails with
// the new spelling.
[[noreturn]] void old_order(Cursor& cursor, Object object, std::string_view word) {
    if (object == Object::stats) {
        cursor.fail(R"("stats DEV" is now "stats show DEV")");
    }
    std::string_view verb = "show";
    if (const std::optional<std::string_view> next = cursor.keyword()) {
        const WordMatch found = match_word(*next, fault_verbs);
        if (found.kind == WordMatch::Kind::found && fault_verbs[found.index].name != "help") {
            verb = fault_verbs[found.index].name;
        } else {
            cursor.fail("unknown verb " + tool_cli::quoted(word) +
                        " for fault: expected set, clear, show or help");
        }
    }
    cursor.fail("\"fault DEV " + std::string(verb) + "\" is now \"fault " + std::string(verb) +
                " DEV\"");
}

Command parse_verb(Cursor& cursor, Object object, std::string_view object_name) {
    const std::span<const WordSpec> verbs = verbs_of(object);
    const std::optional<std::string_view> word = cursor.word();
    if (!word) {
        if (object == Object::monitor) {
            return Monitor{};
        }
        // An object alone is its show.
        switch (object) {
            case Object::dev:
                return DevShow{};
            case Object::link:
                return LinkShow{};
            case Object::bus:
                return BusShow{};
            case Object::stats:
                return StatsShow{};
            default:
                return FaultShow{};
        }
    }
    if (object == Object::monitor) {
        if (match_word(*word, verbs).kind != WordMatch::Kind::found) {
            cursor.fail("unexpected " + tool_cli::quoted(*word));
        }
        return Help{"monitor"};
    }
    // A word that is no verb names a device in the 0.2.0 order, unless it is a misspelt verb.
    if ((object == Object::stats || object == Object::fault) &&
        match_word(*word, verbs).kind == WordMatch::Kind::unknown &&
        !tool_cli::near_miss(*word, verbs)) {
        old_order(cursor, object, *word);
    }
    const std::string_view verb = verbs[match(cursor, *word, verbs, "verb", object_name)].name;
    if (verb == "help") {
        return Help{std::string(object_name)};
    }
    cursor.set_verb(verb);
    if (verb == "show") {
        switch (object) {
            case Object::dev:
                return parse_show<DevShow>(cursor);
            case Object::link:
                return parse_show<LinkShow>(cursor);
            case Object::bus:
                return parse_show<BusShow>(cursor);
            case Object::stats:
                return parse_show<StatsShow>(cursor);
            default:
                return parse_show<FaultShow>(cursor);
        }
    }
    if (object == Object::dev) {
        if (verb == "add") {
            return parse_dev_add(cursor);
        }
        if (verb == "set") {
            return parse_dev_set(cursor);
        }
        DevDel del{required_device(cursor, "dev del")};
        cursor.expect_end();
        return del;
    }
    if (object == Object::link) {
        return parse_link_set(cursor);
    }
    if (object == Object::bus) {
        return parse_bus_set(cursor);
    }
    return parse_fault_setting(cursor, verb == "set");
}

// top [[dev] DEV] [interval TIME] [count N | once]. A first word that is no keyword (or `dev`)
// names the device.
Command parse_top(Cursor& cursor) {
    Top top;
    std::optional<std::string_view> first = cursor.keyword();
    if (first && *first == "dev") {
        top.dev = std::string(cursor.value("dev", "a device"));
        first = std::nullopt;
    } else if (first && match_word(*first, top_keywords).kind == WordMatch::Kind::unknown &&
               !tool_cli::near_miss(*first, top_keywords)) {
        top.dev = std::string(*first);
        first = std::nullopt;
    }
    Seen seen;
    bool once = false;
    for (std::optional<std::string_view> word = first ? first : cursor.keyword(); word;
         word = cursor.keyword()) {
        const std::string_view keyword =
            top_keywords[match(cursor, *word, top_keywords, "keyword", "top")].name;
        seen.mark(cursor, keyword);
        if (keyword == "once") {
            once = true;
            continue;
        }
        const std::string_view value = cursor.value(keyword);
        if (keyword == "interval") {
            top.interval_ms = need(cursor, parse_interval_ms(value), keyword, value,
                                   "seconds from 0.1 to 3600, such as 2, 0.5 or 500ms");
        } else {
            top.count = need(cursor, parse_count(value), keyword, value, "a number from 1");
            if (*top.count == 0) {
                cursor.fail("invalid count \"0\": expected a number from 1");
            }
        }
    }
    if (once) {
        if (top.count) {
            cursor.fail("top takes count N or once, not both");
        }
        top.count = 1;
    }
    return top;
}

// ring [show] [dev] DEV [queue] Q [svg FILE]. A first word that is no verb (nor a misspelt one)
// names the device: `ring` alone is its show.
Command parse_ring(Cursor& cursor) {
    const std::optional<std::string_view> word = cursor.word();
    if (!word) {
        cursor.fail("ring show needs a device and a queue");
    }
    std::optional<std::string> dev;
    if (*word == "dev") {
        dev = std::string(cursor.value("dev", "a device"));
    } else if (match_word(*word, ring_verbs).kind == WordMatch::Kind::unknown &&
               !tool_cli::near_miss(*word, ring_verbs)) {
        dev = std::string(*word);
    } else {
        const std::string_view verb =
            ring_verbs[match(cursor, *word, ring_verbs, "verb", "ring")].name;
        if (verb == "help") {
            return Help{"ring"};
        }
        cursor.set_verb(verb);
    }
    RingShow show{dev ? std::move(*dev) : required_device(cursor, "ring show"), 0, {}};
    std::optional<std::string_view> queue = cursor.keyword();
    if (queue && !parse_count(*queue) &&
        match_word(*queue, ring_queue_keyword).kind == WordMatch::Kind::found) {
        queue = cursor.value("queue", "a queue pair");
    }
    if (!queue) {
        cursor.fail("ring show needs a queue");
    }
    const std::optional<std::uint32_t> parsed = parse_count(*queue);
    if (!parsed || *parsed >= control::queues_max) {
        cursor.fail("invalid queue " + tool_cli::quoted(*queue) + ": expected a number from 0 to " +
                    std::to_string(control::queues_max - 1));
    }
    show.queue = *parsed;
    keywords(cursor, ring_show_keywords, "ring show", [&](std::string_view keyword) {
        show.svg = std::string(cursor.value(keyword, "a file"));
    });
    return show;
}

// help [OBJECT [VERB]]: the words abbreviate as anywhere else.
Command parse_help(Cursor& cursor) {
    const std::optional<std::string_view> object_word = cursor.word();
    if (!object_word) {
        return Help{};
    }
    const std::size_t object = match(cursor, *object_word, objects, "object", "");
    const std::string_view object_name = objects[object].name;
    if (static_cast<Object>(object) == Object::help) {
        cursor.expect_end();
        return Help{};
    }
    cursor.set_object(object_name);
    const std::optional<std::string_view> verb_word = cursor.word();
    if (!verb_word) {
        return Help{std::string(object_name)};
    }
    const std::span<const WordSpec> verbs = verbs_of(static_cast<Object>(object));
    const std::string_view verb = verbs[match(cursor, *verb_word, verbs, "verb", object_name)].name;
    cursor.expect_end();
    if (verb == "help") {
        return Help{std::string(object_name)};
    }
    return Help{std::string(object_name) + " " + std::string(verb)};
}

Command parse_object(Cursor& cursor) {
    const std::optional<std::string_view> word = cursor.word();
    if (!word) {
        if (cursor.help()) {
            return Help{};
        }
        if (cursor.version()) {
            return Version{};
        }
        cursor.fail("no command given");
    }
    const std::size_t index = match(cursor, *word, objects, "object", "");
    const auto object = static_cast<Object>(index);
    if (object == Object::help) {
        return parse_help(cursor);
    }
    cursor.set_object(objects[index].name);
    if (object == Object::top) {
        return parse_top(cursor);
    }
    if (object == Object::ring) {
        return parse_ring(cursor);
    }
    return parse_verb(cursor, object, objects[index].name);
}

}  // namespace

Invocation parse_command_line(std::span<const std::string_view> args) {
    Cursor cursor(args);
    Command command;
    try {
        command = parse_object(cursor);
    } catch (const UsageError&) {
        // Help asked for anywhere wins over a command line it would explain; -V over the rest.
        // A keyword's value is never an option, whether or not it parsed: `rate -h` is a bad
        // rate, as `name -h` is a name.
        std::vector<std::string_view> unread;
        for (std::size_t i = 0; i < args.size(); ++i) {
            if (!cursor.taken_as_value(i)) {
                unread.push_back(args[i]);
            }
        }
        if (cursor.help() || tool_cli::asks_for(option_specs, unread, "help", 'h')) {
            return {cursor.options(), Help{cursor.help_topic()}};
        }
        if (cursor.version() || tool_cli::asks_for(option_specs, unread, "version", 'V')) {
            return {cursor.options(), Version{}};
        }
        throw;
    }
    if (cursor.help()) {
        // `help` named by a verb or the help object already says which help.
        if (const Help* help = std::get_if<Help>(&command)) {
            return {cursor.options(), *help};
        }
        return {cursor.options(), Help{cursor.help_topic()}};
    }
    if (std::holds_alternative<Help>(command)) {
        return {cursor.options(), std::move(command)};
    }
    if (cursor.version()) {
        return {cursor.options(), Version{}};
    }
    return {cursor.options(), std::move(command)};
}

std::string version_text() { return "refnicctl " REFNIC_VERSION "\n"; }

namespace {

constexpr std::string_view common_help = R"(
DEV is an interface name or ifindex in the current network namespace, given as DEV or as
"dev DEV" (for a device named like a keyword, "help" or "dev"). Objects, verbs and keywords
take any unambiguous prefix (refnicctl d sh r0 is refnicctl dev show r0); values are whole.

Options (anywhere a word may stand, not where a value does; -- ends them):
  -j, --json      JSON output (see each object's --help for its shape)
  -p, --pretty    JSON indented by 4 spaces (implies -j)
  -s, --stats     more detail (stats show: every counter)
  -h, --help      this help, or an object's or a verb's: refnicctl dev --help,
                  refnicctl help fault set
  -V, --version   print the version

Exit status: 0 success; 1 runtime error (the kernel refused, with its extack message, no such
device, the refnic module not loaded); 2 usage error (the command line is wrong, nothing was
done). Errors are one line on stderr starting with "refnicctl: ".
)";

constexpr std::string_view dev_add_synopsis =
    "  refnicctl dev add [name NAME] [peer NAME] [netns NS] [peer-netns NS] [queues N]\n"
    "                    [rx-ring N] [tx-ring N]\n";
constexpr std::string_view dev_del_synopsis = "  refnicctl dev del [dev] DEV\n";
constexpr std::string_view dev_set_synopsis =
    "  refnicctl dev set [dev] DEV tcp-data-split on|off|auto\n";
constexpr std::string_view dev_show_synopsis = "  refnicctl dev show [[dev] DEV]\n";
constexpr std::string_view link_set_synopsis =
    "  refnicctl link set [dev] DEV [rate RATE] [latency TIME] [loss PERCENT]\n"
    "                     [carrier on|off]\n";
constexpr std::string_view link_show_synopsis = "  refnicctl link show [[dev] DEV]\n";
constexpr std::string_view bus_set_synopsis =
    "  refnicctl bus set [dev] DEV [read-ns N] [gen G] [lanes L] [node N|none]\n"
    "                    [remote-ns N]\n";
constexpr std::string_view bus_show_synopsis = "  refnicctl bus show [[dev] DEV]\n";
constexpr std::string_view stats_show_synopsis = "  refnicctl stats show [-s] [[dev] DEV]\n";
constexpr std::string_view fault_set_synopsis =
    "  refnicctl fault set [dev] DEV TYPE queue Q (rate PERCENT | count N)\n";
constexpr std::string_view fault_clear_synopsis =
    "  refnicctl fault clear [dev] DEV TYPE queue Q\n";
constexpr std::string_view fault_show_synopsis = "  refnicctl fault show [[dev] DEV]\n";
constexpr std::string_view monitor_synopsis = "  refnicctl [-j] monitor\n";
constexpr std::string_view top_synopsis =
    "  refnicctl [-j] top [[dev] DEV] [interval SECONDS] [count N | once]\n";
constexpr std::string_view ring_show_synopsis =
    "  refnicctl [-j] ring show [dev] DEV [queue] Q [svg FILE]\n";

constexpr std::string_view dev_add_text = R"(
dev add creates a pair: port NAME and its peer (the kernel picks refnic%d names when not
given), each in the current namespace unless netns/peer-netns says otherwise. NS is a name
under /var/run/netns (ip netns add) or a path such as /proc/PID/ns/net. queues: 1 to 16; rings:
powers of two from 64 to 4096 (4k is 4096). It prints the new port as dev show does, without
tcp-data-split.
)";
constexpr std::string_view dev_del_text = R"(
dev del deletes the pair DEV belongs to, both ports.
)";
constexpr std::string_view dev_set_text = R"(
dev set changes DEV's ring settings through ethtool netlink, as ethtool -G does:
  tcp-data-split  header/data split of received TCP: on, off, or auto (the driver's default,
                  off on refnic). A port with a dmabuf bound to an RX queue needs it on:
                  turning it off fails (EBUSY) with the kernel's reason.
)";
constexpr std::string_view dev_show_text = R"(
dev show lists refnic ports (one, or all in the current namespace), with ethtool's
tcp-data-split (on, off, or unknown when the driver does not say):
  5: r0: peer r1 (ifindex 6) card 0 port 0 queues 4 rx-ring 1024 tx-ring 1024 tcp-data-split off
    link carrier on rate unlimited latency 0us loss 0%
    bus read-ns 0 no cap node none remote-ns 0
The bus line is the card's bus model (bus show adds its counters).
)";
constexpr std::string_view dev_json_text = R"(
JSON (-j): dev show prints an array (also with DEV), dev add one object, of
  {"ifindex": 5, "ifname": "r0", "peer_ifindex": 6, "peer_ifname": "r1", "peer_netnsid": 0,
   "queues": 4, "rx_ring": 1024, "tx_ring": 1024, "card": 0, "port": 0,
   "link": {"carrier": true, "rate_bps": 0, "latency_ns": 0, "loss_ppm": 0},
   "bus": {"read_ns": 0, "gen": 0, "lanes": 8, "node": -1, "remote_ns": 0, ...as bus show},
   "tcp_data_split": "off"}
Members the kernel did not report are left out: peer_netnsid when both share a namespace;
bus from a module without the bus model; tcp_data_split always from dev add, and from dev show
when the port went away before ethtool was asked.
)";
constexpr std::string_view link_set_text = R"(
The link model of a port: the wire leaving it. What link set leaves out keeps its value.
  RATE     egress limit: 25gbit, 100mbit, 1.5gbit, 1000000 (bit/s), kbit/mbit/gbit/tbit,
           kibit/mibit/gibit/tibit, and as in tc bps/kbps/mbps/gbps (bytes/s); 0 is unlimited
  TIME     one-way delay: 20us, 1ms, 1.5ms, 1s (a plain number is us); at most 10s
  PERCENT  frames lost at random: 0.1%, 250ppm (a plain number is percent); 1 ppm resolution
  carrier  the port's PHY sees a signal; the link is up when both ends do
)";
constexpr std::string_view link_show_text = R"(
link show prints one line per port:
  5: r0: carrier on rate 25gbit latency 20us loss 0.1%
JSON (-j): an array of {"ifindex": 5, "ifname": "r0", "link": {"carrier": true,
  "rate_bps": 25000000000, "latency_ns": 20000, "loss_ppm": 1000}}.
)";
constexpr std::string_view bus_set_text = R"(
The host bus (PCIe) cost model of DEV's card, shared by its two ports: what register reads, DMA
bandwidth and crossing NUMA nodes cost. Off (it costs and counts nothing) while read-ns, gen and
remote-ns are 0. What bus set leaves out keeps its value; both ports' monitors see link-changed.
It needs CAP_NET_ADMIN in the initial user namespace (root on the host) whatever module parameter
allow_userns says.
  read-ns    round trip of a register read, which the reading CPU waits for: 0 to 100000 ns
  gen        PCIe generation whose bandwidth, with lanes, caps the card's DMA: 3, 4 or 5; 0 no cap
  lanes      link width of that cap: 1, 2, 4, 8 or 16
  node       NUMA node the card hangs off, an online one; none for no node
  remote-ns  cost of crossing to another node than the card's, added to each register read by a
             CPU of another node and to each DMA transaction to its memory: 0 to 100000 ns
)";
constexpr std::string_view bus_show_text = R"(
bus show prints the bus model of each port's card, then its counters (since the card was plugged
in, counted while the model is on): register reads, those by a CPU of another node, the CPU time
they were charged, the time the CPUs actually waited in them by the kernel's clock (at least the
charged time), register writes (posted: free), DMA transactions (TLPs), bytes on the link,
transactions to another node's memory, their link time, and TX waits for bandwidth:
  5: r0: read-ns 1000 gen4 x8 node 0 remote-ns 200
    reads 10 remote-reads 2 read-charged-ns 10400 read-waited-ns 10512 writes 40
    dma-tlps 1000 dma-bytes 280000 dma-remote-tlps 0 dma-charged-ns 12000 dma-throttled 0
gen and lanes read as "gen4 x8", or "no cap" with gen 0; node as "none" without one. "bus"
alone is "bus show".
JSON (-j): an array of {"ifindex": 5, "ifname": "r0", "bus": {"read_ns": 1000, "gen": 4,
  "lanes": 8, "node": 0, "remote_ns": 200, "reads": 10, "remote_reads": 2,
  "read_charged_ns": 10400, "read_waited_ns": 10512, "writes": 40, "dma_tlps": 1000,
  "dma_bytes": 280000, "dma_remote_tlps": 0, "dma_charged_ns": 12000, "dma_throttled": 0}};
  gen 0 is no cap, node -1 none.
)";
constexpr std::string_view stats_show_text = R"(
The device model's counters of a port (of every port without DEV) since its card was created:
the port's register file, link drops, and a table with one row per queue (rx and tx of each
queue pair): frames, doorbells, descriptors fetched and written, drops for lack of a posted
buffer, interrupts raised. -s adds every other counter: MMIO reads and writes, completion
queue doorbells, DMA bytes read and written, drops on a full completion queue, engine busy
time, and masked or moderated interrupt events. "stats" alone is "stats show".

JSON (-j): an array (also with DEV) of
  {"ifindex": 5, "ifname": "r0", "mmio_reads": 0, "mmio_writes": 0, "mmio_bad": 0,
   "resets": 0, "link_drop_loss": 0, "link_drop_down": 0,
   "queue_stats": [{"type": "rx", "queue": 0, "mmio_reads": 0, "mmio_writes": 0,
               "doorbells": 0, "cq_doorbells": 0, "desc_fetched": 0, "desc_written": 0,
               "frames": 0, "dma_read_bytes": 0, "dma_write_bytes": 0, "drop_nobuf": 0,
               "drop_cq_full": 0, "busy_ns": 0, "irq_raised": 0, "irq_masked": 0,
               "irq_moderated": 0}, ...]}
JSON always carries every counter; ifname is left out for a port without a name here.
)";
constexpr std::string_view fault_set_text = R"(
Fault injection in the device model, per queue (pair) Q (0 to 15). TYPE is one of:
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
fault set arms it: rate on that share of events (5%, 100ppm) until cleared; count on the next
N events. fault clear disarms it.
)";
constexpr std::string_view fault_show_text = R"(
fault show prints the faults armed or taken, one per line ("disarmed" once cleared or once its
count ran out, while the kernel still lists it):
  5: r0: queue 1 stall-txq rate 5% injected 3
JSON (-j): an array of {"ifindex": 5, "ifname": "r0", "type": "stall-txq", "queue": 1,
  "rate_ppm": 50000, "injected": 3} ("count": N instead of rate_ppm when armed by count).
)";
constexpr std::string_view monitor_text = R"(
Prints the refnic family's notifications as they come, one line each, until interrupted:
  dev-added 5: r0: peer r1 (ifindex 6) card 0 port 0 queues 4 rx-ring 1024 tx-ring 1024 ...
  dev-deleted 5: r0: ...
  link-changed 5: r0: carrier off rate 25gbit latency 20us loss 0%
  fault 5: r0: queue 1 stall-txq rate 5% injected 4
JSON (-j): one object per line (JSON Lines; -p indents each), {"event": "dev-added"|
  "dev-deleted"|"link-changed", "dev": {...as dev show...}} or {"event": "fault", "fault":
  {...as fault show...}}.
If the kernel drops notifications because they were not read in time, a warning goes to
stderr and monitoring goes on.
)";

constexpr std::string_view top_text = R"(
Every interval (SECONDS: 1 by default, 0.1 to 3600; 500ms works too), one frame of what each
refnic port in this namespace (or DEV) did since the last, per queue pair
(refnicctl top interval 2; "refnicctl top 2" is the port with ifindex 2):
  rx-pps rx-bps tx-pps tx-bps  packets and bits per second the stack received and sent (qstats)
  irq/s poll/s                 interrupts and NAPI polls (ethtool -S qN_irqs, qN_polls)
  pkt/pl                       RX packets per NAPI poll (polls that only clean TX count too)
  db/pkt                       doorbells (RX tail, RX completion head, TX tail) per packet
  nobuf/s                      frames the device dropped for want of a posted buffer
  rx-dev rx-reap tx-dev tx-reap
                               of each ring (debugfs): descriptors the device owns (rung, not
                               consumed yet) and those it is done with, waiting for the driver
  pp-inflight                  pages the queue's page pools have out (netdev page-pool-get)
  devmem                       a dmabuf is bound to the RX queue
  bypass                       a kernel-bypass session holds the queue pair (debugfs)
"-" is a value not known: the first frame of a queue, or a source that needs root (debugfs,
page pools); `ip netns exec` hides debugfs (it mounts the namespace's sysfs). On a terminal
each frame replaces the last; count N stops after N frames, once after one (for scripts).
JSON (-j): one object per frame and line, {"interval_ns": ..., "ports": [{"ifindex": 5,
"ifname": "r0", "queues": [{"queue": 0, "rx_pps": 812.5, "rx_bps": ..., "tx_pps", "tx_bps",
"irqs_per_s", "polls_per_s", "packets_per_poll", "doorbells_per_packet", "drop_nobuf_per_s"
(null when unknown), "rx_posted", "tx_inflight" (RX buffers posted, TX descriptors not yet
reclaimed), "rx_device", "rx_to_reap", "tx_device", "tx_to_reap", "pp_inflight" (left out when
unknown),
"devmem": false, "bypass": false}]}]}.
)";

constexpr std::string_view ring_show_text = R"(
ring show draws queue pair Q's TX and RX descriptor rings from the indices the driver's debugfs
prints (/sys/kernel/debug/refnic/drv-BUS/ring_tx and ring_rx: root only, and `ip netns exec`
hides debugfs; nsenter --net keeps it): clean, the driver's next to reap; head, the device's
HEAD register (what it has consumed); doorbell, the last tail written to the device; tail, the
driver's next to fill. Then the descriptors of each owner counted, and one character a
descriptor, 64 to a line:
  c  consumed by the device, not reaped by the driver yet
  D  the device's: handed over by a doorbell, not consumed yet
  w  written by the driver, its doorbell not rung yet (TX batches doorbells: xmit_more)
  .  free, the driver's
The indices are read one after another while the queue runs: a gap that comes out negative
(the device commits HEAD after writing back) counts as none. svg FILE also draws the rings into
FILE (an SVG picture: one square a descriptor, the indices outlined). "ring DEV Q" is
"ring show DEV Q".
JSON (-j): {"ifname": "r0", "queue": 0, "source": "debugfs ...", "rings": [{"type": "tx",
  "size": 1024, "clean": ..., "head": ..., "doorbell": ..., "tail": ..., "consumed": 2,
  "device": 5, "unrung": 0, "free": 1017, "owner": "..D.."}, {"type": "rx", ...}]}.
)";

std::string usage(std::initializer_list<std::string_view> synopses) {
    std::string text = "Usage:\n";
    for (const std::string_view synopsis : synopses) {
        text += synopsis;
    }
    return text;
}

std::string join(std::initializer_list<std::string_view> parts) {
    std::string text;
    for (const std::string_view part : parts) {
        text += part;
    }
    return text;
}

}  // namespace

std::string help_text(std::string_view topic) {
    std::string text;
    if (topic == "dev") {
        text = usage({dev_add_synopsis, dev_del_synopsis, dev_set_synopsis, dev_show_synopsis}) +
               join({dev_add_text, dev_del_text, dev_set_text, dev_show_text, dev_json_text});
    } else if (topic == "dev add") {
        text = usage({dev_add_synopsis}) + join({dev_add_text, dev_json_text});
    } else if (topic == "dev del") {
        text = usage({dev_del_synopsis}) + std::string(dev_del_text);
    } else if (topic == "dev set") {
        text = usage({dev_set_synopsis}) + std::string(dev_set_text);
    } else if (topic == "dev show") {
        text = usage({dev_show_synopsis}) + join({dev_show_text, dev_json_text});
    } else if (topic == "link") {
        text =
            usage({link_set_synopsis, link_show_synopsis}) + join({link_set_text, link_show_text});
    } else if (topic == "link set") {
        text = usage({link_set_synopsis}) + std::string(link_set_text);
    } else if (topic == "link show") {
        text = usage({link_show_synopsis}) + std::string(link_show_text);
    } else if (topic == "bus") {
        text = usage({bus_set_synopsis, bus_show_synopsis}) + join({bus_set_text, bus_show_text});
    } else if (topic == "bus set") {
        text = usage({bus_set_synopsis}) + std::string(bus_set_text);
    } else if (topic == "bus show") {
        text = usage({bus_show_synopsis}) + std::string(bus_show_text);
    } else if (topic == "stats" || topic == "stats show") {
        text = usage({stats_show_synopsis}) + std::string(stats_show_text);
    } else if (topic == "fault") {
        text = usage({fault_set_synopsis, fault_clear_synopsis, fault_show_synopsis}) +
               join({fault_set_text, fault_show_text});
    } else if (topic == "fault set" || topic == "fault clear") {
        text = usage({topic == "fault set" ? fault_set_synopsis : fault_clear_synopsis}) +
               std::string(fault_set_text);
    } else if (topic == "fault show") {
        text = usage({fault_show_synopsis}) + std::string(fault_show_text);
    } else if (topic == "monitor") {
        text = usage({monitor_synopsis}) + std::string(monitor_text);
    } else if (topic == "top") {
        text = usage({top_synopsis}) + std::string(top_text);
    } else if (topic == "ring" || topic == "ring show") {
        text = usage({ring_show_synopsis}) + std::string(ring_show_text);
    } else {
        text =
            "refnicctl - control refnic device pairs and their device model\n\n"
            "Usage: refnicctl [OPTIONS] OBJECT [VERB [ARGUMENTS]]\n"
            "       refnicctl [OPTIONS] help [OBJECT [VERB]]\n\n" +
            join({dev_add_synopsis, dev_del_synopsis, dev_set_synopsis, dev_show_synopsis,
                  link_set_synopsis, link_show_synopsis, bus_set_synopsis, bus_show_synopsis,
                  stats_show_synopsis, fault_set_synopsis, fault_clear_synopsis,
                  fault_show_synopsis, monitor_synopsis, top_synopsis, ring_show_synopsis}) +
            "\nAn object without a verb is its show (refnicctl stats is refnicctl stats show).\n"
            "refnicctl OBJECT --help explains each object, with its JSON output.\n";
    }
    return text + std::string(common_help);
}

}  // namespace refnic::refnicctl
