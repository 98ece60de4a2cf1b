/* SPDX-License-Identifier: LGPL-2.1-only OR BSD-2-Clause */
// File descriptors owned by librefnic's callers: a move-only RAII holder, and network namespaces
// opened by name (as `ip netns` creates them) or by path.
#pragma once

#include <refnic/export.hpp>

#include <string_view>
#include <utility>

namespace refnic {

// Owns one file descriptor and closes it on destruction; -1 is "none".
class REFNIC_EXPORT UniqueFd {
public:
    UniqueFd() noexcept = default;
    explicit UniqueFd(int fd) noexcept : fd_(fd) {}
    UniqueFd(const UniqueFd&) = delete;
    UniqueFd& operator=(const UniqueFd&) = delete;
    UniqueFd(UniqueFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
    UniqueFd& operator=(UniqueFd&& other) noexcept;
    ~UniqueFd();

    [[nodiscard]] int get() const noexcept { return fd_; }
    [[nodiscard]] explicit operator bool() const noexcept { return fd_ >= 0; }
    // Gives up ownership without closing.
    [[nodiscard]] int release() noexcept { return std::exchange(fd_, -1); }
    void reset(int fd = -1) noexcept;

private:
    int fd_ = -1;
};

// Opens a network namespace for dev_new(): NAME means /var/run/netns/NAME (`ip netns add NAME`);
// anything with a '/' is a path (e.g. /proc/1234/ns/net). Throws Error with the errno of open(2),
// or Error(EINVAL) when the file is not a network namespace.
[[nodiscard]] REFNIC_EXPORT UniqueFd open_netns(std::string_view name_or_path);

}  // namespace refnic
