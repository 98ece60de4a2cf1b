/* SPDX-License-Identifier: LGPL-2.1-only OR BSD-2-Clause */
// Small vocabulary types shared by the refnic and netdev family APIs.
#pragma once

#include <cstdint>
#include <string_view>

namespace refnic {

// Which queue of a queue pair: the same numbering in the refnic family (REFNIC_QUEUE_TYPE_*)
// and the kernel's netdev family (NETDEV_QUEUE_TYPE_*).
enum class QueueType : std::uint32_t {
    rx = 0,
    tx = 1,
};

// "rx", "tx", or "unknown" for values a newer kernel might add.
[[nodiscard]] constexpr std::string_view to_string(QueueType type) noexcept {
    switch (type) {
        case QueueType::rx:
            return "rx";
        case QueueType::tx:
            return "tx";
    }
    return "unknown";
}

}  // namespace refnic
