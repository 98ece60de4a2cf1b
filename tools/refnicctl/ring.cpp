// SPDX-License-Identifier: GPL-2.0-only
// refnicctl ring show (ring.hpp).
#include "ring.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <map>
#include <sstream>
#include <stdexcept>
#include <system_error>

namespace refnic::refnicctl {

namespace {

constexpr std::uint32_t per_line = 64;

std::uint32_t number(std::string_view word, std::string_view what) {
    std::uint32_t value = 0;
    const auto [end, error] = std::from_chars(word.data(), word.data() + word.size(), value);
    if (error != std::errc() || end != word.data() + word.size()) {
        throw std::runtime_error("bad " + std::string(what) + " \"" + std::string(word) + "\"");
    }
    return value;
}

std::vector<std::string_view> words_of(std::string_view line) {
    std::vector<std::string_view> words;
    std::size_t at = 0;
    while (at < line.size()) {
        const std::size_t start = line.find_first_not_of(' ', at);
        if (start == std::string_view::npos) {
            break;
        }
        const std::size_t end = std::min(line.find(' ', start), line.size());
        words.push_back(line.substr(start, end - start));
        at = end;
    }
    return words;
}

// "queue tx 0 size 256 clean 1 head 2 doorbell 3 tail 4"
Ring parse_queue_line(std::string_view line) {
    const std::vector<std::string_view> words = words_of(line);
    if (words.size() != 13 || words[0] != "queue" || (words[1] != "tx" && words[1] != "rx")) {
        throw std::runtime_error("bad ring line \"" + std::string(line) + "\"");
    }
    Ring ring;
    ring.direction = std::string(words[1]);
    ring.queue = number(words[2], "queue");
    std::map<std::string_view, std::uint32_t*> fields{{"size", &ring.size},
                                                      {"clean", &ring.clean},
                                                      {"head", &ring.head},
                                                      {"doorbell", &ring.doorbell},
                                                      {"tail", &ring.tail}};
    for (std::size_t i = 3; i + 1 < words.size(); i += 2) {
        const auto field = fields.find(words[i]);
        if (field == fields.end()) {
            throw std::runtime_error("bad ring field \"" + std::string(words[i]) + "\"");
        }
        *field->second = number(words[i + 1], words[i]);
        fields.erase(field);
    }
    if (!fields.empty()) {
        throw std::runtime_error("ring line without \"" + std::string(fields.begin()->first) +
                                 "\"");
    }
    return ring;
}

std::string indices_text(const Ring& ring) {
    return "clean " + std::to_string(ring.clean) + "  head " + std::to_string(ring.head) +
           "  doorbell " + std::to_string(ring.doorbell) + "  tail " + std::to_string(ring.tail);
}

// Where free-running index `index` sits in the ring.
std::uint32_t slot(const Ring& ring, std::uint32_t index) { return index & (ring.size - 1); }

std::string escape_xml(std::string_view text) {
    std::string out;
    for (const char c : text) {
        switch (c) {
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '&':
                out += "&amp;";
                break;
            case '"':
                out += "&quot;";
                break;
            default:
                out += c;
        }
    }
    return out;
}

struct OwnerStyle {
    char owner;
    std::string_view colour;
    std::string_view meaning;
};

constexpr std::array<OwnerStyle, 4> owner_styles{{
    {'c', "#e6a23c", "consumed by the device, not reaped yet"},
    {'D', "#409eff", "the device's: rung, not consumed yet"},
    {'w', "#a0cfff", "written, no doorbell yet"},
    {'.', "#ebeef5", "free (the driver's)"},
}};

}  // namespace

RingDump parse_ring_dump(std::string_view text) {
    RingDump dump;
    std::istringstream lines{std::string(text)};
    std::string line;
    // "NAME: N queue pairs"
    if (!std::getline(lines, line)) {
        throw std::runtime_error("empty ring dump");
    }
    const std::vector<std::string_view> header = words_of(line);
    if (header.size() != 4 || header[0].size() < 2 || header[0].back() != ':' ||
        header[2] != "queue" || header[3] != "pairs") {
        throw std::runtime_error("bad ring dump header \"" + line + "\"");
    }
    dump.port = std::string(header[0].substr(0, header[0].size() - 1));
    dump.queues = number(header[1], "queue count");
    while (std::getline(lines, line)) {
        Ring ring = parse_queue_line(line);
        if (ring.size == 0 || (ring.size & (ring.size - 1)) != 0) {
            throw std::runtime_error("bad size of " + ring.direction + " queue " +
                                     std::to_string(ring.queue));
        }
        if (std::any_of(dump.rings.begin(), dump.rings.end(),
                        [&](const Ring& r) { return r.queue == ring.queue; }) ||
            (!dump.rings.empty() && dump.rings.front().direction != ring.direction)) {
            throw std::runtime_error("ring dump lists " + ring.direction + " queue " +
                                     std::to_string(ring.queue) + " twice or with another kind");
        }
        dump.rings.push_back(std::move(ring));
    }
    return dump;
}

OwnerCounts count_owners(const Ring& ring) {
    // The gap from `clean` to `to`, 0 when `to` is behind it, at most `most`.
    const auto gap = [&](std::uint32_t to, std::uint32_t most) {
        const auto ahead = static_cast<std::int32_t>(to - ring.clean);
        return ahead > 0 ? std::min(static_cast<std::uint32_t>(ahead), most) : 0U;
    };
    const std::uint32_t used = gap(ring.tail, ring.size);
    const std::uint32_t rung = gap(ring.doorbell, used);
    const std::uint32_t done = gap(ring.head, rung);
    return OwnerCounts{done, rung - done, used - rung, ring.size - used};
}

std::string ring_owners(const Ring& ring) {
    const OwnerCounts counts = count_owners(ring);
    std::string owners(ring.size, '.');
    const std::uint32_t mask = ring.size - 1;
    std::uint32_t index = ring.clean;
    for (const auto& [owner, n] : {std::pair{'c', counts.consumed}, std::pair{'D', counts.device},
                                   std::pair{'w', counts.unrung}}) {
        for (std::uint32_t i = 0; i < n; ++i, ++index) {
            owners[index & mask] = owner;
        }
    }
    return owners;
}

std::string ring_text(const std::string& port, std::uint32_t queue, const std::string& source,
                      const std::vector<Ring>& rings) {
    std::ostringstream out;
    out << port << " queue " << queue << " (" << source << ")\n";
    for (const Ring& ring : rings) {
        const OwnerCounts counts = count_owners(ring);
        const std::string owners = ring_owners(ring);
        out << ring.direction << ": " << ring.size << " descriptors  " << indices_text(ring)
            << "\n    c " << counts.consumed << " consumed, not reaped  D " << counts.device
            << " the device's  w " << counts.unrung << " no doorbell yet  . " << counts.free
            << " free\n";
        for (std::uint32_t first = 0; first < ring.size; first += per_line) {
            out << "    " << std::setw(5) << first << " " << owners.substr(first, per_line) << "\n";
        }
        out << "    (slots: clean " << slot(ring, ring.clean) << ", head " << slot(ring, ring.head)
            << ", doorbell " << slot(ring, ring.doorbell) << ", tail " << slot(ring, ring.tail)
            << ")\n";
    }
    return out.str();
}

tool_cli::Json ring_json(const std::string& port, std::uint32_t queue, const std::string& source,
                         const std::vector<Ring>& rings) {
    tool_cli::Json out = {{"ifname", port}, {"queue", queue}, {"source", source}};
    tool_cli::Json array = tool_cli::Json::array();
    for (const Ring& ring : rings) {
        const OwnerCounts counts = count_owners(ring);
        array.push_back({{"type", ring.direction},
                         {"size", ring.size},
                         {"clean", ring.clean},
                         {"head", ring.head},
                         {"doorbell", ring.doorbell},
                         {"tail", ring.tail},
                         {"consumed", counts.consumed},
                         {"device", counts.device},
                         {"unrung", counts.unrung},
                         {"free", counts.free},
                         {"owner", ring_owners(ring)}});
    }
    out["rings"] = std::move(array);
    return out;
}

std::string ring_svg(const std::string& port, std::uint32_t queue, const std::string& source,
                     const std::vector<Ring>& rings) {
    constexpr int cell = 12;
    constexpr int margin = 16;
    constexpr int label = 48;
    constexpr int title = 40;
    constexpr int gap = 40;
    const int width = margin * 2 + label + static_cast<int>(per_line) * cell;
    int height = title;
    for (const Ring& ring : rings) {
        height += gap + static_cast<int>((ring.size + per_line - 1) / per_line) * cell;
    }
    height += margin + static_cast<int>(owner_styles.size()) * 18;

    std::ostringstream svg;
    svg << "<svg xmlns='http://www.w3.org/2000/svg' width='" << width << "' height='" << height
        << "' font-family='sans-serif' font-size='12'>\n"
        << "<rect width='100%' height='100%' fill='white'/>\n"
        << "<text x='" << margin << "' y='20' font-size='14'>"
        << escape_xml(port + " queue " + std::to_string(queue) + " (" + source + ")")
        << "</text>\n";
    int y = title;
    for (const Ring& ring : rings) {
        svg << "<text x='" << margin << "' y='" << y + 22 << "'>"
            << escape_xml(ring.direction + ": " + std::to_string(ring.size) + " descriptors, " +
                          indices_text(ring))
            << "</text>\n";
        y += gap;
        const std::string owners = ring_owners(ring);
        for (std::uint32_t i = 0; i < ring.size; ++i) {
            const auto* const style =
                std::find_if(owner_styles.begin(), owner_styles.end(),
                             [&](const OwnerStyle& s) { return s.owner == owners[i]; });
            const int x = margin + label + static_cast<int>(i % per_line) * cell;
            const int row = y + static_cast<int>(i / per_line) * cell;
            svg << "<rect x='" << x << "' y='" << row << "' width='" << cell - 1 << "' height='"
                << cell - 1 << "' fill='" << (style == owner_styles.end() ? "black" : style->colour)
                << "'/>\n";
            if (i % per_line == 0) {
                svg << "<text x='" << margin << "' y='" << row + cell - 2 << "'>" << i
                    << "</text>\n";
            }
        }
        // The indices, as outlines on their slots.
        const std::array<std::pair<std::string_view, std::uint32_t>, 4> marks{
            {{"clean", ring.clean},
             {"head", ring.head},
             {"doorbell", ring.doorbell},
             {"tail", ring.tail}}};
        for (const auto& [name, index] : marks) {
            const std::uint32_t at = slot(ring, index);
            svg << "<rect x='" << margin + label + static_cast<int>(at % per_line) * cell << "' y='"
                << y + static_cast<int>(at / per_line) * cell << "' width='" << cell - 1
                << "' height='" << cell - 1
                << "' fill='none' stroke='black' stroke-width='2'><title>" << name << " " << index
                << "</title></rect>\n";
        }
        y += static_cast<int>((ring.size + per_line - 1) / per_line) * cell;
    }
    y += margin;
    for (const OwnerStyle& style : owner_styles) {
        svg << "<rect x='" << margin << "' y='" << y << "' width='" << cell - 1 << "' height='"
            << cell - 1 << "' fill='" << style.colour << "'/>\n"
            << "<text x='" << margin + cell + 6 << "' y='" << y + cell - 2 << "'>" << style.owner
            << "  " << escape_xml(std::string(style.meaning)) << "</text>\n";
        y += 18;
    }
    svg << "</svg>\n";
    return svg.str();
}

RingDump read_ring_dump(const std::string& bus, const std::string& name,
                        const std::string& direction) {
    const std::string path = "/sys/kernel/debug/refnic/drv-" + bus + "/ring_" + direction;
    std::ifstream file(path);
    if (!file) {
        const int error = errno;
        throw std::runtime_error("cannot read " + path + ": " + std::strerror(error) +
                                 " (root only, with debugfs mounted at /sys/kernel/debug, "
                                 "which ip netns exec hides; and a module with ring dumps)");
    }
    std::ostringstream text;
    text << file.rdbuf();
    RingDump dump;
    try {
        dump = parse_ring_dump(text.str());
    } catch (const std::runtime_error& error) {
        throw std::runtime_error(path + ": " + error.what());
    }
    if (dump.port != name) {
        std::string message = path;
        message += " is " + dump.port + "'s, not " + name;
        message += "'s (debugfs of another namespace?)";
        throw std::runtime_error(message);
    }
    return dump;
}

std::vector<Ring> read_rings(const std::string& bus, const std::string& name, std::uint32_t queue,
                             std::string& source) {
    std::vector<Ring> rings;
    for (const char* direction : {"tx", "rx"}) {
        RingDump dump = read_ring_dump(bus, name, direction);
        if (queue >= dump.queues) {
            throw std::runtime_error("queue " + std::to_string(queue) + " out of range: " + name +
                                     " has " + std::to_string(dump.queues) + " queue pairs");
        }
        const auto found = std::find_if(dump.rings.begin(), dump.rings.end(),
                                        [&](const Ring& r) { return r.queue == queue; });
        if (found == dump.rings.end()) {
            throw std::runtime_error(std::string(direction) + " queue " + std::to_string(queue) +
                                     " of " + name +
                                     " has no ring (the port down, or a bypass session on it)");
        }
        rings.push_back(std::move(*found));
    }
    source = "debugfs /sys/kernel/debug/refnic/drv-" + bus + "/ring_{tx,rx}";
    return rings;
}

}  // namespace refnic::refnicctl
